"""The mapper: one WARC page in, one article row or one counted skip out.

This is the contract of the engines people run over archives (cc-pyspark's ``process_record``,
datatrove's per-document step): a function of one record alone, with a time budget, so that any
engine can run it over any partition of the records.  No Scrapy here: the job (:mod:`.job`) and
the command are the layers around it.

The extraction is the crawl's own, by construction: :func:`map_page` calls
:func:`newscrawl.pipelines.extraction.extract_fields` (parse, page type, date and authors, the
extraction method) and applies the checks the crawl's pipeline applies after it — only article
pages (``not_article/<kind>``, ``consent_wall``, ``login_wall``: the page-type filter), some text
(``no_text``), a title (the listing's title standing in: ``no_title``).  What the crawl does
*across* pages is not done per record: the per-site template library and near-duplicate bodies
(docs/archives.md, "State across records", says what that costs and how to run the dedup pass over
a job's output).

A row has the crawl's export fields (:data:`newscrawl.items.EXPORT_FIELDS`, in that order, each
cleaned as the crawl's exporters clean it; ``page_type`` and ``page_type_probability`` among
them).  A skip is a
:class:`~.warc_reader.Skip` whose reason is the crawl's drop reason: the reader's (``not_html``,
``http_status``, ``not_article``, ``too_large``, ``bad_http``/``unsupported_encoding`` for a body
that cannot be decoded, ``truncated``, ``unreadable``, ...) or the extraction's
(``extraction_timeout`` past the time budget, ``empty_body``, ``unparseable``, ...).
"""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace

from newscrawl.archives.warc_reader import Skip, WarcPage, page_site

from ..items import EXPORT_FIELDS
from .budget import BudgetExceeded, TimeBudget

#: The crawl's own fields of a row (the rest of EXPORT_FIELDS is the rich record, as extracted).
_CRAWL_FIELDS = frozenset({"url", "site", "listing_title", "title", "published", "authors", "text",
                           "links", "language", "method", "feed_title", "feed_summary", "feed_published",
                           "fetched_at", "page_type", "page_type_probability"})
#: Columns of a row: the crawl's export fields.
ROW_FIELDS = EXPORT_FIELDS


@dataclass(frozen=True)
class MapOptions:
    """How pages are mapped: extraction ``method`` (``NEWSCRAWL_METHOD``), ``time_budget`` seconds of
    extraction per record (``NEWSCRAWL_EXTRACT_TIMEOUT``; 0: none), ``min_text_chars``
    (``NEWSCRAWL_MIN_TEXT_CHARS``) and ``page_type_filter`` (``NEWSCRAWL_PAGE_TYPE_FILTER``)."""

    method: str = "auto"
    time_budget: float = 20.0
    min_text_chars: int = 1
    page_type_filter: bool = True


class _Counts:
    """What :func:`extract_fields` counts (repaired encodings, shared bodies), kept per worker."""

    def __init__(self):
        self.values: dict[str, int] = {}

    def inc_value(self, key: str, count: int = 1, start: int = 0) -> None:
        self.values[key] = self.values.get(key, start) + count


class _NoTemplates:
    """The template library's (and the title decoration's) place in :func:`extract_fields`,
    empty: one record knows no site."""

    enabled = False

    def __init__(self):
        self.titles = self
        self.crawler = SimpleNamespace(stats=_Counts())

    def apply(self, site, page) -> int:
        return 0


_NO_TEMPLATES = _NoTemplates()
_extract_fields = None


def _extractor():
    global _extract_fields
    if _extract_fields is None:
        from ..pipelines.extraction import extract_fields

        _extract_fields = extract_fields
    return _extract_fields


def warm_up(method: str = "auto") -> None:
    """Load the extraction's models and word lists (once a process, before the first record)."""
    from ..pipelines.extraction import warm_up as warm

    warm(method)


def map_page(page: WarcPage, options: MapOptions = MapOptions()) -> dict | Skip:  # noqa: B008 - frozen
    """The article row of one decoded page (:func:`~.warc_reader.read_archive`), or why there is none."""
    from ..extract.page_type import drop_reason
    from ..items import clean_export_value

    listing = page.metadata.get("listing") if page.metadata else None
    listing = listing if isinstance(listing, dict) else {}
    site = page_site(page)
    feed_entry = {"title": listing.get("feed_title"), "summary": listing.get("feed_summary"),
                  "published": listing.get("feed_published")}
    try:
        with TimeBudget(options.time_budget):
            fields = _extractor()(
                _NO_TEMPLATES, options.method, site=site, body=page.body, url=page.url,
                content_type=page.content_type, listing_title=listing.get("listing_title"),
                feed_entry={k: v for k, v in feed_entry.items() if v})
    except BudgetExceeded:
        return Skip("extraction_timeout", f"extraction ran past {options.time_budget:g} s", page.url)
    except Exception as exc:  # noqa: BLE001 - the crawl's Dropped: its reason is the skip's
        reason = getattr(exc, "reason", None)
        if not isinstance(reason, str):
            reason = "extraction_error"
        detail = getattr(exc, "detail", None) or f"{type(exc).__name__}: {exc}"
        return Skip(reason, str(detail)[:300], page.url)
    kind = fields.get("page_type")
    if options.page_type_filter and kind and kind != "article":
        return Skip(drop_reason(kind), f"the page is a {kind} page, not an article", page.url)
    text = fields.get("text") or ""
    if len(text.strip()) < options.min_text_chars:
        return Skip("no_text", f"{len(text.strip())} characters of text", page.url)
    title = fields.get("title") or listing.get("listing_title") or listing.get("feed_title")
    if not title:
        return Skip("no_title", "neither the page nor the listing gives a title", page.url)
    row = {
        "url": page.url, "site": site, "listing_title": listing.get("listing_title"), "title": title,
        "published": fields.get("published"), "authors": fields.get("authors") or [], "text": text,
        "links": fields.get("links") or [], "language": fields.get("language"),
        "method": fields.get("method") or options.method, "feed_title": listing.get("feed_title"),
        "feed_summary": listing.get("feed_summary"), "feed_published": listing.get("feed_published"),
        "fetched_at": page.date, "page_type": kind or "article",
        "page_type_probability": fields.get("page_type_probability"),
        **{name: fields.get(name) for name in EXPORT_FIELDS if name not in _CRAWL_FIELDS},
    }
    row["pages"] = row.get("pages") or 1  # each record alone: an archive follows no pager
    return {name: clean_export_value(row[name]) for name in ROW_FIELDS}
