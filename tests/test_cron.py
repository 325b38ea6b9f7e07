"""The crontab line in deploy/crontab.example, run as cron would run it, on a fresh copy of the project.

The copy has no logs/, out/ or .newscrawl/ (as a fresh clone), its .venv is this test's Python
environment, and its sites file holds one live site: the demo's pages served over HTTP by a
separate process (so `crawlall`, which crawls live sites, crawls them like any news site).
The command is the line without its five schedule fields, with cron's ``%`` handling applied
(crontab(5): an unescaped ``%`` ends the command, ``\\%`` is a literal ``%``) and the
checkout path replaced, run by /bin/sh as cron does.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from test_install import MANIFEST, ROOT, clean_env, copy_source, expected_paths

CRONTAB = ROOT / "deploy" / "crontab.example"
CHECKOUT_PLACEHOLDER = "/srv/newscrawl"
SERVE = """\
import sys
from twisted.internet import reactor
from newscrawl.demo import DemoServer
server = DemoServer(sys.argv[1], sys.argv[2])
reactor.callWhenRunning(lambda: print(server.start(0), flush=True))
reactor.run()
"""

pytestmark = [
    pytest.mark.skipif(not MANIFEST.exists(), reason="data/demo not built yet"),
    pytest.mark.skipif(not (Path(sys.prefix) / "bin" / "scrapy").exists(),
                       reason=f"no scrapy script in {sys.prefix}/bin for the line's .venv/bin/scrapy"),
]


def cron_command(checkout: Path) -> str:
    """The example's one crontab entry as the shell command cron runs."""
    entries = [line for line in CRONTAB.read_text(encoding="utf-8").splitlines()
               if line.strip() and not line.lstrip().startswith("#")]
    assert len(entries) == 1, entries
    command = entries[0].split(None, 5)[5]  # minute hour day month weekday command
    assert re.search(r"(?<!\\)%", command) is None, "an unescaped % would cut the command short in cron"
    assert CHECKOUT_PLACEHOLDER in command
    return command.replace("\\%", "%").replace(CHECKOUT_PLACEHOLDER, str(checkout))


def live_demo_sites_file(netloc: str) -> str:
    """A sites file with one live site: the demo's listing pages and feeds on ``netloc``."""
    demo = tomllib.loads((ROOT / "data" / "sites.toml").read_text(encoding="utf-8"))["sites"]["demo"]
    lines = ["[sites.harbor]", f'domains = ["{netloc}"]']
    for key in ("catalogues", "feeds"):
        urls = [url.replace("demo.invalid", netloc) for url in demo[key]]
        lines.append(f"{key} = {json.dumps(urls)}")
    lines.append("politeness = { download_delay = 0.0, autothrottle = false, concurrency = 8 }")
    return "\n".join(lines) + "\n"


@pytest.fixture
def demo_server():
    """The demo's pages (with their header overrides) on 127.0.0.1 in another process; yields host:port."""
    site, headers = ROOT / "data" / "demo" / "site", ROOT / "data" / "demo" / "headers.json"
    process = subprocess.Popen([sys.executable, "-c", SERVE, str(site), str(headers)], cwd=ROOT,
                               stdout=subprocess.PIPE, text=True)
    try:
        yield process.stdout.readline().strip()
    finally:
        process.terminate()
        process.wait(timeout=15)


@pytest.fixture
def checkout(tmp_path, demo_server):
    """A fresh copy of the project whose .venv is this environment and whose only site is the served demo."""
    root = copy_source(tmp_path / "checkout")
    (root / ".venv").symlink_to(sys.prefix)
    (root / "data" / "sites.toml").write_text(live_demo_sites_file(demo_server), encoding="utf-8")
    return root


def run_line(checkout: Path) -> subprocess.CompletedProcess:
    return subprocess.run(["/bin/sh", "-c", cron_command(checkout)], cwd="/", env=clean_env(),
                          capture_output=True, text=True, timeout=300)


def test_crontab_line_on_a_fresh_clone_exports_silently_then_only_new_articles(checkout):
    first = run_line(checkout)
    assert (first.returncode, first.stdout, first.stderr) == (0, "", "")  # cron mails nothing
    (feed,) = (checkout / "out" / "harbor").glob("*.jsonl")
    items = [json.loads(line) for line in feed.read_text(encoding="utf-8").splitlines()]
    assert {urlsplit(item["url"]).path for item in items} == expected_paths()
    assert len(items) == 36
    log = (checkout / "logs" / "crawl.log").read_text(encoding="utf-8")
    assert "Crawl harbor: ok" in log

    second = run_line(checkout)
    assert (second.returncode, second.stdout, second.stderr) == (0, "", "")
    assert list((checkout / "out" / "harbor").glob("*.jsonl")) == [feed]  # nothing new: no empty file
    assert len(feed.read_text(encoding="utf-8").splitlines()) == 36  # the first run's feed is kept
    assert (checkout / "logs" / "crawl.log").read_text(encoding="utf-8").startswith(log)  # appended


def test_crontab_line_prints_one_line_when_the_crawl_fails(checkout):
    # the site is down: port 9 (discard), where nothing listens
    (checkout / "data" / "sites.toml").write_text(live_demo_sites_file("127.0.0.1:9"), encoding="utf-8")
    done = run_line(checkout)
    assert done.stderr == ""
    assert done.stdout == f"newscrawl crawlall failed (exit status 1): see {checkout}/logs/crawl.log\n"
    assert "crawlall: 1 of 1 site(s) failed: harbor" in (checkout / "logs" / "crawl.log").read_text(encoding="utf-8")
