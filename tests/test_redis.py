"""The distributed mode on a real redis-server started here on 127.0.0.1 (skipped without one).

Install: ``apt-get install -y redis-server`` (Debian) plus ``pip install scrapy-redis==0.9.1
redis==8.1.0``.  Covers the Redis stores, the add-on's settings, and two workers in one
reactor sharing a crawl: every article exported exactly once, detail pages fetched by both.
"""

from __future__ import annotations

import random
from types import SimpleNamespace

import pytest
import pytest_twisted
from conftest import crawl_settings, read_jsonl, run_crawl, site_spider

redis = pytest.importorskip("redis", reason="the redis client is not installed (pip install redis==8.1.0)")
pytest.importorskip("scrapy_redis", reason="scrapy-redis is not installed (pip install scrapy-redis==0.9.1)")

from newscrawl.distributed.claims import RedisClaims  # noqa: E402
from newscrawl.state.redis_seen import RedisSeenStore  # noqa: E402
from newscrawl.state.seen_store import canonical_url  # noqa: E402


def test_seen_store_keeps_canonical_urls_per_site(client):
    store = RedisSeenStore(client, prefix="t")
    assert not store.contains("a", "http://x.test/1?b=2&a=1")
    store.add("a", ["http://x.test/1?b=2&a=1", "http://x.test/2", "http://x.test/2", ""])
    assert store.contains("a", "http://x.test/1?a=1&b=2#frag")  # same canonical URL
    assert not store.contains("b", "http://x.test/2")
    store.add("b", ["http://x.test/2"])
    assert (store.count("a"), store.count("b"), store.count()) == (2, 1, 3)


def test_claims_first_wins_per_scope_until_reset(client):
    one, two = RedisClaims(client, prefix="t", owner="w1"), RedisClaims(client, prefix="t", owner="w2")
    assert one.claim("s:detail", "http://x.test/1", ttl=60)
    assert one.claim("s:detail", "http://x.test/1", ttl=60)  # still its own: a retried call after a lost reply
    lost = two.claim("s:detail", "http://x.test/1", ttl=60)
    assert not lost and (lost.holder, lost.holder_state) == ("w1", "gone")
    assert two.claim("s:listing", "http://x.test/1", ttl=60)  # scopes are independent
    assert 0 < client.ttl(one.key("s:detail")) <= 60  # the safety-net expiry is set
    one.release("s:detail", "http://x.test/1")
    assert two.claim("s:detail", "http://x.test/1", ttl=60)
    one.reset("s:detail", "s:listing")
    assert one.claim("s:detail", "http://x.test/1", ttl=60)
    assert one.claim("s:listing", "http://x.test/1", ttl=60)


def test_claim_all_is_all_or_nothing(client):
    one, two = RedisClaims(client, prefix="t", owner="w1"), RedisClaims(client, prefix="t", owner="w2")
    assert one.claim_all("s:export", ["u1", "u2"], ttl=60)
    assert not two.claim_all("s:export", ["u2", "u3"], ttl=60)
    assert two.claim("s:export", "u3", ttl=60)  # u3 was not taken by the failed claim
    assert one.owner_of("s:export", "u2") == "w1"
    assert client.ttl(one.key("s:export")) > 0


def test_claims_of_a_worker_whose_heartbeat_expired_are_taken_over(client):
    from newscrawl.distributed.workers import RedisWorkers

    dead, live = RedisWorkers(client, "t", "s", "w1"), RedisWorkers(client, "t", "s", "w2")
    dead.beat(heartbeat_ttl=60, busy=True)
    live.beat(heartbeat_ttl=60)
    one, two = RedisClaims(client, prefix="t", owner="w1"), RedisClaims(client, prefix="t", owner="w2")
    assert one.claim_all("s:detail", ["a", "b"], ttl=60)
    assert one.claim("s:export", "a", ttl=60)
    refused = two.claim("s:detail", "a", ttl=60, takeover=True)
    assert not refused and refused.holder_state == "busy" and refused.holder_may_fail  # its owner still beats
    client.delete(dead.key())  # the heartbeat expired: killed, or cut off from Redis
    waiting = two.claim("s:detail", "a", ttl=60)  # not allowed to take over (after an outage): wait
    assert not waiting and waiting.holder_state == "gone" and waiting.holder_may_fail
    taken = two.claim_all("s:detail", ["a", "b", "c"], ttl=60, takeover=True)
    assert taken and taken.taken_over == 2 and two.owner_of("s:detail", "b") == "w2"
    assert not two.claim("s:export", "a", ttl=60)  # without takeover (export claims): never
    two.claim("s:listing", "l", ttl=60)
    live.leave(done=True, done_ttl=60, job_keys=[], queue_key="t:q")  # finished cleanly: its claims stand
    done = one.claim("s:listing", "l", ttl=60, takeover=True)
    assert not done and done.holder_state == "done" and not done.holder_may_fail


def test_a_worker_joining_an_idle_job_starts_a_new_one(client):
    from newscrawl.distributed.workers import RedisWorkers

    keys = ["t:claims:s:listing", "t:claims:s:detail"]
    first, second = RedisWorkers(client, "t", "s", "w1"), RedisWorkers(client, "t", "s", "w2")
    client.hset(keys[0], "old", "w0")
    assert first.join(60, keys, "t:s:requests")  # nobody live, empty queue: the old claims go
    assert not client.exists(keys[0])
    client.hset(keys[0], "x", "w1")
    assert not second.join(60, keys, "t:s:requests")  # w1 is live: same job
    assert not first.leave(done=True, done_ttl=60, job_keys=keys, queue_key="t:s:requests")  # w2 still live
    assert client.exists(keys[0]) and first.state("w1") == "done"
    client.zadd("t:s:requests", {"r": 1})
    assert not second.leave(done=True, done_ttl=60, job_keys=keys, queue_key="t:s:requests")  # queue not empty
    client.delete("t:s:requests")
    third = RedisWorkers(client, "t", "s", "w3")
    assert third.join(60, keys, "t:s:requests")
    assert third.leave(done=True, done_ttl=60, job_keys=keys, queue_key="t:s:requests") and not client.exists(keys[0])
    assert not third.leave(done=False, done_ttl=60, job_keys=keys, queue_key="t:s:requests")
    assert third.state("w3") is None


def test_a_pop_repeated_after_a_lost_reply_returns_the_same_request(client):
    from newscrawl.distributed.queue_pop import QueuePop

    client.zadd("t:q", {b"first": -10, b"second": 0})
    pops = QueuePop(client, "t:q", "t:q:last-pop:w1")
    assert pops.pop() == b"first"
    pops.number -= 1  # the reply was lost: the same pop is sent again
    assert pops.pop() == b"first"
    assert pops.pop() == b"second"
    assert pops.pop() is None and pops.number == 2
    assert QueuePop(client, "t:q", "t:q:last-pop:w2").pop() is None  # another worker's numbers are its own


def test_addon_switches_scheduler_store_and_extensions(redis_url):
    from scrapy.settings import Settings

    from newscrawl.distributed.addon import RedisAddon

    settings = Settings()
    settings.setmodule("newscrawl.settings", priority="project")
    RedisAddon().update_settings(settings)
    assert settings["SCHEDULER"] == "newscrawl.middlewares.scheduler.CrashSafeScheduler"  # off by default
    settings.set("NEWSCRAWL_DISTRIBUTED", redis_url, priority="cmdline")
    RedisAddon().update_settings(settings)
    assert settings["SCHEDULER"] == "newscrawl.distributed.scheduler.DistributedScheduler"
    assert settings["DUPEFILTER_CLASS"] == "scrapy_redis.dupefilter.RFPDupeFilter"
    assert settings.getbool("SCHEDULER_PERSIST")
    extensions = settings.getdict("EXTENSIONS")
    assert extensions["newscrawl.state.seen_urls.SeenUrls"] is None
    assert extensions["newscrawl.distributed.seen.RedisSeenUrls"] == 900
    pipelines = settings.getdict("ITEM_PIPELINES")
    assert pipelines["newscrawl.distributed.gates.ListingGate"] == 99 and pipelines["newscrawl.distributed.gates.ExportGate"] == 699
    retry = settings.getdict("REDIS_PARAMS")["retry"]  # scrapy-redis's clients reconnect with backoff
    assert retry.get_retries() == 3 and redis.ConnectionError in settings.getdict("REDIS_PARAMS")["retry_on_error"]
    RedisAddon().update_settings(settings)  # applying it again changes nothing
    assert settings.getdict("EXTENSIONS") == extensions
    settings.set("NEWSCRAWL_DISTRIBUTED", "http://not-redis/", priority="cmdline")
    with pytest.raises(ValueError, match="redis://"):
        RedisAddon().update_settings(settings)


PARAGRAPH = ("The harbour committee said on Monday that the new bridge will open in the spring, and "
             "the engineers explained how the work was planned around the busy summer season. ")


def _story_paragraphs(i: int) -> str:
    """Four paragraphs of the shared words in an order of story i's own, so no two stories share
    text (the export gate drops a body that repeats another as duplicate_content)."""
    words = PARAGRAPH.split()
    return "".join(f"<p>{' '.join(random.Random(i * 4 + n).sample(words, len(words)))}</p>" for n in range(4))


def _site(http_server, articles: int, per_page: int, delay: float) -> list[str]:
    urls = []
    for page in range((articles + per_page - 1) // per_page):
        links = []
        for i in range(page * per_page, min(articles, (page + 1) * per_page)):
            path = f"/news/2024/{i:02d}/story-{i:02d}.html"  # one URL form: ids of one width
            title = f"Harbour bridge story number {i} for the spring"
            body = (f"<html><head><title>{title}</title></head><body><article><h1>{title}</h1>"
                    f"{_story_paragraphs(i)}</article></body></html>")
            http_server.add(path, body, delay=delay)
            links.append(f'<li><a href="{path}">{title}</a></li>')
            urls.append(http_server.url(path))
        following = f'<a class="next" href="/list/{page + 2}.html">Next</a>' if (page + 1) * per_page < articles else ""
        http_server.add(f"/list/{page + 1}.html", f"<html><body><ul>{''.join(links)}</ul>{following}</body></html>")
    return urls


def _worker_settings(tmp_path, name: str, redis_url: str):
    return crawl_settings(tmp_path / name, tmp_path / f"{name}.jsonl", NEWSCRAWL_DISTRIBUTED=redis_url,
                          CONCURRENT_REQUESTS=2, CONCURRENT_REQUESTS_PER_DOMAIN=2, NEWSCRAWL_IDLE_CLOSE=1,
                          LOG_LEVEL="WARNING")


@pytest_twisted.ensureDeferred
async def test_two_workers_share_the_frontier_and_export_each_article_once(http_server, tmp_path, client,
                                                                          redis_url):
    from twisted.internet import defer

    # Slow enough pages (24 x 0.25 s, two at a time) that the first worker to start still has
    # articles left when the other is ready: one that starts a second later (its extraction
    # processes warming up) found none left with 0.05 s pages once extraction got faster.
    urls = _site(http_server, articles=24, per_page=8, delay=0.25)
    spider = site_spider(catalogues=[http_server.url("/list/1.html")], max_pages=10)
    crawlers = await defer.DeferredList([
        defer.ensureDeferred(run_crawl(spider, _worker_settings(tmp_path, name, redis_url)))
        for name in ("w1", "w2")
    ], fireOnOneErrback=True, consumeErrors=True)
    crawlers = [c for _, c in crawlers]
    items = {name: read_jsonl(tmp_path / f"{name}.jsonl") for name in ("w1", "w2")}
    exported = [i["url"] for batch in items.values() for i in batch]
    assert sorted(exported) == sorted(urls)  # every article, exactly once across the workers
    assert all(items.values()), "both workers fetched and exported detail pages"
    article_hits = [http_server.hits.get(u.removeprefix(http_server.base), 0) for u in urls]
    assert article_hits == [1] * len(urls)  # no detail page downloaded twice
    assert http_server.hits["/list/1.html"] == 1  # the listing page was read once for both workers
    assert RedisSeenStore(client).count("testsite") == len(urls)

    # The job is over (its claims cleared): a new run re-reads the catalogue, and the shared
    # seen store knows every article.
    again = await run_crawl(spider, _worker_settings(tmp_path, "w3", redis_url))
    assert read_jsonl(tmp_path / "w3.jsonl") == []
    assert http_server.hits["/list/1.html"] == 2
    assert again.stats.get_value("newscrawl/dropped/already_exported") == len(urls)
    assert crawlers[0].stats.get_value("newscrawl/exported", 0) + crawlers[1].stats.get_value(
        "newscrawl/exported", 0) == len(urls)


def test_scheduler_claims_listing_pages_once_but_not_retries_or_details(redis_url, client):
    from scrapy import Request
    from scrapy.settings import Settings
    from scrapy.utils.test import get_crawler

    from newscrawl.distributed.link import RedisLink
    from newscrawl.distributed.options import REQUEUED
    from newscrawl.distributed.scheduler import DistributedScheduler
    from newscrawl.distributed.workers import RedisWorkers
    from newscrawl.middlewares.scheduler import DETAIL_META

    spidercls = site_spider(catalogues=["http://127.0.0.1:1/list/1.html"])
    settings = Settings()
    settings.setmodule("newscrawl.settings", priority="project")
    settings.set("NEWSCRAWL_DISTRIBUTED", redis_url, priority="cmdline")
    crawler = get_crawler(spidercls, settings.copy_to_dict())  # applies ADDONS, i.e. RedisAddon
    spider = spidercls.from_crawler(crawler)
    crawler.spider = spider
    schedulers = []
    for worker in ("w1", "w2"):  # two workers
        scheduler = DistributedScheduler.from_settings(crawler.settings)
        scheduler.stats = crawler.stats
        scheduler.attach(SimpleNamespace(worker=worker, link=RedisLink(crawler, client)), crawler.settings)
        RedisWorkers(client, "newscrawl", spider.name, worker).beat(heartbeat_ttl=60, busy=True)
        scheduler.open(spider)
        schedulers.append(scheduler)
    one, two = schedulers
    listing = Request("http://127.0.0.1:1/list/1.html", dont_filter=True)
    assert one.enqueue_request(listing)
    assert two.enqueue_request(listing.replace()) and list(two.parked) == [("listing", canonical_url(listing.url))]  # parked, by its store key
    retry = listing.replace(meta={"retry_times": 1})
    assert two.enqueue_request(retry)  # a retry is the same claim, not a new one
    detail = Request("http://127.0.0.1:1/news/1.html", dont_filter=True, priority=10, meta={DETAIL_META: "r"})
    assert one.enqueue_request(detail) and two.enqueue_request(detail.replace())  # claimed by the fetch stage
    # One shared queue (a sorted set: the two identical detail requests are one member).
    assert len(one) == len(two) == 3
    popped = two.next_request()
    assert popped.url == detail.url  # priority order across workers
    popped.meta[REQUEUED] = True
    assert one.enqueue_request(popped) and REQUEUED not in popped.meta
    assert len(one) == 3
    assert one.enqueue_request(Request("http://127.0.0.1:1/list/2.html", dont_filter=True))
    assert two.enqueue_request(Request("http://127.0.0.1:1/list/2.html", dont_filter=True))
    two.retry_parked()
    assert len(two.parked) == 2  # their holder w1 is busy
    client.set("newscrawl:worker:w1", "idle")  # w1 has processed what it took: it read /list/2
    key = canonical_url(listing.url)  # claims are held by the URL's store key
    client.hset(one.claims.key("testsite:listing"), one.claims.member(key), "w0")  # w0 was killed
    two.retry_parked()
    assert not two.parked
    assert two.claims.owner_of("testsite:listing", key) == "w2"  # taken over
    assert crawler.stats.get_value("newscrawl/distributed/claims_taken_over") == 1
    assert crawler.stats.get_value("newscrawl/distributed/listing_claimed_elsewhere") == 1  # /list/2


def test_seen_store_still_knows_urls_recorded_under_the_old_key_form(redis_url):
    from newscrawl.state.redis_client import connect
    from newscrawl.state.redis_seen import RedisSeenStore
    from newscrawl.state.seen_store import legacy_url_key

    client = connect(redis_url)
    store = RedisSeenStore(client, prefix="legacy-test")
    url = "http://www.example.com/a.html?utm_source=x&id=3"
    client.hset(store._key("site"), legacy_url_key(url), "2026-11-01T00:00:00+00:00")
    assert store.contains("site", url)
    assert not store.contains("site", "http://www.example.com/b.html")
    client.delete(store._key("site"))


def test_seen_store_remembers_unexported_pages_and_reads_an_older_store(client):
    """A Redis seen store written before unexported pages were remembered (only ``seen`` hashes)
    still answers; a page fetched without export is kept with its reason and time."""
    old = RedisSeenStore(client, prefix="t")
    old.add("a", ["http://x.test/story"])  # what an older version wrote
    store = RedisSeenStore(client, prefix="t")
    assert store.contains("a", "http://x.test/story")
    assert store.unexported("a", "http://x.test/video") is None
    store.add_unexported("a", ["http://x.test/video?utm_source=feed", ""], "no_text")
    reason, stamp, cause = store.unexported("a", "http://x.test/video")
    assert reason == "no_text" and stamp[:4].isdigit() and cause == "lasting"
    assert not store.contains("a", "http://x.test/video")  # remembered, not exported
    assert store.unexported("b", "http://x.test/video") is None
    client.hset("t:unexported:a", "http://x.test/garbled", b"not json")
    assert store.unexported("a", "http://x.test/garbled") is None


def test_a_listing_page_claimed_by_a_worker_no_longer_busy_is_read_again(redis_url, client):
    """A listing page is read by every job: its claim blocks another worker only while the holder is
    busy (parked); an idle, done or dead holder has finished with it, maybe in an earlier job."""
    from scrapy import Request
    from scrapy.settings import Settings
    from scrapy.utils.test import get_crawler

    from newscrawl.distributed.link import RedisLink
    from newscrawl.distributed.scheduler import DistributedScheduler
    from newscrawl.distributed.workers import RedisWorkers

    spidercls = site_spider(catalogues=["http://127.0.0.1:1/list/1.html"])
    settings = Settings()
    settings.setmodule("newscrawl.settings", priority="project")
    settings.set("NEWSCRAWL_DISTRIBUTED", redis_url, priority="cmdline")
    crawler = get_crawler(spidercls, settings.copy_to_dict())
    spider = spidercls.from_crawler(crawler)
    crawler.spider = spider
    holder = RedisWorkers(client, "newscrawl", spider.name, "w1")
    holder.join(60, [], "newscrawl:testsite:requests")  # a worker that starts is busy
    scheduler = DistributedScheduler.from_settings(crawler.settings)
    scheduler.stats = crawler.stats
    scheduler.attach(SimpleNamespace(worker="w2", link=RedisLink(crawler, client)), crawler.settings)
    scheduler.open(spider)
    claims = RedisClaims(client, owner="w1")
    for n, state in enumerate(("busy", "idle", "done"), start=1):
        url = f"http://127.0.0.1:1/list/{n}.html"
        claims.claim("testsite:listing", canonical_url(url), ttl=60)
        client.set(holder.key(), state)
        assert scheduler.enqueue_request(Request(url, dont_filter=True))
        taken = claims.owner_of("testsite:listing", canonical_url(url)) == "w2"
        assert taken == (state != "busy"), state
    assert list(scheduler.parked) == [("listing", canonical_url("http://127.0.0.1:1/list/1.html"))]
    assert crawler.stats.get_value("newscrawl/distributed/listing_claimed_elsewhere") is None
