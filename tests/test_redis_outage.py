"""The distributed mode when Redis goes away, and when its only worker is killed (issue 12).

A real redis-server on 127.0.0.1 with an append-only file (``appendfsync always``), so a
``kill -9`` of Redis and a restart on the same port keep the shared queue, claims and seen
store, as a production Redis with AOF does.  Skipped without a ``redis-server`` binary.

1. Redis killed mid-crawl and restarted a few seconds later: the worker holds its requests
   and items, resumes, and exports every article exactly once; the stats count the outage.
2. Redis killed and never restarted: the worker stops with finish_reason
   ``redis_unavailable`` (a small ``NEWSCRAWL_REDIS_OUTAGE_TIMEOUT``), logs the outage once,
   loses nothing it exported (an export Redis could not record is journaled in the state
   directory), and once Redis is back a second run exports the rest, nothing twice.
3. The only worker killed with ``kill -9``: the next run takes over the dead worker's
   listing and detail claims and exports the rest, nothing twice.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from http.server import ThreadingHTTPServer
from pathlib import Path
from types import SimpleNamespace

import pytest
import pytest_twisted
from conftest import crawl_settings, free_port, read_jsonl, site_spider
from test_crawl_local import article_html, catalogue_html, headline
from test_crawl_restart import HtmlHandler, SlowSite, exported_urls, serve_slow_site
from test_redis import _site

redis = pytest.importorskip("redis", reason="the redis client is not installed (pip install redis==8.1.0)")
pytest.importorskip("scrapy_redis", reason="scrapy-redis is not installed (pip install scrapy-redis==0.9.1)")

from newscrawl.distributed.options import JOURNAL, REASON  # noqa: E402
from newscrawl.state.redis_seen import RedisSeenStore  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


class RedisProcess:
    """A redis-server on a fixed port that a test can kill and start again (same port, same AOF)."""

    def __init__(self, workdir: Path):
        self.binary = shutil.which("redis-server")
        if self.binary is None:
            pytest.skip("no redis-server binary on PATH (apt-get install -y redis-server)")
        self.port = free_port()
        self.workdir = workdir
        self.proc: subprocess.Popen | None = None
        self.start()

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.proc = subprocess.Popen([self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
                                      "--appendonly", "yes", "--appendfsync", "always", "--dir", str(self.workdir)],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        client = redis.Redis(port=self.port)
        try:
            for _ in range(200):
                try:
                    client.ping()
                    return
                except redis.ConnectionError:
                    if self.proc.poll() is not None:
                        pytest.skip(f"redis-server could not start (exit code {self.proc.returncode})")
                    time.sleep(0.05)
            pytest.skip("redis-server did not answer within 10 s")
        finally:
            client.close()

    def kill(self) -> None:
        """``kill -9``: no shutdown, no save beyond what the append-only file already holds."""
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=10)


@pytest.fixture
def redis_server(tmp_path):
    workdir = tmp_path / "redis"
    workdir.mkdir()
    server = RedisProcess(workdir)
    yield server
    server.stop()


def _settings(tmp_path, name: str, redis_url: str, **extra):
    return crawl_settings(tmp_path, tmp_path / f"{name}.jsonl", NEWSCRAWL_DISTRIBUTED=redis_url,
                          CONCURRENT_REQUESTS=2, CONCURRENT_REQUESTS_PER_DOMAIN=2, NEWSCRAWL_IDLE_CLOSE=1,
                          NEWSCRAWL_REDIS_HEARTBEAT_TTL=2, LOG_LEVEL="INFO", **extra)


async def _crawl(spider, settings, on_item=None, on_crawler=None):
    """One in-process crawl; ``on_item(count, url)`` runs on every exported item, before the feed
    exporter writes it and the seen store records it; ``on_crawler`` receives the crawler first."""
    from scrapy import signals
    from scrapy.crawler import CrawlerRunner

    runner = CrawlerRunner(settings)
    crawler = runner.create_crawler(spider)
    if on_crawler is not None:
        on_crawler(crawler)
    if on_item is not None:
        exported = []
        crawler.signals.connect(lambda item: (exported.append(item.url), on_item(len(exported), item.url)),
                                signal=signals.item_scraped, weak=False)
    await runner.crawl(crawler)
    return crawler


def _assert_exactly_once(exported: list[str], expected: list[str]) -> None:
    assert len(exported) == len(set(exported)), "an article was exported twice"
    assert sorted(exported) == sorted(expected), f"missing: {sorted(set(expected) - set(exported))[:5]}"


@pytest.mark.timeout(120)
@pytest_twisted.ensureDeferred
async def test_redis_restarted_mid_crawl_every_article_is_exported_once(http_server, tmp_path, redis_server,
                                                                       caplog):
    from twisted.internet import defer, reactor

    urls = _site(http_server, articles=30, per_page=10, delay=0.05)
    spider = site_spider(catalogues=[http_server.url("/list/1.html")], max_pages=10)

    crawlers = []
    second_listing = http_server.routes["/list/2.html"].gate = defer.Deferred()

    def back_once_work_is_held(waited: float, held_for: float = 0.0) -> None:
        # Redis stays down until the worker has held work (the second listing page's links or
        # their requests) for a second, or for 15 s: not a fixed outage that a cold extraction
        # worker sleeps through, nor one so short that the worker measures it as 0.0 s.
        stats = crawlers[0].stats
        held = stats.get_value("newscrawl/redis/items_held", 0) + stats.get_value("newscrawl/redis/requests_held", 0)
        held_for = held_for + 0.2 if held else 0.0
        if held_for >= 1.0 or waited >= 15.0:
            redis_server.start()
        else:
            reactor.callLater(0.2, back_once_work_is_held, waited + 0.2, held_for)

    def on_item(count: int, url: str) -> None:
        if count == 5:  # Redis dies while the 5th article is being recorded...
            redis_server.kill()
            second_listing.callback(None)  # ...and only then does the second listing page arrive
            reactor.callLater(0.2, back_once_work_is_held, 0.2)

    with caplog.at_level(logging.INFO):
        crawler = await _crawl(spider, _settings(tmp_path, "run", redis_server.url), on_item, crawlers.append)
    stats = crawler.stats.get_stats()
    _assert_exactly_once([i["url"] for i in read_jsonl(tmp_path / "run.jsonl")], urls)
    assert stats["finish_reason"] == "finished"
    assert stats["newscrawl/redis/outages"] == 1
    assert stats["newscrawl/redis/outage_seconds"] > 0
    assert stats["newscrawl/redis/seen_writes_held"] >= 1  # the 5th article, recorded once Redis was back
    assert stats.get("newscrawl/redis/items_held", 0) + stats.get("newscrawl/redis/requests_held", 0) > 0
    assert not any(k.startswith("newscrawl/dropped/") for k in stats), stats
    client = redis.Redis.from_url(redis_server.url)
    assert RedisSeenStore(client).count("testsite") == len(urls)
    client.close()
    outage_lines = [r for r in caplog.records if "Redis is unreachable" in r.getMessage()]
    assert len(outage_lines) == 1  # one line per outage, no traceback per item
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], [r.getMessage() for r in caplog.records
                                                                          if r.levelno >= logging.ERROR]


@pytest.mark.timeout(120)
@pytest_twisted.ensureDeferred
async def test_two_workers_ride_out_a_restart_longer_than_their_heartbeats(http_server, tmp_path, redis_server):
    from twisted.internet import defer, reactor

    urls = _site(http_server, articles=40, per_page=10, delay=0.05)
    spider = site_spider(catalogues=[http_server.url("/list/1.html")], max_pages=10)

    def on_item(count: int, url: str) -> None:
        if count == 4:  # down for 4 s: longer than the workers' 2-second heartbeats
            redis_server.kill()
            reactor.callLater(4.0, redis_server.start)

    results = await defer.DeferredList([
        defer.ensureDeferred(_crawl(spider, _settings(tmp_path, "w1", redis_server.url), on_item)),
        defer.ensureDeferred(_crawl(spider, _settings(tmp_path, "w2", redis_server.url))),
    ], fireOnOneErrback=True, consumeErrors=True)
    crawlers = [crawler for _, crawler in results]
    exported = [i["url"] for name in ("w1", "w2") for i in read_jsonl(tmp_path / f"{name}.jsonl")]
    _assert_exactly_once(exported, urls)
    for crawler in crawlers:
        stats = crawler.stats.get_stats()
        assert stats["finish_reason"] == "finished"
        assert stats["newscrawl/redis/outages"] == 1
        assert f"newscrawl/dropped/{REASON}" not in stats


@pytest.mark.timeout(120)
@pytest_twisted.ensureDeferred
async def test_redis_back_without_its_data_is_reported_once(http_server, tmp_path, redis_server, caplog):
    from twisted.internet import reactor

    _site(http_server, articles=30, per_page=10, delay=0.05)
    spider = site_spider(catalogues=[http_server.url("/list/1.html")], max_pages=10)

    def restart_empty() -> None:
        for path in redis_server.workdir.rglob("*"):  # as a Redis without persistence comes back
            if path.is_file():
                path.unlink()
        redis_server.start()

    def on_item(count: int, url: str) -> None:
        if count == 5:
            redis_server.kill()
            reactor.callLater(2.0, restart_empty)

    with caplog.at_level(logging.INFO):
        crawler = await _crawl(spider, _settings(tmp_path, "run", redis_server.url), on_item)
    assert crawler.stats.get_value("newscrawl/redis/data_lost") is True
    errors = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1 and "without its data" in errors[0]
    exported = [i["url"] for i in read_jsonl(tmp_path / "run.jsonl")]
    assert len(exported) == len(set(exported)) >= 5  # the run goes on with what it holds, and ends


def test_after_an_outage_a_worker_takes_no_claims_over_for_a_heartbeat_ttl(monkeypatch):
    from scrapy.settings import Settings
    from scrapy.statscollectors import MemoryStatsCollector

    import newscrawl.distributed.link as distributed

    now = [100.0]
    monkeypatch.setattr(distributed.time, "monotonic", lambda: now[0])
    crawler = SimpleNamespace(settings=Settings({"NEWSCRAWL_REDIS_HEARTBEAT_TTL": 15}), engine=None)
    crawler.stats = MemoryStatsCollector(crawler)
    link = distributed.RedisLink(crawler, client=None)
    recovered = []
    link.on_recovery(lambda: recovered.append(True))
    assert link.up and link.may_take_over()  # a worker that just started may: see the kill -9 test
    link.failed(redis.ConnectionError("refused"))
    link.failed(redis.ConnectionError("refused"))  # one outage, however many calls fail
    assert not link.up and crawler.stats.get_value("newscrawl/redis/outages") == 1
    now[0] += 4
    link._back("PONG")  # noqa: SLF001 - what the threaded PING's success calls
    assert link.up and recovered == [True] and crawler.stats.get_value("newscrawl/redis/outage_seconds") == 4
    assert not link.may_take_over()  # the other workers lost their heartbeats too: wait for them to beat
    now[0] += 15
    assert link.may_take_over()


@pytest.mark.timeout(120)
@pytest_twisted.ensureDeferred
async def test_redis_gone_for_good_stops_the_worker_and_loses_nothing(http_server, tmp_path, redis_server,
                                                                     caplog):
    urls = _site(http_server, articles=30, per_page=10, delay=0.05)
    spider = site_spider(catalogues=[http_server.url("/list/1.html")], max_pages=10)
    killed_at: list[str] = []

    def on_item(count: int, url: str) -> None:
        if count == 5:  # Redis dies while the 5th article is being exported, and stays away
            killed_at.append(url)
            redis_server.kill()

    with caplog.at_level(logging.INFO):
        crawler = await _crawl(spider, _settings(tmp_path, "run1", redis_server.url,
                                                 NEWSCRAWL_REDIS_OUTAGE_TIMEOUT=2), on_item)
    stats = crawler.stats.get_stats()
    assert stats["finish_reason"] == REASON
    assert stats["newscrawl/redis/outages"] == 1
    first = [i["url"] for i in read_jsonl(tmp_path / "run1.jsonl")]
    assert 5 <= len(first) < len(urls) and len(first) == len(set(first))
    # The 5th article (and any that had passed the export gate already) was written to the feed
    # but never recorded in Redis: it is in the journal.
    journal = json.loads((tmp_path / "state" / JOURNAL).read_text(encoding="utf-8"))
    assert list(journal) == ["newscrawl:testsite"] and killed_at[0] in journal["newscrawl:testsite"]
    assert set(journal["newscrawl:testsite"]) <= set(first)
    assert stats["newscrawl/redis/seen_writes_journaled"] == len(journal["newscrawl:testsite"])
    # The articles waiting for Redis are counted, not exported; a later run fetches them.
    assert stats[f"newscrawl/dropped/{REASON}"] >= stats["newscrawl/redis/items_held"] > 0
    assert stats["newscrawl/exported"] == len(first)
    errors = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1 and "stopping this worker" in errors[0], errors  # once, not per item
    assert not [r for r in caplog.records if r.exc_info], "no traceback"

    # Redis is back (its append-only file kept the queue and the claims); the next run
    # records the journaled export first, takes over the dead worker's claims, exports the rest.
    redis_server.start()
    again = await _crawl(spider, _settings(tmp_path, "run2", redis_server.url))
    second = [i["url"] for i in read_jsonl(tmp_path / "run2.jsonl")]
    _assert_exactly_once(first + second, urls)
    assert again.stats.get_value("finish_reason") == "finished"
    assert again.stats.get_value("newscrawl/dropped/already_exported", 0) >= 1  # the journaled one, at least
    assert json.loads((tmp_path / "state" / JOURNAL).read_text()) == {}  # replayed


HEARTBEAT = 8  # seconds; the next run takes over the dead worker's claims once it has expired


@pytest.mark.timeout(240)
def test_only_worker_killed_the_next_run_takes_over_its_claims(tmp_path, redis_server):
    server, base, expected = serve_slow_site(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}

    def cmd(out: Path) -> list[str]:
        return [sys.executable, "-m", "scrapy", "crawl", "slowsite", "-o", str(out),
                "-s", f"NEWSCRAWL_SITES={tmp_path / 'sites.toml'}", "-s", f"NEWSCRAWL_STATE_DIR={tmp_path / 'state'}",
                "-s", f"NEWSCRAWL_DISTRIBUTED={redis_server.url}", "-s", f"NEWSCRAWL_REDIS_HEARTBEAT_TTL={HEARTBEAT}",
                "-s", "NEWSCRAWL_IDLE_CLOSE=1", "-s", "LOG_LEVEL=INFO"]

    try:
        run1, run2 = tmp_path / "run1.jsonl", tmp_path / "run2.jsonl"
        with (tmp_path / "run1.log").open("wb") as log:
            proc = subprocess.Popen(cmd(run1), cwd=ROOT, env=env, stdout=log, stderr=log)
            while len(exported_urls(run1)) < 5 and proc.poll() is None:  # pytest-timeout guards a hang
                time.sleep(0.05)
            assert proc.poll() is None, "the first run finished before it could be killed"
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=30)
        SlowSite.gate.set()
        first = exported_urls(run1)
        assert 5 <= len(first) < len(expected)
        # Run 2 starts while the dead worker still looks live (its heartbeat key has not expired:
        # refreshed here so that a slow start of run 2 cannot miss that window).
        client = redis.Redis.from_url(redis_server.url)
        dead = [k for k in client.keys("newscrawl:worker:*") if client.get(k) == b"busy"]
        assert len(dead) == 1
        client.pexpire(dead[0], int(HEARTBEAT * 1000))
        client.close()
        with (tmp_path / "run2.log").open("wb") as log:
            done = subprocess.run(cmd(run2), cwd=ROOT, env=env, stdout=log, stderr=log, timeout=200)
        log_text = (tmp_path / "run2.log").read_text()
        assert done.returncode == 0, log_text[-3000:]
        second = exported_urls(run2)
    finally:
        SlowSite.gate.set()
        server.shutdown()
    both = first + second
    assert len(both) == len(set(both)), "an article was exported twice"
    assert set(both) == expected, f"missing: {sorted(expected - set(both))[:5]}"
    # Its start page was claimed by the dead worker: parked, then taken over once that worker's
    # heartbeat expired, instead of "claimed elsewhere" and an empty run.
    assert "'newscrawl/distributed/listing_parked': 1" in log_text
    assert "'newscrawl/distributed/claims_taken_over'" in log_text
    assert "listing_claimed_elsewhere" not in log_text
    assert "'finish_reason': 'finished'" in log_text


class ListedSite(HtmlHandler):
    """One catalogue page listing the first ``listed`` articles; counts the catalogue's reads."""

    listed = 3
    catalogue_reads = 0

    def do_GET(self):
        if self.path == "/list/1.html":
            ListedSite.catalogue_reads += 1
            links = [(f"/news/2024/{n}/council-budget-story-{n}.html", headline(n)) for n in range(1, self.listed + 1)]
            self._send(catalogue_html(links))
        elif self.path.startswith("/news/2024/"):
            self._send(article_html(headline(int(self.path.split("/")[3]))))
        else:
            self.send_error(404)


@pytest.mark.timeout(240)
def test_the_next_job_reads_the_listing_page_a_killed_idle_worker_had_claimed(tmp_path, redis_server):
    ListedSite.listed, ListedSite.catalogue_reads = 3, 0
    server = ThreadingHTTPServer(("127.0.0.1", 0), ListedSite)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    (tmp_path / "sites.toml").write_text(
        f'[sites.listed]\ndomains = ["127.0.0.1"]\ncatalogues = ["{base}/list/1.html"]\n'
        "politeness = { download_delay = 0.0, autothrottle = false }\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}

    def cmd(out: Path, idle_close: int) -> list[str]:
        return [sys.executable, "-m", "scrapy", "crawl", "listed", "-o", str(out),
                "-s", f"NEWSCRAWL_SITES={tmp_path / 'sites.toml'}", "-s", f"NEWSCRAWL_STATE_DIR={tmp_path / 'state'}",
                "-s", f"NEWSCRAWL_DISTRIBUTED={redis_server.url}", "-s", f"NEWSCRAWL_REDIS_HEARTBEAT_TTL={HEARTBEAT}",
                "-s", f"NEWSCRAWL_IDLE_CLOSE={idle_close}", "-s", "LOG_LEVEL=INFO"]

    client = redis.Redis.from_url(redis_server.url)
    try:
        # Job 1 exports the three articles, then its worker waits for more work (idle) and is killed.
        run1, run2 = tmp_path / "run1.jsonl", tmp_path / "run2.jsonl"
        with (tmp_path / "run1.log").open("wb") as log:
            proc = subprocess.Popen(cmd(run1, idle_close=300), cwd=ROOT, env=env, stdout=log, stderr=log)
            workers: list[bytes] = []
            while proc.poll() is None and not (len(exported_urls(run1)) == 3 and workers):  # pytest-timeout guards
                workers = [k for k in client.keys("newscrawl:worker:*") if client.get(k) == b"idle"]
                time.sleep(0.1)
            assert proc.poll() is None, (tmp_path / "run1.log").read_text()[-3000:]
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=30)
        assert ListedSite.catalogue_reads == 1
        # Job 2 starts while the killed worker still looks live (its heartbeat key is refreshed here,
        # so a slow start cannot miss that window); the site has listed a new article meanwhile.
        client.pexpire(workers[0], int(HEARTBEAT * 1000))
        ListedSite.listed = 4
        with (tmp_path / "run2.log").open("wb") as log:
            done = subprocess.run(cmd(run2, idle_close=1), cwd=ROOT, env=env, stdout=log, stderr=log, timeout=200)
        log_text = (tmp_path / "run2.log").read_text()
    finally:
        client.close()
        server.shutdown()
    assert done.returncode == 0, log_text[-3000:]
    assert ListedSite.catalogue_reads == 2, "job 2 skipped its listing page"
    assert exported_urls(run2) == [f"{base}/news/2024/4/council-budget-story-4.html"]
    assert "listing_claimed_elsewhere" not in log_text
