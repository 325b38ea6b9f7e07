"""What an operator sees (issue 29, item 9): counters and log lines say what happened, once, at the
right level.  Real crawls of a locally served site, in process."""

from __future__ import annotations

import logging

import pytest_twisted
from conftest import crawl_settings, read_jsonl, run_crawl, site_spider
from scrapy.extensions.logstats import LogStats
from test_crawl_local import build_site, feed_xml, headline

from newscrawl.run.crawlstats import Progress


def drops(crawler) -> dict[str, int]:
    prefix = "newscrawl/dropped/"
    return {k[len(prefix):]: v for k, v in crawler.stats.get_stats().items() if k.startswith(prefix)}


def records(caplog, text: str) -> list[logging.LogRecord]:
    return [r for r in caplog.records if text in r.getMessage()]


@pytest_twisted.ensureDeferred
async def test_an_unchanged_sites_rerun_logs_its_known_links_at_debug_and_counts_them_once(
        http_server, tmp_path, caplog):
    caplog.set_level(logging.DEBUG)
    urls = build_site(http_server, pages=2, per_page=3)
    spider = site_spider(catalogues=[http_server.url("/list/1.html")])
    first = await run_crawl(spider, crawl_settings(tmp_path, tmp_path / "1.jsonl"))
    assert len(read_jsonl(tmp_path / "1.jsonl")) == len(urls)
    # Listing items handed over to their detail requests are not drops.
    assert first.stats.get_value("item_dropped_count") is None
    assert first.stats.get_value("item_dropped_reasons_count/Scheduled") is None
    assert first.stats.get_value("newscrawl/scheduled") == len(urls)
    # No "Disabled ... WarcRecorder" warning when NEWSCRAWL_WARC is unset.
    assert not [r for r in caplog.records if "WarcRecorder" in r.getMessage() and r.levelno >= logging.WARNING]

    caplog.clear()
    second = await run_crawl(spider, crawl_settings(tmp_path, tmp_path / "2.jsonl"))
    assert drops(second) == {"already_exported": len(urls)}
    known = [r for r in records(caplog, ": already_exported") if r.getMessage().startswith("Dropped ")]
    assert len(known) == len(urls) and {r.levelno for r in known} == {logging.DEBUG}
    summary = records(caplog, "newscrawl summary for testsite")
    assert len(summary) == 1 and summary[0].levelno == logging.INFO
    assert f"already_exported={len(urls)}" in summary[0].getMessage()
    assert second.stats.get_value("item_dropped_count") == len(urls)  # real drops still count


@pytest_twisted.ensureDeferred
async def test_a_link_listed_twice_in_a_first_run_is_listed_twice_not_already_exported(http_server, tmp_path):
    urls = build_site(http_server, pages=1, per_page=3)
    http_server.add("/feed.xml", feed_xml([(u, headline(n)) for n, u in enumerate(urls)]),
                    headers={"Content-Type": "application/rss+xml"})
    spider = site_spider(feeds=[http_server.url("/feed.xml")], catalogues=[http_server.url("/list/1.html")])
    crawler = await run_crawl(spider, crawl_settings(tmp_path, tmp_path / "out.jsonl"))
    assert len(read_jsonl(tmp_path / "out.jsonl")) == len(urls)
    assert drops(crawler) == {"listed_twice": len(urls)}


@pytest_twisted.ensureDeferred
async def test_progress_lines_name_the_site_with_pages_done_of_total_and_a_rate(http_server, tmp_path):
    urls = build_site(http_server, pages=1, per_page=3)
    spider = site_spider(name="harbor", catalogues=[http_server.url("/list/1.html")])
    crawler = await run_crawl(spider, crawl_settings(tmp_path, tmp_path / "out.jsonl"))
    assert crawler.get_extension(LogStats) is None  # replaced: its lines name no site
    progress = crawler.get_extension(Progress)
    line = progress.line(crawler.spider)
    assert line.startswith(f"harbor: {len(urls)}/{len(urls)} article pages done ({len(urls)} exported, 0 dropped), ")
    assert "/min;" in line and "responses" in line
