"""Re-runs: the README's `scrapy crawl demo -O demo.jsonl`, run twice, keeps the first run's articles;
the second run says in one line that it found nothing new, and warns of no interrupted run."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from newscrawl.commands.outcome import Outcome, overwritten_feeds, report

ROOT = Path(__file__).resolve().parent.parent
MANIFEST = ROOT / "data" / "demo" / "manifest.json"


def crawl_demo(tmp_path: Path, *options: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "scrapy", "crawl", "demo", *options],
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT), "NEWSCRAWL_STATE_DIR": str(tmp_path / "state")},
        capture_output=True, text=True, timeout=300)


@pytest.mark.skipif(not MANIFEST.exists(), reason="data/demo not built yet")
def test_the_readme_demo_command_run_twice_keeps_the_first_runs_articles(tmp_path):
    feed = tmp_path / "demo.jsonl"
    first = crawl_demo(tmp_path, "-O", str(feed))
    assert first.returncode == 0, first.stderr[-3000:]
    expected = json.loads(MANIFEST.read_text(encoding="utf-8"))["expected_article_paths"]
    exported = feed.read_bytes()
    assert len(exported.splitlines()) == len(expected)

    second = crawl_demo(tmp_path, "-O", str(feed))
    assert second.returncode == 0, second.stderr[-3000:]
    assert feed.read_bytes() == exported
    notices = [line for line in second.stderr.splitlines() if "demo: nothing new: " in line]
    assert len(notices) == 1, second.stderr[-3000:]
    assert "the feed file was left as it was" in notices[0]
    assert "interrupted run" not in second.stderr  # the store keys and the feed's URLs agree


def test_the_nothing_new_notice_and_the_overwrite_warning(tmp_path, caplog):
    caplog.set_level(logging.INFO)
    report(Outcome("s", "finished", listed=3, exported=0, listing_requests=1, dropped={"already_exported": 3}))
    assert [r.getMessage() for r in caplog.records][-1].startswith(
        "s: nothing new: 3 listed link(s) were exported by earlier runs; the feed file was left as it was")

    caplog.clear()
    report(Outcome("s", "finished", listed=3, exported=2, listing_requests=1), {"/x/s.jsonl": 1234})
    assert [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING] == [
        "-O replaced the 1234 bytes an earlier run had written to /x/s.jsonl with this run's 2 new "
        "article(s); use -o to append across runs"]

    caplog.clear()
    report(Outcome("s", "finished", listed=3, exported=0, listing_requests=3,
                   dropped={"already_exported": 3}, problems=["finish reason shutdown"]))
    assert "nothing new" not in caplog.text and "FAILED (finish reason shutdown)" in caplog.text


def test_overwritten_feeds_are_the_local_nonempty_files_of_overwrite_feeds(tmp_path):
    from scrapy.settings import Settings

    (tmp_path / "a.jsonl").write_text("{}\n")
    (tmp_path / "empty.jsonl").write_text("")
    (tmp_path / "appended.jsonl").write_text("{}\n")
    (tmp_path / "site1.jsonl").write_text("{}\n{}\n")
    settings = Settings({"FEEDS": {
        str(tmp_path / "a.jsonl"): {"format": "jsonlines", "overwrite": True},
        str(tmp_path / "empty.jsonl"): {"format": "jsonlines", "overwrite": True},
        str(tmp_path / "appended.jsonl"): {"format": "jsonlines"},
        str(tmp_path / "%(name)s.jsonl"): {"format": "jsonlines", "overwrite": True},
        str(tmp_path / "missing.jsonl"): {"format": "jsonlines", "overwrite": True},
        "s3://bucket/x.jsonl": {"format": "jsonlines", "overwrite": True},
    }})
    assert overwritten_feeds(settings, "site1") == {str(tmp_path / "a.jsonl"): 3, str(tmp_path / "site1.jsonl"): 6}
