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

import io
import json
import logging
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


def read_journal(data: bytes, fields: list[str]) -> tuple[pa.Table | None, list[dict], int]:
    """``(earlier Parquet table or None, journal rows, lines skipped)`` of a file's bytes."""
    start = data.find(JOURNAL_MARKER)
    head, journal = (data, b"") if start < 0 else (data[:start], data[start:])
    table = None
    if head.strip():
        if not (head.startswith(PARQUET_MAGIC) and head.endswith(PARQUET_MAGIC)):
            raise ValueError("the file holds neither Parquet nor a newscrawl journal")
        table = pq.read_table(io.BytesIO(head))
    rows, skipped = [], 0
    for line in journal.split(b"\n"):
        if not line.strip() or line == JOURNAL_MARKER.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError:
            skipped += 1  # a line a killed run left cut: it was never recorded as exported
            continue
        rows.append({name: row.get(name) for name in fields})
    return table, rows, skipped


def fold(path: Path, fields: list[str]) -> int:
    """Rewrite ``path`` (earlier Parquet and/or journal) as one Parquet file; returns its rows."""
    table, rows, skipped = read_journal(path.read_bytes(), fields)
    if skipped:
        logger.warning("Skipped %d incomplete journal line(s) in %s", skipped, path)
    schema = schema_for(fields)
    fresh = pa.Table.from_pylist(rows, schema=schema)
    if table is not None:
        columns = {}
        for name in fields:
            kind = schema.field(name).type
            columns[name] = table.column(name).cast(kind) if name in table.column_names \
                else pa.nulls(table.num_rows, kind)  # a field added since that run
        earlier = pa.table(columns, schema=schema)
        fresh = pa.concat_tables([earlier, fresh])
    temporary = path.with_name(path.name + ".tmp")
    pq.write_table(fresh, temporary)
    os.replace(temporary, path)
    return fresh.num_rows
