"""WARC files written by a crawl (no Scrapy imports): :class:`WarcFiles` names, rotates and writes
them, one gzip member a record, flushed at once; the record helpers keep the body as the server
sent it (see :mod:`newscrawl.middlewares.warc_recorder`, which records a crawl with them).
"""

from __future__ import annotations

import io
import logging
import os
import re
import zlib
from datetime import UTC, datetime
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)


_UNSAFE_NAME_CHARS = re.compile(r"[^\w.-]")


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

