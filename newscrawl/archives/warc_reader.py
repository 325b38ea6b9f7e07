"""WARC in: :func:`read_archive` reads the article pages of one archive (no Scrapy imports).

It yields the response records, decoded (chunked transfer coding and every content coding the
crawl accepts undone by :mod:`newscrawl.codings`, the crawl's own decoder; the
``Content-Type`` charset kept for the decoder), as :class:`WarcPage` objects, and a
:class:`Skip` with a reason for every record that is not an HTML page worth extracting or
cannot be read: ``not_warc``, ``truncated`` (a record cut short, a ``WARC-Truncated`` record,
a body shorter than its HTTP ``Content-Length`` or whose coding ends before its end mark),
``too_large`` (judged by the record's length before anything is read), ``revisit``,
``http_status``, ``not_html``, ``bad_http``, ``unsupported_encoding``, ``not_article``,
``unreadable`` (the rest of a damaged file; a path that is not a regular file, opened
without waiting, so a named pipe never blocks).  In a plain ``.warc`` each record is checked
to end where its ``Content-Length`` says: one cut short, or claiming more than the file holds,
is a ``truncated`` skip and reading resumes at the ``WARC/1.x`` header inside its block.
No record is held beyond the size limit, so memory does not grow with the archive.  The
``warc`` spider (:mod:`newscrawl.spiders.warc`) feeds the pages to the crawl's own pipelines;
``scrapy archive`` (:mod:`newscrawl.archives.job`) maps them on a Dask cluster.
"""

from __future__ import annotations

import gzip
import io
import json
import logging
import os
import re
import stat
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import lru_cache
from pathlib import Path
from urllib.parse import urlsplit

from newscrawl import codings
from newscrawl.archives.warc_files import METADATA_TYPE, SUFFIX

logger = logging.getLogger(__name__)



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
    ``keep`` ``articles`` (in a newscrawl archive the crawl's article pages, in another
    archive every HTML page, for the page type to judge) or ``html`` (every HTML page)."""

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




_NEWSCRAWL_SOFTWARE = re.compile(rb"(?m)^software:\s*+newscrawl/")  # in a warcinfo record











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
    """Keep ``page``: every HTML page of another crawler's archive (the extraction's page type then
    judges it, as in a crawl), and in a newscrawl archive a page the crawl fetched as an article
    (it has its listing metadata), not the listing pages it read."""
    if options.keep == "html" or not progress.newscrawl or page.metadata:
        return page
    return Skip("not_article", "a listing page of the recorded crawl (no listing metadata)", page.url)


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

