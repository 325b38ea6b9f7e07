"""Memory of a crawl that renders every page in headless Chromium: flat over thousands of pages?

The script serves a generated news site (:mod:`bench.site`, ``--pages`` articles, 2,000 by
default) on 127.0.0.1 and runs ``scrapy crawl`` on it in a child process with the site's
``render = "always"``, so every catalogue and article page goes through scrapy-playwright and
the system Chromium (the real crawl path: scheduler, download handler, pipelines, export).  It
samples the resident memory of the whole process tree (the crawl, its extraction worker,
Playwright's driver, the browser and its renderers: the sum of ``VmRSS`` read from ``/proc``)
every 0.1 s; the figure at page 500 is the median of the samples taken over the 50 pages
up to it, the figure at the last page that of the 50 pages up to the end (renderer processes
come and go with the pages, so one sample alone jumps by hundreds of MB); it prints both, their
difference, and the pages rendered per second between them::

    python bench/render_memory.py                   # 2,000 pages
    python bench/render_memory.py --pages 300 --first 100

Target (issue #39): the two samples within 10 %.  Linux only (``/proc``); needs Chromium and
scrapy-playwright (``pip install 'newscrawl[render]'``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.crawlall_memory import process_tree, rss_bytes  # noqa: E402
from bench.site import ARTICLE_RE, PER_PAGE, SiteProcess  # noqa: E402

WINDOW = 50  # pages before a mark whose samples make its median


def sites_file(path: Path, base: str, pages: int, concurrency: int) -> None:
    path.write_text(
        f'[sites.render_bench]\nlanguage = "en"\ndomains = ["127.0.0.1"]\nrender = "always"\n'
        f'catalogues = ["{base}/list/1.html"]\narticle_pattern = \'{ARTICLE_RE}\'\n'
        f"max_pages = {pages // PER_PAGE + 2}\n"
        f"politeness = {{ download_delay = 0.0, autothrottle = false, concurrency = {concurrency} }}\n",
        encoding="utf-8")


def lines(path: Path) -> int:
    try:
        with path.open("rb") as f:
            return sum(1 for _ in f)
    except OSError:
        return 0


def sample(root: int) -> tuple[int, int]:
    """(resident bytes of ``root``'s process tree, processes in it)."""
    tree = process_tree(root)
    return sum(rss_bytes(pid) for pid in tree), len(tree)


def run(pages: int, first: int, concurrency: int, project: Path, interval: float = 0.1) -> dict:
    with tempfile.TemporaryDirectory(prefix="render-memory-") as tmp, SiteProcess(pages) as server:
        tmp = Path(tmp)
        sites_file(tmp / "sites.toml", server.base, pages, concurrency)
        out = tmp / "out.jsonl"
        cmd = [sys.executable, "-m", "scrapy", "crawl", "render_bench", "-o", str(out),
               "-s", f"NEWSCRAWL_SITES={tmp / 'sites.toml'}", "-s", f"NEWSCRAWL_STATE_DIR={tmp / 'state'}",
               "-s", "RETRY_TIMES=0", "-s", "LOG_LEVEL=WARNING", "-s", f"CONCURRENT_REQUESTS={concurrency}"]
        started = time.monotonic()
        proc = subprocess.Popen(cmd, cwd=project, env={**os.environ, "PYTHONPATH": str(project)},
                                stdout=subprocess.DEVNULL, stderr=open(tmp / "crawl.log", "w"))
        samples: list[tuple[float, int, int, int]] = []  # (time, exported, rss, processes), every interval
        while proc.poll() is None:
            exported = lines(out)
            samples.append((time.monotonic(), exported, *sample(proc.pid)))
            time.sleep(interval)
        elapsed = time.monotonic() - started
        exported = lines(out)
        log_tail = (tmp / "crawl.log").read_text(errors="replace")[-3000:]
    result = {"pages": pages, "exported": exported, "exit_status": proc.returncode,
              "seconds": round(elapsed, 1),
              "peak_rss_mb": round(max((s[2] for s in samples), default=0) / 2**20),
              "log_tail": log_tail if proc.returncode else ""}
    marks = {}
    for mark in (first, pages):
        near = [s for s in samples if mark - WINDOW <= s[1] <= mark]  # renderers come and go: a median
        if near:
            marks[mark] = near
            result[f"rss_mb_at_{mark}"] = round(statistics.median(s[2] for s in near) / 2**20)
            result[f"processes_at_{mark}"] = max(s[3] for s in near)
    if len(marks) == 2:
        r1, r2 = result[f"rss_mb_at_{first}"], result[f"rss_mb_at_{pages}"]
        result["growth_percent"] = round(100 * (r2 - r1) / r1, 1)
        (t1, n1), (t2, n2) = marks[first][-1][:2], marks[pages][-1][:2]
        result["pages_per_second"] = round((n2 - n1) / (t2 - t1), 2) if t2 > t1 else None
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=2000, help="articles on the served site, all rendered")
    parser.add_argument("--first", type=int, default=500, help="the page of the first memory sample")
    parser.add_argument("--concurrency", type=int, default=8, help="requests at once")
    parser.add_argument("--project", type=Path, default=ROOT, help="the checkout whose crawl runs")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    result = run(args.pages, args.first, args.concurrency, args.project.resolve())
    first, last = result.get(f"rss_mb_at_{args.first}"), result.get(f"rss_mb_at_{args.pages}")
    print(f"rendered {result['exported']} of {result['pages']} pages in {result['seconds']} s "
          f"(exit status {result['exit_status']}); RSS of all processes: {first} MB at page {args.first}, "
          f"{last} MB at page {args.pages} ({result.get('growth_percent')} %), "
          f"peak {result['peak_rss_mb']} MB; "
          f"{result.get('pages_per_second')} pages/s between the two")
    if result["log_tail"]:
        print(result["log_tail"], file=sys.stderr)
    if args.json:
        args.json.write_text(json.dumps(result, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
