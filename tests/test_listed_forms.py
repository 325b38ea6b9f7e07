"""The site's feeds and news sitemaps teach its article form: catalogue links of another, unproven
form are probed a few times, not followed by the hundred (newscrawl.discovery.url_shapes)."""

from __future__ import annotations

import pytest_twisted
from conftest import crawl_settings, read_jsonl, run_crawl, site_spider
from test_crawl_local import feed_xml
from test_url_shapes import article, channel

from newscrawl.discovery.url_shapes import LEARNED_LIFT, MIN_EVIDENCE, SiteUrlShapes
from newscrawl.extract import page_type

BASE = "http://127.0.0.1:1"


def test_listed_urls_make_an_article_form_and_other_shapes_probes():
    shapes = SiteUrlShapes()
    assert shapes.probes_left(f"{BASE}/channel/20001/index.html") is None  # no listed form: no limit
    for i in range(MIN_EVIDENCE):
        shapes.record_listed(f"{BASE}/a/{10001 + i}.html")
    assert shapes.adjustment(f"{BASE}/a/10999.html") == LEARNED_LIFT
    assert shapes.is_listed(f"{BASE}/a/a-story-with-a-slug.html")  # the last segment's name is open
    assert not shapes.is_listed(f"{BASE}/a/10999/index.html")
    assert shapes.probes_left(f"{BASE}/a/10999.html") is None
    assert shapes.probes_left(f"{BASE}/channel/20001/index.html") == MIN_EVIDENCE
    shapes.record(f"{BASE}/channel/20001/index.html", False)
    assert shapes.probes_left(f"{BASE}/channel/20002/index.html") == MIN_EVIDENCE - 1
    restored = SiteUrlShapes.loads(shapes.dumps())
    assert restored.counts == shapes.counts and restored.has_listed_form()
    assert SiteUrlShapes.loads('{"127.0.0.1/w/D1.html": [2, 1]}').counts == {"127.0.0.1/w/D1.html": [2, 1, 0]}


def home(articles: range, channels: range) -> str:
    items = [f'<li><a href="/a/{i}.html">Council story number {i} ends after a long vote</a></li>' for i in articles]
    items += [f'<li><a href="/channel/{i}/index.html">All the latest stories from channel {i} of the city</a></li>'
              for i in channels]
    return f"<html><body><ul>{''.join(items)}</ul></body></html>"


@pytest_twisted.ensureDeferred
async def test_a_feed_article_form_keeps_the_crawl_from_fetching_30_channels(http_server, tmp_path):
    from twisted.internet import defer, task

    s = http_server
    feed_ids, home_ids, channel_ids = range(10001, 10011), range(10006, 10016), range(20001, 20031)
    for i in set(feed_ids) | set(home_ids):
        s.add(f"/a/{i}.html", article(i))
    for i in channel_ids:
        s.add(f"/channel/{i}/index.html", channel(i))
    assert page_type(channel(20001)) != "article" and page_type(article(10001)) == "article"
    s.add("/feed.xml", feed_xml([(s.url(f"/a/{i}.html"), f"Council story number {i} ends") for i in feed_ids]),
          headers={"Content-Type": "application/rss+xml"})
    # The home page is answered once the feed's articles are being fetched: the feed has been read.
    feed_read = defer.Deferred()
    s.add("/home.html", home(home_ids, channel_ids), gate=feed_read)

    def watch():
        if any(path.startswith("/a/") for path in s.hits) and not feed_read.called:
            feed_read.callback(None)

    watcher = task.LoopingCall(watch)
    watcher.start(0.02)
    try:
        crawler = await run_crawl(site_spider(catalogues=[s.url("/home.html")], feeds=[s.url("/feed.xml")]),
                                  crawl_settings(tmp_path, tmp_path / "out.jsonl"))
    finally:
        watcher.stop()

    fetched_channels = sum(s.hits.get(f"/channel/{i}/index.html", 0) for i in channel_ids)
    assert fetched_channels <= MIN_EVIDENCE
    stats = crawler.stats
    assert stats.get_value("newscrawl/catalogue/rejected/off_listed_form") == len(channel_ids) - fetched_channels
    exported = {record["url"] for record in read_jsonl(tmp_path / "out.jsonl")}
    assert exported == {s.url(f"/a/{i}.html") for i in set(feed_ids) | set(home_ids)}




def test_listed_urls_are_shared_by_distributed_workers(client, redis_url):
    from test_url_shapes import redis_worker

    one, two = redis_worker(redis_url), redis_worker(redis_url)
    one.listed(f"{BASE}/a/10001.html")
    two.listed(f"{BASE}/a/10002.html")
    two.listed(f"{BASE}/a/10003.html")
    one.save()
    two.save()
    third = redis_worker(redis_url)
    assert third.adjustment(f"{BASE}/a/10999.html") == LEARNED_LIFT
    assert [third.admit(f"{BASE}/channel/{20001 + i}/index.html") for i in range(MIN_EVIDENCE + 1)] == \
        [True] * MIN_EVIDENCE + [False]
