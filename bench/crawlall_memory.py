"""Peak memory of ``scrapy crawlall`` over many configured sites: all its processes together.

The script serves a generated news site (:mod:`bench.site`, a few articles) on 127.0.0.1,
writes a sites file of ``--sites`` sites (default 50) that all read it, runs ``scrapy crawlall``
over them in a child process and samples, every 0.1 s, the resident memory of that process and
of all its descendants (the extraction workers): the sum of ``VmRSS`` over the process tree,
read from ``/proc``.  It prints the peak of that sum, the most processes seen at once, the time
and the articles exported::

    python bench/crawlall_memory.py                          # 50 sites, 5 articles each
    python bench/crawlall_memory.py --sites 22 --concurrent 4
    python bench/crawlall_memory.py --project /path/to/other/checkout   # the same run elsewhere

Target (issue 29, item 5): peak < 2 GB for 50 sites.  Before bounded ``crawlall`` and the
shared extraction pool every site ran at once with its own worker (22 sites: 25 processes,
5.9 GB).  Linux only (``/proc``).
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

from bench.site import ARTICLE_RE, SiteProcess  # noqa: E402

PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")


def process_tree(root: int) -> list[int]:
    """``root`` and every descendant alive now (parents read from ``/proc/<pid>/stat``)."""
    children: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(entry.path, "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry.name))
    tree, todo = [], [root]
    while todo:
        pid = todo.pop()
        tree.append(pid)
        todo.extend(children.get(pid, ()))
    return tree


def rss_bytes(pid: int) -> int:
    """Resident set size of ``pid`` (``/proc/<pid>/statm``); 0 once it is gone."""
    try:
        return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE_SIZE
    except (OSError, IndexError, ValueError):
        return 0


def sites_file(path: Path, base: str, count: int) -> list[str]:
    names = [f"bench{n:02d}" for n in range(count)]
    text = "".join(
        f'[sites.{name}]\nlanguage = "en"\ndomains = ["127.0.0.1"]\n'
        f'catalogues = ["{base}/list/1.html?site={name}"]\narticle_pattern = \'{ARTICLE_RE}\'\n'
        "politeness = { download_delay = 0.0, autothrottle = false }\n\n"
        for name in names)
    path.write_text(text, encoding="utf-8")
    return names


def run(sites: int, articles: int, concurrent: int | None, processes: int | None, project: Path,
        interval: float = 0.1) -> dict:
    with tempfile.TemporaryDirectory(prefix="crawlall-memory-") as tmp, SiteProcess(articles) as server:
        tmp = Path(tmp)
        names = sites_file(tmp / "sites.toml", server.base, sites)
        out = tmp / "out"
        cmd = [sys.executable, "-m", "scrapy", "crawlall", "--sites", ",".join(names),
               "-o", f"{out}/%(name)s.jsonl", "-s", f"NEWSCRAWL_SITES={tmp / 'sites.toml'}",
               "-s", f"NEWSCRAWL_STATE_DIR={tmp / 'state'}", "-s", "RETRY_TIMES=0", "-s", "LOG_LEVEL=WARNING"]
        if concurrent is not None:
            cmd += ["-s", f"NEWSCRAWL_CONCURRENT_SITES={concurrent}"]
        if processes is not None:
            cmd += ["-s", f"NEWSCRAWL_EXTRACT_PROCESSES={processes}"]
        env = {**os.environ, "PYTHONPATH": str(project)}
        started = time.monotonic()
        proc = subprocess.Popen(cmd, cwd=project, env=env, stdout=subprocess.DEVNULL,
                                stderr=open(tmp / "crawl.log", "w"))
        peak, most = 0, 0
        while proc.poll() is None:
            tree = process_tree(proc.pid)
            peak = max(peak, sum(rss_bytes(pid) for pid in tree))
            most = max(most, len(tree))
            time.sleep(interval)
        elapsed = time.monotonic() - started
        exported = sum(len(f.read_text().splitlines()) for f in out.glob("*.jsonl")) if out.exists() else 0
        log_tail = (tmp / "crawl.log").read_text(errors="replace")[-2000:]
    return {"sites": sites, "articles_per_site": articles, "concurrent_sites": concurrent,
            "extract_processes": processes, "exit_status": proc.returncode,
            "peak_rss_mb": round(peak / 2**20), "most_processes": most,
            "seconds": round(elapsed, 1), "exported": exported,
            "log_tail": log_tail if proc.returncode else ""}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sites", type=int, default=50)
    parser.add_argument("--articles", type=int, default=5, help="articles on the served site (each site's)")
    parser.add_argument("--concurrent", type=int, help="NEWSCRAWL_CONCURRENT_SITES (default: the project's)")
    parser.add_argument("--processes", type=int, help="NEWSCRAWL_EXTRACT_PROCESSES (default: the project's)")
    parser.add_argument("--project", type=Path, default=ROOT, help="the checkout whose crawlall runs")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    result = run(args.sites, args.articles, args.concurrent, args.processes, args.project.resolve())
    print(f"crawlall over {result['sites']} sites ({result['articles_per_site']} articles each): "
          f"peak RSS of all processes {result['peak_rss_mb']} MB, at most {result['most_processes']} "
          f"processes, {result['seconds']} s, {result['exported']} articles exported, "
          f"exit status {result['exit_status']}")
    if result["log_tail"]:
        print(result["log_tail"], file=sys.stderr)
    if args.json:
        args.json.write_text(json.dumps(result, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
