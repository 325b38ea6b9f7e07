"""The crawl under faults (issue 6): a local server that fails in every way a news site can.

Each bad article ends as one ``newscrawl/dropped/<reason>`` count, every good one is
exported, and the crawl finishes.  README "Reliability" lists the outcomes.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import pytest_twisted
from conftest import crawl_settings, read_jsonl, run_crawl, site_spider
from test_crawl_local import article_html, build_site, feed_xml
from twisted.internet import reactor
from twisted.web import resource, server

from fuzz import corpus
from newscrawl.run.guard import ExportPathError

ROOT = Path(__file__).resolve().parent.parent

GOOD_TITLES = ["Harbour bridge reopens after repairs", "Library extends its opening hours",
               "Tram line seven gets new carriages"]


class FaultySite(resource.Resource):
    """Paths under ``/fault/`` misbehave; ``pages`` holds ordinary ``path -> (body, headers)``."""

    isLeaf = True

    def __init__(self):
        super().__init__()
        self.pages: dict[str, tuple[bytes, dict[str, str]]] = {}
        self.hits: dict[str, int] = {}
        self.stalled = []

    def render_GET(self, request):
        path = request.path.decode()
        self.hits[path] = self.hits.get(path, 0) + 1
        if path == "/fault/reset":
            request.transport.abortConnection()  # RST, no response at all
            return server.NOT_DONE_YET
        if path == "/fault/stall":  # headers never come: past the download timeout
            self.stalled.append(request)
            return server.NOT_DONE_YET
        if path == "/fault/slow-body":  # headers, then the body stalls
            request.setHeader("Content-Type", "text/html")
            request.setHeader("Content-Length", "100000")
            request.write(b"<html><body><p>The start of a page that never ends")
            self.stalled.append(request)
            return server.NOT_DONE_YET
        if path.startswith("/fault/loop-"):
            request.setResponseCode(302)
            request.setHeader("Location", "/fault/loop-b" if path.endswith("a") else "/fault/loop-a")
            return b""
        if path == "/fault/unavailable":
            request.setResponseCode(503)
            request.setHeader("Retry-After", "1")
            return b"<html><body>Down for maintenance</body></html>"
        if path == "/fault/gzip-bomb":
            request.setHeader("Content-Type", "text/html; charset=utf-8")
            request.setHeader("Content-Encoding", "gzip")
            return BOMB
        if path in self.pages:
            body, headers = self.pages[path]
            for name, value in headers.items():
                request.setHeader(name, value)
            return body
        request.setResponseCode(404)
        return b"not found"


BOMB = corpus.gzip_bomb(64)  # 64 MiB of zeros in about 64 KiB


@pytest_twisted.ensureDeferred
async def test_crawl_completes_under_faults_and_counts_every_loss(tmp_path):
    site = FaultySite()
    port = reactor.listenTCP(0, server.Site(site), interface="127.0.0.1")
    base = f"http://127.0.0.1:{port.getHost().port}"
    try:
        good = []
        for n, title in enumerate(GOOD_TITLES):
            path = f"/news/{n}.html"
            site.pages[path] = (article_html(title).encode(), {"Content-Type": "text/html; charset=utf-8"})
            good.append((path, title))
        hostile = {
            "/hostile/png.html": ("png_as_html", "binary"),
            "/hostile/deep.html": ("nested_100k", "too_deep"),
            "/hostile/siblings.html": ("siblings_1m", "too_large"),
            "/hostile/20mb.html": ("20mb_page", "too_large"),
            "/hostile/no-text.html": ("no_text", "no_text"),
        }
        for path, (name, _) in hostile.items():
            body, content_type = corpus.body_of(name)
            site.pages[path] = (body, {"Content-Type": content_type})
        faults = ["/fault/reset", "/fault/stall", "/fault/slow-body", "/fault/loop-a", "/fault/unavailable",
                  "/fault/gzip-bomb", "/fault/missing"]
        links = [*good, *((p, f"Hostile page {p}") for p in hostile), *((p, f"Broken page {p}") for p in faults)]
        # The 503's Retry-After slows its host down: serve it from another host name so that
        # the rest of the crawl keeps its pace.
        host = {"/fault/unavailable": base.replace("127.0.0.1", "localhost")}
        items = "".join(f"<item><title>{t}</title><link>{host.get(p, base)}{p}</link></item>" for p, t in links)
        feed = f'<?xml version="1.0"?><rss version="2.0"><channel><title>F</title>{items}</channel></rss>'
        site.pages["/feed.xml"] = (feed.encode(), {"Content-Type": "application/rss+xml"})

        # the allow-list is by origin: "localhost" alone would allow ports 80 and 443 only
        spider = site_spider(feeds=[base + "/feed.xml"], domains=["127.0.0.1", f"localhost:{port.getHost().port}"])
        out = tmp_path / "out.jsonl"
        settings = crawl_settings(tmp_path, out, DOWNLOAD_TIMEOUT=2, RETRY_TIMES=1)
        crawler = await run_crawl(spider, settings)
    finally:
        for request in site.stalled:
            if not request.finished and not request._disconnected:
                request.transport.abortConnection()
        await port.stopListening()

    exported = {i["url"]: i for i in read_jsonl(out)}
    assert set(exported) == {base + p for p, _ in good}
    assert all(exported[base + p]["title"] == t for p, t in good)
    stats = crawler.stats.get_stats()
    assert stats["finish_reason"] == "finished"
    drops = {k.removeprefix("newscrawl/dropped/"): v for k, v in stats.items() if k.startswith("newscrawl/dropped/")}
    assert drops == {
        "binary": 1, "too_deep": 1, "no_text": 1,  # hostile pages, dropped by the extraction stage
        "too_large": 3,  # 1M siblings (extraction), 20 MB page (downloader), gzip bomb (decompression)
        "download_error": 1,  # connection reset
        "timeout": 2,  # no headers; headers then a stalled body
        "redirect_loop": 1,
        "http_error": 2,  # 503 with Retry-After, 404
    }
    assert sum(drops.values()) == len(hostile) + len(faults)
    assert site.hits["/fault/unavailable"] == 2  # retried once (RETRY_TIMES=1), then dropped
    assert stats["newscrawl/retry_after"] >= 1  # each 503 with Retry-After slows its host


# --- export failures -------------------------------------------------------------------


def unwritable_path(tmp_path: Path) -> Path:
    """An export path whose directory cannot be created (also as root): a file is in the way."""
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("a file where the export directory should be")
    return blocker / "out.jsonl"


@pytest_twisted.ensureDeferred
async def test_an_unwritable_export_path_stops_the_crawl_at_start(http_server, tmp_path):
    build_site(http_server, pages=1, per_page=2)
    spider = site_spider(catalogues=[http_server.url("/list/1.html")])
    out = unwritable_path(tmp_path)
    with pytest.raises(ExportPathError, match="cannot write the export file .*out.jsonl"):
        await run_crawl(spider, crawl_settings(tmp_path, out))
    assert http_server.hits == {}  # nothing was fetched


def test_an_unwritable_export_path_is_one_clear_error_on_the_command_line(tmp_path):
    (tmp_path / "sites.toml").write_text('[sites.local]\ndomains = ["127.0.0.1"]\n'
                                         'catalogues = ["http://127.0.0.1:9/list.html"]\n')
    out = unwritable_path(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "scrapy", "crawl", "local", "-o", str(out),
         "-s", f"NEWSCRAWL_SITES={tmp_path / 'sites.toml'}", "-s", f"NEWSCRAWL_STATE_DIR={tmp_path / 'state'}"],
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=120,
    )
    assert done.returncode != 0
    last = done.stderr.strip().splitlines()[-1]
    assert f"cannot write the export file {out}" in last, done.stderr[-3000:]
    assert "Traceback" not in done.stderr  # one error line, no traceback (commands.outcome.quiet_refusal)


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest_twisted.ensureDeferred
async def test_an_export_to_a_device_is_refused_at_start(http_server, tmp_path, caplog):
    # Nothing written to a device (or a pipe) can be locked, cut back or read by the next run:
    # articles would be marked exported without a file that holds them.  A full disk is a real
    # small file system in test_state_integrity.py.
    build_site(http_server, pages=1, per_page=4)
    spider = site_spider(catalogues=[http_server.url("/list/1.html")])
    settings = crawl_settings(tmp_path, tmp_path / "unused.jsonl", FEEDS={"/dev/full": {"format": "jsonlines"}})
    with caplog.at_level(logging.INFO), pytest.raises(ExportPathError, match="/dev/full is not a regular file"):
        await run_crawl(spider, settings)
    assert http_server.hits == {}
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1 and "is not a regular file" in errors[0].getMessage()
    assert not (tmp_path / "state" / "seen.sqlite3").exists()


@pytest_twisted.ensureDeferred
async def test_an_article_exported_but_not_recorded_before_a_kill_is_not_exported_again(
        http_server, tmp_path, caplog):
    # kill -9 between the feed write and the store's commit, made deterministic: the last
    # exported article is removed from the store, as if its commit never happened.
    import sqlite3

    from newscrawl.state.seen_store import canonical_url

    urls = build_site(http_server, pages=1, per_page=3)
    spider = site_spider(catalogues=[http_server.url("/list/1.html")])
    run1 = tmp_path / "run1.jsonl"
    await run_crawl(spider, crawl_settings(tmp_path, run1))
    last = read_jsonl(run1)[-1]
    db = sqlite3.connect(tmp_path / "state" / "seen.sqlite3")
    with db:
        db.execute("DELETE FROM seen WHERE url = ?", (canonical_url(last["url"]),))
    db.close()

    run2 = tmp_path / "run2.jsonl"
    with caplog.at_level(logging.WARNING):
        crawler = await run_crawl(spider, crawl_settings(tmp_path, run2))
    assert read_jsonl(run2) == []
    assert crawler.stats.get_value("newscrawl/dropped/already_exported") == len(urls)
    assert any("interrupted run exported" in r.getMessage() for r in caplog.records)


class BusyOnce(resource.Resource):
    """``/busy.html`` answers 503 with ``Retry-After: 2`` the first time, then the article;
    ``/feed.xml`` lists it."""

    isLeaf = True

    def __init__(self, page: bytes, feed: bytes):
        super().__init__()
        self.page, self.feed = page, feed
        self.times: list[float] = []

    def render_GET(self, request):
        if request.path == b"/feed.xml":
            request.setHeader("Content-Type", "application/rss+xml")
            return self.feed
        if request.path != b"/busy.html":
            request.setResponseCode(404)
            return b""
        self.times.append(time.monotonic())
        if len(self.times) == 1:
            request.setResponseCode(503)
            request.setHeader("Retry-After", "2")
            return b"busy"
        request.setHeader("Content-Type", "text/html; charset=utf-8")
        return self.page


@pytest_twisted.ensureDeferred
async def test_retry_after_slows_the_host_down_before_the_retry(tmp_path, caplog):
    port = reactor.listenTCP(0, server.Site(resource.Resource()), interface="127.0.0.1")
    base = f"http://127.0.0.1:{port.getHost().port}"
    title = "The council answers after a short wait"
    site = BusyOnce(article_html(title).encode(), feed_xml([(base + "/busy.html", title)]).encode())
    port.factory.resource = site
    try:
        spider = site_spider(feeds=[base + "/feed.xml"])
        out = tmp_path / "out.jsonl"
        settings = crawl_settings(tmp_path, out, RETRY_TIMES=1, DOWNLOAD_DELAY_JITTER=0.5)
        with caplog.at_level(logging.INFO):
            crawler = await run_crawl(spider, settings)
    finally:
        await port.stopListening()
    assert [i["url"] for i in read_jsonl(out)] == [base + "/busy.html"]
    assert crawler.stats.get_value("newscrawl/retry_after") == 1
    assert any("Retry-After 2" in r.getMessage() for r in caplog.records)
    # A lower bound only (the jittered delay is scaled so that its minimum is 2 s):
    # a slow machine can only make the gap longer.
    assert site.times[1] - site.times[0] >= 1.5


def test_the_feeds_a_restart_reconciles_include_every_json_lines_spelling(tmp_path):
    from scrapy.settings import Settings
    from scrapy.utils.conf import feed_process_params_from_cli

    from newscrawl.export.files import local_line_feeds

    settings = Settings()
    settings.setmodule("newscrawl.settings", priority="project")
    outputs = [tmp_path / name for name in ("a.jsonl", "b.jl", "c.json", "d.csv", "%(name)s.jsonl")]
    settings.set("FEEDS", feed_process_params_from_cli(settings, [str(p) for p in outputs]))
    expected = [tmp_path / "a.jsonl", tmp_path / "b.jl", tmp_path / "c.json", tmp_path / "site.jsonl"]
    assert local_line_feeds(settings, "site") == [str(p.resolve()) for p in expected]


@pytest_twisted.ensureDeferred
async def test_hostile_catalogue_pages_cost_nothing_but_a_warning(http_server, tmp_path):
    s = http_server
    urls = build_site(s, pages=1, per_page=2)
    many = "".join(f'<a href="/many/2024/05/{i}/story-{i}.html">Council budget story number {i}</a>'
                   for i in range(60))
    hostile = {
        "/cat/png.html": (corpus.png(), "text/html"),
        "/cat/image.png": (corpus.png(), "image/png"),
        "/cat/deep.html": (corpus.deep_nesting(), "text/html"),
        "/cat/empty.html": (b"", "text/html"),
        "/cat/many-links.html": (f"<html><body>{many}</body></html>".encode(), "text/html"),
    }
    for path, (body, content_type) in hostile.items():
        s.add(path, body, headers={"Content-Type": content_type})
    spider = site_spider(catalogues=[s.url("/list/1.html"), *(s.url(p) for p in hostile)])
    out = tmp_path / "out.jsonl"
    crawler = await run_crawl(spider, crawl_settings(tmp_path, out, NEWSCRAWL_MAX_LISTING_LINKS=50))
    assert sorted(i["url"] for i in read_jsonl(out)) == sorted(urls)
    stats = crawler.stats.get_stats()
    assert stats["finish_reason"] == "finished"
    assert stats["newscrawl/listing_error/too_many_links"] == 1
    assert stats["newscrawl/listing_error/not_html"] == 1  # the image/png one
    assert not any(p.startswith("/many/") for p in s.hits)  # nothing from the 60-link page


def test_retry_after_reads_seconds_and_dates_and_refuses_what_overflows():
    from newscrawl.middlewares.retry import retry_after_seconds

    assert retry_after_seconds(b"120") == 120.0
    assert retry_after_seconds("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0  # a date past: no wait
    assert retry_after_seconds(b"Sun, 12 May 2024 08:30:2222222222222222222222200 +0200") is None
    assert retry_after_seconds("soon") is None
