"""The crawl's log file rotated by size (``NEWSCRAWL_LOG_MAX_BYTES``, ``NEWSCRAWL_LOG_BACKUPS``,
newscrawl/run/logfile.py): a crawl whose log outgrows the size writes ``crawl.log.1``, ``.2`` …
and loses no line on the way."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest
from test_crawl_crawlall import ROOT, make_site

RECORD = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d) \[")
MAX_BYTES = 6000


@pytest.mark.parametrize("command", ["crawl", "crawlall"])
def test_a_crawl_log_over_the_size_rotates_and_keeps_every_line(tmp_path, command):
    make_site(tmp_path / "alpha", 1, 12)
    (tmp_path / "sites.toml").write_text(
        '[sites.alpha]\nlanguage = "en"\ndomains = ["demo.invalid"]\n'
        'catalogues = ["http://demo.invalid/index.html"]\nserve = "alpha"\n'
        "politeness = { download_delay = 0.0, autothrottle = false }\n")
    log = tmp_path / "logs" / "crawl.log"
    log.parent.mkdir()  # as the crontab line does
    target = ["crawl", "alpha"] if command == "crawl" else ["crawlall", "--sites", "alpha"]
    cmd = [sys.executable, "-m", "scrapy", *target, "-o", f"{tmp_path}/out/%(name)s.jsonl",
           "-s", f"NEWSCRAWL_SITES={tmp_path / 'sites.toml'}", "-s", f"NEWSCRAWL_STATE_DIR={tmp_path / 'state'}",
           "-s", f"LOG_FILE={log}", "-s", "LOG_LEVEL=DEBUG",
           "-s", f"NEWSCRAWL_LOG_MAX_BYTES={MAX_BYTES}", "-s", "NEWSCRAWL_LOG_BACKUPS=1000"]
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr[-3000:]
    rotated = sorted(log.parent.glob("crawl.log.*"), key=lambda p: int(p.suffix[1:]), reverse=True)
    assert len(rotated) >= 2, sorted(p.name for p in log.parent.iterdir())
    assert [p.suffix for p in rotated] == [f".{n}" for n in range(len(rotated), 0, -1)]  # no gap
    files = [*rotated, log]  # oldest first
    texts = [p.read_text(encoding="utf-8") for p in files]
    for path, text in zip(files, texts, strict=True):
        records = [line for line in text.splitlines() if RECORD.match(line)]
        assert records and RECORD.match(text), f"{path.name} does not start with a whole record"
        assert len(text.encode("utf-8")) <= MAX_BYTES or len(records) == 1, path.name
    whole = "".join(texts)
    stamps = [RECORD.match(line).group(1) for line in whole.splitlines() if RECORD.match(line)]
    assert stamps == sorted(stamps)  # the files in order make one log
    assert whole.count("Scrapy ") and "started (bot: newscrawl)" in texts[0]  # the first line is kept
    for n in range(1, 13):  # every article's fetch is logged once
        assert len(re.findall(rf"Crawled \(200\) <GET http://[^/]+/news/2024/05/{n}/council-budget-story-{n}\.html>",
                              whole)) == 1, n
    assert "Crawl alpha: ok" in texts[-1] and "Spider closed (finished)" in whole  # and the last ones
