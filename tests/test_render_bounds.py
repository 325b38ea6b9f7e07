"""The browser bounded and surviving (issue #39): a page that never loads or never settles is dropped
as ``render_timeout`` and the crawl goes on; a browser killed mid-crawl is started again and no
article is lost; contexts are recycled and the open pages capped; without Chromium, ``auto`` warns
once and counts what it would have rendered, and ``render = "always"`` is a one-line usage error.

Real Chromium through scrapy-playwright; skipped without a ``chromium`` binary."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import random
import signal

import psutil
import pytest
import pytest_twisted
from chromium import chromium
from conftest import crawl_settings, read_jsonl, run_crawl, site_spider
from test_exit_status import scrapy
from twisted.internet import defer, reactor, task

pytest.importorskip("scrapy_playwright", reason="scrapy-playwright is not installed (pip install 'newscrawl[render]')")
pytestmark = pytest.mark.skipif(chromium() is None, reason="no chromium binary on PATH (apt-get install -y "
                                "chromium; .ci/run installs it)")

WORDS = ("harbour bridge reopened monday after eight months repairs deck cables first trams crossed dawn city "
         "council engineers traffic ferry commuters river works budget delay steel paint lanes cyclists mayor "
         "opening ceremony tolls inspection weekend night shift crews weather").split()
APP_JS = """fetch(location.pathname.replace('.html', '.json')).then(r => r.json()).then(d => {
  document.getElementById('app').innerHTML = '<article><h1>' + d.title + '</h1><p>' + d.text + '</p></article>';
});"""
SHELL = "<html><head><title>News</title></head><body><div id='app'></div><script src='{src}'></script></body></html>"


def text(n: int) -> str:
    """A body of its own for article ``n`` (one text twice would be a duplicate_content drop)."""
    words = list(WORDS)
    random.Random(n).shuffle(words)
    return " ".join(words * 3) + "."


def headline(n: int) -> str:
    return f"Harbour bridge reopens to trams after repairs, part {n}"


def catalogue(server, paths: list[str]) -> str:
    items = "".join(f"<li><a href='{p}'>{headline(n)}</a></li>" for n, p in enumerate(paths))
    return server.add("/news/", f"<html><body><ul>{items}</ul></body></html>")


def shell_article(server, n: int, **json_route) -> str:
    path = f"/news/2026/11/20/bridge-{n}.html"
    server.add(path, SHELL.format(src="/app.js"))
    server.add(path.replace(".html", ".json"), json.dumps({"title": headline(n), "text": text(n)}),
               headers={"Content-Type": "application/json"}, **json_route)
    return path


def chromium_processes() -> list[tuple[psutil.Process, str]]:
    """The Chromium processes below this one, with their command lines (one exiting meanwhile is left out)."""
    found = []
    for process in psutil.Process().children(recursive=True):
        try:
            if "chrom" in process.name().lower():
                found.append((process, " ".join(process.cmdline())))
        except psutil.Error:
            continue
    return found


async def crawl(tmp_path, spider, name="out", **overrides):
    feed = tmp_path / f"{name}.jsonl"
    crawler = await run_crawl(spider, crawl_settings(tmp_path, feed, NEWSCRAWL_TEMPLATES=False, **overrides))
    return crawler.stats.get_stats(), read_jsonl(feed)


@pytest_twisted.ensureDeferred
async def test_a_page_that_never_loads_or_never_settles_is_a_render_timeout(http_server, tmp_path):
    http_server.add("/app.js", APP_JS, headers={"Content-Type": "application/javascript"})
    http_server.add("/hang.js", "", delay=60)  # the load event never fires
    http_server.add("/busy.js", "setInterval(() => document.body.append('tick '), 50);",
                    headers={"Content-Type": "application/javascript"})  # the DOM never settles
    good = [shell_article(http_server, n) for n in range(2)]
    hanging = "/news/2026/11/20/bridge-hang.html"
    busy = "/news/2026/11/20/bridge-busy.html"
    http_server.add(hanging, SHELL.format(src="/hang.js"))
    http_server.add(busy, SHELL.format(src="/busy.js"))
    spider = site_spider("bridge", catalogues=[catalogue(http_server, [*good, hanging, busy])], render="always")
    stats, records = await crawl(tmp_path, spider, NEWSCRAWL_RENDER_TIMEOUT=3)
    assert sorted(r["url"].rsplit("/", 1)[1] for r in records) == ["bridge-0.html", "bridge-1.html"]
    assert stats["newscrawl/dropped/render_timeout"] == 2
    assert stats["finish_reason"] == "finished"


@pytest_twisted.ensureDeferred
async def test_a_browser_killed_mid_crawl_is_restarted_and_no_article_is_lost(http_server, tmp_path):
    http_server.add("/app.js", APP_JS, headers={"Content-Type": "application/javascript"})
    gate = defer.Deferred()
    paths = [shell_article(http_server, n, **({"gate": gate} if n == 3 else {})) for n in range(8)]
    held = paths[3].replace(".html", ".json")
    killed = []

    def kill_when_held():  # the browser is rendering article 3, waiting for its data: kill it
        if killed or not http_server.hits.get(held):
            return
        for process, cmdline in chromium_processes():
            if "--type=" not in cmdline:  # the browser, not its renderers
                with contextlib.suppress(ProcessLookupError):
                    os.kill(process.pid, signal.SIGKILL)
                    killed.append(process.pid)
        if killed:
            reactor.callLater(0.5, gate.callback, None)

    watch = task.LoopingCall(kill_when_held)
    watch.start(0.05)
    spider = site_spider("bridge", catalogues=[catalogue(http_server, paths)], render="always")
    try:
        stats, records = await crawl(tmp_path, spider, PLAYWRIGHT_MAX_PAGES_PER_CONTEXT=2, NEWSCRAWL_RENDER_TIMEOUT=5,
                                     NEWSCRAWL_RENDER_CONTEXT_PAGES=3)
    finally:
        watch.stop()
    assert killed, ("the browser was never killed", http_server.hits, stats.get("playwright/browser_count"),
                    sorted(r["url"][-12:] for r in records))
    assert sorted(r["url"] for r in records) == sorted(http_server.url(p) for p in paths)
    assert stats["playwright/browser_count"] >= 2  # started again after the kill
    assert stats["newscrawl/render/browser_lost"] == 1  # the kill, not the close at the end
    assert stats["playwright/page_count/max_concurrent"] <= 2  # PLAYWRIGHT_MAX_PAGES_PER_CONTEXT
    assert stats["newscrawl/render/contexts_recycled"] >= 1  # NEWSCRAWL_RENDER_CONTEXT_PAGES
    assert not chromium_processes(), "the crawl left a browser running"


@pytest_twisted.ensureDeferred
async def test_without_chromium_auto_warns_once_and_counts_what_it_would_render(http_server, tmp_path, caplog):
    http_server.add("/app.js", APP_JS, headers={"Content-Type": "application/javascript"})
    paths = [shell_article(http_server, n) for n in range(4)]
    spider = site_spider("bridge", catalogues=[catalogue(http_server, paths)])
    with caplog.at_level(logging.WARNING):
        stats, records = await crawl(tmp_path, spider, NEWSCRAWL_BROWSER=str(tmp_path / "no-chromium"))
    assert records == []
    assert stats["newscrawl/render/unavailable"] == 4
    assert stats.get("newscrawl/render/pages", 0) == 0
    warnings = [r for r in caplog.records if "only a browser shows" in r.getMessage()]
    assert len(warnings) == 1 and "chromium" in warnings[0].getMessage()


def test_render_always_without_chromium_is_a_one_line_usage_error(tmp_path):
    (tmp_path / "sites.toml").write_text('[sites.spa]\ndomains = ["127.0.0.1"]\n'
                                         'catalogues = ["http://127.0.0.1:9/news/"]\nrender = "always"\n')
    done = scrapy(tmp_path, "crawl", "spa", "-s", f"NEWSCRAWL_BROWSER={tmp_path / 'no-chromium'}")
    assert done.returncode == 2, done.stderr[-3000:]
    errors = [line for line in done.stderr.splitlines() if "render" in line]
    assert len(errors) == 1 and "apt-get install chromium" in errors[0] and "scrapy-playwright" in errors[0]
    assert "Traceback" not in done.stderr


MORE_JS = """let page = 0;
function more() {
  fetch('/more/list-' + page + '.json').then(r => r.json()).then(d => {
    document.getElementById('list').insertAdjacentHTML('beforeend',
      d.map(i => '<li><a href="' + i.href + '">' + i.title + '</a></li>').join(''));
    page += 1;
  });
}
more();
document.getElementById('more').addEventListener('click', more);"""


def article_page(n: int) -> str:
    return f"<html><body><article><h1>{headline(n)}</h1><p>{text(n)}</p></article></body></html>"


def more_site(server, batches: int) -> str:
    server.add("/more.js", MORE_JS, headers={"Content-Type": "application/javascript"})
    for batch in range(batches):
        items = [{"href": f"/news/2026/11/20/bridge-{n}.html", "title": headline(n)}
                 for n in range(2 * batch, 2 * batch + 2)]
        server.add(f"/more/list-{batch}.json", json.dumps(items), headers={"Content-Type": "application/json"})
        for n in range(2 * batch, 2 * batch + 2):
            server.add(f"/news/2026/11/20/bridge-{n}.html", article_page(n))
    return server.add("/more/", "<html><body><ul id='list'></ul><button id='more'>Load more</button>"
                                "<script src='/more.js'></script></body></html>")


@pytest_twisted.ensureDeferred
async def test_a_load_more_catalogue_is_clicked_through_as_far_as_the_bound(http_server, tmp_path):
    spider = site_spider("bridge", catalogues=[more_site(http_server, batches=4)])
    stats, records = await crawl(tmp_path, spider, name="all")
    assert len(records) == 8  # the first batch on load, three more clicks
    assert stats["newscrawl/render/fallback/listing"] == 1
    assert stats.get("newscrawl/render/fallback/article", 0) == 0
    stats, records = await crawl(tmp_path / "bounded", spider, name="bounded", NEWSCRAWL_RENDER_SCROLLS=1)
    assert len(records) == 4  # the first batch, one click: NEWSCRAWL_RENDER_SCROLLS
