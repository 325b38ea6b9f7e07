"""The exported record's Arrow schema, shared by the Parquet feed export (:mod:`newscrawl.export.parquet`)
and ``scrapy archive``'s output (:mod:`newscrawl.archives.output`): one schema, whichever path wrote
the file.  No Scrapy imports."""

from __future__ import annotations

from datetime import UTC, datetime

import pyarrow as pa

_LINK = pa.struct([("text", pa.string()), ("url", pa.string())])
_IMAGE = pa.struct([("url", pa.string()), ("caption", pa.string()), ("alt", pa.string()),
                    ("credit", pa.string())])
_ENTRY = pa.struct([("time", pa.string()), ("title", pa.string()), ("text", pa.string()),
                    ("url", pa.string()), ("new", pa.bool_())])
# The record's dates are instants (UTC, so that they order and compare across sources); the ISO
# 8601 text as extracted, with the source's own offset and precision, is kept beside each in a
# ``<name>_local`` string column.  A day with no time of day is no instant: null, the day in
# ``<name>_local``.
TIMESTAMP = pa.timestamp("us", tz="UTC")
TIMESTAMP_FIELDS = ("published", "modified")
LOCAL_SUFFIX = "_local"
# Every exported field's type.
FIELD_TYPES: dict[str, pa.DataType] = {
    "published": TIMESTAMP,
    "modified": TIMESTAMP,
    "authors": pa.list_(pa.string()),
    "links": pa.list_(_LINK),
    "images": pa.list_(_IMAGE),
    "tags": pa.list_(pa.string()),
    "keywords": pa.list_(pa.string()),
    "paywalled": pa.bool_(),
    "word_count": pa.int64(),
    "entries": pa.list_(_ENTRY),
    "pages": pa.int64(),
    "page_type_probability": pa.float64(),
}


def schema_for(fields: list[str]) -> pa.Schema:
    """The declared schema of ``fields``: the types above, strings for the rest, and a
    ``<name>_local`` string column after each date."""
    columns = []
    for name in fields:
        columns.append((name, FIELD_TYPES.get(name, pa.string())))
        if name in TIMESTAMP_FIELDS:
            columns.append((name + LOCAL_SUFFIX, pa.string()))
    return pa.schema(columns)


def instant(value: str | None) -> datetime | None:
    """The instant an exported ISO 8601 date names, in UTC; None for a day alone or no date
    (a date-time written without an offset is read as UTC, as the crawl's date checks read it)."""
    if not isinstance(value, str) or len(value) <= 10:
        return None
    try:
        found = datetime.fromisoformat(value)
    except ValueError:
        return None
    if found.tzinfo is None:
        found = found.replace(tzinfo=UTC)
    return found.astimezone(UTC)


def arrow_row(row: dict) -> dict:
    """An exported row (dates as ISO 8601 text) as the schema holds it: each date an instant and
    its text in ``<name>_local``."""
    out = dict(row)
    for name in TIMESTAMP_FIELDS:
        if name in row:
            text = row[name]
            out[name] = instant(text)
            out[name + LOCAL_SUFFIX] = text
    return out


def conformed_dates(table: pa.Table) -> pa.Table:
    """``table`` whose date columns are ISO 8601 strings (a file written before dates were
    instants) with the dates as :func:`arrow_row` writes them; other tables as they are."""
    for name in TIMESTAMP_FIELDS:
        if name in table.column_names and pa.types.is_string(table.schema.field(name).type):
            texts = table.column(name).to_pylist()
            index = table.column_names.index(name)
            table = table.set_column(index, name, pa.array([instant(t) for t in texts], TIMESTAMP))
            if name + LOCAL_SUFFIX not in table.column_names:
                table = table.append_column(name + LOCAL_SUFFIX, pa.array(texts, pa.string()))
    return table
