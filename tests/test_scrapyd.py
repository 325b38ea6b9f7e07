"""Deploying to Scrapyd end to end: `scrapyd-deploy`, then `schedule.json` for the demo spider.

A real Scrapyd runs on 127.0.0.1 (a free port; its config, eggs, logs and items under
tmp_path).  `scrapyd-deploy` runs in a copy of the source tree (it writes setup.py's build
directories where it runs) with the project's own scrapy.cfg; the test's server is a target
named ``test`` in a user-level scrapy.cfg (``$XDG_CONFIG_HOME/scrapy.cfg``), which inherits the
project name from the project's ``[deploy]`` section, as any user's own target would.
Nothing but the egg puts newscrawl on Scrapyd's import path, so the crawl runs from the egg,
with the egg's package data (sites file, demo site, models).
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import time
import urllib.parse
import urllib.request
import zipfile
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from conftest import free_port
from test_install import MANIFEST, clean_env, copy_source, expected_paths

pytestmark = [
    pytest.mark.skipif(importlib.util.find_spec("scrapyd") is None
                       or importlib.util.find_spec("scrapyd_client") is None,
                       reason="scrapyd and scrapyd-client are not installed (pip install -r requirements-dev.txt)"),
    pytest.mark.skipif(not MANIFEST.exists(), reason="data/demo not built yet"),
]

STARTUP_TIMEOUT = 30.0  # seconds for Scrapyd to answer
JOB_TIMEOUT = 120.0  # seconds for the demo job to finish (it takes about 10)


def api(base: str, endpoint: str, post: dict[str, str] | None = None, **query: str) -> dict:
    url = f"{base}/{endpoint}" + (f"?{urllib.parse.urlencode(query)}" if query else "")
    data = urllib.parse.urlencode(post).encode() if post is not None else None
    with urllib.request.urlopen(url, data=data, timeout=10) as response:
        return json.loads(response.read())


def wait_for(check, timeout: float, what: str):
    """Poll ``check()`` every half second until it returns something true; fail after ``timeout``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        result = check()
        if result:
            return result
        time.sleep(0.5)
    pytest.fail(f"timed out after {timeout:.0f}s waiting for {what}")


def answers(base: str) -> bool:
    try:
        return api(base, "daemonstatus.json")["status"] == "ok"
    except OSError:
        return False


@pytest.fixture
def scrapyd(tmp_path):
    """A Scrapyd on a free port, run from its own directory; yields (base url, that directory)."""
    home = tmp_path / "scrapyd"
    home.mkdir()
    port = free_port()
    (home / "scrapyd.conf").write_text(
        "[scrapyd]\nbind_address = 127.0.0.1\n"
        f"http_port = {port}\neggs_dir = eggs\nlogs_dir = logs\nitems_dir = items\ndbs_dir = dbs\n"
        "poll_interval = 0.5\n", encoding="utf-8")
    env = clean_env() | {"HOME": str(home)}  # no ~/.scrapyd.conf of the user's
    log = (home / "scrapyd.out").open("wb")
    process = subprocess.Popen([sys.executable, "-m", "scrapyd"], cwd=home, env=env, stdout=log,
                               stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_for(lambda: answers(base) or process.poll() is not None, STARTUP_TIMEOUT, "Scrapyd to start")
        assert process.poll() is None, (home / "scrapyd.out").read_text(errors="replace")
        yield base, home
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


def deploy(tmp_path: Path, base: str) -> str:
    """``scrapyd-deploy test`` from a copy of the project; returns the deployed version."""
    source = copy_source(tmp_path / "src")
    config_home = tmp_path / "config"
    config_home.mkdir()
    (config_home / "scrapy.cfg").write_text(f"[deploy:test]\nurl = {base}/\n", encoding="utf-8")
    env = clean_env() | {"HOME": str(tmp_path), "XDG_CONFIG_HOME": str(config_home)}
    done = subprocess.run([sys.executable, "-m", "scrapyd_client.deploy", "test", "--version", "r1"],
                          cwd=source, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    answer = json.loads(done.stdout[done.stdout.index("{"):])
    assert answer["status"] == "ok" and answer["project"] == "newscrawl", answer
    return answer["version"]


def test_scrapyd_deploy_then_schedule_the_demo(tmp_path, scrapyd):
    base, home = scrapyd
    version = deploy(tmp_path, base)
    egg = home / "eggs" / "newscrawl" / f"{version}.egg"
    names = set(zipfile.ZipFile(egg).namelist())
    assert {"newscrawl/data/sites.toml", "newscrawl/data/demo/headers.json", "newscrawl/data/demo/site/robots.txt",
            "newscrawl/data/models/classifier-linear.npz"} <= names

    spiders = api(base, "listspiders.json", project="newscrawl")["spiders"]
    assert "demo" in spiders

    job = api(base, "schedule.json", post={"project": "newscrawl", "spider": "demo"})
    assert job["status"] == "ok", job

    def finished():
        jobs = api(base, "listjobs.json", project="newscrawl")
        return next((j for j in jobs["finished"] if j["id"] == job["jobid"]), None)

    done = wait_for(finished, JOB_TIMEOUT, "the demo job to finish")
    log = (home / "logs" / "newscrawl" / "demo" / f"{job['jobid']}.log").read_text(encoding="utf-8")
    assert "Crawl demo: ok" in log, log[-3000:]
    items_file = home / done["items_url"].lstrip("/")
    items = [json.loads(line) for line in items_file.read_text(encoding="utf-8").splitlines()]
    assert {urlsplit(item["url"]).path for item in items} == expected_paths()
    assert len(items) == 36
