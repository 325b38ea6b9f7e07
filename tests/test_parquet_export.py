"""The rich record through the crawl's exports: Parquet read back by pyarrow, DuckDB (and pandas
where installed); JSON lines nested; CSV scalar; the body renderings left out on request."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from newscrawl.export.parquet import JOURNAL_MARKER, ParquetItemExporter, fold, schema_for
from newscrawl.items import EXPORT_FIELDS, ArticleItem, CsvArticleExporter

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "data" / "demo" / "manifest.json"
DEMO_ARTICLES = 36


def scrapy(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "scrapy", *args, "-s", f"NEWSCRAWL_STATE_DIR={tmp_path / 'state'}",
           "-s", "LOG_LEVEL=WARNING"]
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})


@pytest.mark.skipif(not DEMO.exists(), reason="data/demo not built yet")
def test_demo_crawl_to_parquet_reads_back_in_pyarrow_and_duckdb(tmp_path):
    duckdb = pytest.importorskip("duckdb")
    out = tmp_path / "demo.parquet"
    done = scrapy(tmp_path, "crawl", "demo", "-O", str(out))
    assert done.returncode == 0, done.stderr[-3000:]
    table = pq.read_table(out)
    assert table.num_rows == DEMO_ARTICLES
    assert [n for n in table.schema.names if not n.endswith("_local")] == list(EXPORT_FIELDS)  # the stable order
    assert table.schema.equals(schema_for(list(EXPORT_FIELDS)))  # the declared types
    rows = table.to_pylist()
    assert all(r["title"] and r["text"] and r["markdown"] and r["html"] for r in rows)
    assert all(r["word_count"] > 0 and isinstance(r["paywalled"], bool) for r in rows)
    assert len({r["url"] for r in rows}) == DEMO_ARTICLES
    con = duckdb.connect()
    count, with_text, columns = con.execute(
        f"SELECT count(*), count(text), (SELECT count(*) FROM (DESCRIBE SELECT * FROM '{out}')) FROM '{out}'"
    ).fetchone()
    assert (count, with_text, columns) == (DEMO_ARTICLES, DEMO_ARTICLES, len(table.schema))
    authors = con.execute(f"SELECT sum(len(authors)) FROM '{out}'").fetchone()[0]
    assert authors == sum(len(r["authors"]) for r in rows)
    try:
        import pandas  # noqa: F401
    except ImportError:
        return
    frame = pd_read(out)
    assert len(frame) == DEMO_ARTICLES and list(frame.columns) == table.schema.names


def pd_read(path):
    import pandas

    return pandas.read_parquet(path)


@pytest.mark.skipif(not DEMO.exists(), reason="data/demo not built yet")
def test_jsonlines_nested_and_renderings_left_out_on_request(tmp_path):
    out = tmp_path / "demo.jsonl"
    done = scrapy(tmp_path, "crawl", "demo", "-O", str(out), "-s", "NEWSCRAWL_EXPORT_HTML=False")
    assert done.returncode == 0, done.stderr[-3000:]
    items = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert len(items) == DEMO_ARTICLES
    assert all("html" not in i and i["markdown"] for i in items)
    assert all(isinstance(i["images"], list) and isinstance(i["tags"], list) for i in items)
    assert set(items[0]) == set(EXPORT_FIELDS) - {"html"}


def item(**fields) -> ArticleItem:
    base = dict(url="https://example.com/a", site="example", title="T", text="Body",
                tags=["Budget", "City council"], keywords=["x"], paywalled=False, word_count=1,
                images=[{"url": "https://example.com/a.jpg", "caption": "=cmd|' /C calc'!A0", "alt": None,
                         "credit": "Ann"}], markdown="Body", html="<p>Body</p>")
    base.update(fields)
    return ArticleItem(**base)


def test_csv_scalar_columns_lists_joined_images_as_json():
    buffer = io.BytesIO()
    exporter = CsvArticleExporter(buffer, fields_to_export=list(EXPORT_FIELDS))
    exporter.start_exporting()
    exporter.export_item(item())
    exporter.finish_exporting()
    rows = list(csv.DictReader(io.StringIO(buffer.getvalue().decode("utf-8"))))
    assert rows[0]["tags"] == "Budget; City council"
    assert json.loads(rows[0]["images"])[0]["url"] == "https://example.com/a.jpg"
    assert rows[0]["word_count"] == "1" and rows[0]["paywalled"] == "False"


def export(path: Path, items: list[ArticleItem], mode: str) -> None:
    with open(path, mode) as fh:
        exporter = ParquetItemExporter(fh, fields_to_export=list(EXPORT_FIELDS))
        exporter.start_exporting()
        for one in items:
            exporter.export_item(one)
        exporter.finish_exporting()


def test_a_killed_run_is_folded_in_by_the_next_run_nothing_lost_or_repeated(tmp_path):
    path = tmp_path / "out.parquet"
    export(path, [item(url="https://example.com/1"), item(url="https://example.com/2")], "wb")
    assert pq.read_table(path).num_rows == 2
    # A run killed after one complete row and inside the next: journal lines after the Parquet.
    row = {name: None for name in EXPORT_FIELDS} | {"url": "https://example.com/3", "authors": ["A"]}
    with open(path, "ab") as fh:
        fh.write(JOURNAL_MARKER + json.dumps(row).encode() + b"\n" + b'{"url": "https://example.com/4", "ti')
    with pytest.raises(pa.ArrowInvalid):
        pq.read_table(path)
    export(path, [item(url="https://example.com/5")], "ab")  # the next run, appending (-o)
    urls = pq.read_table(path).column("url").to_pylist()
    assert urls == ["https://example.com/1", "https://example.com/2", "https://example.com/3",
                    "https://example.com/5"]
    assert fold(path, list(EXPORT_FIELDS)) == 4  # folding again changes nothing
    assert not path.with_name(path.name + ".tmp").exists()


def test_folding_streams_so_memory_does_not_grow_with_the_file(tmp_path):
    """A file appended to by months of runs is folded a row group at a time: the rows are never
    all held in memory (Python's allocations stay far below the journal's size)."""
    import tracemalloc

    from newscrawl.export.parquet import ROWS_PER_GROUP

    path = tmp_path / "out.parquet"
    body = "word " * 4_000  # 20 KB of text per row
    export(path, [item(url=f"https://example.com/old/{n}", text=body) for n in range(ROWS_PER_GROUP + 10)], "wb")
    rows = 2 * ROWS_PER_GROUP + 500
    with open(path, "ab") as fh:  # a killed run's journal, larger than any row group
        fh.write(JOURNAL_MARKER)
        for n in range(rows):
            row = {name: None for name in EXPORT_FIELDS} | {"url": f"https://example.com/new/{n}", "text": body}
            fh.write(json.dumps(row).encode() + b"\n")
    journal_bytes = path.stat().st_size
    tracemalloc.start()
    try:
        assert fold(path, list(EXPORT_FIELDS)) == ROWS_PER_GROUP + 10 + rows
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < journal_bytes / 3, (peak, journal_bytes)
    parquet = pq.ParquetFile(path)
    assert parquet.metadata.num_rows == ROWS_PER_GROUP + 10 + rows
    assert max(parquet.metadata.row_group(g).num_rows for g in range(parquet.num_row_groups)) <= ROWS_PER_GROUP
    urls = pq.read_table(path, columns=["url"]).column("url").to_pylist()
    assert urls[0] == "https://example.com/old/0" and urls[-1] == f"https://example.com/new/{rows - 1}"
    assert len(set(urls)) == len(urls)
