"""``scrapy archive``: the job on Dask's local cluster, exactly once at file level, bad input as
counted skips, usage errors; every case runs the real command (``python -m newscrawl archive``).

The command's own local cluster is started and killed for real in the SIGKILL case; the other jobs
run on one real Dask cluster per module, given to the command with ``--scheduler`` as a user with a
long-lived cluster would, so that each case does not pay for a cluster's start and stop."""

from __future__ import annotations

import gzip
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import pytest_twisted
from test_crawl_local import headline
from test_warc import article, http_block, warc_record, write_warc

from newscrawl.archives.mapper import ROW_FIELDS
from newscrawl.archives.output import finished_outputs, read_rows, schema

pytest.importorskip("distributed", reason="the archive job runs on Dask distributed (pip install '.[archive]')")
pytest.importorskip("pyarrow")

ROOT = Path(__file__).resolve().parents[1]


def archive(*args: str, timeout: float = 240) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "newscrawl", "archive", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def scheduler():
    """The address of a real Dask cluster (one worker process of one thread), shared by the module."""
    from distributed import LocalCluster

    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        yield cluster.scheduler_address


def in_process(capsys, *args: str) -> tuple[int, str]:
    """The command line run in this process (``python -m newscrawl archive ARGS`` without a new
    interpreter): its exit status and standard error, for the cases that stop before any job."""
    from newscrawl.__main__ import main

    with pytest.raises(SystemExit) as stopped:
        main(["archive", *args])
    return stopped.value.code, capsys.readouterr().err


def articles_warc(path: Path, start: int, count: int, gzipped: bool = True) -> Path:
    records = [warc_record(f"https://news.example/2024/01/02/story-{n}.html", http_block(article(headline(n))))
               for n in range(start, start + count)]
    return write_warc(path, records, gzipped=gzipped)


def all_rows(out: Path) -> list[dict]:
    return [row for output in finished_outputs(out) for row in read_rows(output)]


def test_usage_errors_exit_2(tmp_path, capsys):
    good = articles_warc(tmp_path / "a.warc.gz", 0, 1)
    assert archive(str(good)).returncode == 2  # no -o; in a subprocess: the exit status the shell sees
    assert in_process(capsys, "-o", str(tmp_path / "out"))[0] == 2  # no input
    missing = in_process(capsys, str(tmp_path / "none.warc.gz"), "-o", str(tmp_path / "out"))
    assert missing[0] == 2 and "no input file found" in missing[1]
    assert in_process(capsys, str(good), "-o", str(tmp_path / "out"), "--format", "csv")[0] == 2
    assert in_process(capsys, str(good), "-o", str(tmp_path / "out"), "--workers", "0")[0] == 2
    assert not (tmp_path / "out").exists()


def test_bad_input_is_counted_and_named_the_rest_exported_once_and_a_rerun_skips_done_files(tmp_path, scheduler):
    good = articles_warc(tmp_path / "good.warc.gz", 0, 6)
    plain = articles_warc(tmp_path / "plain.warc", 10, 3, gzipped=False)
    # a cut gzip member after two whole records
    cut = tmp_path / "cut.warc.gz"
    whole = b"".join(gzip.compress(warc_record(f"https://news.example/2024/01/02/cut-{n}.html",
                                               http_block(article(headline(20 + n))))) for n in range(2))
    last = gzip.compress(warc_record("https://news.example/2024/01/02/cut-2.html", http_block(article(headline(22)))))
    cut.write_bytes(whole + last[: len(last) // 2])
    # a record whose Content-Length lies (longer than its block), then a good one; a non-HTTP response
    liar = write_warc(tmp_path / "liar.warc.gz", [
        warc_record("https://news.example/2024/01/02/liar.html", http_block(article(headline(30))), length=99_999),
        warc_record("https://news.example/2024/01/02/after.html", http_block(article(headline(31)))),
        warc_record("https://news.example/2024/01/02/not-http.html", b"this block is no HTTP response at all"),
    ])
    # a 1 GB record (a sparse file: the hole reads as zeros), then an article
    huge = tmp_path / "huge.warc"
    with huge.open("wb") as fh:
        head = warc_record("https://news.example/2024/01/02/huge.html", b"", length=10**9)[:-4]
        fh.write(head)
        fh.seek(10**9, os.SEEK_CUR)
        fh.write(b"\r\n\r\n" + warc_record("https://news.example/2024/01/02/small.html",
                                           http_block(article(headline(40)))))
    empty = tmp_path / "empty.warc.gz"
    empty.write_bytes(b"")
    missing = tmp_path / "missing.warc.gz"
    out = tmp_path / "out"
    inputs = [good, plain, cut, liar, huge, empty, missing]

    run = archive(*map(str, inputs), "-o", str(out), "--scheduler", scheduler)
    assert run.returncode == 1, run.stderr  # one file failed: the missing one
    assert f"failed: {missing}: no such file" in run.stdout
    assert "7 file(s): 6 done, 0 already done, 1 failed" in run.stdout
    for reason in ("truncated", "too_large", "bad_http", "not_warc"):
        assert reason in run.stdout.split("skipped: ", 1)[1], reason
    assert f"{empty} @ byte" in run.stdout and f"{huge} @ byte" in run.stdout  # file and offset named
    rows = all_rows(out)
    urls = sorted(r["url"] for r in rows)
    expected = ([f"https://news.example/2024/01/02/story-{n}.html" for n in (*range(6), 10, 11, 12)]
                + ["https://news.example/2024/01/02/cut-0.html", "https://news.example/2024/01/02/cut-1.html",
                   "https://news.example/2024/01/02/small.html"])
    assert set(expected) <= set(urls) and len(urls) == len(set(urls))
    assert all(list(r) == schema().names and r["title"] and r["text"] for r in rows)
    markers = sorted(p.name for p in out.glob("*.done"))
    assert len(markers) == 6 and not list(out.glob(".*tmp"))
    damage = json.loads(next(out.glob("huge-*.done")).read_text())
    assert damage["skips"] == {"too_large": 1} and damage["damage"][0]["offset"] > 0

    again = archive(*map(str, inputs), "-o", str(out), "--scheduler", scheduler)
    assert again.returncode == 1
    assert "7 file(s): 0 done, 6 already done, 1 failed" in again.stdout
    assert sorted(r["url"] for r in all_rows(out)) == urls


def test_json_lines_on_request_and_the_dedup_pass_lists_repeats(tmp_path, scheduler):
    first = articles_warc(tmp_path / "a.warc.gz", 0, 3)
    body = http_block(article(headline(1)))
    second = write_warc(tmp_path / "b.warc.gz", [
        warc_record("https://news.example/2024/01/02/story-1.html?utm_source=feed", body),  # the same URL key
        warc_record("https://news.example/2024/01/03/syndicated-copy.html", body),  # the same body, another URL
        warc_record("https://news.example/2024/01/02/story-7.html", http_block(article(headline(7)))),
    ])
    out = tmp_path / "out"
    run = archive(str(first), str(second), "-o", str(out), "--scheduler", scheduler, "--format", "jsonl", "--dedup")
    assert run.returncode == 0, run.stderr
    outputs = finished_outputs(out)
    assert [p.suffix for p in outputs] == [".jsonl", ".jsonl"]
    rows = [json.loads(line) for p in outputs for line in p.read_text(encoding="utf-8").splitlines()]
    assert [list(r) for r in rows] == [list(ROW_FIELDS)] * 6
    assert "near-duplicates: 2 of 6 rows" in run.stdout
    repeats = [json.loads(line) for line in (out / "near-duplicates.jsonl").read_text().splitlines()]
    assert sorted((r["url"], r["reason"]) for r in repeats) == [
        ("https://news.example/2024/01/02/story-1.html?utm_source=feed", "duplicate"),
        ("https://news.example/2024/01/03/syndicated-copy.html", "duplicate_content")]


def test_a_job_killed_with_sigkill_midway_then_run_again_gives_every_article_exactly_once(tmp_path):
    inputs = [articles_warc(tmp_path / f"part-{i}.warc.gz", i * 100, 25) for i in range(4)]
    out = tmp_path / "out"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    job = subprocess.Popen([sys.executable, "-m", "newscrawl", "archive", *map(str, inputs), "-o", str(out),
                            "--workers", "1"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 240
    while not list(out.glob("*.done")) and job.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    os.killpg(job.pid, signal.SIGKILL)  # the command, the Dask scheduler, nanny and worker: all at once
    job.wait()
    done_before = len(list(out.glob("*.done")))
    assert 1 <= done_before < 4, "the job was not killed midway (make the inputs longer)"

    again = archive(*map(str, inputs), "-o", str(out), "--workers", "1")
    assert again.returncode == 0, again.stderr
    assert f"{4 - done_before} done, {done_before} already done, 0 failed" in again.stdout
    urls = [r["url"] for r in all_rows(out)]
    assert sorted(urls) == sorted(f"https://news.example/2024/01/02/story-{i * 100 + n}.html"
                                  for i in range(4) for n in range(25))
    assert not list(out.glob(".*tmp"))


def test_a_plain_compressed_stream_is_not_a_warc_and_costs_a_skip(tmp_path, scheduler):
    """A .warc.gz that holds gzip of something else: counted as not_warc, the file done."""
    other = tmp_path / "other.warc.gz"
    other.write_bytes(gzip.compress(b"just text, no WARC record"))
    good = articles_warc(tmp_path / "good.warc.gz", 0, 1)
    run = archive(str(other), str(good), "-o", str(tmp_path / "out"), "--scheduler", scheduler)
    assert run.returncode == 0 and "not_warc 1" in run.stdout


DEMO = ROOT / "data" / "demo" / "manifest.json"


@pytest.mark.skipif(not DEMO.exists(), reason="data/demo not built")
@pytest_twisted.ensureDeferred
async def test_the_demo_crawl_recorded_then_archived_gives_the_crawls_articles(tmp_path, scheduler):
    """The crawl recorded with NEWSCRAWL_WARC, its archive through ``scrapy archive``: the same articles
    (title, text, published, authors) as the crawl exported."""
    from conftest import crawl_settings, read_jsonl, run_crawl

    from newscrawl.sites import load_sites
    from newscrawl.spiders.loader import spider_class

    recorded = tmp_path / "demo.warc.gz"
    feed = tmp_path / "crawl.jsonl"
    await run_crawl(spider_class(load_sites()["demo"]), crawl_settings(tmp_path, feed, NEWSCRAWL_WARC=str(recorded)))
    crawled = {item["url"]: item for item in read_jsonl(feed)}
    assert len(crawled) >= 30

    out = tmp_path / "out"
    run = archive(str(recorded), "-o", str(out), "--scheduler", scheduler)
    assert run.returncode == 0, run.stdout + run.stderr
    rows = {row["url"]: row for row in all_rows(out)}
    assert sorted(rows) == sorted(crawled)
    for url, item in crawled.items():
        for name in ("title", "text", "published", "authors", "site", "listing_title", "language"):
            column = "published_local" if name == "published" else name  # Parquet: the ISO text beside the instant
            assert rows[url][column] == item[name], (url, name)


def test_without_the_archive_extra_the_command_says_how_to_install_it(tmp_path):
    blocked = tmp_path / "blocked"
    (blocked / "distributed").mkdir(parents=True)
    (blocked / "distributed" / "__init__.py").write_text("raise ImportError('No module named distributed')\n")
    good = articles_warc(tmp_path / "a.warc.gz", 0, 1)
    env = dict(os.environ, PYTHONPATH=f"{blocked}{os.pathsep}{ROOT}")
    run = subprocess.run([sys.executable, "-m", "newscrawl", "archive", str(good), "-o", str(tmp_path / "out")],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 2
    assert "pip install 'newscrawl[archive]'" in run.stderr


def test_the_local_clusters_worker_samples_no_stacks_and_the_callers_dask_config_is_left_as_it_was():
    """Dask's dashboard samplers (a stack sample every 10 ms, an event-loop tick every 20 ms) cost
    CPU on every record; the local cluster runs without them, and the caller's settings stay."""
    import dask

    from newscrawl.archives.job import start_client

    before = dask.config.get("distributed.worker.profile.enabled")
    client = start_client(1)
    try:
        callbacks = client.run(lambda dask_worker: sorted(dask_worker.periodic_callbacks))
        ticks = client.run(lambda: dask.config.get("distributed.admin.tick.interval"))
    finally:
        cluster = client.cluster
        client.close()
        cluster.close()
    assert callbacks and all("profile" not in names for names in callbacks.values())
    assert set(ticks.values()) == {"1s"}
    assert dask.config.get("distributed.worker.profile.enabled") == before


def test_the_command_and_the_archive_worker_do_not_load_datasketch_and_scipy():
    """MinHash is needed where bodies are fingerprinted; importing it costs each process ~0.8 s CPU."""
    code = ("import sys, newscrawl.settings, newscrawl.archives.job, newscrawl.pipelines.extraction; "
            "print(sorted(m for m in ('datasketch', 'scipy') if m in sys.modules))")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    found = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                           timeout=120)
    assert found.returncode == 0, found.stderr
    assert found.stdout.strip() == "[]"
