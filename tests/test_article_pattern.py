"""An ``article_pattern`` that matches none of a site's articles (issue 29, item 7): ``addsite``
never proposes one (a pattern is tested against the URLs it was inferred from), and a crawl whose
catalogue links the pattern all rejects says so and is not "ok"."""

from __future__ import annotations

import logging
import re

import pytest_twisted
from conftest import crawl_settings, read_jsonl, run_crawl, site_spider
from test_crawl_local import article_html

from newscrawl.commands.outcome import outcome_of
from newscrawl.discovery import patterns


def story(n: int, month: str = "2024-05") -> str:
    return f"/n/{month}/1{n}/content_10000{n}.htm"


def test_an_inferred_pattern_matches_the_urls_it_was_inferred_from():
    base = "http://www.example.cn"
    articles = [base + story(n) for n in range(5)]
    pattern = patterns.infer_article_pattern(articles, [base + "/n/", base + "/"])
    assert pattern is not None
    compiled = re.compile(pattern)
    assert all(compiled.search(url) for url in articles)  # [0-9A-Za-z]+ cannot match content_100000
    assert compiled.search(base + story(3, month="2024-06"))  # next month's articles too
    assert not compiled.search(base + "/n/") and not patterns.nested_quantifier(pattern)


@pytest_twisted.ensureDeferred
async def test_a_pattern_rejecting_every_catalogue_link_is_reported_and_not_ok(http_server, tmp_path, caplog):
    s = http_server
    titles = [f"Officials open the new harbour bridge number {n}" for n in range(4)]
    s.add("/n/", "<html><body><ul>" + "".join(f'<li><a href="{story(n)}">{titles[n]}</a></li>' for n in range(3))
          + "</ul></body></html>")
    for n in range(4):
        s.add(story(n), article_html(titles[n]))
    s.add("/rss.xml", f'<?xml version="1.0"?><rss version="2.0"><channel><title>x</title><item><title>{titles[3]}'
                      f"</title><link>{s.url(story(3))}</link></item></channel></rss>",
          headers={"Content-Type": "application/rss+xml"})
    spider = site_spider(catalogues=[s.url("/n/")], feeds=[s.url("/rss.xml")],
                         article_pattern=r"^https?://[^/?#]+/n/\d{4}-\d{2}/\d{2}/[0-9A-Za-z]+\.htm$")
    feed = tmp_path / "out.jsonl"
    crawler = await run_crawl(spider, crawl_settings(tmp_path, feed))
    assert [item["url"] for item in read_jsonl(feed)] == [s.url(story(3))]  # the feed's article only
    assert crawler.stats.get_value("newscrawl/catalogue/pattern_matched_none") == 3
    assert any(r.levelno == logging.WARNING and "matched none of the 3 links" in r.getMessage()
               for r in caplog.records)
    outcome = outcome_of(crawler)
    assert not outcome.ok and "article_pattern matched none of 3 catalogue links" in outcome.line()
