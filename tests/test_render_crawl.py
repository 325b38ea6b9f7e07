"""Pages that need a browser (issue #39), crawled end to end through the site spider and the
pipelines with scrapy-playwright and Debian's Chromium: real articles served four ways
(:mod:`render_sites`), every one exported with the body of its static version, nothing rendered
where the HTML or its embedded data holds the article, and a site whose pages need the browser
learned, so that its next run renders them directly (no page fetched twice).

Skipped without a ``chromium`` binary (``apt-get install -y chromium``, as .ci/run does), without
scrapy-playwright, or without ``../shared/datasets``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import pytest_twisted
from chromium import chromium
from conftest import crawl_settings, read_jsonl, run_crawl, site_spider
from render_sites import FUNDUS, articles, serve, slug_of

from newscrawl.evaluation import metrics

pytest.importorskip("scrapy_playwright", reason="scrapy-playwright is not installed (pip install 'newscrawl[render]')")
pytestmark = [
    pytest.mark.skipif(chromium() is None, reason="no chromium binary on PATH (apt-get install -y chromium; "
                       ".ci/run installs it)"),
    pytest.mark.skipif(not FUNDUS.is_file(), reason="../shared/datasets/fundus is absent"),
]
COUNT = 6
ROOT = Path(__file__).resolve().parents[1]


def spider_for(way: str, url: str, **table):
    return site_spider(f"render_{way}", catalogues=[url], language="en", **table)


def f1(text: str | None, article: dict) -> float:
    return metrics.zyte_prf("\n".join(article["paragraphs"]), text).f1


async def crawl(server, tmp_path, way: str, items, run: int = 1, **overrides):
    feed = tmp_path / f"{way}-{run}.jsonl"
    settings = crawl_settings(tmp_path, feed, NEWSCRAWL_RENDER_TIMEOUT=20, NEWSCRAWL_FRESH=run > 1, **overrides)
    before = dict(server.hits)
    crawler = await run_crawl(spider_for(way, serve(server, way, items)), settings)
    fetched = {path: n - before.get(path, 0) for path, n in server.hits.items() if path.endswith((".html", "/"))}
    return crawler.stats.get_stats(), {slug_of(r["url"]): r for r in read_jsonl(feed)}, fetched


@pytest_twisted.ensureDeferred
async def test_every_article_of_four_kinds_of_site_exported_and_only_shells_rendered(http_server, tmp_path):
    items = articles(COUNT)
    results = {way: await crawl(http_server, tmp_path, way, items) for way in ("static", "next", "spa", "scroll")}
    static = results["static"][1]
    assert sorted(static) == sorted(a["slug"] for a in items)
    for way, (_stats, records, _fetched) in results.items():
        assert sorted(records) == sorted(a["slug"] for a in items), way
        for article in items:
            record = records[article["slug"]]
            assert abs(f1(record["text"], article) - f1(static[article["slug"]]["text"], article)) <= 0.01, \
                (way, article["slug"])
    for way in ("static", "next"):
        stats = results[way][0]
        assert stats.get("newscrawl/render/pages", 0) == 0, way
        assert stats.get("playwright/page_count", 0) == 0, way
    assert all(r["method"] == "embedded" for r in results["next"][1].values())
    spa_stats = results["spa"][0]
    assert spa_stats["newscrawl/render/helped/listing"] == 1
    assert spa_stats["newscrawl/render/helped/article"] == COUNT
    assert spa_stats["playwright/browser_count"] == 1
    assert "newscrawl/render/browser_lost" not in spa_stats  # closed at the end, not lost
    assert results["scroll"][0]["newscrawl/render/helped/listing"] == 1  # the scrolled listing: all 6 links
    assert results["scroll"][0].get("newscrawl/render/helped/article", 0) == 0  # its articles are static


@pytest_twisted.ensureDeferred
async def test_a_site_learned_to_need_the_browser_is_rendered_directly_next_run(http_server, tmp_path):
    items = articles(COUNT)
    stats1, records1, fetched1 = await crawl(http_server, tmp_path, "spa", items)
    assert len(records1) == COUNT
    twice = [path for path, n in fetched1.items() if n > 1]
    assert twice and all(n <= 2 for n in fetched1.values())  # the first run: fetched plain, found empty, rendered
    assert stats1["newscrawl/render/fallback/article"] == len(twice) - 1  # and the listing once
    stats2, records2, fetched2 = await crawl(http_server, tmp_path, "spa", items, run=2)
    assert sorted(records2) == sorted(records1)
    assert all(n == 1 for n in fetched2.values()), fetched2  # rendered directly: one fetch a page
    assert stats2.get("newscrawl/render/fallback/article", 0) == 0
    assert stats2["newscrawl/render/direct/article"] == COUNT
    assert stats2["newscrawl/render/direct/listing"] == 1
    shown = subprocess.run([sys.executable, "-m", "scrapy", "templates", "render_spa", "--state-dir",
                            str(tmp_path / "state")], cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
                           capture_output=True, text=True, timeout=120)
    assert "rendering (article pages): render" in shown.stdout, shown.stdout + shown.stderr
    assert "rendering (listing pages): render" in shown.stdout


@pytest_twisted.ensureDeferred
async def test_render_never_renders_nothing(http_server, tmp_path):
    items = articles(2)
    feed = tmp_path / "never.jsonl"
    crawler = await run_crawl(spider_for("spa", serve(http_server, "spa", items), render="never"),
                              crawl_settings(tmp_path, feed))
    stats = crawler.stats.get_stats()
    assert stats.get("newscrawl/render/pages", 0) == 0 and stats.get("playwright/page_count", 0) == 0
    assert read_jsonl(feed) == []
