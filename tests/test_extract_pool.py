"""Extraction in worker processes (``NEWSCRAWL_EXTRACT_PROCESSES``, newscrawl/pipelines/pool.py):
the same articles and template learning as in-process, and a dead worker costs no article
(tests/test_extract_timeout.py: the time limit, and workers dying with the crawl)."""

from __future__ import annotations

import multiprocessing
import os
import signal
from concurrent.futures import Future
from datetime import datetime
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import urlsplit

import pytest
import pytest_twisted
from conftest import crawl_settings, read_jsonl, run_crawl
from scrapy.settings import Settings
from scrapy.statscollectors import MemoryStatsCollector
from scrapy.utils.defer import deferred_from_coro

from newscrawl.dedup import fingerprint, to_bytes
from newscrawl.items import ArticleItem
from newscrawl.pipelines import ExtractStage
from newscrawl.pipelines.pool import ExtractionPool
from newscrawl.run.drops import Dropped
from newscrawl.sites import load_sites
from newscrawl.spiders.loader import spider_class

MANIFEST = Path(__file__).resolve().parent.parent / "data" / "demo" / "manifest.json"

ARTICLE = (b"<html><head><title>Rivers rise after the storm</title></head><body><article>"
           b"<h1>Rivers rise after the storm</h1>"
           b"<p>The river rose by two metres overnight and the town closed the old bridge to traffic.</p>"
           b"<p>Engineers said that the water should fall again by the end of the week.</p>"
           b"</article></body></html>")


FIELDS = ("title", "text", "authors", "language", "method")


def by_path(items: list[dict]) -> dict[str, dict]:
    """The extracted fields by URL path (each crawl's demo server has its own port).  The date
    is compared as an instant: an article listed both in the feed and on a catalogue page takes
    its date's offset from whichever listing reached the fetch stage first."""
    return {urlsplit(i["url"]).path: {**{k: i[k] for k in FIELDS},
                                      "published": datetime.fromisoformat(i["published"])} for i in items}


@pytest.mark.skipif(not MANIFEST.exists(), reason="data/demo not built yet")
@pytest_twisted.ensureDeferred
async def test_worker_processes_export_what_the_crawl_process_exports(tmp_path):
    spider = spider_class(load_sites()["demo"])
    here, pooled = tmp_path / "here", tmp_path / "pooled"
    await run_crawl(spider, crawl_settings(here, here / "out.jsonl"))
    crawler = await run_crawl(spider, crawl_settings(pooled, pooled / "out.jsonl", NEWSCRAWL_EXTRACT_PROCESSES=2))
    expected, got = by_path(read_jsonl(here / "out.jsonl")), by_path(read_jsonl(pooled / "out.jsonl"))
    assert len(got) >= 30
    assert got == expected
    # The template library was learned in the workers, its counters reached the crawl's stats
    # and it was saved where `scrapy templates` reads it.
    assert crawler.stats.get_value("newscrawl/template/pages_learned") == len(got)
    assert (pooled / "state" / "templates.sqlite3").exists()


@pytest.mark.skipif(not MANIFEST.exists(), reason="data/demo not built yet")
@pytest_twisted.ensureDeferred
async def test_a_full_backlog_pauses_the_crawl_and_every_article_still_arrives(tmp_path):
    spider = spider_class(load_sites()["demo"])
    crawler = await run_crawl(spider, crawl_settings(tmp_path, tmp_path / "out.jsonl",
                                                     NEWSCRAWL_EXTRACT_PROCESSES=1, NEWSCRAWL_EXTRACT_BACKLOG=1))
    items = read_jsonl(tmp_path / "out.jsonl")
    assert len(items) >= 30 and all(i["text"] for i in items)
    assert crawler.stats.get_value("newscrawl/extract/backlog_pauses") > 0  # two pages in flight at most
    assert crawler.stats.get_value("finish_reason") == "finished"


class _Crawler:
    def __init__(self, tmp_path: Path, **settings):
        self.settings = Settings({"NEWSCRAWL_STATE_DIR": str(tmp_path), **settings})
        self.stats = MemoryStatsCollector(SimpleNamespace(settings=self.settings))
        self.spider = SimpleNamespace(site=SimpleNamespace(language="en"))


def extracted(stage: ExtractStage, item: ArticleItem):
    """What Scrapy does with the stage's coroutine: run it as an asyncio task."""
    return deferred_from_coro(stage.process_item(item))


def _item(body: bytes, url: str = "http://127.0.0.1/a/1.html") -> ArticleItem:
    return ArticleItem(url=url, site="local", listing_title="Rivers rise", body=body,
                       status=200, content_type="text/html; charset=utf-8")


@pytest_twisted.ensureDeferred
async def test_a_dead_worker_is_replaced_and_its_page_extracted_by_the_new_worker(tmp_path):
    crawler = _Crawler(tmp_path, NEWSCRAWL_EXTRACT_PROCESSES=1)
    stage = ExtractStage(crawler)
    stage.open_spider()
    try:
        first = await extracted(stage, _item(ARTICLE))
        assert "two metres" in first.text
        for child in multiprocessing.active_children():
            os.kill(child.pid, signal.SIGKILL)
        second = await extracted(stage, _item(ARTICLE, "http://127.0.0.1/a/2.html"))
        assert "two metres" in second.text
        assert crawler.stats.get_value("newscrawl/extract/worker_restarts") == 1
        third = await extracted(stage, _item(ARTICLE, "http://127.0.0.1/a/3.html"))  # the new worker
        assert "two metres" in third.text
    finally:
        await stage.close_spider()


@pytest_twisted.ensureDeferred
async def test_a_page_a_worker_cannot_extract_is_dropped_with_its_reason(tmp_path):
    stage = ExtractStage(_Crawler(tmp_path, NEWSCRAWL_EXTRACT_PROCESSES=1))
    stage.open_spider()
    try:
        with pytest.raises(Dropped) as dropped:
            await extracted(stage, _item(b"<div>" * 60_000))
        assert dropped.value.reason == "too_deep"
        assert dropped.value.url == "http://127.0.0.1/a/1.html"
    finally:
        await stage.close_spider()


LONG_ARTICLE = (b"<html><head><title>Harbour reopens</title></head><body><article><h1>Harbour reopens</h1>"
                + b"".join(b"<p>Paragraph %d: the harbour master said that the ferries would run again on Monday "
                           b"once the divers had checked the piers and the cranes for damage.</p>" % n
                           for n in range(6))
                + b"</article></body></html>")


SHORT_ARTICLE = (b"<html><head><title>Bridge closed</title></head><body><article><h1>Bridge closed</h1>"
                 b"<p>The old bridge is closed to traffic until the river falls again.</p></article></body></html>")


@pytest_twisted.ensureDeferred
async def test_the_worker_computes_the_fingerprint_the_export_gate_would(tmp_path):
    stage = ExtractStage(_Crawler(tmp_path, NEWSCRAWL_EXTRACT_PROCESSES=1))
    stage.open_spider()
    try:
        long = await extracted(stage, _item(LONG_ARTICLE))
        short = await extracted(stage, _item(SHORT_ARTICLE, "http://127.0.0.1/a/2.html"))
    finally:
        await stage.close_spider()
    assert long.fingerprint == to_bytes(fingerprint(long.text))
    assert short.fingerprint == b"" and fingerprint(short.text) is None  # too short: not fingerprinted


def test_a_new_site_goes_to_the_least_loaded_worker_and_stays_there(tmp_path):
    pool = ExtractionPool(2, "auto", Settings({"NEWSCRAWL_STATE_DIR": str(tmp_path)}), timeout=0)
    try:
        def page(site: str, number: int, padding: int = 0) -> Future:
            body = ARTICLE.replace(b"</body>", b"<!--" + b"x" * padding + b"--></body>")
            return pool.submit(site, {"body": body, "url": f"http://{site}/{number}.html",
                                      "content_type": "text/html", "listing_title": None, "feed_entry": {}})

        # The workers are still warming up: nothing comes back while the pages are assigned.
        big = [page("big.example", n, padding=100_000) for n in range(3)]
        small = [page(f"site{n}.example", 1) for n in range(3)]
        assert pool.sites == {"big.example": 0, "site0.example": 1, "site1.example": 1, "site2.example": 1}
        # A site keeps its worker, also when the other one has less waiting.
        big.append(page("big.example", 3))
        assert pool.sites["big.example"] == 0
        assert pool.slots[0].waiting_bytes > pool.slots[1].waiting_bytes > 0
        outcomes = [future.result(timeout=180) for future in big + small]
        assert all("two metres" in outcome["fields"]["text"] for outcome in outcomes)
        assert [slot.waiting_bytes for slot in pool.slots] == [0, 0]
        page("new.example", 1).result(timeout=180)
        assert pool.sites["new.example"] == 0  # both idle: the first
    finally:
        pool.close()
