"""The job: every input file mapped to its output file on Dask distributed.

The unit of work is one input file (:func:`process_file`): its records are read in order with
:func:`newscrawl.archives.warc_reader.read_archive`, each page goes through :func:`.mapper.map_page`, the rows
go to the file's output (:class:`.output.FileOutput`), committed atomically beside a done
marker.  Dask distributed (Rocklin 2015, "Dask: Parallel Computation with Blocked algorithms
and Task Scheduling") schedules the files over its workers: a ``LocalCluster`` of ``workers``
processes by default, or the cluster whose scheduler address is given.  Dask, not this module,
owns the processes, their start, their death and the placement of work (docs/archives.md says
why Dask and not Spark, with the figures).

Exactly once: one job at a time writes an output directory (:class:`OutputLocked` otherwise: an
``flock`` on :data:`LOCK_NAME` in it, held for the job's life and dropped by the kernel when the
job dies); a file whose marker exists and whose output reads back is not submitted again, one
whose output does not is done again; a file's task that dies (the job or a worker killed) left
no output or one that the next run overwrites.  A task never
raises for bad input: a missing or unreadable file comes back as a failed file, damaged records
as counted skips naming the file and the offset.  Progress travels as Dask events
(``Worker.log_event`` on :data:`PROGRESS_TOPIC`), every :data:`PROGRESS_SECONDS`.
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from newscrawl.archives.warc_reader import Progress, ReadOptions, Skip, read_archive
from newscrawl.state.run_lock import RunLock

from . import output
from .inputs import exists, is_url
from .mapper import MapOptions, map_page, warm_up

logger = logging.getLogger(__name__)

LOCK_NAME = ".newscrawl-archive.lock"  # in the output directory
PROGRESS_TOPIC = "newscrawl-archive-progress"
PROGRESS_SECONDS = 1.0
#: Skip reasons that are an archive's damage (reported with file and offset), not a page's kind.
DAMAGE = frozenset({"not_warc", "truncated", "unreadable", "too_large", "bad_http", "unsupported_encoding",
                    "extraction_timeout", "extraction_error"})
MAX_LISTED = 100  # damage skips listed one by one per file (all are counted)
#: Dask settings of the local cluster: what feeds the dashboard it runs without is not sampled.
#: Dask's defaults sample every worker thread's stack each 10 ms (``profile``), check the event
#: loop each 20 ms (``tick``) and read psutil each 0.5 s (``system-monitor``): ~0.06 CPU-second per
#: second of wall time over the processes when idle, paid by every record of a job (0.009 so).
LOCAL_CLUSTER_CONFIG = {
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "1s",
    "distributed.admin.system-monitor.interval": "2s",
}


@dataclass
class FileResult:
    """What one input file gave."""

    source: str
    records: int = 0  # WARC records read
    pages: int = 0  # HTML pages mapped
    articles: int = 0  # rows written
    skips: dict = field(default_factory=dict)  # reason -> count
    damage: list = field(default_factory=list)  # {reason, offset, url, detail}, the first MAX_LISTED
    failed: str | None = None  # why the file has no output (it is not marked done)
    already_done: bool = False
    seconds: float = 0.0
    cpu: float = 0.0  # the task's own CPU seconds (its thread)


_warmed: set[str] = set()


def _local_copy(source: str, directory: str) -> str:
    """A remote input, streamed to a local file once (the reader seeks to resynchronise)."""
    import fsspec

    suffix = ".warc.gz" if source.split("?")[0].endswith(".gz") else ".warc"
    target = os.path.join(directory, "input" + suffix)
    with fsspec.open(source, "rb") as src, open(target, "wb") as dst:
        shutil.copyfileobj(src, dst, 1 << 20)
    return target


def _report(result: FileResult, progress: Progress) -> None:
    try:
        from distributed import get_worker

        worker = get_worker()
    except (ImportError, ValueError):
        return
    worker.log_event(PROGRESS_TOPIC, {"source": result.source, "records": progress.records,
                                      "articles": result.articles})


def process_file(source: str, out_dir: str, fmt: str = "parquet", options: MapOptions = MapOptions(),  # noqa: B008
                 max_bytes: int = 16 * 1024 * 1024) -> FileResult:
    """Map one input file to its committed output; never raises for the input's sake."""
    started, cpu = time.perf_counter(), time.thread_time()
    result = FileResult(source)
    out = Path(out_dir)
    if output.is_done(out, source):
        result.already_done = True
        return result
    if options.method not in _warmed:
        warm_up(options.method)
        _warmed.add(options.method)
    skips: Counter = Counter()
    try:
        with tempfile.TemporaryDirectory(prefix="newscrawl-archive-") as scratch:
            if is_url(source):
                path = _local_copy(source, scratch)
            elif not Path(source).is_file():
                result.failed = "no such file" if not Path(source).exists() else "not a regular file"
                return result
            else:
                path = source
            progress = Progress()
            last_report = time.monotonic()
            with output.FileOutput(out, source, fmt) as sink:
                for outcome in read_archive(path, ReadOptions(max_bytes=max_bytes), progress):
                    if not isinstance(outcome, Skip):
                        result.pages += 1
                        outcome = map_page(outcome, options)
                    if isinstance(outcome, Skip):
                        skips[outcome.reason] += 1
                        if outcome.reason in DAMAGE and len(result.damage) < MAX_LISTED:
                            result.damage.append({"reason": outcome.reason, "offset": progress.offset,
                                                  "url": outcome.url, "detail": outcome.detail})
                    else:
                        sink.write(outcome)
                        result.articles += 1
                    if time.monotonic() - last_report >= PROGRESS_SECONDS:
                        last_report = time.monotonic()
                        _report(result, progress)
                result.records = progress.records
                result.skips = dict(skips)
                _report(result, progress)
                sink.commit(asdict(result))
    except Exception as exc:  # noqa: BLE001 - an I/O or library failure fails this file, not the job
        logger.exception("Archive file %s failed", source)
        result.failed = f"{type(exc).__name__}: {exc}"
        result.skips = dict(skips)
    finally:
        result.seconds = time.perf_counter() - started
        result.cpu = time.thread_time() - cpu
    return result


class OutputLocked(Exception):
    """Another job is writing the output directory."""


@dataclass
class JobSummary:
    files: int = 0
    files_done: int = 0
    files_skipped: int = 0  # finished by an earlier run
    files_repaired: list = field(default_factory=list)  # (source, why): marked done, output unreadable
    files_failed: list = field(default_factory=list)  # (source, why)
    records: int = 0
    pages: int = 0
    articles: int = 0
    skips: Counter = field(default_factory=Counter)
    damage: list = field(default_factory=list)  # (source, offset, reason, detail)
    seconds: float = 0.0

    def add(self, result: FileResult) -> None:
        if result.already_done:
            self.files_skipped += 1
            return
        if result.failed:
            self.files_failed.append((result.source, result.failed))
        else:
            self.files_done += 1
        self.records += result.records
        self.pages += result.pages
        self.articles += result.articles
        self.skips.update(result.skips)
        self.damage += [(result.source, d["offset"], d["reason"], d["detail"]) for d in result.damage]


def start_client(workers: int = 1, scheduler: str | None = None):
    """A Dask client: on the cluster at ``scheduler``, or on a local cluster of ``workers`` processes
    of one thread each (extraction is CPU-bound Python: one thread a core)."""
    import dask
    from distributed import Client, LocalCluster

    if scheduler:
        return Client(scheduler)
    with dask.config.set(LOCAL_CLUSTER_CONFIG):  # read as the scheduler and workers start
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                               dashboard_address=None, silence_logs=logging.ERROR)
    return Client(cluster)


def run_job(sources: list[str], out_dir: str | os.PathLike, *, fmt: str = "parquet", workers: int = 1,
            scheduler: str | None = None, options: MapOptions = MapOptions(),  # noqa: B008
            max_bytes: int = 16 * 1024 * 1024,
            on_file: Callable[[FileResult, JobSummary], None] | None = None,
            on_progress: Callable[[dict], None] | None = None, client=None) -> JobSummary:
    """Run the job over ``sources``; returns its summary (files finished earlier are not redone).
    :class:`OutputLocked` when another job is writing ``out_dir``."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    lock = RunLock(out / LOCK_NAME)
    if not lock.acquire():
        pid = lock.holder()
        raise OutputLocked(f"another archive job{f' (pid {pid})' if pid else ''} is writing {out}; not "
                           "starting (wait for it to finish, or give this job another -o)")
    try:
        stale = output.remove_temporaries(out)
        if stale:
            logger.warning("Removed %d temporary file(s) a stopped job left in %s", stale, out)
        return _run(sources, out, fmt, workers, scheduler, options, max_bytes, on_file, on_progress, client)
    finally:
        lock.release()


def _run(sources, out, fmt, workers, scheduler, options, max_bytes, on_file, on_progress,
         client) -> JobSummary:
    from distributed import as_completed

    started = time.perf_counter()
    summary = JobSummary(files=len(sources))
    todo = []
    for source in sources:
        broken = output.damage(out, source) if output.is_done(out, source) else None
        if broken:
            logger.warning("The output of %s is marked done but does not read back (%s): doing it again",
                           source, broken)
            output.undo(out, source)
            summary.files_repaired.append((source, broken))
        if output.is_done(out, source):
            summary.add(FileResult(source, already_done=True))
        elif not exists(source):
            result = FileResult(source, failed="no such file")
            summary.add(result)
            if on_file:
                on_file(result, summary)
        else:
            todo.append(source)
    if todo:
        own = client is None
        client = client or start_client(workers, scheduler)
        try:
            if on_progress is not None:
                client.subscribe_topic(PROGRESS_TOPIC, lambda event: on_progress(event[1]))
            # the largest files first, so that no long file starts last
            todo.sort(key=lambda s: -(os.path.getsize(s) if not is_url(s) else 0))
            target = str(out.resolve())
            run = uuid.uuid4().hex[:8]  # keys unique per run, also on a long-lived scheduler
            futures = [client.submit(process_file, s, target, fmt, options, max_bytes, pure=False, retries=0,
                                     key=f"archive-{run}-{i}-{output.output_stem(s)}")
                       for i, s in enumerate(todo)]
            for future in as_completed(futures):
                try:
                    result = future.result()
                except Exception as exc:  # noqa: BLE001 - a worker that died with the file (KilledWorker)
                    result = FileResult(todo[futures.index(future)], failed=f"{type(exc).__name__}: {exc}")
                summary.add(result)
                if on_file:
                    on_file(result, summary)
                future.release()
        finally:
            if own:
                cluster = client.cluster
                client.close()
                if cluster is not None:
                    cluster.close()
    summary.seconds = time.perf_counter() - started
    return summary
