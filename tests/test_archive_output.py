"""``scrapy archive``'s outputs keep what their markers say: one job per output directory, outputs
that do not read back done again, no temporary file left by a full disk, and the documented columns
are the ones written."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from test_archive_job import all_rows, archive, articles_warc, scheduler  # noqa: F401 - a fixture
from test_parquet_recovery import small_disk

from newscrawl.archives.output import finished_outputs, schema

pytest.importorskip("distributed", reason="the archive job runs on Dask distributed (pip install '.[archive]')")
pytest.importorskip("pyarrow")

ROOT = Path(__file__).resolve().parents[1]
_TABLE_ROW = re.compile(r"^\| `([a-z_]+)` \| `([^`]+)` \|", re.M)


def urls_of(starts: list[int], count: int) -> list[str]:
    return sorted(f"https://news.example/2024/01/02/story-{s + n}.html" for s in starts for n in range(count))


def test_the_documented_output_columns_are_the_written_schema():
    text = (ROOT / "docs" / "archives.md").read_text(encoding="utf-8")
    section = text.split("### Output columns", 1)[1].split("\n#", 1)[0]
    documented = _TABLE_ROW.findall(section)
    assert documented == [(f.name, str(f.type)) for f in schema()]


def _hold(name: str) -> None:
    from distributed import Event

    Event(name).wait(240)


def test_a_second_job_on_the_same_output_directory_is_refused_while_the_first_runs(tmp_path, scheduler):  # noqa: F811
    from distributed import Client, Event

    first_in = articles_warc(tmp_path / "first.warc.gz", 0, 5)
    second_in = articles_warc(tmp_path / "second.warc.gz", 100, 5)
    out = tmp_path / "out"
    name = f"hold-{uuid.uuid4().hex}"
    with Client(scheduler) as client:
        blocker = client.submit(_hold, name, pure=False)  # the cluster's one worker is busy until released
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        job = subprocess.Popen([sys.executable, "-m", "newscrawl", "archive", str(first_in), "-o", str(out),
                                "--scheduler", scheduler], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
        try:
            deadline = time.monotonic() + 120  # a hang guard
            while (not any(key.startswith("archive-") for key in _tasks(client))
                   and job.poll() is None and time.monotonic() < deadline):
                time.sleep(0.05)
            assert job.poll() is None, job.communicate()
            second = archive(str(second_in), "-o", str(out), "--workers", "1")
        finally:
            Event(name, client=client).set()
            blocker.result(timeout=60)
        stdout, stderr = job.communicate(timeout=240)
    assert second.returncode == 1, second.stdout + second.stderr
    assert "another archive job" in second.stderr and f"is writing {out}" in second.stderr
    assert job.returncode == 0, stderr
    assert [row["url"] for row in all_rows(out)] == urls_of([0], 5)  # the second wrote nothing
    assert not list(out.glob(".*.tmp"))


def _tasks(client) -> list[str]:
    """Keys of the tasks the scheduler holds (the first job's waits behind the blocker)."""
    return client.run_on_scheduler(lambda dask_scheduler: [str(k) for k in dask_scheduler.tasks])


def test_a_rerun_does_again_the_outputs_marked_done_that_do_not_read_back(tmp_path, scheduler):  # noqa: F811
    inputs = [articles_warc(tmp_path / f"part-{i}.warc.gz", i * 100, 6) for i in range(3)]
    out = tmp_path / "out"
    first = archive(*map(str, inputs), "-o", str(out), "--scheduler", scheduler)
    assert first.returncode == 0, first.stderr
    outputs = finished_outputs(out)
    assert len(outputs) == 3
    garbled, cut = outputs[0], outputs[1]
    data = bytearray(garbled.read_bytes())
    data[len(data) // 3: len(data) // 3 + 64] = bytes(64)  # pages overwritten, the footer intact
    garbled.write_bytes(bytes(data))
    cut.write_bytes(cut.read_bytes()[: cut.stat().st_size // 2])

    again = archive(*map(str, inputs), "-o", str(out), "--scheduler", scheduler)
    assert again.returncode == 0, again.stderr
    assert "3 file(s): 2 done, 1 already done, 0 failed" in again.stdout
    assert again.stdout.count("done again: ") == 2
    assert sorted(row["url"] for row in all_rows(out)) == urls_of([0, 100, 200], 6)


def test_a_job_on_a_full_disk_leaves_no_temporary_file_and_the_next_run_does_the_input(tmp_path, scheduler):  # noqa: F811
    source = articles_warc(tmp_path / "big.warc.gz", 0, 40)
    with small_disk(tmp_path / "out") as resize:
        if resize is None:
            pytest.skip("needs a small tmpfs for the output directory (mount, as root in CI)")
        out = tmp_path / "out"
        assert archive(str(source), "-o", str(out), "--scheduler", scheduler).returncode == 0
        (output,) = finished_outputs(out)
        size = output.stat().st_size
        for path in out.glob("big-*"):
            path.unlink()
        for room, where in ((size // 2, "in the output"), (-(-size // 4096) * 4096, "in the marker")):
            resize(room)  # the disk fills up ... in the output, then just after it
            full = archive(str(source), "-o", str(out), "--scheduler", scheduler)
            assert full.returncode == 1, where + full.stdout + full.stderr
            assert "1 failed" in full.stdout and "No space left" in full.stdout, where
            assert not list(out.glob(".*.tmp")) and not list(out.glob("*.done")), where
        resize(32 * 2**20)
        again = archive(str(source), "-o", str(out), "--scheduler", scheduler)
        assert again.returncode == 0, again.stdout + again.stderr
        assert sorted(row["url"] for row in all_rows(out)) == urls_of([0], 40)
