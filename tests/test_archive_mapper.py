"""The archive mapper: one WARC page in, one row or one counted skip out; the time budget."""

from __future__ import annotations

import ast
import threading
import time
from pathlib import Path

import pytest
from test_warc import article, http_block, warc_record, write_warc

from newscrawl.archives.budget import BudgetExceeded, TimeBudget
from newscrawl.archives.mapper import ROW_FIELDS, MapOptions, map_page
from newscrawl.archives.warc_reader import ReadOptions, Skip, WarcPage, read_archive
from newscrawl.items import EXPORT_FIELDS

PACKAGE = Path(__file__).resolve().parents[1] / "newscrawl" / "archives"


def page(body: bytes, url: str = "https://news.example/2024/01/02/council-budget.html", **kwargs) -> WarcPage:
    return WarcPage(url=url, date="2024-01-02T03:04:05+00:00", status=200, content_type="text/html",
                    body=body, **kwargs)


def test_an_article_page_gives_a_row_with_the_crawls_export_fields_and_page_type():
    row = map_page(page(article("Council debates the budget")))
    assert isinstance(row, dict)
    assert list(row) == list(EXPORT_FIELDS) == list(ROW_FIELDS) and "page_type" in row
    assert row["title"] == "Council debates the budget"
    assert row["text"] and row["page_type"] == "article" and row["site"] == "news.example"
    assert row["fetched_at"] == "2024-01-02T03:04:05+00:00" and row["language"] == "en"


def test_listing_metadata_of_a_newscrawl_archive_fills_the_listing_fields():
    listing = {"site": "demo", "listing_title": "Listed title", "feed_title": "Feed title",
               "feed_summary": "Summary", "feed_published": "2024-01-01T00:00:00+00:00"}
    row = map_page(page(article(), metadata={"site": "demo", "listing": listing}))
    assert row["site"] == "demo" and row["listing_title"] == "Listed title"
    assert (row["feed_title"], row["feed_summary"], row["feed_published"]) == (
        "Feed title", "Summary", "2024-01-01T00:00:00+00:00")


def test_pages_that_are_not_articles_or_hold_nothing_are_skips_with_the_crawls_reasons():
    listing = b"<html><head><title>Sport</title></head><body>" + b"".join(
        b'<li><a href="/2024/01/0%d/story-%d.html">Story number %d about the match</a></li>' % (i % 9, i, i)
        for i in range(60)) + b"</body></html>"
    outcome = map_page(page(listing, url="https://news.example/sport/"))
    assert isinstance(outcome, Skip) and outcome.reason.startswith("not_article/")
    assert map_page(page(b"   ")).reason == "empty_body"
    empty = map_page(page(b"<html><head><title>T</title></head><body></body></html>"))
    assert isinstance(empty, Skip) and empty.reason in ("no_text", "empty_body")


def test_reader_skips_keep_their_reasons(tmp_path):
    """Not HTML, not a 200, not an article page, too large, undecodable: counted, named."""
    records = [
        warc_record("https://a.example/x.pdf", http_block(b"%PDF-1.4", headers={"Content-Type": "application/pdf"})),
        warc_record("https://a.example/2024/01/02/gone.html", http_block(article(), status=404)),
        warc_record("https://a.example/about", http_block(b"<html><body><p>About us</p></body></html>")),
        warc_record("https://a.example/2024/01/02/big.html", http_block(article() + b" " * 5000)),
        warc_record("https://a.example/2024/01/02/coded.html",
                    http_block(b"\xfd7zXZ", headers={"Content-Type": "text/html", "Content-Encoding": "xz"})),
    ]
    path = write_warc(tmp_path / "a.warc.gz", records)
    outcomes = list(read_archive(path, ReadOptions(max_bytes=4000)))
    found = [o.reason for o in outcomes if isinstance(o, Skip)]
    assert found == ["not_html", "http_status", "too_large", "unsupported_encoding"]
    about = [o for o in outcomes if not isinstance(o, Skip)]
    assert [o.url for o in about] == ["https://a.example/about"]  # judged by the extraction, not the reader
    assert isinstance(map_page(about[0]), Skip)


def test_an_extraction_past_the_time_budget_is_a_skip_in_the_main_thread_and_in_a_worker_thread():
    # A long page (thousands of paragraphs: far longer than the 5 ms the interpreter lets a thread
    # run before another, the watchdog, gets its turn) cannot be extracted in a microsecond.
    tiny = MapOptions(time_budget=1e-6)
    long = article().replace(b"</p>", b"</p>" + b"<p>The council met again and spoke at length.</p>" * 3000, 1)
    assert map_page(page(long), tiny).reason == "extraction_timeout"
    found = []
    thread = threading.Thread(target=lambda: found.append(map_page(page(long), tiny)))
    thread.start()
    thread.join()
    assert found[0].reason == "extraction_timeout"
    assert isinstance(map_page(page(article()), MapOptions(time_budget=0)), dict)  # 0: no budget


@pytest.mark.parametrize("in_thread", [False, True])
def test_a_time_budget_interrupts_a_loop_and_leaves_nothing_pending(in_thread):
    outcomes = []

    def run():
        try:
            with TimeBudget(0.05):
                while True:
                    time.sleep(0.001)
        except BudgetExceeded:
            outcomes.append("interrupted")
        for _ in range(3):  # a budget that is not exceeded raises nothing, then or later
            with TimeBudget(5):
                sum(range(1000))
        time.sleep(0.1)
        outcomes.append("clean")

    if in_thread:
        thread = threading.Thread(target=run)
        thread.start()
        thread.join()
    else:
        run()
    assert outcomes == ["interrupted", "clean"]


def test_the_archive_package_imports_no_scrapy():
    for module in PACKAGE.glob("*.py"):
        tree = ast.parse(module.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            assert not any(n == "scrapy" or n.startswith("scrapy.") for n in names), module.name
