"""The Parquet feed export (``scrapy crawl SITE -O articles.parquet``), through Scrapy's feed exports.

Parquet keeps its row-group index in a footer written when the file is closed: a file that a
killed run left without one cannot be read at all.  So during the run the exporter writes
each item as a JSON line after a journal marker (flushed per item by the project's feed
storage, as the JSON-lines export is), and at the end of the run folds the journal into a
Parquet file with the declared schema, written beside it and moved over it in one rename.

A run that was killed, or whose fold failed (a full disk: ``export_failed``, exit status 1),
leaves the Parquet of the runs before it plus its journal, whose articles the seen store has
recorded.  The next run folds that journal at its start (:class:`PendingJournals`, after the
seen store recorded the killed run's last row), whether or not it finds anything new, and
with ``-O`` it appends to the folded file instead of starting it afresh, so nothing recorded
is lost or repeated.  A pending journal that cannot be folded stops the run (``export_failed``).
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
from scrapy import signals
from scrapy.exporters import BaseItemExporter

from newscrawl.state.run_lock import RunLock

from ..items import clean_export_value
from .failed import export_failed
from .files import JOURNAL_MARKER, PARQUET_MAGIC, feed_path, journal_start, pending
from .schema import arrow_row, conformed_dates, schema_for

logger = logging.getLogger(__name__)

FOLD_ERRORS = (OSError, pa.ArrowException, ValueError)  # a full disk; a file neither Parquet nor journal

class ParquetItemExporter(BaseItemExporter):
    """Scrapy item exporter writing Parquet (pyarrow), registered in ``FEED_EXPORTERS`` as ``parquet``."""

    def __init__(self, file: Any, *, crawler: Any = None, **kwargs: Any):
        super().__init__(dont_fail=True, **kwargs)
        self.file = file
        self.crawler = crawler

    @classmethod
    def from_crawler(cls, crawler: Any, file: Any, **kwargs: Any) -> ParquetItemExporter:
        return cls(file, crawler=crawler, **kwargs)

    def _fields(self) -> list[str]:
        from ..items import EXPORT_FIELDS

        return list(self.fields_to_export or EXPORT_FIELDS)

    def start_exporting(self) -> None:
        self.file.write(JOURNAL_MARKER)

    def export_item(self, item: Any) -> None:
        row = {name: clean_export_value(value) for name, value in
               self.get_serialized_fields(item, default_value=None, include_empty=True)}
        self.file.write(json.dumps(row, ensure_ascii=False).encode("utf-8") + b"\n")

    def finish_exporting(self) -> None:
        self.file.flush()
        name = getattr(self.file, "name", None)
        if isinstance(name, os.PathLike):
            name = os.fspath(name)
        if not isinstance(name, str) or not os.path.isfile(name):
            logger.error("The Parquet export needs a local file; %r is none (the rows stay JSON lines)", name)
            return
        try:
            fold(Path(name), self._fields())
        except FOLD_ERRORS as exc:
            if self.crawler is None:
                raise
            fold_failed(self.crawler, name, exc)


def fold_failed(crawler: Any, path: str, exc: BaseException) -> None:
    """The fold failed: the file keeps its journal for the next run; the run is ``export_failed``."""
    why = getattr(exc, "strerror", None) or str(exc)
    crawler.stats.set_value("newscrawl/export_failed", f"{path}: {why}")
    crawler.stats.set_value("finish_reason", "export_failed")
    logger.error("Cannot write the Parquet file %s: %s. Its articles stay in it as a journal of JSON lines "
                 "(not readable as Parquet until then), which the next run folds into Parquet.", path, why)


ROWS_PER_GROUP = 1_000  # journal rows per Parquet row group at most ...
BYTES_PER_GROUP = 8 * 2**20  # ... and JSON bytes: what the fold holds in memory at once


def _journal_rows(lines, fields: list[str], skipped: list[int]):
    """``(row, size)`` of each of a journal's lines; a cut line is counted in ``skipped``."""
    for line in lines:
        line = line.rstrip(b"\n")
        if not line.strip() or line == JOURNAL_MARKER.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError:
            skipped[0] += 1  # a line a killed run left cut: it was never recorded as exported
            continue
        yield arrow_row({name: row.get(name) for name in fields}), len(line)


def _batches(rows, schema: pa.Schema):
    """Tables of at most :data:`ROWS_PER_GROUP` rows and about :data:`BYTES_PER_GROUP` bytes."""
    batch, size = [], 0
    for row, length in rows:
        batch.append(row)
        size += length
        if len(batch) == ROWS_PER_GROUP or size >= BYTES_PER_GROUP:
            yield pa.Table.from_pylist(batch, schema=schema)
            batch, size = [], 0
    if batch:
        yield pa.Table.from_pylist(batch, schema=schema)


def _conformed(table: pa.Table, schema: pa.Schema) -> pa.Table:
    """``table`` (an earlier run's rows) with ``schema``'s columns: cast, a field added since filled."""
    table = conformed_dates(table)
    columns = {}
    for name in schema.names:
        kind = schema.field(name).type
        columns[name] = table.column(name).cast(kind) if name in table.column_names \
            else pa.nulls(table.num_rows, kind)
    return pa.table(columns, schema=schema)


def _copy_earlier(head: pa.Buffer, schema: pa.Schema, writer: pq.ParquetWriter) -> int:
    """Copy the Parquet file ``head`` into ``writer`` a row group at a time."""
    ends = head.slice(0, 4).to_pybytes(), head.slice(head.size - 4).to_pybytes()
    if ends != (PARQUET_MAGIC, PARQUET_MAGIC):
        raise ValueError("the file holds neither Parquet nor a newscrawl journal")
    earlier = pq.ParquetFile(pa.BufferReader(head))
    rows = 0
    for group in range(earlier.num_row_groups):
        table = _conformed(earlier.read_row_group(group), schema)
        writer.write_table(table)
        rows += table.num_rows
    return rows


def fold(path: Path, fields: list[str]) -> int:
    """Rewrite ``path`` (earlier Parquet and/or journal) as one Parquet file; returns its rows.

    It streams: the earlier Parquet is copied a row group at a time from a memory map and the
    journal is read a row group at a time (:data:`ROWS_PER_GROUP`, :data:`BYTES_PER_GROUP`), so
    memory does not grow with the file, however many runs have appended to it."""
    schema = schema_for(fields)
    temporary = path.with_name(path.name + ".tmp")
    rows, skipped = 0, [0]
    try:
        with open(path, "rb") as fh, pq.ParquetWriter(temporary, schema) as writer:
            size = os.fstat(fh.fileno()).st_size
            start = journal_start(fh, size)
            head_size = size if start < 0 else start
            if head_size:
                with pa.memory_map(str(path), "r") as source:
                    head = source.read_buffer(head_size)
                    if head_size > 64 or head.to_pybytes().strip():
                        rows += _copy_earlier(head, schema, writer)
            if start >= 0:
                fh.seek(start)
                for table in _batches(_journal_rows(fh, fields, skipped), schema):
                    writer.write_table(table)
                    rows += table.num_rows
        with open(temporary, "rb") as written:
            os.fsync(written.fileno())
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    if skipped[0]:
        logger.warning("Skipped %d incomplete journal line(s) in %s", skipped[0], path)
    os.replace(temporary, path)
    return rows


def parquet_feeds(settings: Any, site: str) -> list[tuple[Path, list[str], bool]]:
    """``(path, fields, overwrite)`` of each local file of ``FEEDS`` that this exporter writes."""
    from scrapy.utils.misc import load_object

    from ..items import EXPORT_FIELDS

    exporters = settings.getwithbase("FEED_EXPORTERS")
    found = []
    for uri, options in settings.getdict("FEEDS").items():
        options = options if isinstance(options, dict) else {}
        try:
            exporter = load_object(exporters.get(options.get("format")) or "builtins.object")
        except (ImportError, NameError, ValueError):
            continue
        path = feed_path(str(uri), site, exact=True)
        if path is not None and isinstance(exporter, type) and issubclass(exporter, ParquetItemExporter):
            fields = options.get("fields") or settings.getlist("FEED_EXPORT_FIELDS") or list(EXPORT_FIELDS)
            found.append((path.resolve(), list(fields), bool(options.get("overwrite"))))
    return found


class PendingJournals:
    """Scrapy extension: fold the journal a killed or failed run left in a Parquet feed file.

    It runs at ``spider_opened`` after :class:`~newscrawl.state.seen_urls.SeenUrls` recorded the
    rows that run wrote last, so a run with nothing new still leaves a readable file.  With
    ``-O`` the folded file is then appended to (:meth:`keeps`): its rows were recorded as
    exported and never delivered.  The fold replaces the file, so the export file lock of
    :class:`~newscrawl.run.guard.RunGuard` is taken again on the new file.
    """

    def __init__(self, crawler: Any):
        self.crawler = crawler
        self.kept: set[Path] = set()
        self.locks: list[RunLock] = []
        crawler.signals.connect(self.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(self.release, signal=signals.engine_stopped)

    @classmethod
    def from_crawler(cls, crawler: Any) -> PendingJournals:
        return cls(crawler)

    def keeps(self, path: str | os.PathLike) -> bool:
        """Must ``path`` be appended to although ``-O`` asked to start it afresh?"""
        return Path(path).resolve() in self.kept

    def spider_opened(self, spider: Any) -> None:
        for path, fields, overwrite in parquet_feeds(self.crawler.settings, spider.name):
            if not pending(path):
                continue
            try:
                rows = fold(path, fields)
            except FOLD_ERRORS as exc:
                export_failed(self.crawler, str(path), exc if isinstance(exc, OSError) else OSError(str(exc)),
                              "the journal an earlier run left in it cannot be folded into Parquet, and "
                              "stays there for the next run")
                return
            logger.warning("Folded the journal an interrupted or failed run left in %s: the file reads as "
                           "Parquet again (%d rows)%s", path, rows,
                           "; -O appends to it, as its last rows were never delivered" if overwrite else "")
            if overwrite:
                self.kept.add(path)
            lock = RunLock(path, note_pid=False)
            if lock.acquire():
                self.locks.append(lock)

    def release(self, *args: Any, **kwargs: Any) -> None:
        for lock in self.locks:
            lock.release()
        self.locks = []
