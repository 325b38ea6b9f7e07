"""Site health end to end: a history recorded by real crawls of a site served here on 127.0.0.1,
a layout change (bodies become a cookie banner, dates vanish), the alarms it raises, the run's
closing line, and ``scrapy report --check`` before and after the change."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest_twisted
from conftest import crawl_settings, read_jsonl, run_crawl, site_spider

from newscrawl.commands.outcome import outcome_of
from newscrawl.health.extension import ALARMS_STAT
from newscrawl.health.history import SqliteHistory

ROOT = Path(__file__).resolve().parents[1]
STORIES = 6

PARAGRAPHS = [
    "The harbour authority announced on Monday that the old pier will be rebuilt over the next two years, "
    "after engineers found that its wooden piles had rotted far faster than anyone had expected.",
    "Fishermen who tie up at the pier every morning said they welcomed the decision but worried about "
    "where they would land their catch while the work goes on, since the nearest quay is miles away.",
    "The authority promised a temporary floating dock by the spring and said the cost would be shared "
    "between the town, the regional government and a fund for coastal infrastructure set up last year.",
    "Residents will be able to comment on the plans at a public meeting in the town hall next week, and "
    "the drawings are on display in the library until the end of the month for anyone who wants to look.",
]
COOKIE_BANNER = ("We use cookies to improve your experience on our site. By continuing to browse you agree "
                 "to our use of cookies. Accept all | Manage settings")


def good_article(n: int) -> str:
    body = "".join(f"<p>{p} (Story {n}.)</p>" for p in PARAGRAPHS)
    return (f'<html><head><meta charset="utf-8"><title>Pier story {n} | Harbour News</title>'
            f'<meta property="article:published_time" content="2026-11-{10 + n:02d}T08:00:00+00:00"></head>'
            f'<body><nav><a href="/">Home</a> <a href="/about">About</a></nav><article>'
            f"<h1>Harbour pier will be rebuilt, part {n}</h1>"
            f'<p class="byline">By <span class="author">Anna Fisher</span></p>'
            f'<time datetime="2026-11-{10 + n:02d}T08:00:00+00:00">November {10 + n}, 2026</time>'
            f"{body}</article><footer>Harbour News</footer></body></html>")


def redesigned_article(n: int) -> str:
    """The same story after a redesign: behind its lead, the body is a cookie wall; the dates are gone."""
    return (f'<html><head><meta charset="utf-8"><title>Pier story {n} | Harbour News</title></head>'
            f'<body><nav><a href="/">Home</a> <a href="/about">About</a></nav><article>'
            f"<h1>Harbour pier will be rebuilt, part {n}</h1>"
            f'<p class="byline">By <span class="author">Anna Fisher</span></p>'
            f"<p>{PARAGRAPHS[0]} (Story {n}.)</p><p>{COOKIE_BANNER}</p>"
            f"</article><footer>Harbour News</footer></body></html>")


def serve(server, article) -> None:
    links = "".join(f'<li><a href="/story/pier-{n}.html">Harbour pier will be rebuilt, part {n}</a></li>'
                    for n in range(1, STORIES + 1))
    server.add("/list/1.html", f"<html><body><ul class='list'>{links}</ul></body></html>")
    for n in range(1, STORIES + 1):
        server.add(f"/story/pier-{n}.html", article(n))


def report_check(state: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "scrapy", "report", "--check",
                           "-s", f"NEWSCRAWL_STATE_DIR={state}"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})


async def crawl(server, tmp_path: Path, day: int):
    spider = site_spider("harbour", catalogues=[server.url("/list/1.html")])
    feed = tmp_path / f"day{day}.jsonl"
    settings = crawl_settings(tmp_path, feed, NEWSCRAWL_FRESH=True, NEWSCRAWL_EXTRACT_PROCESSES=0,
                              NEWSCRAWL_HEALTH_RUN_START=f"2026-11-{day:02d}T06:00:00+00:00")
    crawler = await run_crawl(spider, settings)
    return crawler, read_jsonl(feed)


@pytest_twisted.ensureDeferred
async def test_layout_change_raises_body_and_date_alarms_and_fails_report_check(http_server, tmp_path):
    state = tmp_path / "state"
    serve(http_server, good_article)
    for day in range(1, 5):  # alarms speak from the 4th run on: it is checked too
        crawler, items = await crawl(http_server, tmp_path, day)
        assert len(items) == STORIES and all(i["published"] and len(i["text"]) > 500 for i in items)
        assert crawler.stats.get_value(ALARMS_STAT) is None, crawler.stats.get_value(ALARMS_STAT)
        assert "HEALTH ALARM" not in outcome_of(crawler).line()
    before = report_check(state)
    assert before.returncode == 0, before.stdout + before.stderr
    assert before.stdout == ""

    serve(http_server, redesigned_article)
    crawler, items = await crawl(http_server, tmp_path, 5)
    assert len(items) == STORIES and all(not i["published"] and len(i["text"]) < 400 for i in items)
    alarms = crawler.stats.get_value(ALARMS_STAT)
    store = SqliteHistory.in_dir(state)
    try:
        runs = store.runs()["harbour"]
    finally:
        store.close()
    assert len(runs) == 5
    from newscrawl.health.alarms import evaluate

    raised = evaluate(runs)
    assert {(a.site, a.signal) for a in raised} == {("harbour", "body_median"), ("harbour", "share_date")}, raised
    assert len(alarms) == 2 and all(line.startswith("harbour: ") for line in alarms)
    body = next(a for a in raised if a.signal == "body_median")
    assert body.value < body.baseline / 2 and body.baseline > 500
    date = next(a for a in raised if a.signal == "share_date")
    assert (date.baseline, date.value) == (1.0, 0.0)
    line = outcome_of(crawler).line()
    assert "HEALTH ALARM" in line and "median body length halved" in line and "dates" in line

    after = report_check(state)
    assert after.returncode == 1, after.stdout + after.stderr
    assert "harbour: median body length halved [body_median]" in after.stdout
    assert "[share_date]" in after.stdout

    out = tmp_path / "health.json"
    done = subprocess.run([sys.executable, "-m", "scrapy", "report", "-o", str(out), "-s",
                           f"NEWSCRAWL_STATE_DIR={state}"], cwd=ROOT, capture_output=True, text=True,
                          timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["sites"][0]["site"] == "harbour" and report["sites"][0]["status"] == "alarm"
    assert report["sites"][0]["series"]["share_date"] == [1.0] * 4 + [0.0]
