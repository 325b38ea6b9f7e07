"""Overlapping runs, damaged or unwritable crawl state, full disks, export files that are no
regular files or end mid-record (issue 12).  Crawls run through the real spider and
pipelines against a local server; full disks are real: a small tmpfs mounted by the test
(skipped where mounting is not permitted)."""

from __future__ import annotations

import csv
import io
import json
import logging
import os
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import pytest
import pytest_twisted
from conftest import crawl_settings, read_jsonl, run_crawl, site_spider
from test_crawl_local import article_html, build_site, headline
from twisted.internet import reactor, threads
from twisted.internet.defer import ensureDeferred
from twisted.internet.task import deferLater
from twisted.web import resource, server

from newscrawl.run.guard import ExportPathError, RunLocked, StateUnwritable
from newscrawl.state.seen_store import SqliteSeenStore

ROOT = Path(__file__).resolve().parent.parent


# --- helpers ---------------------------------------------------------------------------


@contextmanager
def small_fs(path: Path, size: str = "1m"):
    """A tmpfs of ``size`` mounted at ``path`` for the test; skips where mounting is not permitted."""
    path.mkdir(parents=True, exist_ok=True)
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], capture_output=True)


def fill(directory: Path) -> Path:
    """Fill the file system of ``directory`` to the last block; returns the filler file."""
    filler = directory / "filler"
    with filler.open("ab", buffering=0) as fh:
        for size in (2**16, 2**12, 2**8, 1):
            try:
                while True:
                    fh.write(b"\0" * size)
            except OSError:
                continue
    return filler


def remount_read_only(path: Path) -> None:
    done = subprocess.run(["mount", "-o", "remount,ro", str(path)], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot remount read-only here: {done.stderr.strip()}")


async def crawl_with(spidercls, settings, on_item=None):
    """:func:`run_crawl` with ``on_item(item)`` called on every scraped item before it is exported."""
    from scrapy import signals
    from scrapy.crawler import CrawlerRunner

    runner = CrawlerRunner(settings)
    crawler = runner.create_crawler(spidercls)
    if on_item is not None:  # connected first, so it runs before the feed exporter's handler
        crawler.signals.connect(on_item, signal=signals.item_scraped, weak=False)
    await runner.crawl(crawler)
    return crawler


def errors(caplog) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.levelno >= logging.ERROR]


def seen_count(state: Path) -> int:
    store = SqliteSeenStore.in_dir(state)
    try:
        return store.count()
    finally:
        store.close()


def assert_complete_jsonl(path: Path) -> list[dict]:
    data = path.read_bytes()
    assert not data or data.endswith(b"\n"), data[-80:]
    return [json.loads(line) for line in data.decode("utf-8").splitlines()]


class GatedSite(resource.Resource):
    """Pages from a dict; paths in ``gated`` are answered only once :meth:`open_gate` is called."""

    isLeaf = True

    def __init__(self):
        super().__init__()
        self.pages: dict[str, str] = {}
        self.gated: set[str] = set()
        self.waiting: list = []
        self.hits: dict[str, int] = {}
        self.gate_open = False

    def render_GET(self, request):
        path = request.path.decode()
        self.hits[path] = self.hits.get(path, 0) + 1
        if path not in self.pages:
            request.setResponseCode(404)
            return b"not found"
        if path in self.gated and not self.gate_open:
            self.waiting.append(request)
            return server.NOT_DONE_YET
        return self._answer(request)

    def _answer(self, request):
        request.setHeader("Content-Type", "text/html; charset=utf-8")
        return self.pages[request.path.decode()].encode("utf-8")

    def open_gate(self):
        self.gate_open = True
        for request in self.waiting:
            if not request.finished and not request._disconnected:
                request.write(self._answer(request))
                request.finish()


def gated_site(articles: int = 4):
    """A local site whose last article waits for the gate; (site, port, base URL, article URLs)."""
    from test_crawl_local import catalogue_html

    site = GatedSite()
    port = reactor.listenTCP(0, server.Site(site), interface="127.0.0.1")
    base = f"http://127.0.0.1:{port.getHost().port}"
    links = []
    for n in range(articles):
        path = f"/news/2024/05/{n}/council-budget-story-{n}.html"
        site.pages[path] = article_html(headline(n))
        links.append((path, headline(n)))
    site.pages["/list/1.html"] = catalogue_html(links)
    site.gated.add(links[-1][0])
    return site, port, base, [base + p for p, _ in links]


async def wait_for(condition, timeout: float = 60.0) -> None:
    """Let the reactor run until ``condition()`` holds (a hang guard, not a speed requirement)."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        await deferLater(reactor, 0.05, lambda: None)


def cli(tmp_path: Path, base: str, *args: str, state: Path | None = None) -> list[str]:
    (tmp_path / "sites.toml").write_text(
        f'[sites.testsite]\ndomains = ["127.0.0.1"]\ncatalogues = ["{base}/list/1.html"]\n'
        "politeness = { download_delay = 0.0, autothrottle = false }\n")
    return [sys.executable, "-m", "scrapy", "crawl", "testsite", *args,
            "-s", f"NEWSCRAWL_SITES={tmp_path / 'sites.toml'}",
            "-s", f"NEWSCRAWL_STATE_DIR={state or tmp_path / 'state'}", "-s", "LOG_LEVEL=INFO"]


ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


# --- one run at a time -----------------------------------------------------------------


@pytest_twisted.ensureDeferred
async def test_a_second_run_on_the_same_state_refuses_and_leaves_the_first_runs_output_intact(tmp_path):
    site, port, base, urls = gated_site()
    out = tmp_path / "out.jsonl"
    spider = site_spider(catalogues=[base + "/list/1.html"])
    settings = crawl_settings(tmp_path, out, FEEDS={str(out): {"format": "jsonlines", "overwrite": True}})
    try:
        first = ensureDeferred(run_crawl(spider, settings))
        await wait_for(lambda: len(read_jsonl(out)) == len(urls) - 1 and site.waiting)
        # The cron job's next run starts while the first still writes the same -O file.
        second = await threads.deferToThread(
            subprocess.run, cli(tmp_path, base, "-O", str(out)), cwd=ROOT, env=ENV,
            capture_output=True, text=True, timeout=120)
        assert len(read_jsonl(out)) == len(urls) - 1  # not truncated by the second run
        site.open_gate()
        crawler = await first
    finally:
        await port.stopListening()
    assert second.returncode != 0
    message = f"another run (pid {os.getpid()}) is using the state directory {tmp_path / 'state'} for testsite"
    assert message in second.stderr, second.stderr[-3000:]
    assert crawler.stats.get_value("finish_reason") == "finished"
    assert sorted(i["url"] for i in read_jsonl(out)) == sorted(urls)
    assert seen_count(tmp_path / "state") == len(urls)
    assert site.hits["/list/1.html"] == 1  # the second run fetched nothing


def hold_lock(path: Path) -> subprocess.Popen:
    """A process that takes the run lock at ``path`` as a crawl does, then sleeps."""
    code = ("import sys, time; from newscrawl.state.run_lock import RunLock; "
            "lock = RunLock(sys.argv[1]); assert lock.acquire(); print('locked', flush=True); time.sleep(600)")
    holder = subprocess.Popen([sys.executable, "-c", code, str(path)], cwd=ROOT, env=ENV,
                              stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "locked"
    return holder


@pytest_twisted.ensureDeferred
async def test_a_held_lock_refuses_the_run_and_a_killed_holder_leaves_no_stale_lock(http_server, tmp_path,
                                                                                      caplog):
    urls = build_site(http_server, pages=1, per_page=2)
    spider = site_spider(catalogues=[http_server.url("/list/1.html")])
    (tmp_path / "state").mkdir()
    holder = hold_lock(tmp_path / "state" / "testsite.lock")
    try:
        with pytest.raises(RunLocked, match=f"another run \\(pid {holder.pid}\\) is using the state directory"):
            await run_crawl(spider, crawl_settings(tmp_path, tmp_path / "out.jsonl"))
        assert http_server.hits == {}
        holder.send_signal(signal.SIGKILL)
        holder.wait(timeout=60)
    finally:
        holder.kill()
    with caplog.at_level(logging.INFO):
        crawler = await run_crawl(spider, crawl_settings(tmp_path, tmp_path / "out.jsonl"))
    assert crawler.stats.get_value("finish_reason") == "finished"
    assert sorted(i["url"] for i in read_jsonl(tmp_path / "out.jsonl")) == sorted(urls)
    # The lock is released at the end: the same process can run the spider again.
    again = await run_crawl(spider, crawl_settings(tmp_path, tmp_path / "again.jsonl"))
    assert again.stats.get_value("finish_reason") == "finished"


@pytest_twisted.ensureDeferred
async def test_the_refused_run_records_finish_reason_locked(http_server, tmp_path):
    build_site(http_server, pages=1, per_page=1)
    (tmp_path / "state").mkdir()
    holder = hold_lock(tmp_path / "state" / "testsite.lock")
    try:
        from scrapy.crawler import CrawlerRunner

        runner = CrawlerRunner(crawl_settings(tmp_path, tmp_path / "out.jsonl"))
        crawler = runner.create_crawler(site_spider(catalogues=[http_server.url("/list/1.html")]))
        with pytest.raises(RunLocked):
            await runner.crawl(crawler)
    finally:
        holder.kill()
        holder.wait(timeout=60)
    assert crawler.stats.get_value("finish_reason") == "locked"


@pytest.mark.parametrize("shared", ["export file", "JOBDIR"])
@pytest_twisted.ensureDeferred
async def test_two_runs_never_share_an_export_file_or_a_jobdir(tmp_path, shared):
    site, port, base, urls = gated_site()
    out = tmp_path / "out.jsonl"
    spider = site_spider(catalogues=[base + "/list/1.html"])
    extra = {"JOBDIR": str(tmp_path / "job")} if shared == "JOBDIR" else {}
    first_settings = crawl_settings(tmp_path / "a", out, **extra)
    # The second run has a state directory of its own; it shares only the export file or JOBDIR.
    second_out = out if shared == "export file" else tmp_path / "other.jsonl"
    second_settings = crawl_settings(tmp_path / "b", second_out, **extra)
    second_settings.set("FEEDS", {str(second_out): {"format": "jsonlines", "overwrite": True}}, "cmdline")
    try:
        first = ensureDeferred(run_crawl(spider, first_settings))
        await wait_for(lambda: len(read_jsonl(out)) == len(urls) - 1 and site.waiting)
        match = "is writing the export file" if shared == "export file" else "is using the JOBDIR"
        with pytest.raises(RunLocked, match=match):
            await run_crawl(spider, second_settings)
        site.open_gate()
        crawler = await first
    finally:
        await port.stopListening()
    assert crawler.stats.get_value("finish_reason") == "finished"
    assert sorted(i["url"] for i in read_jsonl(out)) == sorted(urls)


# --- crawl state checked at start ----------------------------------------------------------


@pytest_twisted.ensureDeferred
async def test_a_corrupt_seen_store_is_moved_aside_and_rebuilt_from_the_export_files(http_server, tmp_path,
                                                                                      caplog):
    urls = build_site(http_server, pages=1, per_page=3)
    spider = site_spider(catalogues=[http_server.url("/list/1.html")])
    out = tmp_path / "out.jsonl"
    await run_crawl(spider, crawl_settings(tmp_path, out))
    db = tmp_path / "state" / "seen.sqlite3"
    for extra in ("-wal", "-shm"):
        Path(f"{db}{extra}").unlink(missing_ok=True)
    db.write_bytes(b"this is not a database" * 100)

    with caplog.at_level(logging.INFO):
        crawler = await run_crawl(spider, crawl_settings(tmp_path, out))
    stats = crawler.stats.get_stats()
    assert stats["finish_reason"] == "finished"
    assert len(read_jsonl(out)) == len(urls)  # nothing exported twice
    assert stats["newscrawl/dropped/already_exported"] == len(urls)
    warnings = " ".join(r.getMessage() for r in caplog.records if r.levelno == logging.WARNING)
    assert "seen-URL store" in warnings and "is corrupt" in warnings
    assert f"{len(urls)} URL(s) recorded" in warnings
    assert list((tmp_path / "state").glob("seen.sqlite3.corrupt-*"))  # kept for inspection
    assert not errors(caplog)


@pytest_twisted.ensureDeferred
async def test_a_corrupt_template_library_is_moved_aside_and_learned_again(http_server, tmp_path, caplog):
    urls = build_site(http_server, pages=1, per_page=2)
    (tmp_path / "state").mkdir()
    (tmp_path / "state" / "templates.sqlite3").write_bytes(b"SQLite format 3\0" + b"\xff" * 4000)
    spider = site_spider(catalogues=[http_server.url("/list/1.html")])
    with caplog.at_level(logging.INFO):
        crawler = await run_crawl(spider, crawl_settings(tmp_path, tmp_path / "out.jsonl"))
    assert crawler.stats.get_value("finish_reason") == "finished"
    assert len(read_jsonl(tmp_path / "out.jsonl")) == len(urls)
    assert any("template library" in r.getMessage() and "is corrupt" in r.getMessage() for r in caplog.records)
    assert not crawler.stats.get_value("newscrawl/template/errors")


def blocked(tmp_path: Path) -> Path:
    """A path whose directory cannot be created, also as root: a file is in the way."""
    (tmp_path / "blocker").write_text("a file where a directory should be")
    return tmp_path / "blocker" / "dir"


@pytest.mark.parametrize("where", ["state directory", "JOBDIR"])
@pytest_twisted.ensureDeferred
async def test_state_that_cannot_be_created_stops_the_run_at_start(http_server, tmp_path, where, caplog):
    build_site(http_server, pages=1, per_page=1)
    spider = site_spider(catalogues=[http_server.url("/list/1.html")])
    settings = crawl_settings(tmp_path, tmp_path / "out.jsonl")
    settings.set("NEWSCRAWL_STATE_DIR" if where == "state directory" else "JOBDIR", str(blocked(tmp_path)),
                 "cmdline")
    with caplog.at_level(logging.INFO), pytest.raises(StateUnwritable, match="cannot create"):
        await run_crawl(spider, settings)
    assert http_server.hits == {}
    assert len(errors(caplog)) == 1


@pytest_twisted.ensureDeferred
async def test_a_read_only_seen_store_stops_the_run_at_start(http_server, tmp_path, caplog):
    urls = build_site(http_server, pages=1, per_page=2)
    spider = site_spider(catalogues=[http_server.url("/list/1.html")])
    with small_fs(tmp_path / "state"):
        await run_crawl(spider, crawl_settings(tmp_path, tmp_path / "run1.jsonl"))
        http_server.hits.clear()
        remount_read_only(tmp_path / "state")
        with caplog.at_level(logging.INFO), pytest.raises(StateUnwritable, match="state"):
            await run_crawl(spider, crawl_settings(tmp_path, tmp_path / "run2.jsonl"))
        assert http_server.hits == {}
        assert len(errors(caplog)) == 1
    assert len(read_jsonl(tmp_path / "run1.jsonl")) == len(urls)


@pytest_twisted.ensureDeferred
async def test_a_damaged_jobdir_queue_is_discarded_with_a_warning(http_server, tmp_path, caplog):
    urls = build_site(http_server, pages=1, per_page=2)
    queue = tmp_path / "job" / "requests.queue"
    queue.mkdir(parents=True)
    (queue / "active.json").write_text("{not json")
    spider = site_spider(catalogues=[http_server.url("/list/1.html")])
    with caplog.at_level(logging.INFO):
        crawler = await run_crawl(spider, crawl_settings(tmp_path, tmp_path / "out.jsonl",
                                                         JOBDIR=str(tmp_path / "job")))
    assert crawler.stats.get_value("finish_reason") == "finished"
    assert sorted(i["url"] for i in read_jsonl(tmp_path / "out.jsonl")) == sorted(urls)
    assert any("cannot be read" in r.getMessage() for r in caplog.records)


# --- failures mid-run ---------------------------------------------------------------------


@pytest_twisted.ensureDeferred
async def test_a_full_state_disk_stops_the_run_and_the_next_run_exports_each_article_once(
        http_server, tmp_path, caplog):
    urls = build_site(http_server, pages=2, per_page=4)
    spider = site_spider(catalogues=[http_server.url("/list/1.html")])
    state = tmp_path / "state"
    with small_fs(state):
        scraped = []

        def fill_on_second_item(item, **kwargs):
            scraped.append(item.url)
            if len(scraped) == 2:
                fill(state)

        with caplog.at_level(logging.INFO):
            crawler = await crawl_with(spider, crawl_settings(tmp_path, tmp_path / "run1.jsonl"),
                                       fill_on_second_item)
        stats = crawler.stats.get_stats()
        assert stats["finish_reason"] == "state_write_failed"
        assert "full" in stats["newscrawl/state_write_failed"]
        assert len(errors(caplog)) == 1 and "Cannot write the crawl state" in errors(caplog)[0].getMessage()
        assert "Traceback" not in caplog.text
        first = [i["url"] for i in assert_complete_jsonl(tmp_path / "run1.jsonl")]
        assert len(first) == 2  # nothing exported after the failure
        assert stats["newscrawl/exported"] == 1  # the second was written, not recorded

        (state / "filler").unlink()
        caplog.clear()
        with caplog.at_level(logging.INFO):
            again = await run_crawl(spider, crawl_settings(tmp_path, tmp_path / "run2.jsonl"))
    assert again.stats.get_value("finish_reason") == "finished"
    second = [i["url"] for i in read_jsonl(tmp_path / "run2.jsonl")]
    assert sorted(first + second) == sorted(urls)  # every article, none twice
    assert "interrupted run exported" in caplog.text


@pytest.mark.parametrize("fmt", ["jsonlines", "csv"])
@pytest_twisted.ensureDeferred
async def test_a_full_export_disk_leaves_complete_records_and_the_next_run_appends_cleanly(
        http_server, tmp_path, caplog, fmt):
    urls = build_site(http_server, pages=2, per_page=4)
    spider = site_spider(catalogues=[http_server.url("/list/1.html")])
    exports = tmp_path / "exports"
    out = exports / f"out.{fmt}"
    with small_fs(exports, size="64k"):
        scraped = []

        def fill_on_third_item(item, **kwargs):
            scraped.append(item.url)
            if len(scraped) == 3:
                fill(exports)

        settings = crawl_settings(tmp_path, out, FEEDS={str(out): {"format": fmt}})
        with caplog.at_level(logging.INFO):
            crawler = await crawl_with(spider, settings, fill_on_third_item)
        stats = crawler.stats.get_stats()
        assert stats["finish_reason"] == "export_failed"
        assert "No space left on device" in stats["newscrawl/export_failed"]
        assert len(errors(caplog)) == 1 and "Cannot write the export file" in errors(caplog)[0].getMessage()
        first = exported_urls(out, fmt)  # complete records only, whatever part of the failed write got through
        # The file's last page may hold a record or two after the disk filled up.
        assert 2 <= len(first) < len(urls)
        assert stats["newscrawl/exported"] == len(first) == seen_count(tmp_path / "state")

        (exports / "filler").unlink()
        again = await run_crawl(spider, crawl_settings(tmp_path, out, FEEDS={str(out): {"format": fmt}}))
        assert again.stats.get_value("finish_reason") == "finished"
        both = exported_urls(out, fmt)
    assert sorted(both) == sorted(urls)  # every article once, in one well-formed file


def exported_urls(path: Path, fmt: str) -> list[str]:
    """The URLs of a feed file, checking that it is well formed (one CSV header, complete records)."""
    if fmt == "jsonlines":
        return [r["url"] for r in assert_complete_jsonl(path)]
    data = path.read_bytes()
    assert not data or data.endswith(b"\r\n")
    rows = list(csv.reader(io.StringIO(data.decode("utf-8"), newline="")))
    assert rows[0][0] == "url" and all(len(r) == len(rows[0]) for r in rows)
    assert sum(r[0] == "url" for r in rows) == 1  # the header once
    return [r[0] for r in rows[1:]]


# --- export files --------------------------------------------------------------------------


@pytest_twisted.ensureDeferred
async def test_an_export_to_a_named_pipe_is_refused_at_start(http_server, tmp_path):
    build_site(http_server, pages=1, per_page=1)
    fifo = tmp_path / "out.jsonl"
    os.mkfifo(fifo)
    spider = site_spider(catalogues=[http_server.url("/list/1.html")])
    with pytest.raises(ExportPathError, match="is not a regular file"):
        await run_crawl(spider, crawl_settings(tmp_path, fifo))
    assert http_server.hits == {}


@pytest.mark.parametrize("fmt", ["jsonlines", "csv"])
@pytest_twisted.ensureDeferred
async def test_an_export_file_that_ends_mid_record_is_cut_back_before_appending(http_server, tmp_path, caplog,
                                                                                fmt):
    urls = build_site(http_server, pages=1, per_page=3)
    out = tmp_path / f"out.{fmt}"
    if fmt == "jsonlines":
        good = b'{"url": "https://old.example/1", "title": "Old"}\n'
        out.write_bytes(good + b'{"url": "https://old.example/2", "title": "Cut o')
    else:
        good = b"url,title\r\nhttps://old.example/1,Old\r\n"
        out.write_bytes(good + b'https://old.example/2,"A title\nwith a line br')
    spider = site_spider(catalogues=[http_server.url("/list/1.html")])
    with caplog.at_level(logging.INFO):
        crawler = await run_crawl(spider, crawl_settings(tmp_path, out, FEEDS={str(out): {"format": fmt}},
                                                         FEED_EXPORT_FIELDS=["url", "title"]))
    assert crawler.stats.get_value("finish_reason") == "finished"
    assert out.read_bytes().startswith(good)
    assert sorted(exported_urls(out, fmt)) == sorted(["https://old.example/1", *urls])
    assert any("ended inside a record" in r.getMessage() for r in caplog.records)


@pytest_twisted.ensureDeferred
async def test_a_full_jobdir_disk_stops_the_run_and_the_next_run_discards_the_queue(http_server, tmp_path,
                                                                                    caplog):
    from scrapy import signals
    from scrapy.crawler import CrawlerRunner

    urls = build_site(http_server, pages=1, per_page=3)
    spider = site_spider(catalogues=[http_server.url("/list/1.html")])
    job = tmp_path / "job"
    with small_fs(job, size="256k"):
        settings = crawl_settings(tmp_path, tmp_path / "run1.jsonl", JOBDIR=str(job))
        runner = CrawlerRunner(settings)
        crawler = runner.create_crawler(spider)
        # The disk fills up once the run has started: every queue write fails from then on.
        crawler.signals.connect(lambda **kwargs: fill(job), signal=signals.spider_opened, weak=False)
        with caplog.at_level(logging.INFO):
            await runner.crawl(crawler)
        stats = crawler.stats.get_stats()
        assert stats["finish_reason"] == "state_write_failed"
        assert "request queue" in stats["newscrawl/state_write_failed"]
        assert len(errors(caplog)) == 1 and "Traceback" not in caplog.text
        assert read_jsonl(tmp_path / "run1.jsonl") == []

        (job / "filler").unlink()
        caplog.clear()
        with caplog.at_level(logging.INFO):
            again = await run_crawl(spider, crawl_settings(tmp_path, tmp_path / "run2.jsonl", JOBDIR=str(job)))
    assert again.stats.get_value("finish_reason") == "finished"
    assert sorted(i["url"] for i in read_jsonl(tmp_path / "run2.jsonl")) == sorted(urls)
    assert "discarding its request queue" in caplog.text


@pytest.mark.parametrize("content, end, chunk, expected", [
    (b'{"a": 1}\n{"a": 2}\n', b"\n", 4, b'{"a": 1}\n{"a": 2}\n'),  # complete: untouched
    (b'{"a": 1}\n{"a": 2', b"\n", 4, b'{"a": 1}\n'),  # cut inside the last record
    (b'{"a": 1}\n{"a": 2}', b"\n", 4, b'{"a": 1}\n{"a": 2}\n'),  # whole record, newline missing
    (b'{"a": ', b"\n", 2, b""),  # nothing complete at all
    (b"h\r\nx,1\r\ny,\"two\nlines", b"\r\n", 3, b"h\r\nx,1\r\n"),  # CSV: a newline inside a cell is no end
    (b"h\r\nx,1\r", b"\r\n", 2, b"h\r\n"),  # a record end cut in half
])
def test_cut_partial_record(tmp_path, content, end, chunk, expected):
    from newscrawl.export.storage import cut_partial_record

    path = tmp_path / "feed"
    path.write_bytes(content)
    cut_partial_record(path, end, chunk=chunk)
    assert path.read_bytes() == expected
