"""The structured article every extraction method produces."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import date, datetime


@dataclass(frozen=True)
class Link:
    """An editorial link found inside the article body."""

    text: str
    url: str


@dataclass
class Article:
    """One article page turned into fields.

    ``text`` holds the body with one paragraph a line; ``published`` is a
    timezone-aware ``datetime`` in the offset the source gave when the source gives a
    time of day, a ``date`` when it gives only the day, or ``None``; ``authors`` lists
    the credited authors: people, and agencies credited for wire copy, never the site itself
    (empty when unknown); ``method`` names the method that produced
    the body (``cevc``, ``decay``, ...; ``auto`` reports the method it settled on).
    """

    url: str | None = None
    title: str | None = None
    text: str = ""
    published: datetime | date | None = None
    authors: list[str] = field(default_factory=list)
    links: list[Link] = field(default_factory=list)
    language: str | None = None
    method: str = ""
    description: str | None = None
    # The rich record (newscrawl.extract.record): the body's structure and the declared metadata.
    markdown: str = ""  # the body as CommonMark with GFM tables
    html: str = ""  # the body as sanitised HTML (allow-listed tags, absolute http(s)/mailto URLs)
    images: list[dict] = field(default_factory=list)  # {"url", "caption", "alt", "credit"} in body order
    image: str | None = None  # the main image: declared, else the body's first
    lead: str | None = None  # the standfirst
    tags: list[str] = field(default_factory=list)
    keywords: list[str] = field(default_factory=list)  # the declared <meta name=keywords>
    section: str | None = None
    canonical_url: str | None = None
    modified: datetime | date | None = None
    site_name: str | None = None
    paywalled: bool = False
    entries: list[dict] = field(default_factory=list)  # a live blog's {"time", "title", "text", "url"}
    word_count: int = 0
    capped: dict[str, int] = field(default_factory=dict, repr=False)  # parts over a cap (not exported)

    @property
    def author(self) -> str | None:
        """The former single-string field, read-only: ``authors`` joined with ", " (None when empty)."""
        return ", ".join(self.authors) or None

    def to_dict(self) -> dict:
        """A JSON-ready dict: ``published`` in ISO 8601 (``2026-11-20T06:55:00-08:00``, or
        ``2026-11-20`` for a day), ``authors`` a list."""
        data = asdict(self)
        data.pop("capped")
        data["published"] = self.published.isoformat() if self.published else None
        data["modified"] = self.modified.isoformat() if self.modified else None
        return data
