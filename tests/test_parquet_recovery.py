"""The Parquet export keeps what the seen store records: a crawl killed with SIGKILL mid-run, or whose
end-of-run fold fails on a full disk, leaves its journal, and the next run (with ``-O``, even with
nothing new) folds it, so every article is in the file exactly once, read back by pyarrow and DuckDB."""

from __future__ import annotations

import os
import random
import resource
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from test_crawl_restart import SlowSite, serve_slow_site

from newscrawl.export.parquet import JOURNAL_MARKER
from newscrawl.export.schema import schema_for
from newscrawl.items import EXPORT_FIELDS

ROOT = Path(__file__).resolve().parent.parent


def crawl_cmd(tmp_path: Path, out: Path, flag: str = "-O") -> list[str]:
    return [sys.executable, "-m", "scrapy", "crawl", "slowsite", flag, str(out),
            "-s", f"NEWSCRAWL_SITES={tmp_path / 'sites.toml'}", "-s", f"NEWSCRAWL_STATE_DIR={tmp_path / 'state'}",
            "-s", "LOG_LEVEL=INFO", "-s", "NEWSCRAWL_EXTRACT_PROCESSES=0"]


def journal_rows(path: Path) -> int:
    try:
        data = path.read_bytes()
    except OSError:
        return 0
    start = data.find(JOURNAL_MARKER)
    return 0 if start < 0 else sum(1 for line in data[start:].split(b"\n") if line.endswith(b"}"))


def read_back(path: Path) -> list[str]:
    """The file's URLs as pyarrow reads them, checked against DuckDB's count and distinct count."""
    urls = pq.read_table(path, columns=["url"]).column("url").to_pylist()
    duckdb = pytest.importorskip("duckdb")
    count, distinct = duckdb.connect().execute(
        f"SELECT count(*), count(DISTINCT url) FROM read_parquet('{path}')").fetchone()
    assert (count, distinct) == (len(urls), len(set(urls)))
    return urls


def test_a_run_killed_at_a_random_point_then_run_again_with_dash_O_has_every_article_once(tmp_path):
    server, _, expected = serve_slow_site(tmp_path)
    out = tmp_path / "out.parquet"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    kill_after = random.randint(1, 10)  # the site answers 12 articles before it waits for the test
    try:
        proc = subprocess.Popen(crawl_cmd(tmp_path, out), cwd=ROOT, env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 120  # a hang guard, not a speed requirement
        while journal_rows(out) < kill_after and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert proc.poll() is None, "the first run finished before it could be killed"
        proc.kill()
        proc.wait(timeout=60)
        SlowSite.gate.set()
        assert journal_rows(out) >= kill_after
        with pytest.raises(pa.ArrowInvalid):
            pq.read_table(out)  # a killed run's journal: not Parquet until the next run folds it
        done = subprocess.run(crawl_cmd(tmp_path, out), cwd=ROOT, env=env, capture_output=True, text=True,
                              timeout=300)
    finally:
        SlowSite.gate.set()
        server.shutdown()
    assert done.returncode == 0, done.stderr[-3000:]
    urls = read_back(out)
    assert len(urls) == len(set(urls)), "an article is in the file twice"
    assert set(urls) == expected, f"missing: {sorted(expected - set(urls))[:5]}"
    assert "Folded the journal" in done.stderr and "-O replaced" not in done.stderr
    assert pq.read_schema(out).names == schema_for(list(EXPORT_FIELDS)).names


def ballast(path: Path, rows: int = 60) -> int:
    """An earlier run's Parquet, zstd-compressed: folding re-encodes it larger, as pyarrow's default
    (snappy) compresses its text less.  Returns its rows."""
    from newscrawl.export.schema import schema_for

    words = [f"w{n:03d}" for n in range(400)]
    rng = random.Random(7)
    rows_ = [{name: None for name in EXPORT_FIELDS} | {"url": f"https://old.example/{n}",
                                                        "text": " ".join(rng.choices(words, k=12_000))}
             for n in range(rows)]
    pq.write_table(pa.Table.from_pylist(rows_, schema=schema_for(list(EXPORT_FIELDS))), path,
                   compression="zstd")
    return rows


@contextmanager
def small_disk(directory: Path):
    """``directory`` on a tmpfs when this process may mount one (root, as in CI): yields a function
    that sizes it to the pages its files take plus ``extra`` bytes; else None (the crawl then runs
    under RLIMIT_FSIZE)."""
    directory.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64m", "tmpfs", str(directory)],
                             capture_output=True).returncode == 0
    try:
        if not mounted:
            yield None
            return

        def resize(extra: int) -> None:
            used = sum(-(-p.stat().st_size // 4096) * 4096 for p in directory.iterdir())  # whole pages
            subprocess.run(["mount", "-o", f"remount,size={used + extra}", str(directory)], check=True)

        yield resize
    finally:
        if mounted:
            subprocess.run(["umount", "-l", str(directory)], check=False)


def test_a_fold_that_fails_on_a_full_disk_is_export_failed_and_the_next_run_folds_it(tmp_path):
    server, _, expected = serve_slow_site(tmp_path)
    SlowSite.hits.clear()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with small_disk(tmp_path / "disk") as resize:
        out = tmp_path / "disk" / "out.parquet"
        old = ballast(out)
        room = 512 * 1024  # for the journal, not for the fold's copy of the file
        if resize is not None:
            resize(room)
        try:
            proc = subprocess.Popen(crawl_cmd(tmp_path, out, "-o"), cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.PIPE, text=True,
                                    preexec_fn=lambda: signal.signal(signal.SIGXFSZ, signal.SIG_IGN))
            deadline = time.monotonic() + 120  # a hang guard, not a speed requirement
            while journal_rows(out) < 1 and proc.poll() is None and time.monotonic() < deadline:
                time.sleep(0.02)
            if resize is None:  # no tmpfs: from now on the crawl cannot make a file larger than this
                limit = out.stat().st_size + room
                resource.prlimit(proc.pid, resource.RLIMIT_FSIZE, (limit, limit))
            SlowSite.gate.set()
            _, stderr = proc.communicate(timeout=300)
            assert proc.returncode == 1, stderr[-3000:]
            assert "FAILED" in stderr and "export failed" in stderr
            assert journal_rows(out) == len(expected)  # recorded in the seen store, and kept
            assert not out.with_name(out.name + ".tmp").exists()
            if resize is not None:  # still full: the next run cannot fold the journal, and says so
                stuck = subprocess.run(crawl_cmd(tmp_path, out, "-O"), cwd=ROOT, env=env, capture_output=True,
                                       text=True, timeout=300)
                assert stuck.returncode == 1 and "export failed" in stuck.stderr, stuck.stderr[-3000:]
                assert journal_rows(out) == len(expected)
                resize(64 * 2**20)  # space freed
            # -O, and nothing new: the journal is folded all the same
            second = subprocess.run(crawl_cmd(tmp_path, out, "-O"), cwd=ROOT, env=env, capture_output=True,
                                    text=True, timeout=300)
        finally:
            SlowSite.gate.set()
            server.shutdown()
        assert second.returncode == 0, second.stderr[-3000:]
        urls = read_back(out)
    assert len(urls) == len(set(urls)) == old + len(expected)
    assert expected <= set(urls)
    assert "nothing new" in second.stderr
    article_hits = [n for path, n in SlowSite.hits.items() if path.startswith("/news/")]
    assert sum(article_hits) == len(expected), "an article was fetched again: the seen store lost it"
