"""``scrapy report`` on a run history it cannot read (issue 38, item 10): exit status 3 and one
line naming the history and the problem, never a traceback nor status 1 (which ``--check``
keeps for "an alarm is active"); damaged rows are left out, counted, and the rest is reported.

Through the command's run path in this process (:func:`report`), and the real ``scrapy report``
command line once for SQLite and once for Redis; on a real SQLite file and a real redis-server."""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import free_port, started_redis
from test_health import run, steady

from newscrawl.health.history import DB_NAME, RedisHistory, SqliteHistory

redis = pytest.importorskip("redis", reason="the redis client is not installed (pip install redis==8.1.0)")

ROOT = Path(__file__).resolve().parents[1]
PASSWORD = "s3cret-health"


def scrapy_report(*args: str) -> subprocess.CompletedProcess:
    """The real command line."""
    return subprocess.run([sys.executable, "-m", "scrapy", "report", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})


def report(*args: str) -> subprocess.CompletedProcess:
    """``scrapy report ARGS``'s run path in this process (``-s NAME=VALUE`` as settings)."""
    from scrapy.settings import Settings

    from newscrawl.commands.report import Command

    command = Command()
    command.settings = Settings()
    command.settings.setmodule("newscrawl.settings", priority="project")
    parser = argparse.ArgumentParser()
    command.add_options(parser)
    opts = parser.parse_args(args)
    command.settings.setdict(dict(item.split("=", 1) for item in opts.set), priority="cmdline")
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        command.run([], opts)
    return subprocess.CompletedProcess(args, command.exitcode, out.getvalue(), err.getvalue())


def assert_unreadable(done: subprocess.CompletedProcess, *names: str) -> None:
    """Exit 3, nothing on stdout, one line on stderr naming the history and the problem."""
    assert done.returncode == 3, (done.returncode, done.stdout, done.stderr[-3000:])
    assert done.stdout == "" and "Traceback" not in done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("health report: the run history could not be read: "), lines
    assert all(name in lines[0] for name in names), lines


def history(state: Path) -> Path:
    """A state directory with a history whose last run raises an alarm."""
    store = SqliteHistory(state / DB_NAME)
    for r in [*steady(5), run(9, body_median=100.0)]:
        store.add(r)
    store.close()
    return state / DB_NAME


def test_a_locked_history_exits_3_in_one_line(tmp_path):
    path = history(tmp_path / "state")
    lock = sqlite3.connect(path, isolation_level=None)
    try:
        lock.execute("PRAGMA locking_mode=EXCLUSIVE")
        lock.execute("BEGIN EXCLUSIVE")
        lock.execute("UPDATE runs SET exported = exported")
        assert_unreadable(report("--check", "-s", f"NEWSCRAWL_STATE_DIR={tmp_path / 'state'}"),
                          str(path), "locked")
    finally:
        lock.execute("ROLLBACK")
        lock.close()
    done = report("--check", "-s", f"NEWSCRAWL_STATE_DIR={tmp_path / 'state'}")  # the lock gone: the alarm
    assert done.returncode == 1 and "median body length halved" in done.stdout, done.stderr[-2000:]


def test_a_history_in_a_read_only_directory_exits_3_in_one_line(tmp_path):
    state = tmp_path / "state"
    path = history(state)
    if os.geteuid() == 0:  # root writes through permissions: make the directory immutable instead
        if shutil.which("chattr") is None or subprocess.run(["chattr", "+i", str(state)]).returncode:
            pytest.skip("running as root without chattr +i: no way to make a directory read-only")
        undo = ["chattr", "-i", str(state)]
    else:
        state.chmod(0o555)
        undo = ["chmod", "755", str(state)]
    try:
        assert_unreadable(report("--check", "-s", f"NEWSCRAWL_STATE_DIR={state}"), str(path))
        assert_unreadable(report("-s", f"NEWSCRAWL_STATE_DIR={state}"), str(path))
    finally:
        subprocess.run(undo, check=True)
    assert sorted(p.name for p in state.iterdir()) == [DB_NAME]  # nothing moved aside


def test_a_history_path_that_is_a_directory_exits_3_in_one_line(tmp_path):
    (tmp_path / "state" / DB_NAME).mkdir(parents=True)
    assert_unreadable(scrapy_report("--check", "-s", f"NEWSCRAWL_STATE_DIR={tmp_path / 'state'}"), DB_NAME,
                      "a directory")
    assert_unreadable(report("--format", "json", "-s", f"NEWSCRAWL_STATE_DIR={tmp_path / 'state'}"), DB_NAME)
    assert (tmp_path / "state" / DB_NAME).is_dir() and len(list((tmp_path / "state").iterdir())) == 1


def test_damaged_rows_are_left_out_counted_and_the_rest_reported(tmp_path):
    path = history(tmp_path / "state")
    db = sqlite3.connect(path, isolation_level=None)
    for n, row in enumerate(('{"site": "s", "started": ', json.dumps({"site": "s", "exported": 3}),
                             json.dumps({**json.loads(run(10).to_json()), "exported": "many"}))):
        db.execute("INSERT INTO runs (site, started, run_id, epoch, row) VALUES ('s', ?, ?, ?, ?)",
                   (f"2026-05-0{n + 1}T00:00:00+00:00", f"bad{n}", 1.0e9 + n, row))
    db.close()
    state = f"NEWSCRAWL_STATE_DIR={tmp_path / 'state'}"
    check = report("--check", "-s", state)
    assert check.returncode == 1 and "median body length halved" in check.stdout, check.stderr[-2000:]
    assert check.stderr == "health report: skipped 3 damaged run-history row(s)\n"
    data = json.loads(report("--format", "json", "--days", "400", "-s", state).stdout)
    assert data["skipped_rows"] == 3 and data["sites"][0]["status"] == "alarm"
    assert data["sites"][0]["last_run"]["body_median"] == 100.0
    page = tmp_path / "r.html"
    assert report("-o", str(page), "-s", state).returncode == 0
    assert "3 damaged history row(s) left out" in page.read_text(encoding="utf-8")


# -- Redis -------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def redis_with_password(tmp_path_factory):
    """A real redis-server on 127.0.0.1 that wants a password."""
    with started_redis(tmp_path_factory.mktemp("redis"), password=PASSWORD) as server:
        yield server


def test_redis_down_or_a_wrong_password_exits_3_in_one_line(redis_with_password):
    port, client = redis_with_password
    down = f"redis://127.0.0.1:{free_port()}/0"
    assert_unreadable(report("--check", "-s", f"NEWSCRAWL_DISTRIBUTED={down}"), "Redis at 127.0.0.1:")
    wrong = scrapy_report("--check", "-s", f"NEWSCRAWL_DISTRIBUTED=redis://:wrong-one@127.0.0.1:{port}/0")
    assert_unreadable(wrong, f"Redis at 127.0.0.1:{port}")
    assert "wrong-one" not in wrong.stderr


def test_a_damaged_redis_row_is_left_out_and_counted(redis_with_password):
    port, client = redis_with_password
    client.flushdb()
    store = RedisHistory(client, "hist")
    for r in [*steady(5), run(9, body_median=100.0)]:
        store.add(r)
    client.zadd("hist:health:s", {"not json at all": 1.0e9, json.dumps({"started": "x"}): 1.0e9 + 1})
    url = f"redis://:{PASSWORD}@127.0.0.1:{port}/0"
    done = report("--check", "-s", f"NEWSCRAWL_DISTRIBUTED={url}", "-s", "NEWSCRAWL_REDIS_PREFIX=hist")
    assert done.returncode == 1 and "median body length halved" in done.stdout, done.stderr[-2000:]
    assert done.stderr == "health report: skipped 2 damaged run-history row(s)\n"
