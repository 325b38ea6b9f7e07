"""``scrapy archive`` speed and memory: CPU per article against trafilatura on the same records, two
workers against one, peak memory as the archive grows.  Not a test (timings depend on the machine).

    python bench/archive_speed.py            # 3,000 records in 6 files; memory at 1,000 and 10,000
    python bench/archive_speed.py --records 1000 --memory 1000,3000 --repeat 1
    python bench/archive_speed.py --memory-only --repeat 3   # peak memory only, median of 3 runs a size

The archives are written at run time into a temporary directory from the real pages under
``../shared/datasets`` (never stored in the project), as ``bench/warc_speed.py`` writes them:
2,982 pages taken evenly over every set, cycled (``?copy=K`` added) when more records are asked
for, one gzip member a record, split over ``--files`` files (the job's unit of work is a file).

- **CPU per article** — every process of the job (the command, the Dask scheduler, nannies and
  workers: ``RUSAGE_CHILDREN`` of this process once the command has exited), divided by the
  articles written; *total* includes start-up (imports, the local cluster, the extraction's
  warm-up), *marginal* removes it with a run over ``--startup-records`` records:
  (CPU(N) − CPU(n)) ÷ (articles(N) − articles(n)).  Against trafilatura's ``bare_extraction``
  (with metadata, as ``bench/extract_speed.py`` runs it) on the same records (read with warcio,
  in this process, ``time.process_time``), per record and per article it returned;
- **wall** — the command's wall time with 1 and 2 workers (same files), and the marginal wall
  time (start-up run subtracted); the machine's load average is printed beside (other people's
  work on the same cores slows the runs down);
- **peak memory** — the largest sum of resident memory over the job's processes (``/proc``,
  every 0.1 s) at each ``--memory`` size (one worker, one file: memory must not grow with the
  records of a file), the median of ``--repeat`` runs.
"""

from __future__ import annotations

import argparse
import importlib.util
import io
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(ROOT))


def _warc_speed():
    spec = importlib.util.spec_from_file_location("warc_speed", ROOT / "bench" / "warc_speed.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SPEED = _warc_speed()


def write_files(directory: Path, pages: list, records: int, files: int) -> list[Path]:
    """``records`` records over ``files`` files, cycling through ``pages`` as one sequence."""
    from warcio.statusandheaders import StatusAndHeaders

    from newscrawl.archives.warc_files import WarcFiles

    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    per_file = -(-records // files)
    for index in range(files):
        path = directory / f"part-{index:03d}.warc.gz"
        writer = WarcFiles(path, 0, {"software": "bench/archive_speed.py"})
        for number in range(index * per_file, min(records, (index + 1) * per_file)):
            url, body = pages[number % len(pages)]
            copy = number // len(pages)
            if copy:
                url += ("&" if "?" in url else "?") + f"copy={copy}"
            headers = [("Content-Type", "text/html"), ("Content-Length", str(len(body)))]
            http = StatusAndHeaders("200 OK", headers, protocol="HTTP/1.1")
            writer.write([writer.builder.create_warc_record(url, "response", payload=io.BytesIO(body),
                                                            length=len(body), http_headers=http)])
        writer.close()
        paths.append(path)
    return paths


def run_job(paths: list[Path], workers: int, out: Path) -> dict:
    """One ``newscrawl archive`` process: wall and CPU seconds over all its processes, peak memory."""
    command = [sys.executable, "-m", "newscrawl", "archive", *map(str, paths), "-o", str(out),
               "--workers", str(workers)]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    load = os.getloadavg()[0]
    started = time.perf_counter()
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    memory = SPEED.TreeMemory(process.pid)
    memory.start()
    stdout, stderr = process.communicate()
    wall = time.perf_counter() - started
    memory.stopping.set()
    memory.join()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if process.returncode != 0:
        raise SystemExit(f"newscrawl archive failed ({process.returncode}):\n{stdout.decode()}\n"
                         f"{stderr.decode()[-3000:]}")
    from newscrawl.archives.output import finished_outputs, read_rows

    articles = sum(len(read_rows(p)) for p in finished_outputs(out))
    return {"workers": workers, "wall": wall, "cpu": (after.ru_utime - before.ru_utime)
            + (after.ru_stime - before.ru_stime), "articles": articles,
            "peak_total_mb": memory.peak_total / 1e6, "load": (load + os.getloadavg()[0]) / 2,
            "summary": stdout.decode().strip().splitlines()[0]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=3000)
    parser.add_argument("--files", type=int, default=6)
    parser.add_argument("--startup-records", type=int, default=60)
    parser.add_argument("--memory", default="1000,10000",
                        help="record counts for the memory runs ('' = none)")
    parser.add_argument("--repeat", type=int, default=1,
                        help="rounds of the speed runs, and memory runs at each size (median reported)")
    parser.add_argument("--memory-only", action="store_true", help="only the memory runs")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    pages = SPEED.spread(SPEED.dataset_pages(SPEED.DATASETS_DIR), args.records)
    figures: dict = {"records": args.records, "distinct_pages": len(pages), "rounds": []}
    with tempfile.TemporaryDirectory(prefix="archive-speed-") as scratch:
        work = Path(scratch)
        if not args.memory_only:
            files = write_files(work / "main", pages, args.records, args.files)
            small = write_files(work / "startup", pages, args.startup_records, args.files)
        for round_number in range(0 if args.memory_only else args.repeat):
            found = {}
            for workers in (1, 2):
                found[f"start{workers}"] = run_job(small, workers, work / f"o-s{workers}-{round_number}")
                found[f"job{workers}"] = run_job(files, workers, work / f"o-{workers}-{round_number}")
            found["trafilatura"] = trafilatura(files)
            found["mapper"] = mapper_in_process(files)
            figures["rounds"].append(found)
            report_round(found, args.records)
        for count in [int(c) for c in args.memory.split(",") if c.strip()]:
            one = write_files(work / f"mem-{count}", pages, count, 1)
            runs = [run_job(one, 1, work / f"o-mem-{count}-{n}") for n in range(max(1, args.repeat))]
            peaks = [run["peak_total_mb"] for run in runs]
            figures[f"memory_{count}"] = dict(runs[0], peak_total_mb=SPEED.median(peaks), peaks_mb=peaks)
            print(f"memory, {count:,} records (one file, one worker): peak {SPEED.median(peaks):.0f} MB "
                  f"over all processes (median of {', '.join(f'{p:.0f}' for p in peaks)}; load "
                  f"{sum(run['load'] for run in runs) / len(runs):.1f})")
            for path in one:
                path.unlink()
        sizes = [k for k in figures if k.startswith("memory_")]
        if len(sizes) >= 2:
            first, last = figures[sizes[0]]["peak_total_mb"], figures[sizes[-1]]["peak_total_mb"]
            growth = 100 * (last / first - 1)
            print(f"peak memory {sizes[0][7:]} -> {sizes[-1][7:]} records: {growth:+.1f} % (medians)")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2), encoding="utf-8")
    return 0


def mapper_in_process(paths: list[Path]) -> dict:
    """The job's own work without the job: read_archive and map_page in this process (CPU seconds)."""
    from newscrawl.archives.mapper import map_page, warm_up
    from newscrawl.archives.warc_reader import Skip, read_archive

    warm_up()
    started, articles = time.process_time(), 0
    for path in paths:
        for outcome in read_archive(path):
            if not isinstance(outcome, Skip):
                articles += isinstance(map_page(outcome), dict)
    return {"cpu": time.process_time() - started, "articles": articles}


def trafilatura(paths: list[Path]) -> dict:
    runs = [SPEED.run_trafilatura(p) for p in paths]
    return {k: sum(r[k] for r in runs) for k in ("cpu", "pages", "extracted")}


def report_round(found: dict, records: int) -> None:
    traf = found["trafilatura"]
    traf_record = traf["cpu"] / traf["pages"]
    traf_article = traf["cpu"] / max(1, traf["extracted"])
    print(f"trafilatura: {traf['pages']} records, {traf['extracted']} extracted, "
          f"{traf_record * 1e3:.2f} ms CPU a record, {traf_article * 1e3:.2f} ms an article")
    mapper = found["mapper"]
    print(f"the mapper alone, in one process (no engine, no output): {mapper['articles']} articles, "
          f"{mapper['cpu'] / max(1, mapper['articles']) * 1e3:.2f} ms CPU an article")
    for workers in (1, 2):
        job, start = found[f"job{workers}"], found[f"start{workers}"]
        marginal = (job["cpu"] - start["cpu"]) / max(1, job["articles"] - start["articles"])
        total = job["cpu"] / max(1, job["articles"])
        print(f"{workers} worker(s): {job['summary']}")
        print(f"  wall {job['wall']:.1f} s (start-up run {start['wall']:.1f} s, load {job['load']:.1f}); "
              f"CPU {job['cpu']:.1f} s over all processes, {job['articles']} articles: "
              f"{total * 1e3:.2f} ms an article in total ({traf_article / total:.2f}x trafilatura's), "
              f"{marginal * 1e3:.2f} ms marginal ({traf_article / marginal:.2f}x); per record "
              f"{job['cpu'] / records * 1e3:.2f} ms ({traf_record / (job['cpu'] / records):.2f}x)")
    one, two = found["job1"], found["job2"]
    s1, s2 = found["start1"], found["start2"]
    print(f"2 workers vs 1, wall: {one['wall'] / two['wall']:.2f}x in total, "
          f"{(one['wall'] - s1['wall']) / max(1e-9, two['wall'] - s2['wall']):.2f}x marginal")


if __name__ == "__main__":
    sys.exit(main())
