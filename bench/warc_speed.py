"""Extraction from WARC archives: pages per second with 1 and 2 worker processes, pages per
CPU-second against trafilatura over the same records, and peak memory as the archive grows.

Not a test (timings depend on the machine).  The archive is written at run time into a temporary
directory from the real pages under ``../shared/datasets`` (never stored in the project): one
gzip-per-record ``response`` record per page, with its dataset URL (or a made-up one on a host of
its own when the dataset gives none) and ``Content-Type: text/html`` without a charset, so the
decoder reads the page's own declarations as a crawler would.  Every archive cycles through the
same N pages (N = the smallest size asked for), taken evenly over every dataset so that sites and
languages mix as in a CC-NEWS archive, repeated with ``?copy=K`` added to the URL, so that a larger
archive is the same sites and pages again, only longer::

    python bench/warc_speed.py                      # 1,000 records for speed, 1,000 and 5,000 for memory
                                                    # (the same 1,000 pages, repeated)
    python bench/warc_speed.py --records 1000 --workers 1,2 --memory 1000 --repeat 3   # speed only
    python bench/warc_speed.py --records 500 --memory 500,2000 --json out.json

``--repeat K`` runs K rounds (each: every worker count, then trafilatura) and reports medians; the
last lines printed are the summary against the bars of issue #17.

Each newscrawl figure is one ``scrapy crawl warc -a keep=html`` process (the command a user
runs, every page through the crawl's extraction stage, validation and JSON-lines export):

- **pages/s** — records per wall second, with ``NEWSCRAWL_EXTRACT_PROCESSES`` 1 and 2, in the
  steady state: the feed file is flushed per article and polled every 0.1 s, and the rate is taken
  between the 10% and the 90% marks of the run's exports (so start-up, warm-up and the tail are
  left out, however long they take on a busy machine).  Also printed: (N − 50) ÷ (t(N) − t(50)),
  with a run over the first 50 records as the fixed cost (imports, spawning and warming workers);
- **pages per CPU-second** — records ÷ the CPU seconds of the crawl process and its workers
  (``RUSAGE_CHILDREN``, start-up run subtracted the same way), against trafilatura's
  ``bare_extraction`` (with metadata, as in ``bench/extract_speed.py``) reading the same records
  with warcio in this process (``time.process_time``);
- **crawl process ms/page** — the crawl process's own CPU per page (reading, decoding, Scrapy,
  export; ``/proc``), the part that does not scale with workers;
- **peak memory** — the largest sum of resident memory over the crawl process and its workers
  (``/proc``, polled every 0.1 s), and the crawl process's own peak, at each ``--memory`` size.

Wall-clock figures need an idle machine: the load average (``os.getloadavg``) is printed beside them.
On a busy machine the 2-vs-1 scaling is also *projected* from each process's CPU seconds (``/proc``):
a run cannot finish before its busiest process (crawl process or one worker; a site's pages all
go to one worker) nor before all of its CPU time spread over the two cores.  The main projection
takes one 2-worker run's CPU seconds and compares them with the same work done by one worker
(which runs beside the crawl process, so at best 2W / (W + M) for workers' CPU W and the crawl
process's M); the projection across the 1- and 2-worker runs is printed too, but it carries the
run-to-run noise of a busy machine.
"""

from __future__ import annotations

import argparse
import io
import json
import logging
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from newscrawl.archives.warc_files import WarcFiles  # noqa: E402
from newscrawl.evaluation.datasets import load_dataset  # noqa: E402

DATASETS_DIR = ROOT.parent / "shared" / "datasets"
NOT_PAGES = ("rss-feeds", "catalogue-pages", "catalogue-labelled")
STARTUP_RECORDS = 50


# --- the archive -------------------------------------------------------------------------------


def dataset_pages(directory: Path) -> list[tuple[str, bytes]]:
    """(URL, raw bytes) of every dataset page; pages without a URL get one on a host of their own."""
    pages = []
    for dataset in sorted(d for d in directory.iterdir() if d.is_dir() and d.name not in NOT_PAGES):
        for record in load_dataset(dataset):
            url = record.url
            if not url or not url.startswith(("http://", "https://")):
                slug = "".join(c if c.isalnum() else "-" for c in record.id.lower())[:50].strip("-")
                url = f"https://{slug or 'page'}.{dataset.name}.example/article.html"
            pages.append((url, record.html))
    return pages


def write_archive(path: Path, pages: list[tuple[str, bytes]], count: int) -> Path:
    """``count`` response records, cycling through ``pages``."""
    from warcio.statusandheaders import StatusAndHeaders

    files = WarcFiles(path, 0, {"software": "bench/warc_speed.py", "format": "WARC File Format 1.1"})
    for number in range(count):
        url, body = pages[number % len(pages)]
        copy = number // len(pages)
        if copy:
            url += ("&" if "?" in url else "?") + f"copy={copy}"
        http = StatusAndHeaders("200 OK", [("Content-Type", "text/html"), ("Content-Length", str(len(body)))],
                                protocol="HTTP/1.1")
        record = files.builder.create_warc_record(url, "response", payload=io.BytesIO(body),
                                                  length=len(body), http_headers=http)
        files.write([record])
    files.close()
    return path


# --- newscrawl: one `scrapy crawl warc` process --------------------------------------------------


_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def proc_stat(pid: int) -> tuple[float, int]:
    """(CPU seconds, resident bytes) of a live process, from ``/proc/PID/stat`` (Linux)."""
    with open(f"/proc/{pid}/stat", "rb") as fh:
        fields = fh.read().rsplit(b")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / _TICKS, int(fields[21]) * _PAGE


def proc_children(pid: int) -> list[int]:
    """The process's descendants (``/proc/PID/task/TID/children``), children first."""
    found, todo = [], [pid]
    while todo:
        parent = todo.pop()
        try:
            tasks = os.listdir(f"/proc/{parent}/task")
        except OSError:
            continue
        for tid in tasks:
            try:
                with open(f"/proc/{parent}/task/{tid}/children", "rb") as fh:
                    kids = [int(k) for k in fh.read().split()]
            except OSError:
                continue
            found += kids
            todo += kids
    return found


class TreeMemory(threading.Thread):
    """Polls the resident memory and CPU seconds of a process and its descendants (``/proc``,
    every 0.1 s); keeps the memory peaks, each process's last CPU reading and, when ``out`` is
    given, the lines in that feed file over time (it is flushed per article)."""

    def __init__(self, pid: int, out: Path | None = None, interval: float = 0.1):
        super().__init__(daemon=True)
        self.pid = pid
        self.out = out
        self.progress: list[tuple[float, int]] = []  # (perf_counter, lines exported so far)
        self._read = 0
        self.interval = interval
        self.peak_total = 0
        self.peak_main = 0
        self.main_cpu = 0.0  # the crawl process's own CPU seconds, at the last poll
        self.child_cpu: dict[int, float] = {}  # each worker's CPU seconds, at its last poll
        self.stopping = threading.Event()

    def run(self) -> None:
        while not self.stopping.is_set():
            try:
                self.main_cpu, main = proc_stat(self.pid)
            except (OSError, IndexError, ValueError):  # the crawl process has ended
                break
            total = main
            for child in proc_children(self.pid):
                try:
                    cpu, rss = proc_stat(child)
                except (OSError, IndexError, ValueError):
                    continue
                self.child_cpu[child] = cpu
                total += rss
            self.peak_main = max(self.peak_main, main)
            self.peak_total = max(self.peak_total, total)
            self._count_exports()
            self.stopping.wait(self.interval)

    def _count_exports(self) -> None:
        try:
            with open(self.out, "rb") as fh:
                if os.fstat(fh.fileno()).st_size < self._read:  # truncated (-O): counted afresh
                    self._read, self.progress = 0, []
                fh.seek(self._read)
                data = fh.read()
        except (OSError, TypeError):  # not there yet, or no file to watch
            return
        self._read += len(data)
        lines = (self.progress[-1][1] if self.progress else 0) + data.count(b"\n")
        if not self.progress or lines != self.progress[-1][1]:
            self.progress.append((time.perf_counter(), lines))

    def steady_rate(self, low: float = 0.1, high: float = 0.9) -> float | None:
        """Articles exported per wall second between the ``low`` and ``high`` shares of the run's
        exports: start-up, warm-up and the last pages' tail left out, whatever their length."""
        if not self.progress:
            return None
        total = self.progress[-1][1]
        start = next(((t, n) for t, n in self.progress if n >= low * total), None)
        end = next(((t, n) for t, n in self.progress if n >= high * total), None)
        if start is None or end is None or end[0] - start[0] < 1.0:
            return None
        return (end[1] - start[1]) / (end[0] - start[0])


def run_newscrawl(archive: Path, workers: int, work: Path) -> dict:
    """One extraction run; wall and CPU seconds, peak memory, articles exported."""
    out = work / f"out-{archive.stem}-{workers}.jsonl"
    command = [sys.executable, "-m", "scrapy", "crawl", "warc", "-a", f"path={archive}", "-a", "keep=html",
               "-O", str(out), "-s", f"NEWSCRAWL_EXTRACT_PROCESSES={workers}",
               "-s", f"NEWSCRAWL_STATE_DIR={work / f'state-{archive.stem}-{workers}'}",
               "-s", "LOG_LEVEL=WARNING"]
    out.unlink(missing_ok=True)  # the progress is read from this file: not an earlier run's
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    memory = TreeMemory(process.pid, out)
    memory.start()
    _, stderr = process.communicate()
    wall = time.perf_counter() - started
    memory.stopping.set()
    memory.join()
    memory._count_exports()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if process.returncode not in (0, 1):
        raise SystemExit(f"scrapy crawl warc failed ({process.returncode}):\n{stderr.decode()[-2000:]}")
    exported = sum(1 for _ in out.open(encoding="utf-8")) if out.exists() else 0
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    steady_rate = memory.steady_rate()
    return {"records": _records(archive), "wall": wall, "cpu": cpu,
            "steady_pages_per_second": steady_rate * _records(archive) / exported if steady_rate else None,
            "peak_total_mb": memory.peak_total / 1e6, "peak_main_mb": memory.peak_main / 1e6,
            "main_cpu": memory.main_cpu, "worker_cpu": sorted(memory.child_cpu.values(), reverse=True),
            "exported": exported}


def _records(archive: Path) -> int:
    return int(archive.name.split("-")[1].split(".")[0])


def projected_seconds(run: dict, cores: int = 2) -> float:
    """The run's CPU work laid out on ``cores`` idle cores: no faster than its busiest process
    (the crawl process or one worker) and than all of its CPU spread over the cores."""
    busiest = max([run["main_cpu"], *run["worker_cpu"]])
    return max(busiest, (run["main_cpu"] + sum(run["worker_cpu"])) / cores)


def projected_scaling(run: dict) -> float:
    """2 workers vs 1 for one run's CPU work (per process, start-up removed): the same work with
    all of its workers' share in one worker (no faster than that worker or the crawl process),
    against the run as it was laid out.  Free of the run-to-run noise of a busy machine."""
    one = max(run["main_cpu"], sum(run["worker_cpu"]))
    return one / max(1e-9, projected_seconds(run))


def steady(run: dict, startup: dict) -> dict:
    """A run's per-process CPU seconds less those of the start-up run (imports, warm-up)."""
    busy = [cpu for cpu in run["worker_cpu"] if cpu >= 0.05]  # not multiprocessing's resource tracker
    workers = [round(a - b, 1) for a, b in zip(busy, startup["worker_cpu"], strict=False)]
    return {"main_cpu": run["main_cpu"] - startup["main_cpu"], "worker_cpu": workers}


# --- trafilatura over the same records ------------------------------------------------------------


def run_trafilatura(archive: Path) -> dict:
    """trafilatura on every record of ``archive``, read with warcio, in this process: CPU seconds."""
    import trafilatura
    from warcio.archiveiterator import ArchiveIterator

    logging.getLogger("trafilatura").setLevel(logging.CRITICAL)
    logging.getLogger("htmldate").setLevel(logging.CRITICAL)
    pages = extracted = 0
    started = time.process_time()
    with archive.open("rb") as fh:
        for record in ArchiveIterator(fh):
            if record.rec_type != "response":
                continue
            body = record.content_stream().read()
            pages += 1
            try:
                url = record.rec_headers.get_header("WARC-Target-URI")
                result = trafilatura.bare_extraction(body, url=url, with_metadata=True,
                                                     include_comments=False, include_tables=True,
                                                     include_formatting=False)
            except Exception:  # noqa: BLE001 - a failing page costs what it cost
                result = None
            extracted += result is not None
    return {"cpu": time.process_time() - started, "pages": pages, "extracted": extracted}


# --- report ------------------------------------------------------------------------------------


def spread(pages: list[tuple[str, bytes]], count: int) -> list[tuple[str, bytes]]:
    """``count`` pages taken evenly over ``pages`` (every dataset in its share, sites mixed as in
    a CC-NEWS archive), in their order."""
    if count >= len(pages):
        return list(pages)
    return [pages[number * len(pages) // count] for number in range(count)]


def median(values: list[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def cpu_line(run: dict, startup: dict) -> str:
    """Each process's CPU seconds, start-up run removed, and their sum beside ``RUSAGE_CHILDREN``'s."""
    own = steady(run, startup)
    return (f"CPU crawl process {own['main_cpu']:.1f} s + workers {own['worker_cpu']} s "
            f"= {own['main_cpu'] + sum(own['worker_cpu']):.1f} s (all processes by rusage: "
            f"{run['cpu'] - startup['cpu']:.1f} s)")


def speed_run(archive: Path, count: int, base: dict, work: Path, number: int) -> dict:
    """One timed ``scrapy crawl warc`` run with ``count`` workers; its rates with start-up removed."""
    full = run_newscrawl(archive, count, work)
    pages = full["records"] - STARTUP_RECORDS
    full["load"] = os.getloadavg()
    full["pages_per_second_startup_removed"] = pages / max(1e-9, full["wall"] - base["wall"])
    full["pages_per_second"] = full["steady_pages_per_second"] or full["pages_per_second_startup_removed"]
    full["pages_per_cpu_second"] = pages / max(1e-9, full["cpu"] - base["cpu"])
    full["crawl_process_ms_per_page"] = 1000 * (full["main_cpu"] - base["main_cpu"]) / pages
    print(f"[round {number}] newscrawl, {count} worker(s): {full['pages_per_second']:.1f} pages/s "
          f"(start-up run subtracted instead: {full['pages_per_second_startup_removed']:.1f}), "
          f"{full['pages_per_cpu_second']:.1f} pages/CPU-s; {cpu_line(full, base)}; crawl process "
          f"{full['crawl_process_ms_per_page']:.2f} ms CPU/page; run {full['wall']:.1f} s wall "
          f"(start-up {base['wall']:.1f} s); {full['exported']} exported; peak "
          f"{full['peak_total_mb']:.0f} MB; load {_load(full['load'])}", flush=True)
    return full


def summary(rounds: list[dict], startup: dict) -> dict:
    """The medians of a worker count's rounds; ``run`` is the round of the median wall time."""
    middle = median([r["wall"] for r in rounds])
    names = ("pages_per_second", "pages_per_cpu_second", "crawl_process_ms_per_page")
    return {"startup": startup, "rounds": rounds, "run": min(rounds, key=lambda r: abs(r["wall"] - middle)),
            **{name: median([r[name] for r in rounds]) for name in names},
            "load": median([r["load"][0] for r in rounds])}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets-dir", type=Path, default=DATASETS_DIR)
    parser.add_argument("--records", type=int, default=1000, help="records of the speed runs")
    parser.add_argument("--memory", default="1000,5000", help="archive sizes of the memory runs")
    parser.add_argument("--workers", default="1,2", help="worker process counts of the speed runs")
    parser.add_argument("--repeat", type=int, default=1,
                        help="speed rounds (each: every worker count, then trafilatura); medians reported")
    parser.add_argument("--json", type=Path, help="write the figures here")
    args = parser.parse_args(argv)
    if not args.datasets_dir.is_dir():
        print(f"no datasets at {args.datasets_dir}", file=sys.stderr)
        return 1
    pages = dataset_pages(args.datasets_dir)
    workers = [int(w) for w in args.workers.split(",")]
    sizes = sorted({int(s) for s in args.memory.split(",") if s} | {args.records})
    report: dict = {"dataset_pages": len(pages), "load_before": os.getloadavg(), "cores": os.cpu_count()}
    # Every archive cycles through the same pages, so that the runs differ in length only (a
    # site's template library is state the crawl keeps, not the archive's stream).
    distinct = spread(pages, min(args.records, *sizes))
    sites = len({urlsplit(url).hostname for url, _ in distinct})
    print(f"{len(pages)} dataset pages; the archives cycle through {len(distinct)} of them, taken evenly "
          f"over every dataset ({sites} sites); {os.cpu_count()} cores; load average before: "
          f"{_load(report['load_before'])}", flush=True)
    with tempfile.TemporaryDirectory(prefix="warc-speed-") as tmp:
        work = Path(tmp)
        archives = {n: write_archive(work / f"pages-{n}.warc.gz", distinct, n)
                    for n in [STARTUP_RECORDS, *sizes]}
        print("archives: " + ", ".join(f"{n} records {p.stat().st_size / 1e6:.1f} MB"
                                       for n, p in archives.items()), flush=True)

        startups = {count: run_newscrawl(archives[STARTUP_RECORDS], count, work) for count in workers}
        rounds: dict[str, list[dict]] = {str(count): [] for count in workers}
        trafilatura_rounds: list[dict] = []
        for number in range(1, args.repeat + 1):
            for count in workers:
                run = speed_run(archives[args.records], count, startups[count], work, number)
                rounds[str(count)].append(run)
            trafilatura = run_trafilatura(archives[args.records])
            trafilatura["pages_per_cpu_second"] = trafilatura["pages"] / trafilatura["cpu"]
            trafilatura_rounds.append(trafilatura)
            print(f"[round {number}] trafilatura: {trafilatura['pages_per_cpu_second']:.1f} pages/CPU-s "
                  f"({trafilatura['pages']} records, {trafilatura['cpu']:.1f} s CPU, "
                  f"{trafilatura['extracted']} extracted); load {_load(os.getloadavg())}", flush=True)

        runs = {str(count): summary(rounds[str(count)], startups[count]) for count in workers}
        report["newscrawl"] = runs
        traf = {"rounds": trafilatura_rounds,
                "pages_per_cpu_second": median([t["pages_per_cpu_second"] for t in trafilatura_rounds])}
        report["trafilatura"] = traf

        memory = {}
        most = max(workers)
        for size in sizes:
            if size == args.records:
                memory[size] = runs[str(most)]["run"]
            else:
                memory[size] = run_newscrawl(archives[size], most, work)
            print(f"{size} records, {most} worker(s): peak {memory[size]['peak_total_mb']:.0f} MB "
                  f"(crawl process {memory[size]['peak_main_mb']:.0f} MB), "
                  f"{memory[size]['exported']} exported", flush=True)
        report["memory"] = memory

    report["load_after"] = os.getloadavg()
    rounds_note = f"median of {args.repeat} rounds" if args.repeat > 1 else "one round"
    print(f"\n== summary: {args.records} records, {os.cpu_count()} cores, {rounds_note}; load average "
          f"before {_load(report['load_before'])}, after {_load(report['load_after'])} ==")
    if "1" in runs and "2" in runs:
        one, two = runs["1"], runs["2"]
        report["scaling_2_vs_1"] = two["pages_per_second"] / one["pages_per_second"]
        print(f"2 workers vs 1, wall clock: {report['scaling_2_vs_1']:.2f}x pages/s "
              f"({two['pages_per_second']:.1f} vs {one['pages_per_second']:.1f}; load "
              f"{two['load']:.2f} / {one['load']:.2f})  [bar >= 1.7x; needs an idle machine]")
        within = [projected_scaling(steady(r, two["startup"])) for r in two["rounds"]]
        report["scaling_projected"] = median(within)
        report["scaling_projected_across_runs"] = (projected_seconds(steady(one["run"], one["startup"]))
                                                   / projected_seconds(steady(two["run"], two["startup"])))
        print(f"2 workers vs 1, projected onto 2 idle cores from each process's CPU seconds in the 2-worker "
              f"run{'s' if len(within) > 1 else ''}: {report['scaling_projected']:.2f}x "
              f"({', '.join(f'{x:.2f}' for x in within)}; across the 1- and 2-worker runs: "
              f"{report['scaling_projected_across_runs']:.2f}x)")
    for key, run in runs.items():
        ratio = run["pages_per_cpu_second"] / traf["pages_per_cpu_second"]
        report.setdefault("cpu_vs_trafilatura", {})[key] = ratio
        print(f"newscrawl ({key} worker{'s' if key != '1' else ''}) vs trafilatura, pages per CPU-second "
              f"(all processes, same records, same run): {ratio:.2f}x ({run['pages_per_cpu_second']:.1f} vs "
              f"{traf['pages_per_cpu_second']:.1f})  [bar >= 4x]")
    small, large = min(sizes), max(sizes)
    if small != large:
        growth = memory[large]["peak_total_mb"] / memory[small]["peak_total_mb"] - 1
        main_growth = memory[large]["peak_main_mb"] / memory[small]["peak_main_mb"] - 1
        report["memory_growth"] = {"total": growth, "crawl_process": main_growth}
        print(f"peak memory {small} -> {large} records: {100 * growth:+.1f}% (crawl process "
              f"{100 * main_growth:+.1f}%)  [bar < 25%]")
    if args.json:
        args.json.write_text(json.dumps(report, indent=1), encoding="utf-8")
    return 0


def _load(load: tuple[float, ...]) -> str:
    return "/".join(f"{value:.2f}" for value in load)


if __name__ == "__main__":
    sys.exit(main())
