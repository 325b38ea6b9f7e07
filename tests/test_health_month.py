"""A simulated month of daily cron runs of a site built from real dataset articles (issue 38):
alarms exactly on the days the site is broken.

The site is a local server whose feed and articles change per simulated day: quiet days (nothing
new, or one new article), busy days, an article layout break (two days: new pages come with no
text), recovery, a day its listing pages answer 500, a day its feed and front page list nothing (a
redesign), each followed by recovery.  Its feed always lists a partner's
link (off the site) and one robots.txt forbids.  Each day is a real crawl (the site spider, the
pipelines, the health recorder) with the history's clock set to that day, then ``scrapy
report --check`` (its run path in this process; the real command once at the end): exit 1 and
the break's lines on the break's days, exit 0 and nothing printed on every other day.

The articles are read from ../shared/datasets/fundus at run time (skipped when absent)."""

from __future__ import annotations

import argparse
import contextlib
import gzip
import html
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import pytest_twisted
from conftest import crawl_settings, run_crawl, site_spider

ROOT = Path(__file__).resolve().parents[1]
FUNDUS = ROOT.parent / "shared" / "datasets" / "fundus"
pytestmark = pytest.mark.skipif(not (FUNDUS / "truth.jsonl").exists(),
                                reason="../shared/datasets/fundus (real articles) is not here")

PARTNER = "https://partner.example.org/their-story.html"
# day -> (new articles that day, what is broken); every other day is quiet (nothing new)
DAYS = 28
PLAN = {1: (8, None), 3: (1, None), 4: (4, None), 6: (1, None), 8: (5, None), 9: (1, None),
        11: (3, None), 12: (1, None), 14: (4, "layout"), 15: (3, "layout"), 16: (3, None),
        18: (1, None), 20: (4, None), 21: (2, "listings_500"), 22: (3, None), 24: (1, "listing_layout"), 25: (1, None),
        27: (4, None)}
BROKEN_SHELL = (b'<html><head><meta charset="utf-8"><title>Loading</title></head>'
                b'<body><div id="app"></div><script src="/app.js"></script></body></html>')


def real_articles(n: int) -> list[tuple[str, bytes]]:
    """``n`` real articles (title, page): fundus rows with a title and a body of at least 1,500 characters."""
    pages = []
    for line in (FUNDUS / "truth.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if row.get("title") and len(row.get("text") or "") >= 1500:
            pages.append((row["title"], gzip.decompress((FUNDUS / row["file"]).read_bytes())))
    assert len(pages) >= n, "not enough long fundus articles"
    return pages[:n]


def front_page(server, published: list[int], titles: list[str], broken: bool = False) -> str:
    """The site's front page: the latest twelve headlines (``broken``: a redesign that lists none)."""
    links = "" if broken else "".join(f'<li><a href="/news/{n}.html">{html.escape(titles[n])}</a></li>'
                                      for n in reversed(published[-12:]))
    return (f'<html><head><meta charset="utf-8"><title>Month News</title></head><body><nav><a href="/">Home</a> '
            f'<a href="/about.html">About</a></nav><main><ul class="latest">{links}</ul></main></body></html>')


def feed(server, published: list[int], empty: bool = False) -> bytes:
    """The site's RSS feed (``empty``: a broken one that lists no item)."""
    entries = [f"<item><title>Story {n}</title><link>{server.url(f'/news/{n}.html')}</link></item>"
               for n in reversed(published[-12:])]  # the feed's latest twelve, newest first
    entries.insert(1, f"<item><title>From our partner</title><link>{PARTNER}</link></item>")
    entries.insert(2, f"<item><title>Members only</title><link>{server.url('/private/club.html')}</link></item>")
    return (f'<?xml version="1.0"?><rss version="2.0"><channel><title>Month News</title>'
            f"{'' if empty else ''.join(entries)}</channel></rss>").encode()


def report_check(state: Path) -> tuple[int, str]:
    """``scrapy report --check``'s run path in this process: (exit status, what it printed)."""
    from scrapy.settings import Settings

    from newscrawl.commands.report import Command

    command = Command()
    command.settings = Settings()
    command.settings.setmodule("newscrawl.settings", priority="project")
    command.settings.set("NEWSCRAWL_STATE_DIR", str(state), priority="cmdline")
    opts = argparse.Namespace(output=None, sites=None, days="90", format=None, check=True)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        command.run([], opts)
    return command.exitcode, out.getvalue()


@pytest_twisted.ensureDeferred
async def test_a_month_of_daily_runs_alarms_exactly_on_the_break_days(http_server, tmp_path):
    articles = real_articles(sum(n for n, _ in PLAN.values()))
    http_server.add("/robots.txt", "User-agent: *\nDisallow: /private/\n", headers={"Content-Type": "text/plain"})
    http_server.add("/private/club.html", "<html><body><p>members</p></body></html>")
    spider = site_spider("month", feeds=[http_server.url("/feed.xml")],
                         catalogues=[http_server.url("/latest.html")])
    titles = [title for title, _ in articles]
    state = tmp_path / "state"
    published: list[int] = []
    unlisted = 0  # published on a day the feed failed: listed the next day
    verdicts = {}
    for day in range(1, DAYS + 1):
        new, broken = PLAN.get(day, (0, None))
        for n in range(len(published), len(published) + new):
            page = BROKEN_SHELL if broken == "layout" else articles[n][1]
            http_server.add(f"/news/{n}.html", page, headers={"Content-Type": "text/html"})
            published.append(n)
        http_server.add("/latest.html", front_page(http_server, published, titles, broken == "listing_layout"),
                        status=500 if broken == "listings_500" else 200)
        http_server.add("/feed.xml", feed(http_server, published, empty=broken == "listing_layout"),
                        status=500 if broken == "listings_500" else 200,
                        headers={"Content-Type": "application/rss+xml"})
        settings = crawl_settings(tmp_path, tmp_path / f"day{day:02d}.jsonl", NEWSCRAWL_EXTRACT_PROCESSES=0,
                                  NEWSCRAWL_HEALTH_RUN_START=f"2026-10-{day:02d}T06:00:00+00:00",
                                  LOG_LEVEL="WARNING")
        crawler = await run_crawl(spider, settings)
        stats = crawler.stats.get_stats()
        if broken is None and day > 1:  # the quiet and busy days are what the issue describes
            assert stats.get("newscrawl/dropped/offsite") == 1 and stats.get("newscrawl/dropped/robots") == 1
            assert stats.get("newscrawl/exported", 0) == new + unlisted, (day, stats)
        unlisted = new if broken in ("listings_500", "listing_layout") else 0
        verdicts[day] = report_check(state)
    alarmed = {day for day, (status, _) in verdicts.items() if status == 1}
    assert alarmed == {d for d, (_, broken) in PLAN.items() if broken}, verdicts
    assert all(verdicts[d] == (0, "") for d in range(1, DAYS + 1) if d not in alarmed), verdicts
    for day in (14, 15):  # the layout break: new links, no article; the evidence names the drops
        assert "[exported]" in verdicts[day][1] and "new links became articles" in verdicts[day][1]
        assert "exported 0;" in verdicts[day][1] and "no_text" in verdicts[day][1], verdicts[day]
    assert "[listing_failed]" in verdicts[21][1]
    assert "the listing pages listed no link [listed]" in verdicts[24][1]

    done = subprocess.run([sys.executable, "-m", "scrapy", "report", "--check", "-s", f"NEWSCRAWL_STATE_DIR={state}"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert (done.returncode, done.stdout) == (0, ""), done.stderr[-2000:]
