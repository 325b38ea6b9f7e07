"""One input file's output, committed whole or not at all: Parquet (default) or JSON lines.

The rows of one input file go to ``.NAME.tmp`` in the output directory; when the file is done,
the temporary file is flushed to disk (``fsync``) and renamed to ``NAME.parquet`` (or
``NAME.jsonl``), then a marker ``NAME.done`` (JSON: the input, counts, skips with their
offsets) is written the same way.  A rename is atomic on POSIX file systems, so an output is
either absent or complete, and a file whose marker exists is finished: a re-run skips it.  A
job killed between the two renames left a complete output without its marker; the re-run
writes the same output again over it.  A re-run also reads back every marked output
(:func:`damage`): one that does not read back, or holds fewer rows than its marker counts, is
done again.  A failed write (a full disk) leaves no temporary file, and temporary files a
killed job left are removed by the next (:func:`remove_temporaries`, under the job's lock).
Readers take the outputs that have a marker (:func:`finished_outputs`).

The Parquet schema is the crawl's export (:data:`newscrawl.archives.mapper.ROW_FIELDS`,
:func:`newscrawl.export.schema.schema_for`): strings, ``published`` and ``modified`` UTC timestamps
with their ISO text in ``published_local`` and ``modified_local``, ``authors`` a list of strings,
``links`` a list of ``{text, url}``; rows are written in row groups
of :data:`ROW_GROUP` rows, so memory does not grow with the file.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from newscrawl.export.schema import arrow_row, schema_for

from .mapper import ROW_FIELDS

FORMATS = ("parquet", "jsonl")
ROW_GROUP = 500
DONE = ".done"


def schema():
    """The crawl's export schema (:func:`newscrawl.export.schema.schema_for`) over :data:`ROW_FIELDS`."""
    return schema_for(list(ROW_FIELDS))


def output_stem(source: str) -> str:
    """The output name of an input: its file name without ``.warc[.gz]``, and 8 hex digits of its
    full path or URL (two inputs of one name in two directories do not collide)."""
    name = source.rstrip("/").rsplit("/", 1)[-1] or "input"
    for suffix in (".gz", ".warc"):
        name = name.removesuffix(suffix)
    digest = hashlib.sha1(source.encode("utf-8", "surrogateescape")).hexdigest()[:8]
    return f"{name}-{digest}"


def done_path(out_dir: Path, source: str) -> Path:
    return out_dir / (output_stem(source) + DONE)


def is_done(out_dir: Path, source: str) -> bool:
    return done_path(out_dir, source).is_file()


def damage(out_dir: Path, source: str) -> str | None:
    """Why the marked output of ``source`` does not read back in full; None when it does.

    Every row group (Parquet) or line (JSON lines) is read, and the rows counted against the
    marker's ``articles``."""
    marker = done_path(out_dir, source)
    try:
        record = json.loads(marker.read_text(encoding="utf-8"))
        path = out_dir / record["output"]
        expected = int(record["articles"])
        rows = _count_rows(path)
    except (OSError, ValueError, KeyError, TypeError) as exc:  # pyarrow's errors are OSError or ValueError
        return f"{type(exc).__name__}: {exc}"
    return None if rows == expected else f"{rows} rows where its marker counts {expected}"


def _count_rows(path: Path) -> int:
    if path.suffix == ".parquet":
        import pyarrow.parquet as pq

        with pq.ParquetFile(path) as parquet:
            return sum(parquet.read_row_group(group).num_rows for group in range(parquet.num_row_groups))
    with open(path, "rb") as fh:
        return sum(1 for line in fh if line.strip() and isinstance(json.loads(line), dict))


def undo(out_dir: Path, source: str) -> None:
    """Take back the marker of ``source`` (and its output), so that it is done again."""
    done_path(out_dir, source).unlink(missing_ok=True)
    for fmt in FORMATS:
        (out_dir / f"{output_stem(source)}.{fmt}").unlink(missing_ok=True)


def remove_temporaries(out_dir: Path) -> int:
    """Remove the temporary files that a killed job left in ``out_dir``; returns how many.
    Only while no other job writes there (the caller holds the directory's lock)."""
    removed = 0
    for pattern in (*(f".*.{fmt}.tmp" for fmt in FORMATS), f".*{DONE}.tmp"):
        for path in out_dir.glob(pattern):
            path.unlink(missing_ok=True)
            removed += 1
    return removed


def _replace_durably(tmp: Path, final: Path) -> None:
    with open(tmp, "rb") as fh:
        os.fsync(fh.fileno())
    os.replace(tmp, final)
    try:
        directory = os.open(final.parent, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(directory)
    finally:
        os.close(directory)


class FileOutput:
    """The rows of one input file, written to a temporary file and committed by :meth:`commit`."""

    def __init__(self, out_dir: Path, source: str, fmt: str = "parquet"):
        if fmt not in FORMATS:
            raise ValueError(f"format must be one of {', '.join(FORMATS)}, got {fmt!r}")
        self.out_dir = out_dir
        self.source = source
        self.format = fmt
        stem = output_stem(source)
        self.final = out_dir / f"{stem}.{fmt}"
        self.tmp = out_dir / f".{stem}.{fmt}.tmp"
        self.rows = 0
        self._batch: list[dict] = []
        self._writer = None
        self._fh = None

    def __enter__(self) -> FileOutput:
        self.out_dir.mkdir(parents=True, exist_ok=True)
        if self.format == "parquet":
            import pyarrow.parquet as pq

            self._writer = pq.ParquetWriter(self.tmp, schema(), compression="zstd")
        else:
            self._fh = open(self.tmp, "w", encoding="utf-8")  # noqa: SIM115 - closed in commit/__exit__
        return self

    def write(self, row: dict) -> None:
        self.rows += 1
        if self._fh is not None:
            self._fh.write(json.dumps(row, ensure_ascii=False) + "\n")
            return
        self._batch.append(row)
        if len(self._batch) >= ROW_GROUP:
            self._flush()

    def _flush(self) -> None:
        import pyarrow as pa

        if self._batch:
            rows = [arrow_row(r) for r in self._batch]
            self._writer.write_table(pa.Table.from_pylist(rows, schema=schema()))
            self._batch = []

    def _close(self) -> None:
        """Write the last rows and close the file, once: a failed write (a full disk) still closes it."""
        writer, fh, self._fh = self._writer, self._fh, None
        try:
            if writer is not None:
                self._flush()
        finally:
            self._writer = None
            if writer is not None:
                writer.close()
            if fh is not None:
                fh.close()

    def commit(self, summary: dict) -> None:
        """Make the output final, then mark the input done with ``summary``."""
        self._close()
        _replace_durably(self.tmp, self.final)
        marker = done_path(self.out_dir, self.source)
        tmp = marker.with_name("." + marker.name + ".tmp")
        record = dict(summary, output=self.final.name)
        try:
            tmp.write_text(json.dumps(record, ensure_ascii=False), encoding="utf-8")
            _replace_durably(tmp, marker)
        finally:
            tmp.unlink(missing_ok=True)

    def __exit__(self, *exc_info) -> None:
        try:
            self._close()
        except (OSError, ValueError):
            if exc_info[0] is None:
                raise  # else the first failure (a full disk) is the one reported
        finally:
            self.tmp.unlink(missing_ok=True)  # committed: already renamed; failed: nothing half-written stays


def finished_outputs(out_dir: Path) -> list[Path]:
    """The outputs in ``out_dir`` whose input is marked done (in name order)."""
    found = []
    for marker in sorted(Path(out_dir).glob("*" + DONE)):
        try:
            name = json.loads(marker.read_text(encoding="utf-8")).get("output")
        except (OSError, ValueError):
            continue
        if name and (Path(out_dir) / name).is_file():
            found.append(Path(out_dir) / name)
    return found


def read_rows(path: Path) -> list[dict]:
    """The rows of one output file (Parquet or JSON lines)."""
    if path.suffix == ".parquet":
        import pyarrow.parquet as pq

        return pq.read_table(path).to_pylist()
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]
