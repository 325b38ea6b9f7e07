"""A 1 MB URL never makes a 1 MB log line (issue 30, item 13): every line shows a long URL by its
start, end and length (newscrawl.urls.short_url), newscrawl's lines and Scrapy's alike."""

from __future__ import annotations

import logging

import pytest_twisted
from conftest import crawl_settings, run_crawl, site_spider
from test_crawl_local import article_html

LONG = "/2024/05/10/" + "a" * 1_000_000 + ".html"


@pytest_twisted.ensureDeferred
async def test_a_megabyte_url_is_logged_short(http_server, tmp_path, caplog):
    caplog.set_level(logging.DEBUG)
    long_url = http_server.url(LONG)
    http_server.add("/news/", f'<html><body><ul><li><a href="{LONG}">A very long story link here today</a></li>'
                              '<li><a href="/2024/05/10/short-story-here.html">A short story about rain</a></li>'
                              "</ul></body></html>")
    http_server.add("/rss.xml", f'<?xml version="1.0"?><rss version="2.0"><channel><title>x</title>'
                                f"<item><title>Long</title><link>{long_url}x</link></item></channel></rss>",
                    headers={"Content-Type": "application/rss+xml"})
    http_server.add("/2024/05/10/short-story-here.html", article_html("A short story about rain"))
    spider = site_spider(catalogues=[http_server.url("/news/")], feeds=[http_server.url("/rss.xml")],
                         domains=["127.0.0.1"])
    crawler = await run_crawl(spider, crawl_settings(tmp_path, tmp_path / "out.jsonl", LOG_LEVEL="DEBUG"))
    assert crawler.stats.get_value("newscrawl/dropped/url_too_long") == 2  # both listed, neither fetched
    lines = [record.getMessage() for record in caplog.records]
    # (an exported item's DEBUG dump is long by nature: the body, its Markdown and HTML)
    assert not any("a" * 2_000 in line for line in lines)  # no line holds the URL whole
    # every line that names the URL is short (Scrapy's own start-up dumps of settings are long by nature)
    assert max(len(line) for line in lines if "a" * 50 in line and not line.startswith("Scraped from")) < 2_000
    assert sum(f"[{len(long_url)} chars]" in line for line in lines) >= 1  # the length is told


def test_short_url_keeps_the_start_the_end_and_the_length():
    from newscrawl.urls import MAX_LOGGED_URL, ShortUrlFilter, short_url

    url = "https://example.com/" + "x" * 5000 + "/end.html"
    shown = short_url(url)
    assert len(shown) <= MAX_LOGGED_URL + 30 and shown.startswith("https://example.com/xxx")
    assert shown.endswith("/end.html") and f"[{len(url)} chars]" in shown
    assert short_url("https://example.com/a.html") == "https://example.com/a.html"
    record = logging.LogRecord("x", logging.INFO, __file__, 1, "Crawled %s (%d)", (url, 200), None)
    ShortUrlFilter().filter(record)
    assert record.getMessage() == f"Crawled {shown} (200)"
