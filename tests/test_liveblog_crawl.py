"""A live blog crawled again and again through ``scrapy crawl`` and the site spider (issue #39
item 3): run 1 exports it with its entries, run 2 (three entries added) exports it again with those
three marked new (JSON lines, CSV and Parquet), run 3 (no change) exports nothing; a live blog
whose declared coverage has ended is not fetched again."""

from __future__ import annotations

import csv
import json
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pyarrow.parquet as pq
from conftest import read_jsonl
from liveblog_pages import EN_TEXTS, MSK, RU_TEXTS, english_jsonld, entries_at, recent, russian_dom
from test_crawl_local import catalogue_html, headline
from test_exit_status import scrapy, site_table

LIVE = "/news/2024/05/1/moscow-storm-live-updates.html"
ARTICLE = "/news/2024/05/2/council-budget-story-2.html"


def stat(done, name: str) -> int:
    """A counter of the run's stats dump (0 when absent)."""
    found = re.search(rf"'{re.escape(name)}': (\d+)", done.stderr)
    return int(found.group(1)) if found else 0


def serve(root: Path, live_page: str) -> None:
    (root / LIVE.lstrip("/")).parent.mkdir(parents=True, exist_ok=True)
    (root / LIVE.lstrip("/")).write_text(live_page, encoding="utf-8")
    (root / ARTICLE.lstrip("/")).parent.mkdir(parents=True, exist_ok=True)
    (root / ARTICLE.lstrip("/")).write_text(
        f"<html><head><title>{headline(2)}</title></head><body><article><h1>{headline(2)}</h1>"
        + "<p>The council met late into the evening to weigh the cost of new school buses against "
          "the repairs the old depot needs before winter.</p>" * 4 + "</article></body></html>", encoding="utf-8")
    (root / "index.html").write_text(catalogue_html([(LIVE, "Storm in Moscow: live updates as they happen"),
                                                     (ARTICLE, headline(2))]), encoding="utf-8")


def crawl(tmp_path: Path, *outputs: Path):
    args = [a for out in outputs for a in ("-o", str(out))]
    done = scrapy(tmp_path, "crawl", "live", *args, "-s", "LOG_LEVEL=INFO")
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def live_record(records: list[dict]) -> dict:
    found = [r for r in records if r["url"].endswith(LIVE)]
    assert len(found) == 1, [r["url"] for r in records]
    return found[0]


def test_a_live_blog_is_exported_again_with_its_new_entries_and_not_without(tmp_path):
    (tmp_path / "sites.toml").write_text(site_table("live", serve="live"))
    start = recent(MSK, hours_ago=5)
    all_entries = entries_at(RU_TEXTS, start)
    serve(tmp_path / "live", russian_dom(all_entries[:5]))

    crawl(tmp_path, tmp_path / "run1.jsonl")
    records = read_jsonl(tmp_path / "run1.jsonl")
    assert len(records) == 2  # the live blog and the article
    first = live_record(records)
    assert len(first["entries"]) == 5 and all(e["new"] for e in first["entries"])
    assert next(r for r in records if r["url"].endswith(ARTICLE))["entries"] == []

    serve(tmp_path / "live", russian_dom(all_entries))  # three entries more
    outputs = [tmp_path / f"run2.{ext}" for ext in ("jsonl", "csv", "parquet")]
    crawl(tmp_path, *outputs)
    again = live_record(read_jsonl(outputs[0]))  # the ordinary article is not exported again
    assert len(read_jsonl(outputs[0])) == 1
    new = {e["text"] for e in again["entries"] if e["new"]}
    assert len(again["entries"]) == 8 and new == {text for _, _, text in all_entries[5:]}
    with outputs[1].open(newline="", encoding="utf-8") as fh:
        (row,) = list(csv.DictReader(fh))
    assert json.loads(row["entries"]) == again["entries"]  # CSV: the entries as a JSON string
    (cell,) = pq.read_table(outputs[2]).column("entries").to_pylist()  # Parquet: a list of structs
    assert cell == again["entries"]

    done = crawl(tmp_path, tmp_path / "run3.jsonl")  # nothing new
    assert not (tmp_path / "run3.jsonl").exists() or read_jsonl(tmp_path / "run3.jsonl") == []
    assert stat(done, "newscrawl/dropped/already_exported") == 2  # the article unfetched, the blog fetched


def test_a_live_blog_whose_coverage_has_ended_is_not_fetched_again(tmp_path):
    (tmp_path / "sites.toml").write_text(site_table("live", serve="live"))
    start = datetime.now(UTC) - timedelta(days=3)  # coverageEndTime: start + 3 days, just past
    entries = entries_at(EN_TEXTS, start.replace(second=0, microsecond=0) - timedelta(hours=1))
    serve(tmp_path / "live", english_jsonld(entries[:5]))
    crawl(tmp_path, tmp_path / "run1.jsonl")
    assert len(live_record(read_jsonl(tmp_path / "run1.jsonl"))["entries"]) == 5

    serve(tmp_path / "live", english_jsonld(entries))
    done = crawl(tmp_path, tmp_path / "run2.jsonl")
    assert not (tmp_path / "run2.jsonl").exists() or read_jsonl(tmp_path / "run2.jsonl") == []
    assert stat(done, "newscrawl/dropped/already_exported") == 2  # neither page fetched again
