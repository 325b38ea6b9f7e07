"""A time limit per page's extraction, and workers that die with the crawl (newscrawl/pipelines/pool.py).

A page whose extraction hangs costs that page only (dropped as ``extraction_timeout``): its
worker is killed and replaced, the pages queued behind it are extracted by the new worker,
which reopens the site's template library.  ``kill -9`` of the crawl leaves no worker behind.

Pages hang through the test-only hook ``NEWSCRAWL_TEST_HANG_MARKER``: a worker never finishes
a page whose body contains the marker.
"""

from __future__ import annotations

import logging
import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
import pytest_twisted
from conftest import crawl_settings, read_jsonl, run_crawl, site_spider
from scrapy.settings import Settings
from scrapy.statscollectors import MemoryStatsCollector
from scrapy.utils.defer import deferred_from_coro
from test_crawl_local import article_html, catalogue_html, headline
from twisted.internet import defer, reactor, task

from newscrawl.items import ArticleItem
from newscrawl.pipelines import ExtractStage
from newscrawl.run.drops import Dropped

ROOT = Path(__file__).resolve().parent.parent
MARKER = "hang-the-extraction-here"
HANG_PATH = "/news/2024/05/1/council-budget-story-1.html"


def build_site(server, articles: int) -> tuple[str, list[str]]:
    """One catalogue page; its first article hangs extraction.  The hanging URL and the others."""
    links, urls = [], []
    for n in range(1, articles + 1):
        path = f"/news/2024/05/{n}/council-budget-story-{n}.html"
        extra = f"<p>{MARKER}</p>" if path == HANG_PATH else ""
        server.add(path, article_html(headline(n), extra=extra))
        links.append((path, headline(n)))
        urls.append(server.url(path))
    server.add("/list/1.html", catalogue_html(links))
    return server.url(HANG_PATH), [u for u in urls if not u.endswith(HANG_PATH)]


@pytest.mark.timeout(180)
@pytest_twisted.ensureDeferred
async def test_a_hanging_page_is_dropped_and_the_crawl_exports_every_other_article(http_server, tmp_path, caplog):
    hanging, others = build_site(http_server, articles=8)
    spider = site_spider(catalogues=[http_server.url("/list/1.html")])
    # The project's default NEWSCRAWL_EXTRACT_PROCESSES; a backlog of 2 pages, so that the hung
    # worker also pauses the engine and the crawl has to resume once the page is dropped.
    settings = crawl_settings(tmp_path, tmp_path / "out.jsonl", NEWSCRAWL_EXTRACT_TIMEOUT=2,
                              NEWSCRAWL_EXTRACT_BACKLOG=1, NEWSCRAWL_TEST_HANG_MARKER=MARKER)
    with caplog.at_level(logging.INFO):
        crawler = await run_crawl(spider, settings)
    items = read_jsonl(tmp_path / "out.jsonl")
    assert sorted(i["url"] for i in items) == sorted(others)
    assert all("city council met" in i["text"] for i in items)
    stats = crawler.stats.get_stats()
    assert stats["newscrawl/dropped/extraction_timeout"] == 1
    assert stats["newscrawl/extract/worker_restarts"] == 1
    assert stats["finish_reason"] == "finished"
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING and hanging in r.getMessage()]
    assert len(warnings) == 1 and "ran past 2 s" in warnings[0]


class _Crawler:
    def __init__(self, tmp_path: Path, **settings):
        self.settings = Settings({"NEWSCRAWL_STATE_DIR": str(tmp_path), "NEWSCRAWL_EXTRACT_PROCESSES": 1,
                                  "NEWSCRAWL_TEST_HANG_MARKER": MARKER, **settings})
        self.stats = MemoryStatsCollector(SimpleNamespace(settings=self.settings))
        self.spider = SimpleNamespace(site=SimpleNamespace(language="en"))


SENTENCES = [
    "The city council met on Tuesday evening to discuss the new budget for the coming year.",
    "Members argued for hours about how the money should be spent on schools and roads.",
    "Several residents spoke during the public comment period about the state of the parks.",
    "Most of them asked the council to keep the library open on weekends.",
    "The mayor said that the final vote will take place next month.",
    "The finance committee has promised to publish its recommendations before then.",
    "Engineers warned that the old bridge over the river needs urgent repairs.",
    "Teachers asked for more money to replace the heating in two primary schools.",
    "A local farmer complained that the market fees had doubled in three years.",
    "The harbour master reported that the number of visiting boats rose again this summer.",
    "Nurses at the hospital said the night bus service should run until midnight.",
    "The museum will close for two weeks while its roof is replaced.",
]


def _page(n: int, hang: bool) -> str:
    """An article of its own (sentences drawn by ``n``) between the site's navigation and footer,
    the template its library learns."""
    rng = random.Random(n)
    paragraphs = "".join(f"<p>{' '.join(rng.sample(SENTENCES, 4))}</p>" for _ in range(3))
    return (f"<html><head><title>Story {n} | Local Times</title></head><body>"
            '<nav><a href="/">Home</a> <a href="/about">About us</a> <a href="/contact">Contact us</a></nav>'
            f"<article><h1>Story number {n} about the city</h1>{paragraphs}{MARKER if hang else ''}</article>"
            "<footer><p>Copyright Local Times, all rights reserved.</p></footer></body></html>")


def _item(n: int, hang: bool = False) -> ArticleItem:
    return ArticleItem(url=f"http://127.0.0.1/news/{n}.html", site="local", listing_title=f"Story number {n}",
                       body=_page(n, hang).encode("utf-8"), status=200, content_type="text/html; charset=utf-8")


def _outcome(stage: ExtractStage, item: ArticleItem) -> defer.Deferred:
    """The extracted item, or the :class:`Dropped` it raised (Scrapy runs the stage's coroutine
    as an asyncio task)."""
    outcome = deferred_from_coro(stage.process_item(item))
    outcome.addErrback(lambda failure: failure.trap(Dropped) and failure.value)
    return outcome


@pytest.mark.timeout(180)
@pytest_twisted.ensureDeferred
async def test_pages_queued_behind_a_hanging_page_go_to_the_new_worker_with_the_site_template(tmp_path):
    crawler = _Crawler(tmp_path, NEWSCRAWL_EXTRACT_TIMEOUT=2)
    stage = ExtractStage(crawler)
    stage.open_spider()
    try:
        # Ten pages end the site's first batch: its template library (the nav and the footer)
        # is learned and saved in the store; the tenth page is the first one cleaned.
        for n in range(10):
            assert "Story number" in (await _outcome(stage, _item(n))).title
        cleaned = crawler.stats.get_value("newscrawl/template/pages_cleaned")
        assert cleaned == 1
        first_worker = stage.pool.worker_pids()
        # The hanging page, and three pages of the same site sent while it hangs.
        outcomes = await defer.gatherResults(
            [_outcome(stage, _item(n, hang=n == 10)) for n in range(10, 14)])
        dropped, *rest = outcomes
        assert isinstance(dropped, Dropped) and dropped.reason == "extraction_timeout"
        assert dropped.url == "http://127.0.0.1/news/10.html"
        assert [item.url for item in rest] == [f"http://127.0.0.1/news/{n}.html" for n in range(11, 14)]
        assert all(" the " in item.text for item in rest)
        assert stage.pool.worker_pids() != first_worker
        assert crawler.stats.get_value("newscrawl/extract/worker_restarts") == 1
        # The new worker opened the saved library: the pages after the hang were cleaned with it
        # (a library learned from scratch cleans nothing before its tenth page).
        assert crawler.stats.get_value("newscrawl/template/pages_cleaned") == cleaned + 3
    finally:
        await stage.close_spider()


@pytest.mark.timeout(180)
@pytest_twisted.ensureDeferred
async def test_a_page_that_kills_its_worker_twice_is_dropped_and_the_next_page_extracted(tmp_path):
    crawler = _Crawler(tmp_path, NEWSCRAWL_EXTRACT_TIMEOUT=0)  # no time limit: the page dies by kill
    stage = ExtractStage(crawler)
    stage.open_spider()
    try:
        pending = _outcome(stage, _item(1, hang=True))
        following = _outcome(stage, _item(2))
        killed = []
        for _ in range(2):
            killed.append(await _running_page_worker(stage, not_in=killed))
            os.kill(killed[-1], signal.SIGKILL)
        dropped = await pending
        assert isinstance(dropped, Dropped) and dropped.reason == "extraction_crash"
        assert " the " in (await following).text
        assert crawler.stats.get_value("newscrawl/extract/worker_restarts") == 2
    finally:
        await stage.close_spider()


async def _running_page_worker(stage: ExtractStage, not_in: list[int]) -> int:
    """The pid of the (new) worker once it runs a page (its start-up task is done)."""
    slot = stage.pool.slots[0]
    for _ in range(600):
        pids = [pid for pid in stage.pool.worker_pids() if pid not in not_in]
        if pids and slot.jobs and slot.jobs[0].kind == "page" and not slot.broken:
            return pids[0]
        await task.deferLater(reactor, 0.1)
    raise AssertionError("the worker never started the page")


def _gone(pid: int) -> bool:
    """No such process, or only its zombie (a container's init may not reap it)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        return stat.rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except FileNotFoundError:
        return True
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        return False


def _wait_gone(pid: int, seconds: float = 30.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if _gone(pid):
            return True
        time.sleep(0.2)
    return _gone(pid)


# A crawl process in miniature: a pool whose worker hangs on its page, then waits to be killed.
POOL_SCRIPT = textwrap.dedent("""
    import sys, time
    from scrapy.settings import Settings
    from newscrawl.pipelines.pool import ExtractionPool
    settings = Settings({"NEWSCRAWL_STATE_DIR": sys.argv[1], "NEWSCRAWL_TEST_HANG_MARKER": "MARK"})
    pool = ExtractionPool(1, "auto", settings, timeout=0)
    pool.submit("local", {"body": b"<html><body>MARK</body></html>", "url": "http://127.0.0.1/1.html",
                          "content_type": "text/html", "listing_title": None, "feed_entry": {}})
    while not (pool.slots[0].jobs and pool.slots[0].jobs[0].kind == "page"):
        time.sleep(0.1)  # the worker has started and runs the page
    print(pool.worker_pids()[0], flush=True)
    time.sleep(600)
""")


def _child_outlives_killed_parent(*parent_args: str) -> int | None:
    """Start ``python -c parent_args…``, read the pid of the child it prints, ``kill -9`` the
    parent: the child's pid if it is still running 30 s later, else None."""
    parent = subprocess.Popen([sys.executable, "-c", *parent_args], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        child = int(parent.stdout.readline())
        assert not _gone(child)
        parent.kill()
        parent.wait()
        return None if _wait_gone(child) else child
    finally:
        parent.kill()
        parent.stdout.close()


@pytest.mark.timeout(120)
def test_kill_9_of_the_crawl_leaves_no_extraction_worker(tmp_path):
    worker = _child_outlives_killed_parent(POOL_SCRIPT, str(tmp_path))
    assert worker is None, f"extraction worker {worker} outlived the crawl"


# The portable fallback alone: a process watching its parent with os.getppid(), no prctl.
WATCH_SCRIPT = textwrap.dedent("""
    import os, subprocess, sys, time
    watcher = subprocess.Popen([sys.executable, "-c",
        "import os; from newscrawl.pipelines.pool import _watch_parent; ppid = os.getppid(); "
        "print(os.getpid(), flush=True); _watch_parent(ppid, interval=0.1)"])  # ppid read before the kill
    time.sleep(600)
""")


@pytest.mark.timeout(120)
def test_the_parent_poll_alone_ends_a_worker_whose_parent_died(tmp_path):
    watcher = _child_outlives_killed_parent(WATCH_SCRIPT)
    assert watcher is None, f"process {watcher} outlived its parent"


@pytest.mark.timeout(300)
@pytest_twisted.ensureDeferred
async def test_a_worker_frozen_at_close_is_killed_after_the_time_limit_and_the_crawl_ends(http_server, tmp_path,
                                                                                          caplog):
    from scrapy import signals

    hanging, others = build_site(http_server, articles=4)  # no hang marker set: every page is extracted
    spider = site_spider(catalogues=[http_server.url("/list/1.html")])
    settings = crawl_settings(tmp_path, tmp_path / "out.jsonl", NEWSCRAWL_EXTRACT_TIMEOUT=2)
    frozen: list[int] = []

    def freeze(spider):  # every page is extracted; the worker stops before the crawl closes
        if not frozen:
            from newscrawl.pipelines.pool import shared_pools

            frozen.extend(pid for pool in shared_pools() for pid in pool.worker_pids())
            for pid in frozen:
                os.kill(pid, signal.SIGSTOP)

    from scrapy.crawler import CrawlerRunner

    runner = CrawlerRunner(settings)
    crawler = runner.create_crawler(spider)
    crawler.signals.connect(freeze, signal=signals.spider_idle)
    crawl = runner.crawl(crawler)
    hung: list[bool] = []  # a guard against a hang, not a measure of speed
    guard = reactor.callLater(150, lambda: (hung.append(True), crawl.cancel()))
    try:
        with caplog.at_level(logging.INFO):
            await crawl
    except defer.CancelledError:
        pass
    finally:
        if guard.active():
            guard.cancel()
        for pid in frozen:
            if not _gone(pid):
                os.kill(pid, signal.SIGKILL)
    assert frozen
    assert not hung, "the crawl hung at close on its frozen extraction worker"
    assert crawler.stats.get_value("finish_reason") == "finished"
    assert sorted(i["url"] for i in read_jsonl(tmp_path / "out.jsonl")) == sorted([hanging, *others])
    assert all(_wait_gone(pid) for pid in frozen)
    assert any("did not answer" in r.getMessage() for r in caplog.records if r.levelno == logging.WARNING)
