"""Crawl throughput and memory: the full pipeline against the same crawl without extraction.

A generated site of N articles (:mod:`bench.site`: catalogue pages, an RSS feed, robots.txt)
is served from a separate process on 127.0.0.1.  Each crawl runs in its own child process
(``scrapy`` settings of the project, the real site spider and every pipeline stage, feed
export to JSON lines, the SQLite seen-URL store) with ``NEWSCRAWL_EXTRACT=1`` and ``=0``; the
figures are exported items per second (``item_scraped_count / elapsed_time_seconds`` of
Scrapy's core stats), their ratio, the crawl process's peak RSS (``getrusage``) and the
server's CPU time per request (to show it was not the bottleneck)::

    python bench/crawl_throughput.py                     # N = 1000 and 5000
    python bench/crawl_throughput.py --pages 1000 --json out.json
    python bench/crawl_throughput.py --processes 0       # extraction in the crawl process

The full crawl runs with the project's ``NEWSCRAWL_EXTRACT_PROCESSES`` (default 1: extraction in
one worker process under ``NEWSCRAWL_EXTRACT_TIMEOUT``, newscrawl/pipelines/pool.py) unless
``--processes N`` sets it.  With workers, the peak RSS is reported for the crawl process and for
the largest worker, and their sum is what the crawl occupies at most.

Targets (issue 5): full/no-extraction ratio >= 0.6; peak RSS < 400 MB and growing < 25 %
from N = 1,000 to N = 5,000.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.site import ARTICLE_RE, SiteProcess, catalogue_pages  # noqa: E402

CRAWL_SETTINGS = {
    "DOWNLOAD_DELAY": 0,
    "AUTOTHROTTLE_ENABLED": False,
    "CONCURRENT_REQUESTS": 16,
    "CONCURRENT_REQUESTS_PER_DOMAIN": 16,
    "RETRY_TIMES": 0,
    "LOG_LEVEL": "WARNING",
}


def site_table(base: str) -> dict:
    """The ``[sites.bench]`` table for the served site."""
    return {"domains": ["127.0.0.1"], "catalogues": [f"{base}/list/1.html"], "feeds": [f"{base}/feed.xml"],
            "article_pattern": ARTICLE_RE, "language": "en"}


def spider_class(base: str, name: str = "bench"):
    from newscrawl.sites import parse_sites
    from newscrawl.spiders.loader import spider_class as make

    return make(parse_sites({"sites": {name: site_table(base)}})[name])


def crawl_child(args: argparse.Namespace) -> int:
    """Run one crawl in this process and write Scrapy's stats as JSON (the ``_crawl`` command)."""
    from scrapy import signals
    from scrapy.crawler import CrawlerProcess
    from scrapy.settings import Settings

    settings = Settings()
    settings.setmodule("newscrawl.settings", priority="project")
    overrides = dict(CRAWL_SETTINGS)
    overrides.update({
        "FEEDS": {str(Path(args.out) / "items.jsonl"): {"format": "jsonlines"}},
        "NEWSCRAWL_STATE_DIR": str(Path(args.out) / "state"),
        "NEWSCRAWL_EXTRACT": args.extract,
    })
    extra = json.loads(args.settings or "{}")
    if "ITEM_PIPELINES" in extra:  # a change to the project's stages, not a replacement
        extra["ITEM_PIPELINES"] = {**settings.getdict("ITEM_PIPELINES"), **extra["ITEM_PIPELINES"]}
    overrides.update(extra)
    settings.setdict(overrides, priority="cmdline")
    process = CrawlerProcess(settings)
    crawler = process.create_crawler(spider_class(args.base))
    marks: dict[str, float] = {}

    def opened(spider) -> None:
        marks["opened_at"] = time.time()

    def scraped(item, spider) -> None:
        marks.setdefault("first_item_at", time.time())
        marks["last_item_at"] = time.time()

    crawler.signals.connect(opened, signal=signals.spider_opened)
    crawler.signals.connect(scraped, signal=signals.item_scraped)
    process.crawl(crawler, max_pages=str(args.max_pages))
    process.start()
    import resource

    # The crawl process alone, and its largest child (an extraction worker, if any).  wait4()'s
    # figure in the parent is the larger of the two, which would hide the crawl's own.
    marks["crawl_peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    extracting = args.extract == "1"
    marks["extract_processes"] = settings.getint("NEWSCRAWL_EXTRACT_PROCESSES", 0) if extracting else 0
    if marks["extract_processes"] > 0:
        workers = resource.getrusage(resource.RUSAGE_CHILDREN)
        marks["worker_peak_rss_mb"] = workers.ru_maxrss / 1024
        marks["worker_cpu_seconds"] = workers.ru_utime + workers.ru_stime
    stats = {k: (v.isoformat() if hasattr(v, "isoformat") else v)
             for k, v in crawler.stats.get_stats().items()}
    stats.update(marks)  # wall-clock epoch seconds: spider opened, first and last exported item
    Path(args.out, "stats.json").write_text(json.dumps(stats, indent=1), encoding="utf-8")
    return 0


def run_crawl(base: str, pages: int, extract: bool, workdir: Path, settings: dict | None = None) -> dict:
    """One crawl in a child process; its stats plus peak RSS and CPU time."""
    workdir.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, __file__, "_crawl", "--base", base, "--out", str(workdir), "--extract",
           "1" if extract else "0", "--max-pages", str(catalogue_pages(pages)),
           "--settings", json.dumps(settings or {})]
    started = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=ROOT)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - started
    if proc.returncode:
        raise RuntimeError(f"crawl child failed with exit code {proc.returncode}")
    stats = json.loads((workdir / "stats.json").read_text(encoding="utf-8"))
    items = [json.loads(line) for line in (workdir / "items.jsonl").read_text(encoding="utf-8").splitlines()]
    urls = [i["url"] for i in items]
    elapsed = stats["elapsed_time_seconds"]
    return {
        "pages": pages, "extract": extract, "exported": len(items), "distinct_urls": len(set(urls)),
        "elapsed_seconds": elapsed, "items_per_second": len(items) / elapsed,
        "peak_rss_mb": stats.get("crawl_peak_rss_mb", usage.ru_maxrss / 1024),
        "worker_peak_rss_mb": stats.get("worker_peak_rss_mb", 0.0),
        "worker_cpu_seconds": stats.get("worker_cpu_seconds", 0.0),
        "extract_processes": stats.get("extract_processes", 0),
        "cpu_seconds": usage.ru_utime + usage.ru_stime,
        "wall_seconds_with_startup": wall, "requests": stats.get("downloader/request_count"),
        "dropped": {k.rsplit("/", 1)[1]: v for k, v in stats.items() if k.startswith("newscrawl/dropped/")},
    }


def measure(pages: int, workroot: Path, processes: int | None = None) -> dict:
    with SiteProcess(pages) as site:
        cpu_before = site.cpu_seconds()
        full = run_crawl(site.base, pages, True, workroot / f"full-{pages}",
                         {} if processes is None else {"NEWSCRAWL_EXTRACT_PROCESSES": processes})
        bare = run_crawl(site.base, pages, False, workroot / f"bare-{pages}")
        server_cpu = site.cpu_seconds() - cpu_before
    requests = (full["requests"] or 0) + (bare["requests"] or 0)
    return {"pages": pages, "full": full, "no_extraction": bare,
            "ratio": full["items_per_second"] / bare["items_per_second"],
            "server_cpu_ms_per_request": 1000 * server_cpu / requests if requests else None}


def report(result: dict) -> str:
    full, bare = result["full"], result["no_extraction"]
    lines = [f"== N = {result['pages']} articles, NEWSCRAWL_EXTRACT_PROCESSES={full['extract_processes']}"]
    for label, r in (("full pipeline", full), ("no extraction", bare)):
        lines.append(f"{label:<14} exported {r['exported']:>5} ({r['distinct_urls']} distinct)  "
                     f"{r['items_per_second']:7.1f} items/s  elapsed {r['elapsed_seconds']:6.1f} s  "
                     f"peak RSS {r['peak_rss_mb']:6.1f} MB  CPU {r['cpu_seconds']:6.1f} s")
        if r.get("worker_peak_rss_mb"):
            lines.append(f"{'':<14} extraction worker's peak RSS {r['worker_peak_rss_mb']:6.1f} MB "
                         f"(crawl process + worker {r['peak_rss_mb'] + r['worker_peak_rss_mb']:.1f} MB), "
                         f"workers' CPU {r['worker_cpu_seconds']:.1f} s")
    lines.append(f"ratio full / no extraction: {result['ratio']:.2f}   "
                 f"server CPU per request: {result['server_cpu_ms_per_request']:.3f} ms")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command")
    child = sub.add_parser("_crawl", help="(internal) one crawl in this process")
    child.add_argument("--base", required=True)
    child.add_argument("--out", required=True)
    child.add_argument("--extract", choices=["0", "1"], default="1")
    child.add_argument("--max-pages", type=int, default=1)
    child.add_argument("--settings", help="JSON object of extra Scrapy settings")
    parser.add_argument("--pages", type=int, action="append",
                        help="articles (repeatable; default 1000 and 5000)")
    parser.add_argument("--processes", type=int, default=None,
                        help="NEWSCRAWL_EXTRACT_PROCESSES of the full crawl (default: the project's)")
    parser.add_argument("--json", type=Path, help="write the figures here")
    args = parser.parse_args(argv)
    if args.command == "_crawl":
        return crawl_child(args)
    results = []
    with tempfile.TemporaryDirectory(prefix="newscrawl-bench-") as tmp:
        for pages in args.pages or [1000, 5000]:
            result = measure(pages, Path(tmp), args.processes)
            results.append(result)
            print(report(result), flush=True)
    if len(results) >= 2:
        small, large = results[0], results[-1]
        growth = large["full"]["peak_rss_mb"] / small["full"]["peak_rss_mb"] - 1
        print(f"peak RSS growth N={small['pages']} -> N={large['pages']} (full pipeline): "
              f"{100 * growth:+.1f} %")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
