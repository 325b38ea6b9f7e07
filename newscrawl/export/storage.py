"""Durable local feeds: :class:`FlushingFileFeedStorage`, Scrapy's local-file feed storage
flushed after each item, so an exported item is on disk before
:class:`~newscrawl.state.seen_urls.SeenUrls` marks it seen.  A failed write is cut back to the
last complete record (:func:`cut_partial_record`) and stops the crawl with finish_reason
``export_failed`` (:func:`newscrawl.export.failed.export_failed`).
"""

from __future__ import annotations

import io
import json
import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from scrapy.exporters import CsvItemExporter, JsonLinesItemExporter
from scrapy.extensions.feedexport import FileFeedStorage
from scrapy.utils.misc import load_object

from newscrawl.state.seen_urls import SeenUrls

from .failed import export_failed

logger = logging.getLogger(__name__)


RECORD_ENDS = {JsonLinesItemExporter: b"\n", CsvItemExporter: b"\r\n"}  # what ends a complete record



def _record_end(exporter: Any) -> bytes | None:
    """The bytes that end a complete record of ``exporter`` (a class or its path), if it writes records."""
    try:
        cls = load_object(exporter) if isinstance(exporter, str) else exporter
    except (ImportError, NameError, ValueError):
        return None
    for base, end in RECORD_ENDS.items():
        if isinstance(cls, type) and issubclass(cls, base):
            return end
    return None



def cut_partial_record(path: Path, end: bytes, chunk: int = 2**16) -> int:
    """Cut a file that does not end with ``end`` back to just after its last ``end``; returns bytes cut.

    Only the last, incomplete record is read (backwards, ``chunk`` bytes at a time).  A
    JSON-lines file whose last line is a whole JSON object without its newline (as other
    tools may write it) gets the newline instead.
    """
    with path.open("r+b") as fh:
        size = fh.seek(0, io.SEEK_END)
        if size == 0:
            return 0
        fh.seek(max(0, size - len(end)))
        if fh.read() == end:
            return 0
        keep, pos, tail = 0, size, b""
        while pos > 0:
            start = max(0, pos - chunk)
            fh.seek(start)
            tail = fh.read(pos - start) + tail[: len(end) - 1]
            found = tail.rfind(end)
            if found >= 0:
                keep = start + found + len(end)
                break
            pos = start
        if end == b"\n" and _is_json_object(fh, keep, size):
            fh.seek(size)
            fh.write(end)
            return 0
        fh.truncate(keep)
    logger.warning("The export file %s ended inside a record (an interrupted write): cut %d byte(s) back to "
                   "its last complete record", path, size - keep)
    return size - keep



def _is_json_object(fh: IO[bytes], start: int, stop: int) -> bool:
    fh.seek(start)
    try:
        return isinstance(json.loads(fh.read(stop - start)), dict)
    except ValueError:
        return False



class _FlushingWriter(io.BufferedWriter):
    """A buffered file that flushes after every write (one write per exported item).

    The first failing write (disk full, file system gone) is cut off the file, so that
    it ends on the last complete record and the next run appends cleanly, and calls
    ``on_error`` once; later writes are discarded while the crawl closes, so a full disk
    gives one error line, not a traceback per item.  So are all writes once ``stopped()``
    is true (the crawl state could not record the last item).
    """

    def __init__(self, raw, on_error: Callable[[OSError], None], stopped: Callable[[], bool] = lambda: False):
        super().__init__(raw)
        self.on_error = on_error
        self.stopped = stopped
        self.failed = False

    def write(self, data) -> int:
        if self.failed or self.stopped():
            return len(data)
        complete = None
        try:
            complete = os.fstat(self.raw.fileno()).st_size  # each write is whole records
            written = super().write(data)
            self.flush()
        except OSError as exc:
            self.failed = True
            if complete is not None:
                self._cut_back(complete)
            self.on_error(exc)
            return len(data)
        return written

    def flush(self) -> None:
        if not self.failed:  # the refused bytes stay unwritten (an exporter's detach() flushes too)
            super().flush()

    def _cut_back(self, size: int) -> None:
        """Drop the bytes of the failed write that did reach the file."""
        try:
            os.ftruncate(self.raw.fileno(), size)
        except OSError as exc:  # the next run's RunGuard cuts it instead
            logger.warning("Could not cut the partial record off %s: %s", getattr(self.raw, "name", "?"), exc)

    def close(self) -> None:
        if self.failed:
            self.raw.close()  # the refused bytes stay unwritten instead of failing again here
        else:
            super().close()



class FlushingFileFeedStorage(FileFeedStorage):
    """Local feed files whose every item reaches the OS before the item counts as exported.

    Scrapy's own storage keeps up to a buffer's worth of items in memory; after a
    ``kill -9`` those would be lost although already recorded in the seen-URL store.
    A failing write stops the crawl (see :func:`export_failed`).
    """

    crawler = None

    @classmethod
    def from_crawler(cls, crawler, uri: str, *, feed_options: dict | None = None):
        storage = cls(uri, feed_options=feed_options)
        storage.crawler = crawler
        return storage

    def _failed(self, exc: OSError) -> None:
        if self.crawler is not None:
            export_failed(self.crawler, str(self.path), exc)
        else:
            raise exc

    def _state_failed(self) -> bool:
        seen = self.crawler.get_extension(SeenUrls) if self.crawler is not None else None
        return seen is not None and seen.state_failed

    def _mode(self, path: Path) -> str:
        """``w`` (``-O``) or ``a``; ``a`` for a Parquet file whose rows an earlier run never delivered."""
        from .parquet import PendingJournals

        journals = self.crawler.get_extension(PendingJournals) if self.crawler is not None else None
        if "w" in self.write_mode and journals is not None and journals.keeps(path):
            return "a"
        return self.write_mode.replace("b", "")

    def open(self, spider) -> IO[bytes]:
        path = Path(self.path)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            raw = io.FileIO(path, self._mode(path))
        except OSError as exc:
            self._failed(exc)
            writer = _FlushingWriter(io.FileIO(os.devnull, "w"), self._failed)
            writer.failed = True
            return writer
        return _FlushingWriter(raw, self._failed, self._state_failed)

