"""The Parquet feed export (``scrapy crawl SITE -O articles.parquet``), through Scrapy's feed exports.

Parquet keeps its row-group index in a footer written when the file is closed: a file that a
killed run left without one cannot be read at all.  So during the run the exporter writes
each item as a JSON line after a journal marker (flushed per item by the project's feed
storage, as the JSON-lines export is), and at the end of the run folds the journal into a
Parquet file with the declared :data:`SCHEMA`, written beside it and moved over it in one
rename.  A run that was killed leaves the Parquet of the runs before it plus its journal;
the next run appending to the file (``-o``) folds both, so nothing exported is lost or
repeated; ``-O`` starts the file afresh as for every format.
"""

from __future__ import annotations

import json
import logging
import mmap
import os
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
from scrapy.exporters import BaseItemExporter

from ..items import clean_export_value
from .schema import schema_for

logger = logging.getLogger(__name__)

JOURNAL_MARKER = b"\n#newscrawl-parquet-journal\n"  # starts each run's journal; the newline ends a cut line
PARQUET_MAGIC = b"PAR1"

class ParquetItemExporter(BaseItemExporter):
    """Scrapy item exporter writing Parquet (pyarrow), registered in ``FEED_EXPORTERS`` as ``parquet``."""

    def __init__(self, file: Any, **kwargs: Any):
        super().__init__(dont_fail=True, **kwargs)
        self.file = file

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
        fold(Path(name), self._fields())


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
        yield {name: row.get(name) for name in fields}, len(line)


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
    columns = {}
    for name in schema.names:
        kind = schema.field(name).type
        columns[name] = table.column(name).cast(kind) if name in table.column_names \
            else pa.nulls(table.num_rows, kind)
    return pa.table(columns, schema=schema)


def _journal_start(fh, size: int) -> int:
    """Where the first journal marker of the open file ``fh`` starts; -1 for none."""
    if not size:
        return -1
    with mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as data:
        return data.find(JOURNAL_MARKER)


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
            start = _journal_start(fh, size)
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
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    if skipped[0]:
        logger.warning("Skipped %d incomplete journal line(s) in %s", skipped[0], path)
    os.replace(temporary, path)
    return rows
