"""Sitemap reading for the site spiders: sitemap indexes, ``urlset`` sitemaps, gzip files and
Google News sitemaps, on Scrapy's own sitemap utilities.

The protocol (https://www.sitemaps.org/protocol.html): a ``<urlset>`` lists ``<url>``
entries (``<loc>``, optional ``<lastmod>`` in W3C Datetime); a ``<sitemapindex>`` lists
``<sitemap>`` entries (``<loc>``, ``<lastmod>``) of further sitemaps; a file holds at most
50,000 entries and 50 MB (52,428,800 bytes) uncompressed and may be gzip-compressed.
Google's news extension (https://developers.google.com/search/docs/crawling-indexing/
sitemaps/news-sitemap) adds ``<news:news>`` with ``<news:title>`` and
``<news:publication_date>`` to an entry.

- :func:`sitemap_body` is the decompression step of Scrapy's
  ``SitemapSpider._get_sitemap_body`` (``scrapy.utils.gz.gunzip`` with a size limit), with
  the limit at most the protocol's 50 MB: decompression stops there, so a gzip bomb costs
  50 MB of output at most, and a body that is neither gzip nor XML-looking is refused.
- :func:`parse_sitemap` reads the entries with :class:`scrapy.utils.sitemap.Sitemap`
  (lxml's ``iterparse`` with recovery, no entity resolution, elements freed as read),
  extended by :class:`NewsSitemap` to keep the nested ``<news:news>`` fields, and stops
  after ``max_urls`` entries (the protocol's 50,000 by default), so a sitemap of a billion
  entries costs what one of 50,000 costs.

No Scrapy spider or crawler imports: the spider (:mod:`.site`) decides what to fetch.
"""

from __future__ import annotations

import re
import struct
import zlib
from dataclasses import dataclass
from datetime import UTC, datetime
from itertools import islice
from typing import Any

import lxml.etree
from scrapy.utils._compression import _DecompressionMaxSizeExceeded
from scrapy.utils.gz import gunzip
from scrapy.utils.sitemap import Sitemap

from ..extract.dom import normalize_space

MAX_URLS = 50_000  # entries per sitemap file (sitemaps.org protocol)
MAX_BYTES = 50 * 1024 * 1024  # uncompressed size of a sitemap file (sitemaps.org protocol: 52,428,800 bytes)
_GZIP_MAGIC = b"\x1f\x8b\x08"
_W3C_PARTIAL_RE = re.compile(r"(\d{4})(?:-(\d{2}))?")  # W3C Datetime's year and year-month forms
_MAX_DATE_CHARS = 64


class SitemapError(ValueError):
    """A sitemap that cannot be read; ``reason`` is the drop reason suffix (``too_large``, ``invalid``)."""

    def __init__(self, reason: str, detail: str):
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail


@dataclass(frozen=True)
class SitemapEntry:
    """One ``<url>`` or ``<sitemap>`` entry."""

    loc: str
    lastmod: datetime | None = None
    news_title: str | None = None
    news_published: datetime | None = None

    @property
    def date(self) -> datetime | None:
        """The date that says how old the entry is: the news publication date, else ``lastmod``."""
        return self.news_published or self.lastmod


@dataclass(frozen=True)
class ParsedSitemap:
    kind: str  # "urlset" or "sitemapindex"
    entries: list[SitemapEntry]
    capped: bool = False  # more than ``max_urls`` entries: the rest were not read


def sitemap_body(body: bytes, max_size: int = MAX_BYTES) -> bytes:
    """The XML of a downloaded sitemap: gunzipped when it is a gzip file (``.xml.gz`` served as
    such; a ``Content-Encoding: gzip`` body was already decompressed by Scrapy's
    HttpCompressionMiddleware), at most ``max_size`` bytes either way.

    Raises :class:`SitemapError` (``too_large``, ``invalid``).
    """
    max_size = min(max_size, MAX_BYTES) if max_size > 0 else MAX_BYTES
    if body[:3] == _GZIP_MAGIC:
        try:
            body = gunzip(body, max_size=max_size)
        except _DecompressionMaxSizeExceeded:
            raise SitemapError("too_large", f"more than {max_size} bytes once decompressed") from None
        except (OSError, EOFError, struct.error, zlib.error) as exc:
            raise SitemapError("invalid", f"broken gzip data ({type(exc).__name__})") from None
    elif len(body) > max_size:
        raise SitemapError("too_large", f"{len(body)} bytes, more than {max_size}")
    if not body.lstrip()[:1] == b"<":
        raise SitemapError("invalid", "not XML")
    return body


class NewsSitemap(Sitemap):
    """Scrapy's :class:`~scrapy.utils.sitemap.Sitemap` keeping the fields of a nested
    ``<news:news>`` element as ``news_title`` and ``news_publication_date`` (Scrapy's reads
    only the direct children of an entry)."""

    __slots__ = ()

    def _process_sitemap_element(self, elem: lxml.etree._Element) -> dict[str, Any] | None:
        news = {}
        for child in elem:
            if self._get_tag_name(child) == "news":
                for field in child.iter():
                    name = self._get_tag_name(field)
                    if name in ("title", "publication_date") and field.text:
                        news[f"news_{name}"] = field.text.strip()
        entry = super()._process_sitemap_element(elem)
        if entry is not None:
            entry.update(news)
        return entry


def parse_sitemap(body: bytes, max_urls: int = MAX_URLS) -> ParsedSitemap:
    """The entries of a sitemap or sitemap index (at most ``max_urls``).

    Raises :class:`SitemapError` (``invalid``) for a document that is neither.
    """
    try:
        sitemap = NewsSitemap(body)
    except (lxml.etree.LxmlError, StopIteration) as exc:
        raise SitemapError("invalid", f"unreadable XML ({type(exc).__name__})") from None
    if sitemap.type not in ("urlset", "sitemapindex"):
        raise SitemapError("invalid", f"root element <{sitemap.type}>, not <urlset> or <sitemapindex>")
    entries: list[SitemapEntry] = []
    rows = iter(sitemap)
    try:
        for row in islice(rows, max_urls):
            entry = _entry(row)
            if entry is not None:
                entries.append(entry)
        capped = next(rows, None) is not None
    except lxml.etree.LxmlError:  # recover=True reads on past most errors; a fatal one ends the file here
        capped = False
    return ParsedSitemap(sitemap.type, entries, capped)


def read_sitemap(body: bytes, max_urls: int = MAX_URLS) -> ParsedSitemap:
    """:func:`sitemap_body` then :func:`parse_sitemap`: a downloaded sitemap's entries.  Touches
    nothing shared, so it may run in a thread off the crawl's reactor."""
    return parse_sitemap(sitemap_body(body), max_urls)


def _entry(row: dict[str, Any]) -> SitemapEntry | None:
    loc = row.get("loc")
    if not loc:
        return None
    title = normalize_space(row.get("news_title")) or None
    return SitemapEntry(loc=loc, lastmod=parse_w3c_datetime(row.get("lastmod")), news_title=title,
                        news_published=parse_w3c_datetime(row.get("news_publication_date")))


def parse_w3c_datetime(text: str | None) -> datetime | None:
    """A W3C Datetime (https://www.w3.org/TR/NOTE-datetime: ``YYYY``, ``YYYY-MM``, ``YYYY-MM-DD``,
    with ``Thh:mm[:ss[.s]]TZD``) as an aware datetime; UTC when no offset is given; None when
    unreadable."""
    if not text:
        return None
    text = text.strip()
    if not text or len(text) > _MAX_DATE_CHARS:
        return None
    try:
        value = datetime.fromisoformat(text)
    except ValueError:
        partial = _W3C_PARTIAL_RE.fullmatch(text)
        if partial is None:
            return None
        try:
            value = datetime(int(partial.group(1)), int(partial.group(2) or 1), 1)
        except ValueError:
            return None
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)
