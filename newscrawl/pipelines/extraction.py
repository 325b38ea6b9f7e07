"""One page's extraction as the crawl runs it: parse, page type, the site's template, the
article fields.  Shared by the extract stage (:mod:`.stages`) and the extraction workers
(:mod:`.pool`), which run exactly this function, so both give the same outcome."""

from __future__ import annotations

import logging
import time

from ..dedup import page_canonical
from ..extensions import Dropped
from ..extract import ExtractionError, Page, extract_page, page_type_of
from ..extract.collector import collector_paused
from ..extract.fields.authors import find_authors
from ..extract.fields.dates import find_published
from ..extract.fields.dates import warm_up as warm_up_dates
from .templates import CrawlTemplates

logger = logging.getLogger(__name__)

# ExtractionError.reason -> drop reason
_EXTRACTION_REASONS = {"empty": "empty_body", "binary": "binary", "too-large": "too_large",
                       "too-deep": "too_deep", "unparseable": "unparseable"}

# Long enough for every lazy load (py3langid's model needs a paragraph of text: ~1 s).
_WARM_UP_PAGE = ("<html><head><title>Warm-up</title></head><body><article><h1>The warm-up page</h1>"
                 + "<p>This page is extracted once when extraction starts, so that the library loads its "
                   "models and word lists before the first article arrives from the crawl.</p>" * 3
                 + "</article></body></html>")


def warm_up(method: str) -> None:
    """Load the library's models and word lists now, not while downloads are in flight."""
    try:
        extract_page(Page.from_html(_WARM_UP_PAGE, url="http://localhost/"), method=method)
        warm_up_dates()
    except Exception:  # noqa: BLE001 - a failing warm-up shows again on the first real page
        logger.debug("Extraction warm-up failed", exc_info=True)


@collector_paused
def extract_fields(templates: CrawlTemplates, method: str, *, site: str, body: bytes, url: str,
                   content_type: str | None, listing_title: str | None, feed_entry: dict) -> dict:
    """One page's article fields: parse, apply the site's template library, extract.

    Raises :class:`Dropped` with the reason when the page holds no article.  Runs in the
    crawl process or in an extraction worker (:mod:`.pool`), with the same outcome.
    """
    started = time.perf_counter()
    try:
        page = Page.from_html(body, url=url, content_type=content_type)
        kind = _page_type(page)  # before the template library cleans the tree: as the library sees a page
        # A site's date line and byline repeat from page to page, so its template library learns them
        # as noise: read them before it cleans the tree, or a page's date would depend on crawl order.
        published, authors = find_published(page, feed_entry), find_authors(page)
        templates.apply(site, page)
        article = extract_page(page, listing_title=listing_title, feed_entry=feed_entry, method=method,
                               published=published, authors=authors)
    except ExtractionError as exc:
        raise Dropped(_EXTRACTION_REASONS.get(exc.reason, "extraction_error"), str(exc), url) from None
    except Exception as exc:  # a library bug must cost one article, not the crawl
        logger.debug("Extraction failed on %s", url, exc_info=True)
        raise Dropped("extraction_error", f"{type(exc).__name__}: {exc}", url) from None
    return {
        "extraction_seconds": time.perf_counter() - started,
        "title": article.title,
        "text": article.text or "",
        "published": article.published.isoformat() if article.published else None,
        "authors": list(article.authors),
        "links": [{"text": link.text, "url": link.url} for link in article.links],
        "language": article.language,
        "method": article.method or method,
        "page_type": kind,
        "canonical": page_canonical(page.root, url),
        **rich_fields(article),
    }


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
        "markdown": article.markdown,
        "html": article.html,
        "capped": dict(article.capped),
    }


def _page_type(page: Page) -> str:
    """The page's kind; ``article`` when the classification itself fails (keep, not lose)."""
    try:
        return page_type_of(page)
    except Exception:  # noqa: BLE001 - a classifier bug must not cost the article
        logger.debug("Page type of %s failed", page.url, exc_info=True)
        return "article"
