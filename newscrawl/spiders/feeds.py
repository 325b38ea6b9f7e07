"""Feed parsing for the site spiders: RSS 0.9x/1.0/2.0 and Atom through feedparser.

feedparser always gets the downloaded bytes (never a URL, so it never fetches
anything itself); the response URL is passed as ``Content-Location`` so that relative
entry links resolve against it.  No Scrapy imports.
"""

from __future__ import annotations

import calendar
from dataclasses import dataclass
from datetime import UTC, datetime

import feedparser
from lxml import html

from ..extract.dom import normalize_space


@dataclass(frozen=True)
class FeedEntry:
    """One feed entry: the fields a listing item carries."""

    link: str | None
    title: str | None
    summary: str | None
    published: str | None  # ISO 8601 with offset


@dataclass(frozen=True)
class ParsedFeed:
    entries: list[FeedEntry]
    error: str | None  # why nothing could be read, when no entries were found


def parse_feed(body: bytes, url: str, content_type: str | None = None) -> ParsedFeed:
    """Entries of an RSS or Atom document held in ``body``."""
    headers = {"content-location": url}
    if content_type:
        headers["content-type"] = content_type
    parsed = feedparser.parse(body, response_headers=headers)
    entries = [_entry(e) for e in parsed.entries]
    error = None
    if not entries:
        bozo = parsed.get("bozo_exception")
        error = f"not a feed ({type(bozo).__name__}: {bozo})" if parsed.get("bozo") else "feed has no entries"
    return ParsedFeed(entries, error)


def _entry(entry) -> FeedEntry:
    link = entry.get("link")
    if not link:
        link = next((lk.get("href") for lk in entry.get("links", []) if lk.get("href")), None)
    return FeedEntry(
        link=link.strip() if link else None,
        title=normalize_space(entry.get("title")) or None,
        summary=plain_text(entry.get("summary")),
        published=_iso(entry.get("published_parsed") or entry.get("updated_parsed")),
    )


def plain_text(fragment: str | None) -> str | None:
    """The text of a (sanitised) HTML summary."""
    if not fragment or not fragment.strip():
        return None
    try:
        text = html.fragment_fromstring(fragment, create_parent="div").text_content()
    except (ValueError, TypeError):
        text = fragment
    return normalize_space(text) or None


def _iso(parsed) -> str | None:
    """feedparser's UTC ``struct_time`` as ISO 8601 with offset."""
    if not parsed:
        return None
    try:
        return datetime.fromtimestamp(calendar.timegm(parsed), UTC).isoformat()
    except (OverflowError, ValueError, TypeError):
        return None
