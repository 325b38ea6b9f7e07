"""Dask distributed against Apache Spark (local mode) as the engine of ``scrapy archive``: start-up,
overhead per task, overhead per record when records themselves flow through the engine, and the
install's size.  Not a test (timings depend on the machine); docs/archives.md quotes the figures.

    python bench/archive_engines.py --workers 2                       # Dask only
    PYTHONPATH=/tmp/pyspark-t python bench/archive_engines.py --spark  # and Spark (needs Java)

- **start-up** — from nothing to the first task's result: a ``LocalCluster`` of N worker processes
  and its client; a ``SparkSession`` ``local[N]`` and one job (the JVM, the Python workers);
- **per task** — the wall time per task of 1,000 tasks that do nothing (one task = one input
  file in the job: what the engine adds to each file);
- **per record** — the wall time per record of mapping 20,000 small records through the engine
  (``dask.bag`` / an RDD), against the same map in a plain loop: what a record would pay if
  records, not files, were the engine's unit (they are not: the job maps a file's records in one task);
- **CPU** — every process's CPU seconds over the run (``/proc``, this process and its descendants);
- **install** — the size of the installed packages (site-packages directories), and whether a JVM is needed.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

# bench/distributed.py (the distributed-crawl bench) would shadow Dask's package of that name
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.warc_speed import proc_children  # noqa: E402


def tree_cpu() -> float:
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    live = 0.0
    for pid in proc_children(os.getpid()):
        try:
            with open(f"/proc/{pid}/stat", "rb") as fh:
                fields = fh.read().rsplit(b")", 1)[1].split()
            live += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except OSError:
            pass
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime + live


def size_of(*modules: str) -> int:
    total = 0
    for name in modules:
        try:
            module = __import__(name)
        except ImportError:
            continue
        root = Path(module.__file__).parent
        total += sum(p.stat().st_size for p in root.rglob("*") if p.is_file())
    return total


def noop(x):
    return x


def small(x):
    return x * 2


def dask_figures(workers: int, tasks: int, records: int) -> dict:
    import dask.bag as db
    from distributed import Client, LocalCluster

    cpu0, t0 = tree_cpu(), time.perf_counter()
    cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None)
    client = Client(cluster)
    client.submit(noop, 1).result()
    startup = time.perf_counter() - t0
    t1 = time.perf_counter()
    client.gather(client.map(noop, range(tasks), pure=False))
    per_task = (time.perf_counter() - t1) / tasks
    t2 = time.perf_counter()
    db.from_sequence(range(records), npartitions=workers * 4).map(small).compute()
    per_record = (time.perf_counter() - t2) / records
    cpu = tree_cpu() - cpu0
    client.close()
    cluster.close()
    return {"startup_s": startup, "per_task_ms": per_task * 1e3, "per_record_us": per_record * 1e6,
            "cpu_s": cpu}


def spark_figures(workers: int, tasks: int, records: int) -> dict:
    from pyspark.sql import SparkSession

    cpu0, t0 = tree_cpu(), time.perf_counter()
    spark = (SparkSession.builder.master(f"local[{workers}]").appName("engines")
             .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
             .getOrCreate())
    sc = spark.sparkContext
    sc.setLogLevel("ERROR")
    sc.parallelize([1], 1).map(noop).collect()
    startup = time.perf_counter() - t0
    t1 = time.perf_counter()
    sc.parallelize(range(tasks), tasks).map(noop).collect()
    per_task = (time.perf_counter() - t1) / tasks
    t2 = time.perf_counter()
    sc.parallelize(range(records), workers * 4).map(small).collect()
    per_record = (time.perf_counter() - t2) / records
    cpu = tree_cpu() - cpu0
    spark.stop()
    return {"startup_s": startup, "per_task_ms": per_task * 1e3, "per_record_us": per_record * 1e6,
            "cpu_s": cpu}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--tasks", type=int, default=1000)
    parser.add_argument("--records", type=int, default=20000)
    parser.add_argument("--spark", action="store_true",
                        help="also Spark local mode (pyspark and Java needed)")
    args = parser.parse_args()
    t = time.perf_counter()
    [small(x) for x in range(args.records)]
    print(f"plain loop: {(time.perf_counter() - t) / args.records * 1e6:.3f} µs a record")
    print(f"load average: {os.getloadavg()}")
    figures = dask_figures(args.workers, args.tasks, args.records)
    print("dask:", {k: round(v, 3) for k, v in figures.items()})
    mb = size_of("dask", "distributed", "tornado", "toolz", "msgpack", "zict", "tblib", "partd",
                 "cloudpickle", "yaml", "psutil", "sortedcontainers", "locket", "click", "jinja2") / 1e6
    print(f"dask install: {mb:.0f} MB of packages, no JVM")
    if args.spark:
        java = subprocess.run(["java", "-version"], capture_output=True, text=True).stderr.splitlines()[:1]
        figures = spark_figures(args.workers, args.tasks, args.records)
        print("spark:", {k: round(v, 3) for k, v in figures.items()})
        print(f"spark install: {size_of('pyspark', 'py4j') / 1e6:.0f} MB of packages, plus a JVM ({java})")
    print(f"load average: {os.getloadavg()}")


if __name__ == "__main__":
    sys.exit(main())
