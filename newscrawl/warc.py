"""WARC in and out: record a crawl's HTTP traffic, read article pages back from WARC archives.

WARC is the web archive format (ISO 28500; WARC 1.1,
https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/), read and
written here with warcio.  Common Crawl's news archive (CC-NEWS) is a set of such files.

**Recording** (:class:`WarcRecorder`, a downloader middleware, on with ``-s NEWSCRAWL_WARC=PATH``).
Every response the crawl downloads (robots.txt, catalogue pages, feeds, list endpoints, detail
pages, redirects and error pages) is written with its request:

- a ``response`` record (WARC 1.1 §6.3) holding the HTTP status line, headers and body, a
  ``request`` record (§6.4) with ``WARC-Concurrent-To`` naming it, and for an article page a
  ``metadata`` record (§6.5, ``application/json``) with what the listing said about it (the
  site, listing title and feed fields), so that extraction from the archive exports the same
  fields as the crawl did;
- **the body as the server sent it**: the middleware sits at 950, before Scrapy's
  HttpCompressionMiddleware (590) decompresses, so a gzip/deflate/br body is stored compressed
  with its ``Content-Encoding`` header, as sent.  Twisted has already undone chunked transfer
  coding, so ``Transfer-Encoding`` is stored as ``X-Crawler-Transfer-Encoding`` and
  ``Content-Length`` states the stored length (a differing original is kept as
  ``X-Crawler-Content-Length``): Common Crawl's convention, so any WARC reader replays the
  record as stored;
- each record is its own gzip member and a response's records go to the file in one write,
  flushed at once: a killed crawl leaves at most a cut last member, which readers (this one
  included) skip;
- files rotate once they reach ``NEWSCRAWL_WARC_MAX_SIZE`` bytes (default 1 GB; 0: never),
  each starting with a ``warcinfo`` record (§6.2) naming the software, the spider and a
  summary of the settings.

``NEWSCRAWL_WARC`` is a directory (files ``<spider>-<UTC time>-<pid>-<serial>.warc.gz`` in it)
or a file name ending in ``.warc.gz`` (its rotations are ``<name>-00001.warc.gz``, ...).  An
existing file is never appended to or overwritten: the next free serial is used.  A write that
fails (disk full) stops the recording with an error line and ``newscrawl/warc/write_failed``;
the crawl goes on.

**Reading** (:func:`read_archive`): the response records of one archive, decoded (chunked
transfer coding and every content coding the crawl accepts undone by :mod:`newscrawl.codings`,
the crawl's own decoder; the ``Content-Type`` charset kept for the decoder), as
:class:`WarcPage` objects, and a :class:`Skip` with a reason for every record that is not an
HTML page worth extracting or cannot be read: ``not_warc``, ``truncated`` (a record cut short,
a ``WARC-Truncated`` record, a body shorter than its HTTP ``Content-Length`` or whose coding
ends before its end mark),
``too_large`` (judged by the record's length before anything is read), ``revisit``,
``http_status``, ``not_html``, ``bad_http``, ``unsupported_encoding``, ``not_article``,
``unreadable`` (the rest of a damaged file; a path that is not a regular file, opened
without waiting, so a named pipe never blocks).  In a plain ``.warc`` each record is checked
to end where its ``Content-Length`` says: one cut short, or claiming more than the file holds,
is a ``truncated`` skip and reading resumes at the ``WARC/1.x`` header inside its block.
No record is held beyond the size limit, so memory does not grow with the archive.  The
``warc`` spider (:mod:`newscrawl.spiders.warc`) feeds the pages to the crawl's own pipelines.
"""

from __future__ import annotations

import gzip
import io
import json
import logging
import os
import re
import socket
import stat
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import lru_cache
from http import HTTPStatus
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from scrapy import signals
from scrapy.exceptions import NotConfigured

from . import codings

logger = logging.getLogger(__name__)

DEFAULT_MAX_SIZE = 1_000_000_000
SUFFIX = ".warc.gz"
STATS = "newscrawl/warc/"
METADATA_TYPE = "application/json"
#: Settings named in every file's warcinfo record, when set.
SUMMARY_SETTINGS = ("USER_AGENT", "ROBOTSTXT_OBEY", "CONCURRENT_REQUESTS", "CONCURRENT_REQUESTS_PER_DOMAIN",
                    "DOWNLOAD_DELAY", "AUTOTHROTTLE_ENABLED", "DOWNLOAD_MAXSIZE", "NEWSCRAWL_METHOD",
                    "NEWSCRAWL_DISTRIBUTED")
_HOP_HEADERS = {b"transfer-encoding": "X-Crawler-Transfer-Encoding"}


def _version(package: str) -> str:
    try:
        return version(package)
    except PackageNotFoundError:
        pass
    if package == "newscrawl":  # run from a checkout, not installed: the project file says
        import tomllib

        try:
            project = Path(__file__).resolve().parents[1] / "pyproject.toml"
            return tomllib.loads(project.read_text(encoding="utf-8"))["project"]["version"]
        except (OSError, ValueError, KeyError):
            pass
    return "unknown"


def software() -> str:
    """The warcinfo ``software`` field: newscrawl and the libraries that wrote the records."""
    return f"newscrawl/{_version('newscrawl')} Scrapy/{_version('scrapy')} warcio/{_version('warcio')}"


# --- writing ------------------------------------------------------------------------------------


def _gzip_member(data: bytes) -> bytes:
    """``data`` as one gzip member (level 6: warcio's own wrapper uses 9, several times slower)."""
    compressor = zlib.compressobj(6, zlib.DEFLATED, zlib.MAX_WBITS + 16)
    return compressor.compress(data) + compressor.flush()


class WarcFiles:
    """The archive files of one crawl: rotation, warcinfo records, one flushed write per response."""

    def __init__(self, target: str | os.PathLike, max_size: int, info: dict[str, Any], prefix: str = "crawl"):
        from warcio.warcwriter import WARCWriter

        self.target = Path(target)
        self.is_file = self.target.name.endswith((SUFFIX, ".warc"))
        self.max_size = max_size
        self.info = info
        self.prefix = _UNSAFE_NAME_CHARS.sub("_", prefix)
        self.started = datetime.now(UTC).strftime("%Y%m%d%H%M%S")
        self.serial = 0
        self.paths: list[Path] = []
        self._file: io.BufferedWriter | None = None
        self._buffer = io.BytesIO()
        self.builder = WARCWriter(self._buffer, gzip=False, warc_version="1.1")

    def _next_path(self) -> Path:
        while True:
            serial, self.serial = self.serial, self.serial + 1
            if self.is_file:
                stem = self.target.name[: -len(SUFFIX)] if self.target.name.endswith(SUFFIX) \
                    else self.target.name[: -len(".warc")]
                name = self.target.name if serial == 0 else f"{stem}-{serial:05d}{SUFFIX}"
                path = self.target.with_name(name)
            else:
                path = self.target / f"{self.prefix}-{self.started}-{os.getpid()}-{serial:05d}{SUFFIX}"
            if not path.exists():
                return path

    def _open(self) -> None:
        while True:
            path = self._next_path()
            path.parent.mkdir(parents=True, exist_ok=True)
            try:
                self._file = open(path, "xb")  # noqa: SIM115 - kept open across records, closed by close()
                break
            except FileExistsError:  # another process (a distributed worker) took the name first
                continue
        self.paths.append(path)
        logger.info("Recording the crawl to %s", path)
        record = self.builder.create_warcinfo_record(path.name, self.info)
        self._file.write(self._serialize([record]))
        self._file.flush()

    def _serialize(self, records: list) -> bytes:
        """The records, each its own gzip member."""
        members = []
        for record in records:
            self._buffer.seek(0)
            self._buffer.truncate()
            self.builder.write_record(record)
            members.append(_gzip_member(self._buffer.getvalue()))
        return b"".join(members)

    def write(self, records: list) -> int:
        """Append ``records`` in one write, flushed; returns the bytes written."""
        if self._file is None:
            self._open()
        data = self._serialize(records)
        self._file.write(data)
        self._file.flush()
        if self.max_size and self._file.tell() >= self.max_size:
            self.close()
        return len(data)

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


def _http_headers(headers, body_length: int) -> list[tuple[str, str]]:
    """A Scrapy ``Headers`` as stored: latin-1 text (RFC 9110 §5.5), hop-by-hop coding renamed,
    ``Content-Length`` the stored body's length."""
    out: list[tuple[str, str]] = []
    original_length = None
    for name, values in headers.items():
        lower = name.lower()
        text = name.decode("latin-1")
        if lower == b"content-length":
            original_length = values[-1].decode("latin-1") if values else None
            continue
        text = _HOP_HEADERS.get(lower, text)
        out.extend((text, value.decode("latin-1")) for value in values)
    if original_length is not None and original_length.strip() != str(body_length):
        out.append(("X-Crawler-Content-Length", original_length))
    out.append(("Content-Length", str(body_length)))
    return out


def _warc_date(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class WarcRecorder:
    """Downloader middleware (at 950) writing every response and its request to WARC files.

    See the module docstring; settings ``NEWSCRAWL_WARC`` (a directory or a ``.warc.gz`` file;
    unset: off) and ``NEWSCRAWL_WARC_MAX_SIZE`` (bytes per file, default 1 GB, 0: no rotation).
    Stats: ``newscrawl/warc/records`` (responses recorded), ``newscrawl/warc/bytes``,
    ``newscrawl/warc/files``, ``newscrawl/warc/write_failed`` (the error; recording stopped),
    ``newscrawl/warc/record_failed`` (responses whose records could not be built; not recorded).
    """

    def __init__(self, crawler, target: str, max_size: int):
        self.crawler = crawler
        self.target = target
        self.max_size = max_size
        self.files: WarcFiles | None = None
        self.failed = False
        crawler.signals.connect(self.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(self.spider_closed, signal=signals.spider_closed)

    @classmethod
    def from_crawler(cls, crawler):
        target = crawler.settings.get("NEWSCRAWL_WARC")
        if not target:
            raise NotConfigured  # no message: Scrapy warns "Disabled ..." only for a NotConfigured with one
        max_size = crawler.settings.getint("NEWSCRAWL_WARC_MAX_SIZE", DEFAULT_MAX_SIZE)
        if max_size < 0:
            raise ValueError(f"NEWSCRAWL_WARC_MAX_SIZE must be 0 or more bytes, got {max_size}")
        return cls(crawler, str(target), max_size)

    def warcinfo(self, spider) -> dict[str, Any]:
        """The warcinfo fields (WARC 1.1 §6.2 and its annex: software, format, isPartOf, ...)."""
        settings = self.crawler.settings
        summary = {name: settings.get(name) for name in SUMMARY_SETTINGS if settings.get(name) is not None}
        return {
            "software": software(),
            "format": "WARC File Format 1.1",
            "conformsTo": "https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/",
            "isPartOf": spider.name,
            "hostname": socket.gethostname(),
            "http-header-user-agent": settings.get("USER_AGENT"),
            "robots": "obey" if settings.getbool("ROBOTSTXT_OBEY") else "ignore",
            "description": f"newscrawl crawl of {spider.name}",
            "newscrawl-settings": json.dumps(summary, sort_keys=True, default=str),
        }

    def spider_opened(self, spider) -> None:
        self.files = WarcFiles(self.target, self.max_size, self.warcinfo(spider), prefix=spider.name)

    def spider_closed(self, spider) -> None:
        if self.files is not None:
            self.files.close()
            self.crawler.stats.set_value(STATS + "files", len(self.files.paths))

    def process_response(self, request, response, spider=None):
        if self.files is None or self.failed:
            return response
        try:
            records = self.records(request, response)
        except Exception as exc:  # noqa: BLE001 - a record that cannot be built must not cost the page
            self.crawler.stats.inc_value(STATS + "record_failed")
            logger.warning("Cannot record %s in the WARC archive: %s: %s", response.url,
                           type(exc).__name__, exc)
            return response
        try:
            written = self.files.write(records)
        except OSError as exc:
            self.failed = True
            self.crawler.stats.set_value(STATS + "write_failed", str(exc))
            logger.error("Cannot write the WARC archive (%s); the crawl goes on without recording", exc)
        else:
            self.crawler.stats.inc_value(STATS + "records")
            self.crawler.stats.inc_value(STATS + "bytes", written)
        return response

    def records(self, request, response) -> list:
        """The response, request and (for an article page) metadata records of one download."""
        from warcio.statusandheaders import StatusAndHeaders

        from .middlewares import DETAIL_META

        builder = self.files.builder
        body = response.body
        fetched = _warc_date(datetime.now(UTC))
        warc_headers = {"WARC-Date": fetched}
        if getattr(response, "ip_address", None) is not None:
            warc_headers["WARC-IP-Address"] = str(response.ip_address)
        if "dataloss" in (response.flags or ()):
            warc_headers["WARC-Truncated"] = "disconnect"
        try:
            reason = HTTPStatus(response.status).phrase
        except ValueError:
            reason = ""
        http = StatusAndHeaders(f"{response.status} {reason}".strip(),
                                _http_headers(response.headers, len(body)), protocol="HTTP/1.1")
        record = builder.create_warc_record(response.url, "response", payload=io.BytesIO(body),
                                            length=len(body), http_headers=http,
                                            warc_headers_dict=warc_headers)
        record_id = record.rec_headers.get_header("WARC-Record-ID")
        records = [record, self._request_record(request, response, record_id, fetched)]
        listing = request.cb_kwargs.get("listing") if DETAIL_META in request.meta else None
        if isinstance(listing, dict):
            payload = json.dumps({"site": listing.get("site"), "listing": listing},
                                 ensure_ascii=False).encode("utf-8")
            records.append(builder.create_warc_record(
                response.url, "metadata", payload=io.BytesIO(payload), length=len(payload),
                warc_content_type=METADATA_TYPE,
                warc_headers_dict={"WARC-Date": fetched, "WARC-Concurrent-To": record_id}))
        return records

    def _request_record(self, request, response, response_id: str, fetched: str):
        from warcio.statusandheaders import StatusAndHeaders

        parts = urlsplit(request.url)
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        headers = [(name.decode("latin-1"), value.decode("latin-1"))
                   for name, values in request.headers.items() for value in values]
        if not any(name.lower() == "host" for name, _ in headers):
            headers.insert(0, ("Host", parts.netloc))
        http = StatusAndHeaders(f"{request.method} {target} HTTP/1.1", headers, protocol="",
                                is_http_request=True)
        body = request.body or b""
        return self.files.builder.create_warc_record(
            response.url, "request", payload=io.BytesIO(body), length=len(body), http_headers=http,
            warc_headers_dict={"WARC-Date": fetched, "WARC-Concurrent-To": response_id})


# --- reading ------------------------------------------------------------------------------------


@dataclass
class WarcPage:
    """An HTML page from a response record, decoded, with what the archive says about it."""

    url: str
    date: str | None  # ISO 8601, UTC, second precision (the record's WARC-Date)
    status: int
    content_type: str | None
    body: bytes
    record_id: str | None = None
    metadata: dict = field(default_factory=dict)  # the crawl's listing data (newscrawl archives)


@dataclass
class Skip:
    """A record (or the rest of a file) not extracted, and why."""

    reason: str
    detail: str
    url: str | None = None


@dataclass
class ReadOptions:
    """How :func:`read_archive` chooses pages: ``max_bytes`` per record and per decoded body;
    ``keep`` ``articles`` (pages that look like articles, or in a newscrawl archive the crawl's
    article pages) or ``html`` (every HTML page)."""

    max_bytes: int = 16 * 1024 * 1024
    keep: str = "articles"


@dataclass
class Progress:
    """How far the reading got (for progress lines): compressed bytes of the file read, records."""

    offset: int = 0
    records: int = 0
    misaligned: int = 0  # records not followed by the blank lines WARC puts between records
    resyncs: int = 0  # times reading resumed at a record start found after damage
    newscrawl: bool = False  # the warcinfo names newscrawl: its listing metadata marks the articles


_HTTP_PROTOCOLS = ["HTTP/1.0", "HTTP/1.1", "HTTP/2", "HTTP/2.0", "HTTP/3"]
_HEAD_LIMIT = 256 * 1024  # HTTP status line and headers: a larger head is not HTTP
_SNIFF_BYTES = 1024
# \A: tried at the start only, also by a search (linear time, tests/test_regex_linear.py).
_HTML_START = re.compile(rb"\A\s*+(?:<!--.{0,200}?-->\s*+)?<(?:!doctype\s+html|html|head|body|meta|title)",
                         re.IGNORECASE | re.DOTALL)
_UNSAFE_NAME_CHARS = re.compile(r"[^\w.-]")
_NEWSCRAWL_SOFTWARE = re.compile(rb"(?m)^software:\s*+newscrawl/")  # in a warcinfo record
_ARTICLE_SCAN = 512 * 1024
_OG_ARTICLE = re.compile(rb"""content\s{0,5}=\s{0,5}["']?article\b""", re.IGNORECASE)
_LD_ARTICLE = re.compile(rb'"@type"\s{0,20}:\s{0,20}\[?\s{0,20}"(?:\w{0,30}Article|BlogPosting)"')
_MAX_OG_TAGS = 5
# A record header as it starts: its version line, then header fields up to WARC-Type (WARC 1.1 §4)
_WARC_HEADER = re.compile(rb"\AWARC/1\.[01]\r?\n(?:[!-9;-~]{1,64}:[^\r\n]{0,1024}\r?\n){0,32}?WARC-Type:",
                          re.IGNORECASE)


def looks_like_warc(head: bytes) -> bool:
    """Do these first bytes of a file (a few KB: a deflate block header can take hundreds of
    bytes) start a WARC record, plain or gzipped?"""
    if head[:2] == b"\x1f\x8b":
        try:
            head = zlib.decompressobj(zlib.MAX_WBITS + 16).decompress(head, 16)
        except zlib.error:
            return False
    return head.lstrip(b"\r\n").startswith(b"WARC/")


def read_archive(path: str | os.PathLike, options: ReadOptions | None = None,
                 progress: Progress | None = None) -> Iterator[WarcPage | Skip]:
    """The pages (and skips) of one WARC file, in file order, streamed: see the module docstring.

    An article response is held until the next record, which may be its metadata record.  Where
    a record cannot be parsed (a wrong ``Content-Length``, garbage between records), reading
    resumes at the next record start found after it — the next gzip member that opens a WARC
    record, or a ``WARC/1.`` line in a plain file — and the bytes passed over are one
    ``unreadable`` skip.
    """
    options = options or ReadOptions()
    progress = progress or Progress()
    name = str(path)
    try:
        # O_NONBLOCK: a named pipe put in the file's place opens without waiting for a writer
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        yield Skip("unreadable", f"{name}: {exc.strerror or exc}")
        return
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        yield Skip("unreadable", f"{name} is not a regular file (a named pipe, device or socket)")
        return
    if hasattr(os, "set_blocking"):
        os.set_blocking(fd, True)
    fh = open(fd, "rb")  # noqa: SIM115 - closed below, also when the caller stops early
    with fh:
        head = fh.read(4096)
        if not looks_like_warc(head):
            yield Skip("not_warc", f"{name} is not a WARC file")
            return
        marker = b"\x1f\x8b\x08" if head[:2] == b"\x1f\x8b" else b"WARC/1."
        start: int | None = 0
        while start is not None:
            fh.seek(start)
            failure = yield from _read_from(fh, start, options, progress, name)
            if failure is None:
                break
            failed_at, exc, in_member = failure
            if isinstance(exc, _CutRecord):  # a plain file: the next record header is known
                logger.warning("%s: the record at byte %d is cut short (%s); %s", name, failed_at, exc.why,
                               f"reading resumes at byte {exc.resume}" if exc.resume is not None
                               else "it is the last one")
                yield Skip("truncated", f"{name}: record at byte {failed_at} {exc.why}", exc.url)
                start = exc.resume
                progress.offset = start if start is not None else os.fstat(fh.fileno()).st_size
                progress.resyncs += start is not None
                continue
            start = _next_record_start(fh, failed_at + 1, marker)
            if start is None and in_member:
                yield Skip("truncated", f"{name}: the archive ends inside a record's gzip member")
            else:
                yield _damage(exc, name, failed_at)
            progress.offset = start if start is not None else os.fstat(fh.fileno()).st_size
            if start is not None:
                progress.resyncs += 1


@lru_cache(maxsize=1)
def _gzip_reader():
    """warcio's reader of gzip members, with ISA-L's inflate when python-isal is installed:
    the same bytes, in about half of zlib's CPU time (the crawl process inflates every record
    of an archive, so this is most of what it spends reading; docs/archives.md)."""
    from warcio.bufferedreaders import BufferedReader, DecompressingBufferedReader

    try:
        from isal import isal_zlib
    except ImportError:
        return DecompressingBufferedReader

    def isal_gzip():
        return isal_zlib.decompressobj(16 + isal_zlib.MAX_WBITS)

    class IsalGzipReader(DecompressingBufferedReader):
        DECOMPRESSORS = {**BufferedReader.DECOMPRESSORS, "gzip": isal_gzip}

    return IsalGzipReader


class _QuietIterator:
    """warcio's ArchiveIterator without its stderr warning for a record not followed by a blank
    line (counted instead: :attr:`Progress.misaligned`), inflating with :func:`_gzip_reader`."""

    def __new__(cls, fh):
        from warcio.archiveiterator import ArchiveIterator

        reader = _gzip_reader()

        class Quiet(ArchiveIterator):
            INC_RECORD = ""
            cut_member = False  # the file ends inside a gzip member that gave no record
            _record_member = None  # the decompressor of the gzip member of the last record given

            def __init__(self, *args, **kwargs):
                super().__init__(*args, **kwargs)
                self.reader = reader(self.fh, block_size=self.reader.block_size)

            def __iter__(self):
                return self  # through __next__ below, not straight to warcio's generator

            def __next__(self):
                record = super().__next__()
                self._record_member = self.reader.decompressor
                return record

            def cut_inside_member(self) -> bool:
                """Is the reader inside a gzip member that has not ended (the file was cut)?"""
                decompressor = self.reader.decompressor if self.reader else None
                return decompressor is not None and not getattr(decompressor, "eof", True)

            def close(self):
                # A member cut in its 8-byte trailer still gave its whole record: not counted.
                self.cut_member = (self.cut_inside_member()
                                   and self.reader.decompressor is not self._record_member)
                super().close()

        return Quiet(fh, no_record_parse=True)


def _read_from(fh, start: int, options: ReadOptions, progress: Progress, name: str):
    """Yield the outcomes of the records from ``start``; return None at the file's end, or when
    the file cannot be parsed on: the offset of the last record begun, the exception, and whether
    the reader stopped inside a gzip member."""
    pending: WarcPage | None = None
    records = _QuietIterator(fh)
    last = start
    cut_reported = False
    try:
        for record in records:
            last = max(last, records.offset)
            progress.records += 1
            progress.offset = fh.tell()
            if records.reader.decompressor is None:  # a plain file: no gzip member bounds the record
                _check_framing(fh, records, record)
            outcome = _outcome(record, options, progress)
            if outcome is None:
                continue
            if isinstance(outcome, dict):  # a metadata record
                if pending is not None and outcome.get("_refers_to") == pending.record_id:
                    pending.metadata = outcome
                continue
            if pending is not None:
                yield _finish(pending, options, progress)
                pending = None
            if isinstance(outcome, WarcPage):
                pending = outcome
            else:
                yield outcome
            cut_reported = isinstance(outcome, Skip) and outcome.reason == "truncated"
    except Exception as exc:  # noqa: BLE001 - a damaged record costs its bytes, never the run
        if pending is not None:
            yield _finish(pending, options, progress)
        if isinstance(exc, _CutRecord):
            return records.offset, exc, False
        progress.misaligned += records.err_count
        # warcio's offset of the record it failed on, when it got as far as finding one
        return max(last, records.offset), exc, records.cut_inside_member()
    if pending is not None:
        yield _finish(pending, options, progress)
    if records.cut_member and not cut_reported:  # cut before its record's headers were whole
        yield Skip("truncated", f"{name}: the archive ends inside a gzip member")
    progress.misaligned += records.err_count
    progress.offset = fh.tell()
    return None


class _CutRecord(Exception):  # noqa: N818 - a signal to read_archive, not an error shown
    """A record of a plain (uncompressed) file whose block is cut short by the next record's
    header or by the end of the file; ``resume`` is that header's offset (None: none follows)."""

    def __init__(self, why: str, resume: int | None, url: str | None):
        super().__init__(why)
        self.why = why
        self.resume = resume
        self.url = url


def _check_framing(fh, records, record) -> None:
    """In a plain WARC file, a record ends where its ``Content-Length`` says, followed by two
    CRLFs and the next ``WARC/1.x`` header line or the end of the file (WARC 1.1 §4).  When it
    does not, and a record header starts inside the stated block (or the block runs past the
    end of the file), the record was cut short: :class:`_CutRecord` says where reading resumes,
    instead of the block swallowing the records after it."""
    size = os.fstat(fh.fileno()).st_size
    record_start = records.offset
    block_start = fh.tell() - records.reader.rem_length()
    url = record.rec_headers.get_header("WARC-Target-URI")
    head = os.pread(fh.fileno(), block_start - record_start, record_start)
    inner = head.find(b"WARC/1.", 1)
    while inner > 0:  # cut inside its header: the next record's header lines were read as its own
        if _WARC_HEADER.match(os.pread(fh.fileno(), 4096, record_start + inner)):
            raise _CutRecord("is cut inside its header", record_start + inner, None)
        inner = head.find(b"WARC/1.", inner + 1)
    length = record.length
    if length is None:
        return
    end = block_start + length
    after = os.pread(fh.fileno(), 16, end) if end <= size else b""
    if end <= size and (after.lstrip(b"\r\n").startswith(b"WARC/1.") or not after.strip(b"\r\n")):
        return
    position = fh.tell()
    try:
        header = _next_record_start(fh, block_start, b"WARC/1.", strict=True)
    finally:
        fh.seek(position)
    if header is not None and header < end:
        raise _CutRecord(f"holds {header - block_start} of its {length} bytes before the next record",
                         header, url)
    if end > size:
        raise _CutRecord(f"holds {size - block_start} of its {length} bytes before the end of the file",
                         None, url)


def _next_record_start(fh, offset: int, marker: bytes, chunk: int = 1 << 20,
                       strict: bool = False) -> int | None:
    """The first offset at or after ``offset`` where ``marker`` starts a readable WARC record;
    one linear scan (candidates that do not open a record are passed over).  ``strict``: the
    candidate's version line must be followed by header fields up to ``WARC-Type``."""
    position = offset
    while True:
        fh.seek(position)
        data = fh.read(chunk)
        if len(data) < len(marker):
            return None
        found = data.find(marker)
        while found >= 0:
            candidate = position + found
            fh.seek(candidate)
            head = fh.read(4096)
            if looks_like_warc(head) and (not strict or _WARC_HEADER.match(head.lstrip(b"\r\n"))):
                return candidate
            found = data.find(marker, found + 1)
        position += len(data) - len(marker) + 1


def _damage(exc: Exception, name: str, offset: int) -> Skip:
    """The skip for the part of an archive that cannot be parsed (a cut or garbled record)."""
    if isinstance(exc, EOFError | zlib.error | gzip.BadGzipFile):
        return Skip("truncated", f"{name}: the archive ends inside a record ({type(exc).__name__})")
    text = " ".join(str(exc).split())[:200]
    return Skip("unreadable", f"{name}: records from byte {offset} cannot be parsed ({type(exc).__name__}: "
                f"{text}); reading resumes at the next record start")


def _outcome(record, options: ReadOptions, progress: Progress) -> WarcPage | Skip | dict | None:
    """What one record gives: a page, a skip, a metadata mapping, or None (nothing to say)."""
    kind = record.rec_type
    headers = record.rec_headers
    url = headers.get_header("WARC-Target-URI")
    if record.length is None:  # mandatory in every record (WARC 1.1 §5.3): its header was cut short
        return Skip("truncated", "record header ends before its Content-Length", url)
    if kind == "warcinfo":
        info = record.raw_stream.read(64 * 1024)
        if _NEWSCRAWL_SOFTWARE.search(info):
            progress.newscrawl = True
        return None
    if kind == "metadata":
        if headers.get_header("Content-Type") != METADATA_TYPE or (record.length or 0) > 1024 * 1024:
            return None
        try:
            data = json.loads(record.raw_stream.read())
        except ValueError:
            return None
        if not isinstance(data, dict):
            return None
        data["_refers_to"] = headers.get_header("WARC-Concurrent-To")
        return data
    if kind == "revisit":
        return Skip("revisit", "a revisit record holds no payload (deduplicated capture)", url)
    if kind != "response":
        return None
    if not url or not url.lower().startswith(("http://", "https://")):
        return None  # dns:, whois:, ... records
    length = record.length
    if length > options.max_bytes + _HEAD_LIMIT:
        return Skip("too_large", f"record of {length} bytes (limit {options.max_bytes})", url)
    block = record.raw_stream.read(length)
    if len(block) < length:
        return Skip("truncated", f"record holds {len(block)} of its {length} bytes", url)
    cut = headers.get_header("WARC-Truncated")
    if cut:  # the archiver stored part of the payload (WARC 1.1 §5.13): not the whole page
        return Skip("truncated", f"WARC-Truncated: {cut}", url)
    return _page(block, url, headers, options)


def _page(block: bytes, url: str, headers, options: ReadOptions) -> WarcPage | Skip:
    """The HTML page of one response record's block (HTTP head and body)."""
    from warcio.statusandheaders import StatusAndHeadersParser, StatusAndHeadersParserException

    end = block.find(b"\r\n\r\n", 0, _HEAD_LIMIT)
    cut = 4
    if end < 0:
        end, cut = block.find(b"\n\n", 0, _HEAD_LIMIT), 2
    if end < 0:
        return Skip("bad_http", "no HTTP header block", url)
    try:
        http = StatusAndHeadersParser(_HTTP_PROTOCOLS, verify=False).parse(io.BytesIO(block[: end + cut]))
        status = int(http.get_statuscode())
    except (StatusAndHeadersParserException, ValueError, EOFError) as exc:
        return Skip("bad_http", f"HTTP head unreadable: {' '.join(str(exc).split())[:100]}", url)
    if status != 200:
        return Skip("http_status", f"HTTP {status}", url)
    body = _decoded(block[end + cut:], http, options.max_bytes)
    if isinstance(body, Skip):
        body.url = url
        return body
    content_type = http.get_header("Content-Type")
    if not _is_html(content_type, body):
        return Skip("not_html", f"Content-Type {content_type or 'missing'}", url)
    date = headers.get_header("WARC-Date")
    return WarcPage(url=url, date=_iso_second(date), status=status, content_type=content_type, body=body,
                    record_id=headers.get_header("WARC-Record-ID"))


def _decoded(payload: bytes, http, max_bytes: int) -> bytes | Skip:
    """The body with chunked transfer coding and every content coding the crawl accepts undone
    (:mod:`newscrawl.codings`: gzip, deflate, br, zstd), at most ``max_bytes`` of it (a larger
    one is a skip: a decompression bomb stops there); a body cut short is a ``truncated`` skip."""
    from warcio.bufferedreaders import ChunkedDataReader

    applied = codings.codings(http.get_header("Content-Encoding"))
    unknown = [c for c in applied if c not in codings.CODINGS]
    if unknown:
        return Skip("unsupported_encoding", f"Content-Encoding {', '.join(unknown)}")
    if "chunked" in (http.get_header("Transfer-Encoding") or "").lower():
        try:
            payload = ChunkedDataReader(io.BytesIO(payload)).read(max_bytes + 1)
        except Exception as exc:  # noqa: BLE001 - a chunk size that is not hex
            return Skip("bad_http", f"chunked coding cannot be undone ({type(exc).__name__})")
    else:
        stated = (http.get_header("Content-Length") or "").strip()
        if stated.isdigit() and int(stated) > len(payload):
            return Skip("truncated", f"body of {len(payload)} of its {int(stated)} bytes (Content-Length)")
    body = payload
    for coding in reversed(applied):
        try:
            body = codings.decode(body, coding, max_bytes)
        except codings.Truncated as exc:
            return Skip("truncated", f"Content-Encoding {coding}: {exc}")
        except codings.TooLarge:
            return Skip("too_large", f"decoded body larger than {max_bytes} bytes")
        except Exception as exc:  # noqa: BLE001 - zlib, Brotli and zstd errors for garbage
            return Skip("bad_http", f"Content-Encoding {coding} cannot be undone ({type(exc).__name__})")
    if len(body) > max_bytes:
        return Skip("too_large", f"decoded body larger than {max_bytes} bytes")
    return body


def _is_html(content_type: str | None, body: bytes) -> bool:
    media = (content_type or "").split(";", 1)[0].strip().lower()
    if media in ("text/html", "application/xhtml+xml"):
        return True
    if media and media not in ("text/plain", "application/octet-stream", "unknown/unknown", "text/x-unknown"):
        return False
    return _HTML_START.match(body[:_SNIFF_BYTES].lstrip(b"\xef\xbb\xbf")) is not None


def _iso_second(warc_date: str | None) -> str | None:
    """A WARC-Date (W3C-ISO8601, ``Z``) as the crawl writes dates: ISO 8601, +00:00, seconds."""
    if not warc_date:
        return None
    try:
        moment = datetime.fromisoformat(warc_date)
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).replace(microsecond=0).isoformat()


def _finish(page: WarcPage, options: ReadOptions, progress: Progress) -> WarcPage | Skip:
    """Keep ``page`` if it is an article: in a newscrawl archive, a page the crawl fetched as an
    article (it has its listing metadata); otherwise by the page's own signals."""
    if options.keep == "html":
        return page
    if progress.newscrawl:
        if page.metadata:
            return page
        return Skip("not_article", "a listing page of the recorded crawl (no listing metadata)", page.url)
    if looks_like_article(page.url, page.body):
        return page
    return Skip("not_article", "no og:type article, JSON-LD Article or article-shaped URL", page.url)


def looks_like_article(url: str, body: bytes) -> bool:
    """An article page by ``og:type`` ``article``, a JSON-LD ``*Article``/``BlogPosting`` type, or an
    article-shaped URL (:func:`newscrawl.catalogue.url_score`), as ``scrapy parse`` judges pages;
    the markup is scanned in its first 512 KB, without parsing it."""
    from .catalogue import MIN_SCORE, url_score

    head = body[:_ARTICLE_SCAN]
    start = 0
    for _ in range(_MAX_OG_TAGS):
        found = head.find(b"og:type", start)
        if found < 0:
            break
        if _OG_ARTICLE.search(head, max(0, found - 200), found + 200):
            return True
        start = found + 7
    if _LD_ARTICLE.search(head):
        return True
    return (url_score(url) or 0.0) >= MIN_SCORE


def page_site(page: WarcPage) -> str:
    """The site a page belongs to: the crawl's site name in a newscrawl archive, else its host
    (without ``www.``)."""
    site = page.metadata.get("site") if page.metadata else None
    if isinstance(site, str) and site:
        return site
    host = (urlsplit(page.url).hostname or "").lower()
    return host.removeprefix("www.") or "warc"


def archive_paths(spec: str) -> list[Path]:
    """The files of a ``path`` argument: comma-separated files, directories (their ``*.warc.gz``
    and ``*.warc`` files, sorted) and glob patterns."""
    import glob

    found: list[Path] = []
    for part in (p.strip() for p in spec.split(",")):
        if not part:
            continue
        path = Path(part).expanduser()
        if path.is_dir():
            found += sorted(p for p in path.iterdir()
                            if p.name.endswith((SUFFIX, ".warc")) and not p.is_dir())
        elif any(ch in part for ch in "*?["):
            found += [Path(p) for p in sorted(glob.glob(str(path)))]
        else:
            found.append(path)
    return found
