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

    @property
    def author(self) -> str | None:
        """The former single-string field, read-only: ``authors`` joined with ", " (None when empty)."""
        return ", ".join(self.authors) or None

    def to_dict(self) -> dict:
        """A JSON-ready dict: ``published`` in ISO 8601 (``2026-11-20T06:55:00-08:00``, or
        ``2026-11-20`` for a day), ``authors`` a list."""
        data = asdict(self)
        data["published"] = self.published.isoformat() if self.published else None
        return data
