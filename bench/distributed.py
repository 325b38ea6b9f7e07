"""Scale-out: one worker, then two, over the same generated site, sharing a frontier in Redis.

A redis-server is started on 127.0.0.1 at a free port (Debian's ``redis-server`` binary),
the site of :mod:`bench.site` (default 2,000 articles) is served from its own process, and
each worker is a separate ``scrapy`` process (the project's settings, the full pipeline,
``NEWSCRAWL_DISTRIBUTED=redis://...``) exporting to its own JSON-lines file.  Between the
two runs Redis is flushed.  Figures: exported items, duplicates and missing articles
across workers (the exactly-once check), items per second of the job (all exported items
over the span from the first worker's start to the last export), the speed-up, and the
CPU time the site server and Redis used (to show they were not the bottleneck)::

    python bench/distributed.py                  # 2000 articles, 1 then 2 workers
    python bench/distributed.py --pages 500 --workers 1,2,3 --json out.json

Target (issue 5): every article exported exactly once; two workers >= 1.5x one worker.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.site import SiteProcess, article_path, catalogue_pages  # noqa: E402


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class RedisServer:
    """A throw-away redis-server on 127.0.0.1 (no persistence)."""

    def __init__(self, workdir: Path):
        binary = shutil.which("redis-server")
        if binary is None:
            raise SystemExit("redis-server not found: apt-get install -y redis-server")
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.proc = subprocess.Popen([binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
                                      "--appendonly", "no", "--dir", str(workdir)],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        import redis

        self.client = redis.Redis(port=self.port)
        for _ in range(100):
            try:
                self.client.ping()
                return
            except redis.ConnectionError:
                time.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def cpu_seconds(self) -> float:
        return _cpu_seconds(self.proc.pid)

    def stop(self) -> None:
        self.client.close()
        self.proc.terminate()
        self.proc.wait(timeout=10)


def run_job(site: SiteProcess, redis: RedisServer, workers: int, pages: int, workdir: Path) -> dict:
    """``workers`` crawl processes started together against one Redis; the job's figures."""
    redis.client.flushdb()
    settings = json.dumps({"NEWSCRAWL_DISTRIBUTED": redis.url, "NEWSCRAWL_IDLE_CLOSE": 2})
    cpu_site, cpu_redis = site.cpu_seconds(), redis.cpu_seconds()
    procs = []
    for w in range(workers):
        out = workdir / f"{workers}w-{w}"
        out.mkdir(parents=True)
        cmd = [sys.executable, str(ROOT / "bench" / "crawl_throughput.py"), "_crawl", "--base", site.base,
               "--out", str(out), "--max-pages", str(catalogue_pages(pages)), "--settings", settings]
        procs.append((out, subprocess.Popen(cmd, cwd=ROOT)))
    usages = []
    for _, proc in procs:
        _, status, usage = os.wait4(proc.pid, 0)
        if os.waitstatus_to_exitcode(status):
            raise RuntimeError(f"worker exited with {os.waitstatus_to_exitcode(status)}")
        usages.append(usage)
    per_worker, urls = [], Counter()
    for (out, _), usage in zip(procs, usages, strict=True):
        stats = json.loads((out / "stats.json").read_text(encoding="utf-8"))
        lines = (out / "items.jsonl").read_text(encoding="utf-8").splitlines()
        urls.update(json.loads(line)["url"] for line in lines)
        per_worker.append({"exported": len(lines), "opened_at": stats.get("opened_at"),
                           "last_item_at": stats.get("last_item_at"),
                           "responses": stats.get("downloader/response_count"),
                           "cpu_seconds": usage.ru_utime + usage.ru_stime,
                           "peak_rss_mb": usage.ru_maxrss / 1024})
    expected = {f"{site.base}{article_path(i)}" for i in range(pages)}
    start = min(w["opened_at"] for w in per_worker)
    end = max(w["last_item_at"] or start for w in per_worker)
    exported = sum(urls.values())
    return {
        "workers": workers, "exported": exported, "distinct": len(urls),
        "duplicates": sum(n - 1 for n in urls.values() if n > 1), "missing": len(expected - set(urls)),
        "span_seconds": end - start, "items_per_second": exported / (end - start),
        "per_worker": per_worker,
        "site_cpu_seconds": site.cpu_seconds() - cpu_site,
        "redis_cpu_seconds": redis.cpu_seconds() - cpu_redis,
    }


def report(job: dict) -> str:
    shares = ", ".join(str(w["exported"]) for w in job["per_worker"])
    return (f"{job['workers']} worker(s): exported {job['exported']} ({job['distinct']} distinct, "
            f"{job['duplicates']} duplicates, {job['missing']} missing; per worker {shares})  "
            f"{job['items_per_second']:.1f} items/s over {job['span_seconds']:.1f} s  "
            f"server CPU {job['site_cpu_seconds']:.1f} s, redis CPU {job['redis_cpu_seconds']:.1f} s")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=2000)
    parser.add_argument("--workers", default="1,2", help="comma-separated worker counts, run in turn")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    counts = [int(n) for n in args.workers.split(",")]
    jobs = []
    with tempfile.TemporaryDirectory(prefix="newscrawl-dist-") as tmp:
        redis = RedisServer(Path(tmp))
        try:
            with SiteProcess(args.pages) as site:
                for n in counts:
                    job = run_job(site, redis, n, args.pages, Path(tmp))
                    jobs.append(job)
                    print(report(job), flush=True)
        finally:
            redis.stop()
    base = jobs[0]["items_per_second"]
    for job in jobs[1:]:
        speedup = job["items_per_second"] / base
        print(f"speed-up {job['workers']} workers / {jobs[0]['workers']}: {speedup:.2f}x")
    if args.json:
        args.json.write_text(json.dumps(jobs, indent=2), encoding="utf-8")
    ok = all(j["duplicates"] == 0 and j["missing"] == 0 for j in jobs)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
