"""Feed parsing for the site spiders: RSS 0.9x/1.0/2.0 and Atom through feedparser.

feedparser always gets the downloaded bytes (never a URL, so it never fetches
anything itself); the response URL is passed as ``Content-Location`` so that relative
entry links resolve against it.  No Scrapy imports.

Hostile feeds (README, "Reliability"):

- A document that declares XML entities (billion laughs, external entities/XXE) is
  refused before feedparser sees it: defusedxml's SAX reader stops at the first
  ``<!ENTITY`` declaration, so nothing is expanded or resolved.  (feedparser 6.0.14
  alone resolves no external entity, but its expat parser expands internal ones up to
  expat's amplification limit: seconds of CPU per bomb.)
- At most ``max_entries`` entries are read: the document is cut after that many
  ``</item>``/``</entry>`` end tags (feedparser's lenient parser reads the cut document),
  so a feed of 100,000 entries costs what a feed of ``max_entries`` costs.
- A numeric character reference to a code point XML does not allow (a surrogate such as
  ``&#55357;``, ``&#0;``, a control character, anything past U+10FFFF) becomes U+FFFD
  before parsing, each reference on its own as the HTML standard's tokenizer does
  (§13.2.5.80), so a surrogate pair written as two references gives two U+FFFD.
  feedparser would otherwise fail on the whole feed for one such character.
"""

from __future__ import annotations

import calendar
import re
import xml.sax
from dataclasses import dataclass
from datetime import UTC, datetime
from itertools import islice

import feedparser
from defusedxml import DefusedXmlException
from defusedxml.sax import parseString as defused_parse
from lxml import html

from ..extract.dom import normalize_space
from ..extract.fields.dates import parse_date

DEFAULT_MAX_ENTRIES = 1000
_ENTRY_END_RE = re.compile(rb"</(?:[\w.-]+:)?(?:item|entry)\s*>", re.IGNORECASE)
# Matched on the raw bytes: in UTF-8 and in the legacy multi-byte encodings feeds use (GBK,
# Big5, Shift_JIS) "&", "#", digits and ";" never occur inside a multi-byte character.
# A CDATA section (to its end, or to the end of the document: linear time) is text, not
# references, and is kept as it is.
_CHAR_REF_RE = re.compile(rb"<!\[CDATA\[.*?(?:\]\]>|\Z)|&#(?:[xX]([0-9a-fA-F]+)|([0-9]+));", re.DOTALL)
_REPLACEMENT_REF = b"&#xFFFD;"


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
    capped: bool = False  # the feed had more than ``max_entries`` entries; the rest were not read


def parse_feed(
    body: bytes, url: str, content_type: str | None = None, max_entries: int = DEFAULT_MAX_ENTRIES
) -> ParsedFeed:
    """Entries of an RSS or Atom document held in ``body`` (at most ``max_entries``)."""
    forbidden = declared_entities(body)
    if forbidden:
        return ParsedFeed([], f"refused: the document declares XML entities ({forbidden})")
    end = next(islice(_ENTRY_END_RE.finditer(body), max_entries - 1, None), None) if max_entries > 0 else None
    capped = end is not None and _ENTRY_END_RE.search(body, end.end()) is not None
    if capped:
        body = body[: end.end()]
    body = _CHAR_REF_RE.sub(_valid_char_ref, body)
    headers = {"content-location": url}
    if content_type:
        headers["content-type"] = content_type
    try:
        parsed = feedparser.parse(body, response_headers=headers)
    except Exception as exc:  # noqa: BLE001 - feedparser has bugs on hostile bytes (found by fuzz/run.py)
        return ParsedFeed([], f"unreadable feed ({type(exc).__name__}: {exc})")
    entries = [_entry(e) for e in parsed.entries[:max_entries]]
    error = None
    if not entries:
        bozo = parsed.get("bozo_exception")
        error = f"not a feed ({type(bozo).__name__}: {bozo})" if parsed.get("bozo") else "feed has no entries"
    return ParsedFeed(entries, error, capped)


def _valid_char_ref(match: re.Match[bytes]) -> bytes:
    """A character reference unchanged when it names a character XML 1.0 allows (§2.2
    ``Char``), else a reference to U+FFFD; a CDATA section unchanged."""
    hex_digits, digits = match.groups()
    number = hex_digits or digits
    if number is None:  # CDATA
        return match.group(0)
    if len(number.lstrip(b"0")) > 8:  # past U+10FFFF however it is written
        return _REPLACEMENT_REF
    code = int(number, 16 if hex_digits else 10)
    if code in (0x9, 0xA, 0xD) or 0x20 <= code <= 0xD7FF or 0xE000 <= code <= 0xFFFD:
        return match.group(0)
    if 0x10000 <= code <= 0x10FFFF:
        return match.group(0)
    return _REPLACEMENT_REF


def declared_entities(body: bytes) -> str | None:
    """The first entity declaration in ``body``, as defusedxml reports it, if there is one.

    Every XXE needs an entity declaration, so this also stops external entities.  A
    DOCTYPE naming an external DTD (old RSS 0.91 feeds) is allowed: no parser here
    fetches it (external parameter entities are off in Python's expat reader).
    Malformed XML is not this check's business: feedparser's lenient parser, which
    expands no declared entity, reads it.
    """
    try:
        defused_parse(
            body, xml.sax.ContentHandler(), forbid_dtd=False, forbid_entities=True, forbid_external=False
        )
    except DefusedXmlException as exc:
        return repr(exc)
    except (xml.sax.SAXException, ValueError, LookupError):
        return None
    return None


def _entry(entry) -> FeedEntry:
    link = entry.get("link")
    if not isinstance(link, str) or not link:
        # A feed can put anything under "links" (a stray <links> element makes it a string).
        links = entry.get("links")
        candidates = links if isinstance(links, list) else []
        link = next(
            (lk["href"] for lk in candidates if isinstance(lk, dict) and isinstance(lk.get("href"), str)),
            None,
        )
    return FeedEntry(
        link=link.strip() if link else None,
        title=normalize_space(entry.get("title")) or None,
        summary=plain_text(entry.get("summary")),
        published=_published(entry),
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


def _published(entry) -> str | None:
    """The entry's publication (else update) time, ISO 8601 in the offset the feed wrote.

    feedparser's ``*_parsed`` is normalised to UTC; the raw string keeps the source's offset
    ("Thu, 19 Nov 2026 07:45:00 -0500" stays -05:00), used when it denotes the same instant.
    """
    for key in ("published", "updated"):
        parsed = entry.get(f"{key}_parsed")
        if not parsed:
            continue
        utc = _iso(parsed)
        written = parse_date(entry.get(key)) if isinstance(entry.get(key), str) else None
        if isinstance(written, datetime) and utc and written == datetime.fromisoformat(utc):
            return written.isoformat()
        return utc
    return None


def _iso(parsed) -> str | None:
    """feedparser's UTC ``struct_time`` as ISO 8601 with offset."""
    if not parsed:
        return None
    try:
        return datetime.fromtimestamp(calendar.timegm(parsed), UTC).isoformat()
    except (OverflowError, ValueError, TypeError):
        return None
