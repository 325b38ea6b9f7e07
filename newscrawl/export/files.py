"""The crawl's local feed files as state (no Scrapy imports): which file a feed URI names for a
site (:func:`feed_path`), this run's line feeds (:func:`local_line_feeds`, remembered in
:data:`RECENT_FEEDS`), and the records of a JSON-lines or CSV export read back
(:func:`iter_records`, :func:`last_records`) for the seen-store reconciliation.
"""

from __future__ import annotations

import io
import json
import logging
import mmap
from collections.abc import Generator, Iterator
from pathlib import Path
from urllib.parse import urlparse

from w3lib.url import file_uri_to_path

logger = logging.getLogger(__name__)


class _AnyParam(dict):
    """``%(name)s``-style feed URI parameters: the spider name, anything else a placeholder."""

    def __missing__(self, key: str) -> str:
        return "check"


RECENT_FEEDS = "recent-feeds.json"  # in the state directory: site -> this run's feed files
PARQUET_MAGIC = b"PAR1"  # opens and ends a Parquet file
# Starts each run's Parquet journal (newscrawl/export/parquet.py); its first newline ends a cut line.
JOURNAL_MARKER = b"\n#newscrawl-parquet-journal\n"



def local_line_feeds(settings, site: str) -> list[str]:
    """The local files of ``FEEDS`` written one item per line (JSON lines, JSON, the Parquet export's
    journal), as absolute paths."""
    exporters = settings.getwithbase("FEED_EXPORTERS")
    paths = []
    for uri, options in settings.getdict("FEEDS").items():
        uri = str(uri)
        fmt = (options or {}).get("format") if isinstance(options, dict) else None
        exporter = str(exporters.get(fmt) or "")
        if not exporter.endswith(("JsonLinesItemExporter", "JsonItemExporter", "ParquetItemExporter")):
            continue
        path = feed_path(uri, site)
        if path is not None:
            paths.append(str(path.resolve()))
    return paths



def feed_path(uri: str, site: str, *, exact: bool = False) -> Path | None:
    """The local file a ``FEEDS`` URI writes for ``site``; None for remote storages and stdout.

    ``%(name)s`` is the site; other URI parameters (``%(time)s``, ...) become ``check``,
    or with ``exact`` the answer is None, as the run's real file name is not known yet.
    """
    uri = str(uri)
    if uri.startswith("file:"):
        return Path(file_uri_to_path(uri))
    if urlparse(uri).scheme:
        return None  # s3://, ftp://, stdout:, ...
    try:
        return Path(uri % ({"name": site} if exact else _AnyParam(name=site)))
    except (KeyError, TypeError, ValueError):
        return None



def iter_records(path: Path) -> Iterator[dict]:
    """Every JSON object of a JSON-lines (or one-object-per-line JSON array) file; broken lines skipped.
    A Parquet export's rows (their ``url``) come first, then the lines of its journal, if any."""
    try:
        with path.open("rb") as fh:
            if fh.read(4) == PARQUET_MAGIC:
                end = yield from _parquet_urls(fh)
                fh.seek(end)
            else:
                fh.seek(0)
            for line in fh:
                line = line.strip().lstrip(b"[").rstrip(b",]").strip()
                try:
                    record = json.loads(line)
                except ValueError:
                    continue
                if isinstance(record, dict):
                    yield record
    except OSError as exc:
        logger.warning("Cannot read the export file %s back: %s", path, exc.strerror or exc)



def journal_start(fh, size: int) -> int:
    """Where the first journal marker of the open file ``fh`` of ``size`` bytes starts; -1 for none."""
    if not size:
        return -1
    with mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as data:
        return data.find(JOURNAL_MARKER)



def pending(path: Path) -> bool:
    """Does the Parquet export ``path`` hold a journal not yet folded (a file that is not, or not only,
    Parquet: see :mod:`newscrawl.export.parquet`)?"""
    try:
        with open(path, "rb") as fh:
            size = fh.seek(0, io.SEEK_END)
            if not size:
                return False
            fh.seek(0)
            head = fh.read(4)
            fh.seek(max(0, size - 4))
            return (head, fh.read(4)) != (PARQUET_MAGIC, PARQUET_MAGIC)
    except OSError:
        return False



def _parquet_urls(fh) -> Generator[dict, None, int]:
    """``{"url": …}`` of each row of the Parquet part of an open Parquet export; returns where its
    journal starts (the file's end when it has none)."""
    import pyarrow as pa
    import pyarrow.parquet as pq


    size = fh.seek(0, io.SEEK_END)
    start = journal_start(fh, size)
    end = size if start < 0 else start
    try:
        with pa.memory_map(fh.name, "r") as source:
            table = pq.read_table(pa.BufferReader(source.read_buffer(end)), columns=["url"])
    except (pa.ArrowException, OSError, ValueError) as exc:
        logger.warning("Cannot read the Parquet export %s back: %s", fh.name, exc)
        return end
    for url in table.column("url").to_pylist():
        yield {"url": url}
    return end



def last_records(path: Path, lines: int = 8, max_bytes: int = 64 * 2**20) -> list[dict]:
    """The last complete JSON objects of a JSON-lines (or JSON array) file, one per line; of a Parquet
    export, those of its journal (none once it is folded)."""
    try:
        with path.open("rb") as fh:
            size = fh.seek(0, io.SEEK_END)
            fh.seek(max(0, size - 4))
            if fh.read(4) == PARQUET_MAGIC:
                return []  # a folded Parquet file: its rows were all recorded before the fold
            chunk, start = b"", size
            while start > 0 and chunk.count(b"\n") <= lines and size - start < max_bytes:
                step = min(start, 2**20)
                start -= step
                fh.seek(start)
                chunk = fh.read(step) + chunk
    except OSError:
        return []
    records = []
    for line in chunk.split(b"\n")[-lines - 1:]:
        line = line.strip().lstrip(b"[").rstrip(b",]").strip()
        try:
            record = json.loads(line)
        except ValueError:
            continue  # a line cut by the kill, or cut by the chunk's start
        if isinstance(record, dict):
            records.append(record)
    return records

