"""The items a crawl produces, as dataclasses with a declared field order.

- :class:`ListingItem` — one article link found on a catalogue page, a feed or a JSON
  list endpoint, with what the listing says about it (external title, feed fields).
- :class:`ArticleItem` — one fetched and extracted article: what is exported.

:data:`EXPORT_FIELDS` is the stable column order of every feed (``FEED_EXPORT_FIELDS``).
The raw page (``body``, ``content_type``) rides on the ArticleItem between the fetch
and extraction stages only and is never exported; dates are ISO 8601 strings with
offset; ``links`` is a list of ``{"text", "url"}`` objects, written to CSV as a JSON
string by :class:`CsvArticleExporter`.
"""

from __future__ import annotations

import json
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
    "author",
    "text",
    "links",
    "language",
    "method",
    "feed_title",
    "feed_summary",
    "feed_published",
    "fetched_at",
)


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
    """A fetched article; the pipeline's extraction stage fills the article fields."""

    url: str
    site: str
    listing_title: str | None = None
    title: str | None = None
    published: str | None = None
    author: str | None = None
    text: str = ""
    links: list[dict[str, str]] = field(default_factory=list)
    language: str | None = None
    method: str | None = None
    feed_title: str | None = None
    feed_summary: str | None = None
    feed_published: str | None = None
    fetched_at: str | None = None
    # Not exported (absent from EXPORT_FIELDS):
    listing_url: str | None = None
    status: int = 200
    content_type: str | None = None
    body: bytes | None = field(default=None, repr=False)
    extraction_seconds: float | None = field(default=None, repr=False)

    @classmethod
    def from_listing(cls, listing: dict[str, Any], **kwargs: Any) -> ArticleItem:
        """An ArticleItem carrying a listing item's fields (``listing`` as a dict)."""
        keep = ("site", "listing_title", "feed_title", "feed_summary", "feed_published")
        fields = {k: listing.get(k) for k in keep}
        fields["listing_url"] = listing.get("url")
        fields.update(kwargs)
        return cls(**fields)


class CsvArticleExporter(CsvItemExporter):
    """CSV with the stable columns; list and dict values (``links``) as JSON strings."""

    def serialize_field(self, field: Any, name: str, value: Any) -> Any:
        if isinstance(value, (list, dict)):
            return json.dumps(value, ensure_ascii=False)
        return super().serialize_field(field, name, value)
