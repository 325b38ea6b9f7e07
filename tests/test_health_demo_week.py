"""As a user would from cron: a week of daily ``scrapy crawl demo`` runs (the run's start shifted
to each day with NEWSCRAWL_HEALTH_RUN_START), then ``scrapy report`` opened in headless Chromium."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from chromium import chromium, open_page
from lxml import html as lxml_html

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.skipif(not (ROOT / "data" / "demo" / "manifest.json").exists(),
                                reason="data/demo not built yet")


def scrapy(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "scrapy", *args, "-s", f"NEWSCRAWL_STATE_DIR={tmp_path / 'state'}"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})


def test_a_week_of_daily_demo_runs_then_the_report(tmp_path):
    today = datetime.now(UTC).replace(hour=5, minute=30, second=0, microsecond=0)
    for day in range(7, 0, -1):
        start = (today - timedelta(days=day)).isoformat()
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
