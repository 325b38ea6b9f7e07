"""Site health: the alarm rules, the SQLite and Redis histories (retention, a corrupt file moved
aside), the report's series, the progress lines and bar, and ``scrapy report``'s usage errors."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest_twisted
from conftest import crawl_settings, read_jsonl, run_crawl, site_spider

from newscrawl.health import report
from newscrawl.health.alarms import Thresholds, evaluate
from newscrawl.health.history import DB_NAME, RedisHistory, RunRecord, SqliteHistory, open_history, series_of
from newscrawl.run.crawlstats import want_bar

ROOT = Path(__file__).resolve().parents[1]
T0 = datetime(2026, 6, 1, 6, 0, tzinfo=UTC)


def run(day: int, site: str = "s", **fields) -> RunRecord:
    base = dict(exported=50, listed=60, fetched=55, listing_requests=4, listing_failed=0, responses=60,
                body_median=2000.0, body_p10=800.0, share_title=1.0, share_date=0.9, share_authors=0.8,
                dropped={"no_text": 1, "already_exported": 5}, http_status={"200": 60})
    base.update(fields)
    return RunRecord(site=site, started=(T0 + timedelta(days=day)).isoformat(), run_id=f"{site}{day}", **base)


def steady(n: int = 6, site: str = "s") -> list[RunRecord]:
    return [run(d, site, exported=48 + d % 5, body_median=1900.0 + 37 * (d % 4)) for d in range(n)]


def signals_of(runs) -> set[str]:
    return {a.signal for a in evaluate(runs)}


# -- alarms ------------------------------------------------------------------------------

def test_steady_site_raises_nothing_and_no_rule_speaks_before_enough_history():
    assert signals_of(steady(20)) == set()
    broken = run(9, exported=0, dropped={"no_text": 40})
    assert signals_of([*steady(2), broken]) == set()  # two earlier runs: still learning
    assert signals_of([*steady(3), broken]) == {"exported", "drop/no_text"}


def test_each_rule_names_its_signal_baseline_and_value():
    cases = {
        "exported": run(9, exported=5, dropped={}),
        "body_median": run(9, body_median=600.0),
        "share_title": run(9, share_title=0.5),
        "share_authors": run(9, share_authors=0.1),
        "listing_failed": run(9, listing_failed=3),
        "drop/unparseable": run(9, exported=20, dropped={"unparseable": 30}),
        "blocked": run(9, http_status={"200": 40, "403": 15, "429": 5}),
    }
    for signal, today in cases.items():
        alarms = evaluate([*steady(), today])
        assert signal in {a.signal for a in alarms}, (signal, alarms)
        alarm = next(a for a in alarms if a.signal == signal)
        assert alarm.site == "s" and alarm.started == today.started and alarm.line().startswith("s: ")
        assert alarm.value != alarm.baseline


def test_nothing_new_is_not_a_fall_and_small_swings_are_not_alarms():
    nothing_new = run(9, exported=0, dropped={"already_exported": 60}, body_median=None, share_title=None,
                      share_date=None, share_authors=None)
    assert signals_of([*steady(), nothing_new]) == set()
    assert signals_of([*steady(), run(9, exported=30, body_median=1200.0, share_date=0.75)]) == set()


def test_quiet_days_a_lone_odd_page_and_a_run_cut_short_are_not_alarms_and_an_alarm_names_its_evidence():
    quiet = dict(body_median=None, share_title=None, share_date=None, share_authors=None)
    partner_and_robots = run(9, exported=0, listed=61, dropped={"already_exported": 60, "offsite": 1, "robots": 1},
                             **quiet)
    one_video_page = run(9, exported=0, listed=61, dropped={"already_exported": 60, "not_article/video": 1},
                         **quiet)
    limit = run(9, exported=10, listed=60, dropped={}, finish_reason="closespider_itemcount")
    for today in (partner_and_robots, one_video_page, limit):
        assert signals_of([*steady(), today]) == set(), today
    broken = run(9, exported=0, listed=60, dropped={"already_exported": 50, "no_text": 10}, **quiet)
    line = next(a for a in evaluate([*steady(), broken]) if a.signal == "exported").line()
    assert "0 of 10 new links became articles" in line
    assert "listed 60, new 10, fetched 55, exported 0; dropped already_exported 50, no_text 10" in line


def test_thresholds_are_settings():
    settings = {"NEWSCRAWL_HEALTH_BODY_RATIO": "0.8", "NEWSCRAWL_HEALTH_MIN_RUNS": "10",
                "NEWSCRAWL_HEALTH_IGNORED_DROPS": "already_exported,no_text"}
    t = Thresholds.from_settings(settings)
    assert (t.body_ratio, t.min_runs, t.ignored_drops) == (0.8, 10, ("already_exported", "no_text"))
    runs = [*steady(), run(9, body_median=1400.0)]
    assert evaluate(runs) == [] and evaluate(runs, replace(t, min_runs=3))[0].signal == "body_median"
    assert evaluate(runs, t) == []  # ten earlier runs needed


# -- the SQLite history -------------------------------------------------------------------

def test_sqlite_history_keeps_runs_per_site_within_retention(tmp_path):
    store = SqliteHistory(tmp_path / DB_NAME, retention_days=30)
    for d in range(0, 60, 10):
        store.add(run(d, "a"))
    store.add(run(55, "b"))
    runs = store.runs()
    assert sorted(runs) == ["a", "b"]
    assert [r.started[:10] for r in runs["a"]] == ["2026-07-01", "2026-07-11", "2026-07-21"]  # days 30-50
    assert [r.run_id for r in store.latest(2)["a"]] == ["a40", "a50"]
    assert store.runs(["b"])["b"][0] == run(55, "b")
    store.close()


def test_a_corrupt_history_is_moved_aside_and_started_again(tmp_path):
    path = tmp_path / DB_NAME
    path.write_bytes(b"this is not a database" * 100)
    store = SqliteHistory(path)
    assert store.moved_aside is not None and store.moved_aside.read_bytes().startswith(b"this is not")
    store.add(run(1))
    assert len(store.runs()["s"]) == 1
    store.close()


def test_sql_series_match_the_python_series(tmp_path):
    store = SqliteHistory(tmp_path / DB_NAME, retention_days=0)
    history = {}
    for site in ("a", "b"):
        runs = [run(d, site, exported=d, body_median=None if d == 3 else 100.0 * d,
                    dropped={"no_text": d % 3, "offsite": 1}) for d in range(0, 40, 1) if d != 20]
        history[site] = runs
        for r in runs:
            store.add(r)
    since, until = T0 + timedelta(days=5), T0 + timedelta(days=41)
    for points in (None, 12):
        sql = store.series(since, until, None, points)
        for site, runs in history.items():
            assert sql[site] == series_of(runs, since, until, points), (site, points)
    slots = store.series(since, until, ["a"], 36)["a"]["slot"]
    assert 15 not in slots and slots[:3] == [0, 1, 2]  # day 20 was not crawled: a gap
    store.close()


def test_report_is_self_contained_and_escapes_site_names(tmp_path):
    hist = {"<img src=x onerror=alert(1)>": [*steady(5, "x"), run(9, "x", body_median=100.0)], "ok": steady(6, "ok")}
    built = report.from_history(hist, since=T0, now=T0 + timedelta(days=10), days=10)
    page = report.to_html(built)
    assert "<img" not in page and "&lt;img src=x" in page
    assert "http://" not in page and "https://" not in page and "<script" not in page
    assert [s["status"] for s in built["sites"]] == ["alarm", "ok"]


# -- a crawl with a corrupt history --------------------------------------------------------

@pytest_twisted.ensureDeferred
async def test_crawl_with_a_corrupt_history_finishes_and_records_its_run(http_server, tmp_path, caplog):
    from test_health_crawl import good_article, serve

    serve(http_server, good_article)
    state = tmp_path / "state"
    state.mkdir()
    (state / DB_NAME).write_bytes(b"\0garbage" * 512)
    feed = tmp_path / "out.jsonl"
    crawler = await run_crawl(site_spider("harbour", catalogues=[http_server.url("/list/1.html")]),
                              crawl_settings(tmp_path, feed, NEWSCRAWL_EXTRACT_PROCESSES=0))
    assert crawler.stats.get_value("finish_reason") == "finished"
    assert len(read_jsonl(feed)) == 6
    assert list(state.glob(f"{DB_NAME}.corrupt-*"))
    assert "run history" in caplog.text and "moved it to" in caplog.text
    store = SqliteHistory(state / DB_NAME)
    assert [r.exported for r in store.runs()["harbour"]] == [6]
    store.close()


# -- progress ---------------------------------------------------------------------------

class _Tty:
    def __init__(self, tty: bool):
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


def test_progress_bar_only_on_a_terminal_unless_asked():
    assert want_bar("auto", _Tty(True)) and not want_bar("auto", _Tty(False))
    assert want_bar("always", _Tty(False)) and not want_bar("never", _Tty(True))


@pytest_twisted.ensureDeferred
async def test_progress_lines_and_bar(http_server, tmp_path, caplog, capsys):
    from test_health_crawl import good_article, serve

    serve(http_server, good_article)
    http_server.routes["/story/pier-6.html"].delay = 1.0  # the crawl lasts past a few intervals
    caplog.set_level(logging.INFO, logger="newscrawl.run.crawlstats")
    spider = site_spider("harbour", catalogues=[http_server.url("/list/1.html")])
    await run_crawl(spider, crawl_settings(tmp_path, tmp_path / "a.jsonl", NEWSCRAWL_EXTRACT_PROCESSES=0,
                                           NEWSCRAWL_PROGRESS_INTERVAL=0.2))
    lines = [r.getMessage() for r in caplog.records if r.name == "newscrawl.run.crawlstats"]
    assert lines and all(line.startswith("harbour: ") and "article pages done" in line for line in lines)
    assert "exported" in lines[-1] and "queue" in lines[-1] and "/min" in lines[-1]
    assert "harbour" not in capsys.readouterr().err  # not a terminal: no bar

    await run_crawl(spider, crawl_settings(tmp_path, tmp_path / "b.jsonl", NEWSCRAWL_EXTRACT_PROCESSES=0,
                                           NEWSCRAWL_PROGRESS_BAR="always", NEWSCRAWL_FRESH=True))
    assert "harbour" in capsys.readouterr().err


# -- the Redis history ----------------------------------------------------------------------


def test_redis_history_merges_a_jobs_workers_and_keeps_retention(redis_url):
    from scrapy.settings import Settings

    settings = Settings({"NEWSCRAWL_DISTRIBUTED": redis_url, "NEWSCRAWL_REDIS_PREFIX": "hist",
                         "NEWSCRAWL_HEALTH_RETENTION_DAYS": 30})
    store = open_history(settings)
    assert isinstance(store, RedisHistory)
    store.client.flushdb()
    store.add(run(0, "a"))
    for worker, exported in (("w1", 30), ("w2", 10)):  # two workers of one job, same run id
        store.add(replace(run(40, "a", exported=exported, body_median=1000.0 if worker == "w1" else 3000.0),
                          run_id="job40", started=(T0 + timedelta(days=40, minutes=len(worker))).isoformat()))
    runs = store.runs()["a"]
    assert len(runs) == 1  # day 0 is past the retention
    assert (runs[0].exported, runs[0].workers, runs[0].body_median) == (40, 2, 1500.0)
    assert store.sites() == ["a"] and store.latest(5)["a"] == runs
    store.client.close()


# -- scrapy report: usage -------------------------------------------------------------------

def scrapy_report(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "scrapy", "report", *args, "-s",
                           f"NEWSCRAWL_STATE_DIR={tmp_path / 'state'}"], cwd=ROOT, capture_output=True, text=True,
                          timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})


def test_report_command_usage_errors_exit_2_and_an_empty_history_checks_clean(tmp_path):
    for bad in (["--format", "xml"], ["--days", "0"], ["--sites", "nosuch"], ["extra"]):
        done = scrapy_report(tmp_path, *bad)
        assert done.returncode == 2, (bad, done.stdout, done.stderr)
    done = scrapy_report(tmp_path, "--check")
    assert (done.returncode, done.stdout) == (0, "")
    assert not (tmp_path / "state").exists()  # reading a report creates no state
    store = SqliteHistory(tmp_path / "state" / DB_NAME)
    for r in [*steady(5), run(9, body_median=100.0)]:
        store.add(r)
    store.close()
    out = tmp_path / "r.html"
    done = scrapy_report(tmp_path, "--check", "-o", str(out), "--days", "400")
    assert done.returncode == 1 and "median body length halved" in out.read_text(encoding="utf-8")


@pytest_twisted.ensureDeferred
async def test_a_distributed_worker_records_its_run_in_redis(http_server, tmp_path, redis_url):
    from test_health_crawl import good_article, serve

    serve(http_server, good_article)
    spider = site_spider("harbour", catalogues=[http_server.url("/list/1.html")])
    settings = crawl_settings(tmp_path, tmp_path / "w.jsonl", NEWSCRAWL_DISTRIBUTED=redis_url,
                              NEWSCRAWL_REDIS_PREFIX="healthjob", NEWSCRAWL_IDLE_CLOSE=1,
                              NEWSCRAWL_EXTRACT_PROCESSES=0, NEWSCRAWL_HEALTH_RUN_ID="job-1")
    crawler = await run_crawl(spider, settings)
    assert crawler.stats.get_value("newscrawl/exported") == 6
    store = open_history(crawler.settings)
    assert isinstance(store, RedisHistory)
    runs = store.runs()["harbour"]
    store.client.close()
    assert [(r.run_id, r.exported, r.share_date) for r in runs] == [("job-1", 6, 1.0)]
    assert not (tmp_path / "state" / DB_NAME).exists()


def test_a_bad_run_start_setting_is_one_error_and_the_real_start(caplog):
    from scrapy.utils.test import get_crawler

    from newscrawl.health.extension import HealthRecorder

    recorder = HealthRecorder.from_crawler(get_crawler(settings_dict={"NEWSCRAWL_HEALTH_RUN_START": "last week"}))
    assert recorder.fixed_start is None and "is not an ISO 8601 time" in caplog.text


def test_a_jump_in_the_share_of_paywalled_articles_or_of_walled_pages_is_an_alarm():
    """A paywall that covers more of a site, or a consent or login wall in front of part of its
    articles (under the half that makes a drop reason dominant), is a change a person should see."""
    past = [run(d, exported=50 + d % 3, share_paywalled=0.1 + 0.02 * (d % 3),
                dropped={"consent_wall": d % 2, "already_exported": 5}) for d in range(8)]
    assert signals_of([*past, run(9, share_paywalled=0.14, dropped={"consent_wall": 1})]) == set()
    # a quiet day of five articles, four of them paywalled: a site that mixes both swings on a few pages
    assert signals_of([*past, run(9, exported=5, listed=6, fetched=5, share_paywalled=0.8)]) == set()
    paywalled = evaluate([*past, run(9, share_paywalled=0.6)])
    assert [a.signal for a in paywalled] == ["share_paywalled"]
    assert paywalled[0].value == 0.6 and "paywalled articles rose by" in paywalled[0].line()
    walled = run(9, exported=30, fetched=50, dropped={"consent_wall": 15, "already_exported": 5})
    assert "share_walled" in signals_of([*past, walled])
    assert "drop/consent_wall" not in signals_of([*past, walled])  # under half of the new links
    again = run(9, exported=30, dropped={"consent_wall": 15}, again={"consent_wall": 15})
    assert "share_walled" not in signals_of([*past, again])  # the same pages, walled again: known


def test_the_paywalled_share_is_recorded_from_the_exported_articles():
    import json
    from types import SimpleNamespace

    from newscrawl.health.signals import ExportSignals, record_from_stats

    signals = ExportSignals()
    for flag in (True, False, None, True):
        signals.add(SimpleNamespace(title="t", text="body", paywalled=flag))
    record = record_from_stats("s", T0.isoformat(), {"newscrawl/exported": 4}, signals)
    assert record.share_paywalled == 0.5
    assert RunRecord.from_dict(json.loads(record.to_json())).checked().share_paywalled == 0.5
