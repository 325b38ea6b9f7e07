"""Near-duplicate bodies as a pass over a finished job's output (``scrapy archive --dedup``).

The mapper sees one record, so it cannot know that a body repeats another; the crawl drops such a
page at export (``duplicate``/``duplicate_content``, the crawl's export gate stage).
Here the same decisions are made afterwards, over the committed outputs in name order and
their rows in order: a row whose URL key (:func:`newscrawl.dedup.url_key`) was seen is a ``duplicate``;
a row whose body's MinHash (:func:`newscrawl.dedup.fingerprint`, Broder 1997) reaches the crawl's
similarity with an earlier body *of the same site* (:class:`newscrawl.dedup.ContentIndex`) is a
``duplicate_content``.  The outputs stay as they are (each is its input file's record, exactly
once); the pass writes ``near-duplicates.jsonl`` beside them — one line a repeated row: ``url``,
``site``, ``reason``, ``same_as`` — atomically, so a reader drops those URLs.  Doing it as a pass
rather than within a task keeps the tasks stateless and the result independent of how files were
spread over workers; its cost is one fingerprint a row in one process (docs/archives.md).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from ..dedup import ContentIndex, fingerprint, url_key
from .output import finished_outputs, read_rows

DUPLICATES = "near-duplicates.jsonl"


def near_duplicates(out_dir: str | os.PathLike):
    """Yield ``(row count so far, duplicate record or None)`` for every row of the finished outputs."""
    seen: set[str] = set()
    indexes: dict[str, ContentIndex] = {}
    count = 0
    for output in finished_outputs(Path(out_dir)):
        for row in read_rows(output):
            count += 1
            key = url_key(row["url"])
            if key in seen:
                yield count, {"url": row["url"], "site": row["site"], "reason": "duplicate", "same_as": None}
                continue
            seen.add(key)
            minhash = fingerprint(row.get("text") or "")
            if minhash is None:
                yield count, None
                continue
            index = indexes.setdefault(row["site"], ContentIndex())
            earlier = index.match(minhash)
            if earlier is not None:
                yield count, {"url": row["url"], "site": row["site"], "reason": "duplicate_content",
                              "same_as": earlier}
                continue
            index.add(row["url"], minhash)
            yield count, None


def write_near_duplicates(out_dir: str | os.PathLike) -> tuple[int, int]:
    """Run the pass; write ``near-duplicates.jsonl`` in ``out_dir``.  Returns (rows, duplicates)."""
    out = Path(out_dir)
    tmp = out / ("." + DUPLICATES + ".tmp")
    rows = duplicates = 0
    with open(tmp, "w", encoding="utf-8") as fh:
        for count, found in near_duplicates(out):
            rows = count
            if found is not None:
                duplicates += 1
                fh.write(json.dumps(found, ensure_ascii=False) + "\n")
    os.replace(tmp, out / DUPLICATES)
    return rows, duplicates
