"""The items a crawl produces, as dataclasses with a declared field order.

- :class:`ListingItem` — one article link found on a catalogue page, a feed or a JSON
  list endpoint, with what the listing says about it (external title, feed fields).
- :class:`ArticleItem` — one fetched and extracted article: what is exported.

:data:`EXPORT_FIELDS` is the stable column order of every feed (``FEED_EXPORT_FIELDS``).
The raw page (``body``, ``content_type``) rides on the ArticleItem between the fetch
and extraction stages only and is never exported.  ``published`` is ISO 8601: a date-time with the offset
the source gave (``2026-11-20T06:55:00-08:00``), or a date (``2026-11-20``) when the source
gives only the day.  ``authors`` is a list of person names, written to CSV joined with
:data:`CSV_AUTHORS_SEPARATOR` (``"; "``: a name may hold a comma, "King, Jr." never does once
cleaned, but a separator no name uses keeps the column splittable); ``links`` is a list of
``{"text", "url"}`` objects, written to CSV as a JSON string by :class:`CsvArticleExporter`.
The rich record's ``tags`` and ``keywords`` are written to CSV as ``authors`` is, ``images``
(``{"url", "caption", "alt", "credit"}`` objects) as JSON; ``modified`` is ISO 8601 as ``published``.
``entries`` (a live blog's ``{"time", "title", "text", "url", "new"}`` objects, empty on other pages)
is written to CSV as JSON.
``pages`` is how many pages of a multi-page article the body joins (1 for most); the continuation
pages ride on the item as ``more_pages`` between the spider and the extraction, never exported.
``page_type`` is the page's kind (``article``, or a kind the site's ``accept_kinds`` lets through)
and ``page_type_probability`` the page-type model's probability of it (None for a page whose
JSON-LD declares an article: the model does not run).

Exported text is safe to open: every exported field is serialized through
:func:`clean_export_value` (by all of Scrapy's exporters, through the dataclass field
metadata ``serializer``), which removes control characters other than newline and tab
(an ESC in a title could drive the terminal that prints it); CSV cells that a
spreadsheet would run as a formula are neutralised (:func:`neutralise_formula`).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from scrapy.exporters import CsvItemExporter

EXPORT_FIELDS = (
    "url",
    "site",
    "listing_title",
    "title",
    "published",
    "authors",
    "text",
    "links",
    "language",
    "method",
    "feed_title",
    "feed_summary",
    "feed_published",
    "fetched_at",
    # The rich record (newscrawl.extract.record)
    "description",
    "lead",
    "image",
    "images",
    "tags",
    "keywords",
    "section",
    "canonical_url",
    "modified",
    "site_name",
    "paywalled",
    "word_count",
    "entries",
    "markdown",
    "html",
    "pages",  # how many pages the article's body was joined from (newscrawl.pipelines.pages)
    "page_type",  # the page's kind (newscrawl.extract.page_type): "article" unless the site accepts others
    "page_type_probability",  # the page-type model's probability of that kind
)
# Fields holding the body again, with markup: NEWSCRAWL_EXPORT_MARKDOWN / _HTML leave them out.
BODY_RENDERINGS = {"markdown": "NEWSCRAWL_EXPORT_MARKDOWN", "html": "NEWSCRAWL_EXPORT_HTML"}


CSV_AUTHORS_SEPARATOR = "; "  # joins the ``authors`` list in a CSV cell
CSV_JOINED = ("authors", "tags", "keywords")  # lists of names, joined as ``authors`` is; other lists are JSON

# Control characters (Unicode category Cc: C0, DEL, C1) other than tab and newline.
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def clean_text(text: str) -> str:
    """``text`` without control characters other than newline and tab; CR and CRLF become LF,
    so that in CSV the only ``\\r\\n`` is the one that ends a record."""
    if _CONTROLS.search(text) is None:
        return text
    return _CONTROLS.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))


def clean_export_value(value: Any) -> Any:
    """``value`` with :func:`clean_text` applied to every string in it (lists and dicts too)."""
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, list):
        return [clean_export_value(v) for v in value]
    if isinstance(value, dict):
        return {clean_text(k) if isinstance(k, str) else k: clean_export_value(v) for k, v in value.items()}
    return value


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")  # OWASP "CSV Injection"


def neutralise_formula(cell: str) -> str:
    """A cell a spreadsheet would read as a formula, prefixed with ``'`` so that it stays text.

    OWASP, "CSV Injection" (https://owasp.org/www-community/attacks/CSV_Injection):
    cells starting with ``=``, ``+``, ``-``, ``@``, tab or carriage return.
    """
    return "'" + cell if cell.startswith(FORMULA_STARTS) else cell


def _exported(default: Any = None, **kwargs: Any) -> Any:
    """A dataclass field that every feed exporter serializes through :func:`clean_export_value`."""
    return field(default=default, metadata={"serializer": clean_export_value}, **kwargs)


def now_iso() -> str:
    """The current time, ISO 8601 with UTC offset, second precision."""
    return datetime.now(UTC).replace(microsecond=0).isoformat()


@dataclass
class ListingItem:
    """An article link as a listing page, feed or list endpoint shows it."""

    url: str
    site: str
    listing_title: str | None = None
    source: str = "catalogue"  # catalogue | feed | api
    listing_url: str | None = None
    feed_title: str | None = None
    feed_summary: str | None = None
    feed_published: str | None = None


@dataclass
class ArticleItem:
    """A fetched article; the pipeline's extraction stage fills the article fields.

    The exported fields are cleaned of control characters when exported (:func:`_exported`).
    """

    url: str = field(metadata={"serializer": clean_export_value})
    site: str = field(metadata={"serializer": clean_export_value})
    listing_title: str | None = _exported()
    title: str | None = _exported()
    published: str | None = _exported()
    authors: list[str] = field(default_factory=list, metadata={"serializer": clean_export_value})
    text: str = _exported("")
    links: list[dict[str, str]] = field(default_factory=list, metadata={"serializer": clean_export_value})
    language: str | None = _exported()
    method: str | None = _exported()
    feed_title: str | None = _exported()
    feed_summary: str | None = _exported()
    feed_published: str | None = _exported()
    fetched_at: str | None = _exported()
    description: str | None = _exported()
    lead: str | None = _exported()
    image: str | None = _exported()
    images: list[dict[str, str | None]] = field(default_factory=list,
                                                metadata={"serializer": clean_export_value})
    tags: list[str] = field(default_factory=list, metadata={"serializer": clean_export_value})
    keywords: list[str] = field(default_factory=list, metadata={"serializer": clean_export_value})
    section: str | None = _exported()
    canonical_url: str | None = _exported()
    modified: str | None = _exported()
    site_name: str | None = _exported()
    paywalled: bool | None = None
    word_count: int | None = None
    entries: list[dict[str, Any]] = field(default_factory=list, metadata={"serializer": clean_export_value})
    markdown: str | None = _exported()
    html: str | None = _exported()
    pages: int | None = None
    page_type: str | None = _exported()  # "article" or the kind of page (newscrawl.extract.page_type)
    page_type_probability: float | None = None
    # Not exported (absent from EXPORT_FIELDS):
    listing_url: str | None = None
    status: int = 200
    content_type: str | None = None
    body: bytes | None = field(default=None, repr=False)
    capped: dict[str, int] | None = field(default=None, repr=False)  # rendering caps hit (stats)
    extraction_seconds: float | None = field(default=None, repr=False)
    coverage_end: str | None = None  # a live blog's declared coverageEndTime (ISO 8601)
    canonical: str | None = None  # the page's own <link rel=canonical> / og:url, on the same site
    fingerprint: bytes | None = field(default=None, repr=False)  # text's MinHash from a worker (b"": none)
    more_pages: list[tuple[str, bytes]] | None = field(default=None, repr=False)  # continuation pages, raw
    page_urls: list[str] | None = None  # the URLs of the pages joined, first to last

    @classmethod
    def from_listing(cls, listing: dict[str, Any], **kwargs: Any) -> ArticleItem:
        """An ArticleItem carrying a listing item's fields (``listing`` as a dict)."""
        keep = ("site", "listing_title", "feed_title", "feed_summary", "feed_published")
        fields = {k: listing.get(k) for k in keep}
        fields["listing_url"] = listing.get("url")
        fields.update(kwargs)
        return cls(**fields)


class CsvArticleExporter(CsvItemExporter):
    """CSV with the stable columns; ``authors`` joined with :data:`CSV_AUTHORS_SEPARATOR`, other
    list and dict values (``links``) as JSON strings.

    Safe to open in a spreadsheet: cells are cleaned (:func:`clean_export_value`) and
    formula-like cells neutralised (:func:`neutralise_formula`).  Appending to a file
    that already holds data (``-o``) writes no second header line.
    """

    def __init__(self, file: Any, **kwargs: Any):
        if _holds_data(file):
            kwargs["include_headers_line"] = False
        super().__init__(file, **kwargs)

    def serialize_field(self, field: Any, name: str, value: Any) -> Any:
        value = clean_export_value(value)
        if name in CSV_JOINED and isinstance(value, list):
            value = CSV_AUTHORS_SEPARATOR.join(str(v) for v in value)
        if isinstance(value, (list, dict)):
            value = json.dumps(value, ensure_ascii=False)
        else:
            value = super().serialize_field({}, name, value)
        return neutralise_formula(value) if isinstance(value, str) else value


def _holds_data(file: Any) -> bool:
    """Is ``file`` an open file that already has content (an append to an earlier run's feed)?"""
    try:
        return os.fstat(file.fileno()).st_size > 0
    except (AttributeError, OSError, ValueError):
        return False
