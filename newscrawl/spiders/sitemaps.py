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
  the limit at most the protocol's 50 MB, and a body that is neither gzip nor XML-looking
  refused.  A gzip body is first measured 64 KiB at a time without keeping the output, so a
  gzip bomb is refused having held 64 KiB of it, not 50 MB (the output is kept on a second
  pass only when it fits).
- :func:`parse_sitemap` reads the entries with :class:`scrapy.utils.sitemap.Sitemap`
  (lxml's ``iterparse`` with recovery, no entity resolution, no network, elements freed as
  read; a declared entity is never expanded, see :func:`parse_sitemap`),
  extended by :class:`NewsSitemap` to keep the nested ``<news:news>`` fields, and stops
  after ``max_urls`` entries (the protocol's 50,000 by default), so a sitemap of a billion
  entries costs what one of 50,000 costs.

No Scrapy spider or crawler imports: the spider (:mod:`.site`) decides what to fetch.
"""

from __future__ import annotations

import re
import struct
import xml.parsers.expat
import zlib
from dataclasses import dataclass
from datetime import UTC, datetime
from gzip import GzipFile
from io import BytesIO
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
_CHUNK = 64 * 1024  # bytes of decompressed output held at a time while a gzip sitemap is measured
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
    entities: tuple[str, ...] = ()  # the XML entities the document declares (never expanded)
    entity_locs: int = 0  # entries whose <loc> needs an entity: not read
    stopped: str | None = None  # the XML error that ended the reading before the document's end


def sitemap_body(body: bytes, max_size: int = MAX_BYTES) -> bytes:
    """The XML of a downloaded sitemap: gunzipped when it is a gzip file (``.xml.gz`` served as
    such; a ``Content-Encoding: gzip`` body was already decompressed by Scrapy's
    HttpCompressionMiddleware), at most ``max_size`` bytes either way.

    Raises :class:`SitemapError` (``too_large``, ``invalid``).
    """
    max_size = min(max_size, MAX_BYTES) if max_size > 0 else MAX_BYTES
    if body[:3] == _GZIP_MAGIC:
        try:
            if _gunzips_past(body, max_size):
                raise _DecompressionMaxSizeExceeded(max_size + 1, max_size)
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


def _gunzips_past(body: bytes, max_size: int) -> bool:
    """Does gzip ``body`` decompress to more than ``max_size`` bytes?  Counted 64 KiB at a time
    and thrown away, so a bomb is refused having held 64 KiB of its output, not ``max_size``
    (a crawl reads several sitemaps at once, each in its own thread).  Broken data ends the
    count: :func:`scrapy.utils.gz.gunzip` then decides what it gives."""
    size = 0
    with GzipFile(fileobj=BytesIO(body)) as stream:
        try:
            while chunk := stream.read1(_CHUNK):
                size += len(chunk)
                if size > max_size:
                    return True
        except (OSError, EOFError, struct.error, zlib.error):
            pass
    return False


class NewsSitemap(Sitemap):
    """Scrapy's :class:`~scrapy.utils.sitemap.Sitemap` keeping the fields of a nested
    ``<news:news>`` element as ``news_title`` and ``news_publication_date`` (Scrapy's reads
    only the direct children of an entry), and marking an entry whose ``<loc>`` holds an
    entity reference (Scrapy's would read the text before the reference as the URL)."""

    __slots__ = ()

    def _process_sitemap_element(self, elem: lxml.etree._Element) -> dict[str, Any] | None:
        news = {}
        for child in elem:
            name = self._get_tag_name(child)
            if name == "loc" and any(isinstance(node, lxml.etree._Entity) for node in child):
                child.clear()
                return {"loc_entity": True}
            if name == "news":
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

    **Entities.**  A sitemap has no use for XML entities, and expanding them is how a billion
    laughs or an external entity (XXE) gets in; they are never expanded nor fetched.  A
    document that declares some (:func:`entity_declarations`, Python's expat reading the
    prolog only) is read with its document type declaration replaced by one declaring the
    same general entities as empty text, which libxml2 keeps as references: the other entries
    are read, and an entry whose ``<loc>`` uses an entity is counted (``entity_locs``), not
    read.  (Declared, not left out: after an undeclared reference, libxml2's recovery drops
    the ``&amp;`` of the URLs that follow.)  Without this,
    libxml2 checks a declared entity's replacement text at its first use and stops the whole
    document there when it amplifies (a billion laughs): the entries before it, none after.
    Where expat cannot read the prolog (an encoding it lacks), the document is read as it is.

    Raises :class:`SitemapError` (``invalid``) for a document that is neither.
    """
    entities, doctype = entity_declarations(body)
    if doctype is not None:  # the same names, declared empty: nothing to amplify, fetch or expand
        start, end, root = doctype
        general = "".join(f'<!ENTITY {name} "">' for name in entities if not name.startswith("%"))
        body = body[:start] + f"<!DOCTYPE {root} [{general}]>".encode() + body[end:]
    try:
        sitemap = NewsSitemap(body)
    except (lxml.etree.LxmlError, StopIteration) as exc:
        raise SitemapError("invalid", f"unreadable XML ({type(exc).__name__})") from None
    if sitemap.type not in ("urlset", "sitemapindex"):
        raise SitemapError("invalid", f"root element <{sitemap.type}>, not <urlset> or <sitemapindex>")
    if not entities:  # expat could not tell: what libxml2 read of the document type declaration
        dtd = getattr(sitemap.xmliter, "root", None)
        dtd = dtd.getroottree().docinfo.internalDTD if dtd is not None else None
        entities = tuple(entity.name for entity in dtd.iterentities()) if dtd is not None else ()
    entries: list[SitemapEntry] = []
    entity_locs = 0
    stopped = None
    rows = iter(sitemap)
    capped = False
    try:
        for row in islice(rows, max_urls):
            if row.get("loc_entity"):
                entity_locs += 1
                continue
            entry = _entry(row)
            if entry is not None:
                entries.append(entry)
        capped = next(rows, None) is not None
    except lxml.etree.LxmlError as exc:  # recover=True reads on past most errors; a fatal one ends it here
        stopped = " ".join(str(exc).split())[:200] or type(exc).__name__
    return ParsedSitemap(sitemap.type, entries, capped, entities, entity_locs, stopped)


class _Prolog(Exception):  # noqa: N818 - ends expat's reading at the root element
    pass


def entity_declarations(body: bytes) -> tuple[tuple[str, ...], tuple[int, int, str] | None]:
    """The entities the document type declaration of ``body`` declares (parameter entities
    with a ``%``), and that declaration's byte range and root element name (None when it
    declares none, or expat cannot read the prolog).

    Python's expat reads the prolog only (it stops at the root element), with parameter
    entities off and no handler for external ones, so nothing is fetched, and nothing is
    expanded but what expat's own amplification limit (expat 2.4+) bounds."""
    parser = xml.parsers.expat.ParserCreate()
    parser.SetParamEntityParsing(xml.parsers.expat.XML_PARAM_ENTITY_PARSING_NEVER)
    names: list[str] = []
    root: list[str] = []
    where: dict[str, int] = {}

    def doctype_start(name: str, *_args: Any) -> None:
        where["start"] = parser.CurrentByteIndex
        root.append(name)

    def doctype_end() -> None:
        where["end"] = parser.CurrentByteIndex
        raise _Prolog

    def entity(name: str, is_parameter: bool, *_args: Any) -> None:
        names.append(f"%{name}" if is_parameter else name)

    def element(*_args: Any) -> None:
        raise _Prolog

    parser.StartDoctypeDeclHandler = doctype_start
    parser.EndDoctypeDeclHandler = doctype_end
    parser.EntityDeclHandler = entity
    parser.StartElementHandler = element
    try:
        parser.Parse(body, True)
    except _Prolog:
        pass
    except (xml.parsers.expat.ExpatError, ValueError, RecursionError):
        return tuple(names), None
    if not names or "end" not in where:
        return tuple(names), None
    start = body.rfind(b"<!DOCTYPE", 0, where.get("start", 0) + 1)
    end = body.find(b">", where["end"])
    if start < 0 or end < 0 or not root:
        return tuple(names), None
    return tuple(names), (start, end + 1, root[0])


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
