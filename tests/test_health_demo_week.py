"""As a user would from cron: a week of daily demo crawls (the run's start shifted to each day
with NEWSCRAWL_HEALTH_RUN_START), then ``scrapy report`` opened in headless Chromium.

The first six days run in this process through the project's crawler and are judged by the
``scrapy crawl`` command's own verdict (:func:`newscrawl.commands.outcome.outcome_of`); the
seventh is the real ``scrapy crawl demo`` command, so the command line is exercised once rather
than paying for six more interpreter starts."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import pytest_twisted
from chromium import chromium, open_page
from conftest import crawl_settings, run_crawl
from lxml import html as lxml_html

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.skipif(not (ROOT / "data" / "demo" / "manifest.json").exists(),
                                reason="data/demo not built yet")


def scrapy(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "scrapy", *args, "-s", f"NEWSCRAWL_STATE_DIR={tmp_path / 'state'}"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})


@pytest_twisted.ensureDeferred
async def test_a_week_of_daily_demo_runs_then_the_report(tmp_path):
    from scrapy.settings import Settings

    from newscrawl.commands.outcome import outcome_of
    from newscrawl.sites import load_sites
    from newscrawl.spiders.loader import spider_class

    project = Settings()
    project.setmodule("newscrawl.settings", priority="project")
    today = datetime.now(UTC).replace(hour=5, minute=30, second=0, microsecond=0)
    for day in range(7, 1, -1):  # in this process: what `scrapy crawl demo` would judge, without its start-up
        start = (today - timedelta(days=day)).isoformat()
        settings = crawl_settings(tmp_path, tmp_path / "demo.jsonl", NEWSCRAWL_FRESH=True,
                                  NEWSCRAWL_HEALTH_RUN_START=start, RETRY_TIMES=project.getint("RETRY_TIMES"))
        outcome = outcome_of(await run_crawl(spider_class(load_sites()["demo"]), settings))
        assert outcome.ok, outcome.line()  # the crawl command's exit status 0
        assert not outcome.alarms, outcome.line()  # its summary line has no HEALTH ALARM
    start = (today - timedelta(days=1)).isoformat()
    done = scrapy(tmp_path, "crawl", "demo", "-o", str(tmp_path / "demo.jsonl"), "-s", "NEWSCRAWL_FRESH=1",
                  "-s", "DOWNLOAD_DELAY=0", "-s", "AUTOTHROTTLE_ENABLED=0", "-s",
                  f"NEWSCRAWL_HEALTH_RUN_START={start}")
    assert done.returncode == 0, done.stderr[-2000:]
    assert "HEALTH ALARM" not in done.stderr
    check = scrapy(tmp_path, "report", "--check")
    assert (check.returncode, check.stdout) == (0, "")
    data = json.loads(scrapy(tmp_path, "report", "--format", "json").stdout)
    demo = data["sites"][0]
    assert demo["site"] == "demo" and demo["status"] == "ok" and demo["runs"] == 7
    assert len(set(demo["series"]["exported"])) == 1 and demo["series"]["exported"][0] >= 30

    page = tmp_path / "report.html"
    assert scrapy(tmp_path, "report", "-o", str(page), "--days", "10").returncode == 0
    if chromium() is None:
        pytest.skip("no chromium binary on PATH: the report was written but not opened")
    opened = open_page(page, tmp_path, size="1400,400")
    assert opened.console == []
    rows = lxml_html.fromstring(opened.dom).xpath("//table/tbody/tr")
    assert [(r.get("data-site"), r.get("class")) for r in rows] == [("demo", "ok")]
    assert opened.screenshot.stat().st_size > 10_000
