"""One page's extraction as the crawl runs it: parse, page type, the site's template, the
article fields.  Shared by the extract stage (:mod:`.stages`) and the extraction workers
(:mod:`.pool`), which run exactly this function, so both give the same outcome."""

from __future__ import annotations

import logging
import time

from newscrawl.run.drops import Dropped

from ..dedup import page_canonical
from ..extract import ExtractionError, Page, extract_page, page_kind
from ..extract.body_check import not_the_article, unrelated
from ..extract.collector import collector_paused
from ..extract.fields.authors import find_authors
from ..extract.fields.dates import find_published
from ..extract.fields.entries import coverage_end
from ..extract.page_type import ARTICLE, WALLS
from .shared_body import MANY_TITLES, RETRY_METHODS, Body, SharedBodies, clash_detail
from .templates import CrawlTemplates

logger = logging.getLogger(__name__)
EXTRACT_STATS = "newscrawl/extract/"
_STATS_NAME = {"shared_body": "shared_body", "boilerplate": "boilerplate_body"}

# ExtractionError.reason -> drop reason
_EXTRACTION_REASONS = {"empty": "empty_body", "binary": "binary", "too-large": "too_large",
                       "too-deep": "too_deep", "unparseable": "unparseable"}

# Long enough for every lazy load (py3langid's model needs a paragraph of text: ~1 s).
_WARM_UP_PAGE = ("<html><head><title>Warm-up</title></head><body><article><h1>The warm-up page</h1>"
                 + "<p>This page is extracted once when extraction starts, so that the library loads its "
                   "models and word lists before the first article arrives from the crawl.</p>" * 3
                 + "</article></body></html>")


def warm_up(method: str) -> None:
    """Load the library's models and word lists now, not while downloads are in flight, nor
    inside the first page's time limit (the page-type model among them).

    dateparser's every-locale set-up (:func:`newscrawl.extract.fields.dates.warm_up`, ~1.5 s of
    CPU) is left to the first page whose date only a language-less dateparser call reads: most
    crawls never make one, and each extraction worker would pay it as it starts."""
    try:
        extract_page(Page.from_html(_WARM_UP_PAGE, url="http://localhost/"), method=method)
        page_kind(Page.from_html(_WARM_UP_PAGE, url="http://localhost/"))
    except Exception:  # noqa: BLE001 - a failing warm-up shows again on the first real page
        logger.debug("Extraction warm-up failed", exc_info=True)


@collector_paused
def extract_fields(templates: CrawlTemplates, method: str, *, site: str, body: bytes, url: str,
                   content_type: str | None, listing_title: str | None, feed_entry: dict,
                   bodies: SharedBodies | None = None) -> dict:
    """One page's article fields: parse, apply the site's template library, extract.

    Raises :class:`Dropped` with the reason when the page holds no article.  Runs in the
    crawl process or in an extraction worker (:mod:`.pool`), with the same outcome.
    ``bodies``: the run's :class:`SharedBodies`, which tells a failed extraction (the body of
    a page with another title) from an article; the fields then carry the text's fingerprint.
    """
    started = time.perf_counter()
    fingerprint = None
    try:
        page = Page.from_html(body, url=url, content_type=content_type)
        if page.encoding_repaired:
            templates.crawler.stats.inc_value(f"newscrawl/extract/encoding_repaired/{page.encoding_repaired}")
            logger.info("Repaired double-encoded text (%s, read as windows-1252 once too often) on %s",
                        page.encoding_repaired, url)
        # before the template library cleans the tree: as the library sees a page
        kind, probability = _page_type(page)
        # A site's date line and byline repeat from page to page, so its template library learns them
        # as noise: read them before it cleans the tree, or a page's date would depend on crawl order.
        published, authors = find_published(page, feed_entry), find_authors(page)
        templates.apply(site, page)
        templates.titles.apply(site, page)  # the site's title decoration, learned as pages arrive
        article = extract_page(page, listing_title=listing_title, feed_entry=feed_entry, method=method,
                               published=published, authors=authors)
        if bodies is not None:
            article, fingerprint = _the_article(
                bodies, templates, method, article, site=site, body=body, url=url, content_type=content_type,
                listing_title=listing_title, feed_entry=feed_entry, published=published, authors=authors)
        kind, probability = _with_embedded_article(kind, probability, article.method)
    except Dropped:
        raise
    except ExtractionError as exc:
        raise Dropped(_EXTRACTION_REASONS.get(exc.reason, "extraction_error"), str(exc), url) from None
    except Exception as exc:  # a library bug must cost one article, not the crawl
        logger.debug("Extraction failed on %s", url, exc_info=True)
        raise Dropped("extraction_error", f"{type(exc).__name__}: {exc}", url) from None
    fields = {
        "extraction_seconds": time.perf_counter() - started,
        "title": article.title,
        "text": article.text or "",
        "published": article.published.isoformat() if article.published else None,
        "authors": list(article.authors),
        "links": [{"text": link.text, "url": link.url} for link in article.links],
        "language": article.language,
        "method": article.method or method,
        "page_type": kind,
        "page_type_probability": probability,
        "canonical": page_canonical(page.root, url),
        "coverage_end": (end.isoformat() if (end := coverage_end(page)) else None),
        **rich_fields(article),
    }
    if fingerprint is not None:
        fields["fingerprint"] = fingerprint
    return fields


def rich_fields(article) -> dict:
    """The rich record's fields of ``article`` as the item holds them (dates in ISO 8601)."""
    return {
        "description": article.description,
        "lead": article.lead,
        "image": article.image,
        "images": [dict(image) for image in article.images],
        "tags": list(article.tags),
        "keywords": list(article.keywords),
        "section": article.section,
        "canonical_url": article.canonical_url,
        "modified": article.modified.isoformat() if article.modified else None,
        "site_name": article.site_name,
        "paywalled": article.paywalled,
        "word_count": article.word_count,
        "entries": [dict(entry) for entry in article.entries],
        "markdown": article.markdown,
        "html": article.html,
        "capped": dict(article.capped),
    }


_BOILERPLATE = "boilerplate (legal notices, licence lines, code) that is not about its title"


def _failure(bodies: SharedBodies, site: str, body: Body, title: str | None,
             lang: str | None) -> tuple[str, str, str | None] | None:
    """``(reason, what, the earlier page)`` when ``body`` is not the page's article:
    boilerplate by the page's own evidence (:func:`~newscrawl.extract.body_check.not_the_article`),
    or a body extracted before from pages with other titles (:mod:`.shared_body`), under
    :data:`MANY_TITLES` of them or under one that it is as unrelated to as to this page's title.
    ``("copy", ...)``: the body of a page with one other title that it is related to (a copy
    under a new headline, perhaps)."""
    if not_the_article(title, body.text, lang):
        return "boilerplate", _BOILERPLATE, None
    clash = bodies.clash(site, body, title)
    if clash is None:
        return None
    what = clash_detail(clash)
    if clash.count >= MANY_TITLES or (unrelated(title, body.text, lang)
                                      and all(unrelated(other, body.text, lang) for other in clash.titles)):
        return "shared_body", what, clash.url
    return "copy", what, clash.url


def _the_article(bodies: SharedBodies, templates: CrawlTemplates, method: str, article, *, site: str,
                body: bytes, url: str, content_type: str | None, listing_title: str | None,
                feed_entry: dict, published, authors):
    """``(article, its text's stored fingerprint)``: the article, or when its body is not the
    article (:func:`_failure`), the first body that is, extracted again from the raw bytes without
    the template and with the other methods (:data:`RETRY_METHODS`).  When none is, raises
    ``Dropped`` (``extraction_failed/boilerplate`` or ``extraction_failed/shared_body``).  A copy
    under a new headline goes on as it is, to the content dedup."""
    found = Body.of(article.text or "")
    failure = _failure(bodies, site, found, article.title or listing_title, article.language)
    if failure is None:
        bodies.add(site, url, found, article.title or listing_title)
        return article, found.stored
    reason, what, earlier = failure
    if reason == "copy":  # a copy under a new headline: the content dedup decides.  (Extracted
        # again, its new headline would come with its text, and the copy pass for an article.)
        bodies.add(site, url, found, article.title or listing_title)
        return article, found.stored
    stats = templates.crawler.stats
    for retry_method in dict.fromkeys((method, *RETRY_METHODS)):
        page = Page.from_html(body, url=url, content_type=content_type)
        retried = extract_page(page, listing_title=listing_title, feed_entry=feed_entry,
                               method=retry_method, published=published, authors=authors)
        candidate, title = Body.of(retried.text or ""), retried.title or listing_title
        if candidate.digest != found.digest and candidate.text.strip() \
                and _failure(bodies, site, candidate, title, retried.language) is None \
                and not (reason == "shared_body" and unrelated(title, candidate.text, retried.language)):
            stats.inc_value(f"{EXTRACT_STATS}{_STATS_NAME[reason]}_recovered")
            logger.info("%s: extraction gave %s; extracted again with %s (no template)",
                        url, what, retry_method)
            bodies.add(site, url, candidate, title)
            return retried, candidate.stored
    stats.inc_value(f"{EXTRACT_STATS}{_STATS_NAME[reason]}_unrecovered")
    suspect = f" (the text exported for {earlier} is suspect too)" if earlier else ""
    logger.warning("%s: extraction gives %s: a failed extraction%s, not an article nor a duplicate; "
                   "dropped", url, what, suspect)
    raise Dropped(f"extraction_failed/{reason}", what, url)


def _with_embedded_article(kind: str, probability: float | None,
                           method: str | None) -> tuple[str, float | None]:
    """An app shell's DOM shows no article (a header link, an empty mount point: a page of links
    to the page type), but a body read from the page's own data (``method = "embedded"``) is its
    article: the kind is ``article`` then, unless the page is an error page or a wall."""
    if method == "embedded" and kind not in (ARTICLE, "error", *WALLS):
        return ARTICLE, None
    return kind, probability


def _page_type(page: Page) -> tuple[str, float | None]:
    """The page's kind and its probability; ``article`` when the classification itself fails
    (keep, not lose)."""
    try:
        return page_kind(page)
    except Exception:  # noqa: BLE001 - a classifier bug must not cost the article
        logger.debug("Page type of %s failed", page.url, exc_info=True)
        return "article", None
