"""The exported record's Arrow schema, shared by the Parquet feed export (:mod:`newscrawl.export.parquet`)
and ``scrapy archive``'s output (:mod:`newscrawl.archives.output`): one schema, whichever path wrote
the file.  No Scrapy imports."""

from __future__ import annotations

import pyarrow as pa

_LINK = pa.struct([("text", pa.string()), ("url", pa.string())])
_IMAGE = pa.struct([("url", pa.string()), ("caption", pa.string()), ("alt", pa.string()),
                    ("credit", pa.string())])
_ENTRY = pa.struct([("time", pa.string()), ("title", pa.string()), ("text", pa.string()),
                    ("url", pa.string()), ("new", pa.bool_())])
# Every exported field's type.  Dates stay ISO 8601 strings: a source gives a day or an instant
# with its own offset, which no one Arrow timestamp type holds.
FIELD_TYPES: dict[str, pa.DataType] = {
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
    """The declared schema of ``fields``: the types above, strings for the rest."""
    return pa.schema([(name, FIELD_TYPES.get(name, pa.string())) for name in fields])
