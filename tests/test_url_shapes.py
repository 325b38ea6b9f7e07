"""A site's article-URL shapes, learned from what its fetched links turned out to be."""

from __future__ import annotations

import pytest_twisted
from conftest import crawl_settings, read_jsonl, run_crawl, site_spider
from test_evaluate_command import scrapy

from newscrawl.discovery.links import score_links
from newscrawl.discovery.url_shapes import LEARNED_LIFT, REJECT, SiteUrlShapes, shape_of
from newscrawl.extract import page_type

BASE = "http://127.0.0.1:1"


def test_three_non_articles_of_one_shape_skip_the_rest_and_articles_lift_theirs():
    shapes = SiteUrlShapes()
    for i in range(2):
        shapes.record(f"{BASE}/channel/{100 + i}.html", False)
    assert shapes.adjustment(f"{BASE}/channel/999.html") == 0.0  # two fetched: not yet evidence
    shapes.record(f"{BASE}/channel/102.html", False)
    assert shapes.adjustment(f"{BASE}/channel/999.html") == REJECT
    assert shapes.adjustment(f"{BASE}/channel/sports-and-more-news/999.html") == 0.0  # another shape
    for i in range(3):
        shapes.record(f"{BASE}/news/2026/11/{20 + i}.html", True)
    assert shapes.adjustment(f"{BASE}/news/2026/12/01.html") == LEARNED_LIFT
    shapes.record(f"{BASE}/channel/103.html", True)  # one article of the shape: no longer skipped
    assert shapes.adjustment(f"{BASE}/channel/999.html") == 0.0
    assert SiteUrlShapes.loads(shapes.dumps()).counts == shapes.counts
    assert shape_of(f"{BASE}/channel/1.html") != shape_of("http://other.test/channel/1.html")


def test_score_links_rejects_a_learned_non_article_shape():
    page = ("<html><body><ul>" + "".join(
        f'<li><a href="/channel/{i}.html">The full story of channel number {i} and its news today</a></li>'
        for i in range(5)) + "</ul></body></html>")
    plain = score_links(page, f"{BASE}/", ["127.0.0.1"])
    assert len(plain.accepted) == 5
    learned = score_links(page, f"{BASE}/", ["127.0.0.1"], learned=lambda url: REJECT)
    assert learned.accepted == []
    assert set(learned.rejected.values()) == {"learned_not_article"}


def article(i: int) -> str:
    paragraphs = "".join(
        f"<p>Story {i}, paragraph {n}: the council met on Tuesday and residents spoke for an hour about "
        f"item {i * 7 + n} before the vote, which passed after a long and heated debate in the hall.</p>"
        for n in range(4))
    return (f"<html><head><title>Council story number {i} ends</title></head><body><article>"
            f"<h1>Council story number {i} ends</h1>{paragraphs}</article></body></html>")


def channel(i: int) -> str:
    links = "".join(f'<li><a href="/other/{i}/{n}">Teaser number {n} of channel {i} today</a></li>'
                    for n in range(40))
    return f"<html><head><title>Channel {i}</title></head><body><h1>Channel {i}</h1><ul>{links}</ul></body></html>"


def listing(articles: range, channels: range) -> str:
    items = [f'<li><a href="/news/2026/11/{i}.html">Council story number {i} ends after a long vote</a></li>'
             for i in articles]
    items += [f'<li><a href="/channel/{i}.html">All the latest stories from channel {i} of the city</a></li>'
              for i in channels]
    return f"<html><body><ul>{''.join(items)}</ul></body></html>"


@pytest_twisted.ensureDeferred
async def test_the_crawl_fetches_a_channel_shape_a_few_times_then_skips_it(http_server, tmp_path):
    s = http_server
    for i in range(20):
        s.add(f"/news/2026/11/{i}.html", article(i))
        s.add(f"/channel/{i}.html", channel(i))
    assert page_type(channel(0)) != "article" and page_type(article(0)) == "article"
    s.add("/list/1.html", listing(range(4), range(3)))
    s.add("/list/2.html", listing(range(4, 8), range(3, 10)))
    settings = crawl_settings(tmp_path, tmp_path / "out1.jsonl")
    first = await run_crawl(site_spider(catalogues=[s.url("/list/1.html")]), settings)
    assert first.stats.get_value("newscrawl/url_shapes/not_articles") == 3
    assert first.stats.get_value("newscrawl/url_shapes/articles") == 4

    second = await run_crawl(site_spider(catalogues=[s.url("/list/2.html")]),
                             crawl_settings(tmp_path, tmp_path / "out2.jsonl"))
    assert second.stats.get_value("newscrawl/catalogue/rejected/learned_not_article") == 7
    assert not any(s.hits.get(f"/channel/{i}.html") for i in range(3, 10))  # none fetched
    assert len(read_jsonl(tmp_path / "out2.jsonl")) == 4  # the articles still are

    proc = scrapy(tmp_path, "templates", "testsite", "--state-dir", str(tmp_path / "state"))
    assert proc.returncode == 0, proc.stderr
    assert "skip" in proc.stdout and "127.0.0.1/w/D1.html" in proc.stdout


def redis_worker(redis_url: str):
    """A distributed worker's :class:`~newscrawl.spiders.url_shapes.CrawlUrlShapes` of site ``s``
    (prefix ``t``), without a crawl."""
    from types import SimpleNamespace

    from scrapy.settings import Settings
    from scrapy.statscollectors import MemoryStatsCollector

    from newscrawl.spiders.url_shapes import CrawlUrlShapes

    crawler = SimpleNamespace(settings=Settings({"NEWSCRAWL_DISTRIBUTED": redis_url, "NEWSCRAWL_REDIS_PREFIX": "t"}))
    crawler.stats = MemoryStatsCollector(crawler)
    return CrawlUrlShapes(crawler, "s")


def test_workers_add_their_outcomes_in_redis(client, redis_url):
    from newscrawl.spiders.url_shapes import load_redis

    one, two = redis_worker(redis_url), redis_worker(redis_url)
    one._record(f"{BASE}/channel/1.html", False)
    one._record(f"{BASE}/channel/2.html", False)
    two._record(f"{BASE}/channel/3.html", False)
    one.save()
    two.save()
    one.save()  # nothing new: nothing added twice
    assert load_redis(client, "t", "s").adjustment(f"{BASE}/channel/9.html") == REJECT
    assert redis_worker(redis_url).adjustment(f"{BASE}/channel/9.html") == REJECT  # the next worker starts with it
