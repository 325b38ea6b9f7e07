"""The offline demo (`scrapy crawl demo`): data/demo/site served by the spider itself, crawled
through the same spider and pipelines as a live site; checked against data/demo/manifest.json."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import pytest_twisted
from conftest import crawl_settings, read_jsonl, run_crawl

from newscrawl.sites import load_sites
from newscrawl.spiders.loader import spider_class

MANIFEST = Path(__file__).resolve().parent.parent / "data" / "demo" / "manifest.json"
pytestmark = pytest.mark.skipif(not MANIFEST.exists(), reason="data/demo not built yet")


def manifest() -> dict:
    return json.loads(MANIFEST.read_text(encoding="utf-8"))


async def crawl_demo(tmp_path: Path, feed: Path, **settings):
    spider = spider_class(load_sites()["demo"])
    return await run_crawl(spider, crawl_settings(tmp_path, feed, **settings))


@pytest_twisted.ensureDeferred
async def test_demo_crawl_then_incremental_rerun_then_fresh(tmp_path):
    expected = set(manifest()["expected_article_paths"])
    first = tmp_path / "demo1.jsonl"
    crawler = await crawl_demo(tmp_path, first)
    items = read_jsonl(first)
    assert len(items) >= 30
    assert {urlsplit(i["url"]).path for i in items} == expected
    assert all(i["title"] and i["text"] and i["site"] == "demo" for i in items)
    drops = {k: v for k, v in crawler.stats.get_stats().items() if k.startswith("newscrawl/dropped/")}
    assert drops.get("newscrawl/dropped/robots") == 1  # /private/ is disallowed by robots.txt
    assert drops.get("newscrawl/dropped/offsite") == 1  # the feed entry on other.example

    second = tmp_path / "demo2.jsonl"
    await crawl_demo(tmp_path, second)
    assert read_jsonl(second) == []

    fresh = tmp_path / "demo3.jsonl"
    await crawl_demo(tmp_path, fresh, NEWSCRAWL_FRESH=True)
    assert {urlsplit(i["url"]).path for i in read_jsonl(fresh)} == expected


@pytest_twisted.ensureDeferred
async def test_demo_titles_publication_dates_and_authors(tmp_path):
    """Depends on the extraction library's title, date and author stages (newscrawl.extract.fields.title/
    dates/authors): this layer passes them the listing title and the feed entry.  Every page's
    ``published`` is what the page says: the instant in the offset it was written in (EST, PST,
    Beijing and Moscow time), or the day alone; ``authors`` is the byline's people."""
    feed = tmp_path / "demo.jsonl"
    await crawl_demo(tmp_path, feed)
    truth = {a["path"]: a for a in manifest()["articles"]}
    items = read_jsonl(feed)
    assert len(items) == len(truth) == 36
    for item in items:
        page = truth[urlsplit(item["url"]).path]
        assert item["title"] == page["title"], item["url"]
        assert same_publication(item["published"], page["published"]), (item["url"], item["published"])
        assert item["authors"] == page["authors"], item["url"]
    by_kind = {len(page["published"]) == 10 for page in truth.values()}
    assert by_kind == {True, False}  # the demo has both a day-only page and instants
    assert any(len(page["authors"]) > 1 for page in truth.values())


def same_publication(exported: str | None, expected: str) -> bool:
    """The same day (a date), or the same instant written with the same UTC offset."""
    if exported is None or len(expected) == 10:
        return exported == expected
    got, want = datetime.fromisoformat(exported), datetime.fromisoformat(expected)
    return got == want and got.utcoffset() == want.utcoffset()


def test_store_keys_of_a_served_site_hold_no_port():
    """Earlier runs' feed URLs and other workers' requests (other ports) key as this run's."""
    spider = spider_class(load_sites()["demo"])()
    spider.served_netloc = "127.0.0.1:26848"
    for port in ("26848", "41234"):
        assert spider.store_url(f"http://127.0.0.1:{port}/en/a.html?x=1") == "http://demo.invalid/en/a.html?x=1"
    assert spider.store_url("http://other.example/en/a.html") == "http://other.example/en/a.html"
    spider.served_netloc = None  # a live site: its URLs are its keys
    assert spider.store_url("http://127.0.0.1:41234/a.html") == "http://127.0.0.1:41234/a.html"


@pytest_twisted.ensureDeferred
async def test_the_demo_port_is_stable_and_shared_within_a_process():
    from twisted.internet.threads import deferToThread

    from newscrawl.demo import DemoServer, serve_port

    root = MANIFEST.parent / "site"
    assert serve_port("demo") == serve_port("demo") != serve_port("other")
    first, second = DemoServer(root), DemoServer(root)
    netloc = first.start(0)
    try:
        assert second.start(0) == netloc  # the same directory: the same server
        assert first.stop() is None  # the second crawl still uses it
        assert await deferToThread(serve_header, f"http://{netloc}/robots.txt") == second.fingerprint
    finally:
        first.stop()
        last = second.stop()
        if last is not None:
            await last


def serve_header(url: str) -> str | None:
    import urllib.request

    from newscrawl.demo import SERVE_HEADER

    with urllib.request.build_opener(urllib.request.ProxyHandler({})).open(url, timeout=5) as answer:
        return answer.headers.get(SERVE_HEADER)
