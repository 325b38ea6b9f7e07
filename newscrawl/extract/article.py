"""The structured article every extraction method produces."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import datetime


@dataclass(frozen=True)
class Link:
    """An editorial link found inside the article body."""

    text: str
    url: str


@dataclass
class Article:
    """One article page turned into fields.

    ``text`` holds the body with one paragraph a line; ``published`` is
    timezone-aware or ``None``; ``method`` names the method that produced the
    body (``cevc``, ``decay``, ...; ``auto`` reports the method it settled on).
    """

    url: str | None = None
    title: str | None = None
    text: str = ""
    published: datetime | None = None
    author: str | None = None
    links: list[Link] = field(default_factory=list)
    language: str | None = None
    method: str = ""
    description: str | None = None

    def to_dict(self) -> dict:
        """A JSON-ready dict: dates in ISO 8601 with offset."""
        data = asdict(self)
        data["published"] = self.published.isoformat() if self.published else None
        return data
