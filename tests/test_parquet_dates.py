"""Dates in the Parquet export are instants: ``published`` and ``modified`` are UTC timestamps
(DuckDB: TIMESTAMP WITH TIME ZONE) that order articles written with different offsets, the ISO
text as extracted is kept in ``published_local``/``modified_local``, and a day with no time is
no instant (null, the day in ``published_local``).  JSON lines keep the ISO strings.  End to end
through ``scrapy crawl -O x.parquet`` on a site served from a directory."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from test_crawl_local import catalogue_html
from test_exit_status import scrapy, site_table

# Two articles of one morning: the one written with the later local clock is the earlier instant.
ARTICLES = {
    "/news/2024/05/10/council-budget-vote-berlin.html": ("Council budget vote in Berlin ends in a late compromise",
                                                         "2024-05-10T09:00:00+02:00"),
    "/news/2024/05/10/council-budget-vote-boston.html": ("Council budget vote in Boston ends in a late compromise",
                                                         "2024-05-10T08:30:00-04:00"),
    "/news/2024/05/09/council-budget-vote-lima.html": ("Council budget vote in Lima ends in a late compromise",
                                                       "2024-05-09"),
}
PARAGRAPHS = [
    "The council of {} met on Thursday evening to debate the budget for the coming year at length.",
    "Members in {} argued over the funding of schools, roads and the public library for hours.",
    "The mayor of {} said the final plan balanced the needs of residents with the limits of the treasury.",
    "In {} a vote is expected next week after a last round of public hearings in every district.",
]


def article(title: str, published: str) -> str:
    city = title.split(" in ")[1].split()[0]
    body = "".join(f"<p>{p.format(city)}</p>" for p in PARAGRAPHS)
    return (f'<html><head><meta charset="utf-8"><title>{title}</title>'
            f'<meta property="article:published_time" content="{published}">'
            f'<meta property="article:modified_time" content="{published}"></head>'
            f"<body><article><h1>{title}</h1>{body}</article></body></html>")


def serve_site(root: Path) -> None:
    for path, (title, published) in ARTICLES.items():
        (root / path.lstrip("/")).parent.mkdir(parents=True, exist_ok=True)
        (root / path.lstrip("/")).write_text(article(title, published), encoding="utf-8")
    links = [(path, title) for path, (title, _) in ARTICLES.items()]
    (root / "index.html").write_text(catalogue_html(links), encoding="utf-8")


def test_published_is_a_utc_timestamp_that_orders_across_offsets_in_pyarrow_and_duckdb(tmp_path):
    duckdb = pytest.importorskip("duckdb")
    serve_site(tmp_path / "dated")
    (tmp_path / "sites.toml").write_text(site_table("dated", serve="dated"))
    out, lines = tmp_path / "dated.parquet", tmp_path / "dated.jsonl"
    done = scrapy(tmp_path, "crawl", "dated", "-O", str(out), "-O", str(lines))
    assert done.returncode == 0, done.stderr[-3000:]

    table = pq.read_table(out)
    assert table.schema.field("published").type == pa.timestamp("us", tz="UTC")
    assert table.schema.field("modified").type == pa.timestamp("us", tz="UTC")
    assert table.schema.field("published_local").type == pa.string()
    rows = {r["url"].rsplit("/", 1)[-1]: r for r in table.to_pylist()}
    assert len(rows) == 3
    berlin, boston, lima = (rows[p.rsplit("/", 1)[-1]] for p in ARTICLES)
    assert berlin["published"] == datetime(2024, 5, 10, 7, 0, tzinfo=UTC)
    assert boston["published"] == datetime(2024, 5, 10, 12, 30, tzinfo=UTC)
    assert berlin["published_local"] == "2024-05-10T09:00:00+02:00"  # the source's own offset
    assert boston["modified_local"] == "2024-05-10T08:30:00-04:00"
    assert lima["published"] is None and lima["published_local"] == "2024-05-09"  # a day: no instant

    con = duckdb.connect()
    kinds = dict(con.execute(f"SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM '{out}')").fetchall())
    assert kinds["published"] == "TIMESTAMP WITH TIME ZONE" and kinds["published_local"] == "VARCHAR"
    ordered = [row[0] for row in con.execute(
        f"SELECT published_local FROM '{out}' WHERE published IS NOT NULL ORDER BY published").fetchall()]
    assert ordered == ["2024-05-10T09:00:00+02:00", "2024-05-10T08:30:00-04:00"]
    (later,) = con.execute(f"SELECT count(*) FROM '{out}' WHERE published > TIMESTAMPTZ '2024-05-10 10:00:00+00'"
                           ).fetchone()
    assert later == 1

    records = [json.loads(line) for line in lines.read_text(encoding="utf-8").splitlines()]
    assert sorted(r["published"] for r in records) == sorted(p for _, p in ARTICLES.values())
    assert all("published_local" not in r for r in records)


def test_a_file_written_with_string_dates_is_appended_to_with_its_dates_as_instants(tmp_path):
    """A run appending (``-o``) to a Parquet file an earlier version wrote, with ISO strings in
    ``published``: the earlier rows' dates become instants too, their text kept in ``_local``."""
    from test_parquet_export import export, item

    from newscrawl.export.schema import schema_for
    from newscrawl.items import EXPORT_FIELDS

    path = tmp_path / "out.parquet"
    old = [{name: None for name in EXPORT_FIELDS} | {"url": "https://example.com/old", "authors": [],
                                                       "published": "2024-05-10T08:30:00-04:00"}]
    earlier_schema = pa.schema([(f.name, pa.string() if f.name in ("published", "modified") else f.type)
                                for f in schema_for(list(EXPORT_FIELDS)) if not f.name.endswith("_local")])
    pq.write_table(pa.Table.from_pylist(old, schema=earlier_schema), path)
    export(path, [item(url="https://example.com/new", published="2024-05-10T09:00:00+02:00")], "ab")
    table = pq.read_table(path)
    assert table.schema.field("published").type == pa.timestamp("us", tz="UTC")
    rows = {r["url"]: r for r in table.to_pylist()}
    assert rows["https://example.com/old"]["published"] == datetime(2024, 5, 10, 12, 30, tzinfo=UTC)
    assert rows["https://example.com/old"]["published_local"] == "2024-05-10T08:30:00-04:00"
    assert rows["https://example.com/new"]["published"] == datetime(2024, 5, 10, 7, 0, tzinfo=UTC)
