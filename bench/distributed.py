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
    python bench/distributed.py --pages 500 --workers 2 --outage 5   # Redis kill -9'd, back 5 s later

Target (issue 5): every article exported exactly once; two workers >= 1.5x one worker.

``--outage SECONDS`` (issue 12): Redis runs with an append-only file (``appendfsync always``),
is killed with SIGKILL once the workers have exported a tenth of the articles and started
again on the same port SECONDS later; the figures then include each worker's outage stats, and the
exactly-once check covers the outage.
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
import threading
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
    """A throw-away redis-server on 127.0.0.1; ``persistent``: with an append-only file, so it can be
    killed and started again on the same port with its data (:meth:`kill`, :meth:`start`)."""

    def __init__(self, workdir: Path, persistent: bool = False):
        self.binary = shutil.which("redis-server")
        if self.binary is None:
            raise SystemExit("redis-server not found: apt-get install -y redis-server")
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.workdir = workdir
        aof = ["--appendonly", "yes", "--appendfsync", "always"]  # every acknowledged write survives a kill
        self.persistence = aof if persistent else ["--appendonly", "no"]
        import redis

        self.client = redis.Redis(port=self.port)
        self.cpu_before_restarts = 0.0
        self.start()

    def start(self) -> None:
        import redis

        self.proc = subprocess.Popen([self.binary, "--port", str(self.port), "--bind", "127.0.0.1",
                                      "--save", "", *self.persistence, "--dir", str(self.workdir)],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(200):
            try:
                self.client.ping()
                return
            except redis.ConnectionError:
                time.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    def kill(self) -> None:
        """SIGKILL: what the append-only file holds survives, nothing else."""
        self.cpu_before_restarts += self.cpu_seconds()
        self.proc.kill()
        self.proc.wait(timeout=10)

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def cpu_seconds(self) -> float:
        return _cpu_seconds(self.proc.pid)

    def total_cpu_seconds(self) -> float:
        return self.cpu_before_restarts + self.cpu_seconds()

    def stop(self) -> None:
        self.client.close()
        self.proc.terminate()
        self.proc.wait(timeout=10)


def outage(redis: RedisServer, feeds: list[Path], after_items: int, seconds: float) -> threading.Thread:
    """Kill Redis once ``feeds`` hold ``after_items`` items, start it again ``seconds`` later (a thread)."""
    def exported() -> int:
        return sum(f.read_bytes().count(b"\n") for f in feeds if f.exists())

    def run() -> None:
        while exported() < after_items:
            time.sleep(0.05)
        redis.kill()
        time.sleep(seconds)
        redis.start()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def run_job(site: SiteProcess, redis: RedisServer, workers: int, pages: int, workdir: Path,
            outage_seconds: float = 0.0) -> dict:
    """``workers`` crawl processes started together against one Redis; the job's figures."""
    redis.client.flushdb()
    settings = json.dumps({"NEWSCRAWL_DISTRIBUTED": redis.url, "NEWSCRAWL_IDLE_CLOSE": 2})
    cpu_site, cpu_redis = site.cpu_seconds(), redis.total_cpu_seconds()
    procs = []
    for w in range(workers):
        out = workdir / f"{workers}w-{w}"
        out.mkdir(parents=True)
        cmd = [sys.executable, str(ROOT / "bench" / "crawl_throughput.py"), "_crawl", "--base", site.base,
               "--out", str(out), "--max-pages", str(catalogue_pages(pages)), "--settings", settings]
        procs.append((out, subprocess.Popen(cmd, cwd=ROOT)))
    feeds = [out / "items.jsonl" for out, _ in procs]
    killer = outage(redis, feeds, max(1, pages // 10), outage_seconds) if outage_seconds else None
    usages = []
    for _, proc in procs:
        _, status, usage = os.wait4(proc.pid, 0)
        if os.waitstatus_to_exitcode(status):
            raise RuntimeError(f"worker exited with {os.waitstatus_to_exitcode(status)}")
        usages.append(usage)
    if killer is not None:
        killer.join()
    per_worker, urls = [], Counter()
    for (out, _), usage in zip(procs, usages, strict=True):
        stats = json.loads((out / "stats.json").read_text(encoding="utf-8"))
        lines = (out / "items.jsonl").read_text(encoding="utf-8").splitlines()
        urls.update(json.loads(line)["url"] for line in lines)
        per_worker.append({"exported": len(lines), "opened_at": stats.get("opened_at"),
                           "last_item_at": stats.get("last_item_at"),
                           "responses": stats.get("downloader/response_count"),
                           "cpu_seconds": usage.ru_utime + usage.ru_stime,
                           "peak_rss_mb": usage.ru_maxrss / 1024,
                           "finish_reason": stats.get("finish_reason"),
                           "redis": {k.removeprefix("newscrawl/redis/"): v for k, v in stats.items()
                                     if k.startswith("newscrawl/redis/")}})
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
        "redis_cpu_seconds": redis.total_cpu_seconds() - cpu_redis,
        "outage_seconds": outage_seconds,
    }


def report(job: dict) -> str:
    shares = ", ".join(str(w["exported"]) for w in job["per_worker"])
    line = (f"{job['workers']} worker(s): exported {job['exported']} ({job['distinct']} distinct, "
            f"{job['duplicates']} duplicates, {job['missing']} missing; per worker {shares})  "
            f"{job['items_per_second']:.1f} items/s over {job['span_seconds']:.1f} s  "
            f"server CPU {job['site_cpu_seconds']:.1f} s, redis CPU {job['redis_cpu_seconds']:.1f} s")
    if job["outage_seconds"]:
        line += f"\n  Redis down {job['outage_seconds']:.0f} s: " + "; ".join(
            f"worker {i}: {w['finish_reason']}, {w['redis']}" for i, w in enumerate(job["per_worker"]))
    return line


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=2000)
    parser.add_argument("--workers", default="1,2", help="comma-separated worker counts, run in turn")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--outage", type=float, default=0.0,
                        help="kill -9 Redis in each job and start it again this many seconds later")
    args = parser.parse_args(argv)
    counts = [int(n) for n in args.workers.split(",")]
    jobs = []
    with tempfile.TemporaryDirectory(prefix="newscrawl-dist-") as tmp:
        redis = RedisServer(Path(tmp), persistent=bool(args.outage))
        try:
            with SiteProcess(args.pages) as site:
                for n in counts:
                    job = run_job(site, redis, n, args.pages, Path(tmp), args.outage)
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
