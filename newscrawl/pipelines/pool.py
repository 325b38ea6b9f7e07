"""Extraction in worker processes: ``NEWSCRAWL_EXTRACT_PROCESSES = N`` (default 0, in the crawl process).

Scrapy runs in one thread, so without this, downloading and extraction share one core.
With ``N ≥ 1`` the extract stage sends each page's bytes to one of N worker processes and
awaits the result, while the crawl process keeps downloading.

- **Site affinity.**  Each worker is its own single-process executor and a site always goes
  to the same one (a stable hash of the site name), so a site's template library (seed
  004, :mod:`.templates`) is learned and applied in one process, in page order, exactly as
  in-process.  The worker opens the template store itself (SQLite in the state directory,
  or Redis in distributed mode) and saves it when the crawl closes.
- **Same outcome as in-process.**  The worker runs :func:`extract_fields`, the function the
  in-process stage runs; drops come back as ``(reason, detail)`` and become the same
  :class:`~newscrawl.extensions.Dropped`; the worker's stats increments and log records are
  replayed in the crawl process (``newscrawl/template/...`` counters, template warnings).
- **A dead worker costs nothing.**  If a worker process dies (killed, out of memory), its
  executor is replaced, the page is extracted in the crawl process instead, and
  ``newscrawl/extract/worker_restarts`` counts it.
- Workers are started with ``spawn`` (never ``fork`` from a process running a reactor)
  and warmed up before the first page, so start-up costs one import of the library per
  worker (~1 s) and each worker's memory is its own (roughly one crawl process's
  extraction footprint; ``bench/crawl_throughput.py`` reports both).
"""

from __future__ import annotations

import logging
import zlib
from collections import Counter
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing import get_context
from types import SimpleNamespace
from typing import Any

from scrapy.settings import Settings

logger = logging.getLogger(__name__)


class CountingStats:
    """The slice of Scrapy's stats collector the template library uses, kept as a Counter."""

    def __init__(self):
        self.counts: Counter = Counter()

    def inc_value(self, key: str, count: int = 1, start: int = 0) -> None:
        self.counts[key] += count


class _Buffer(logging.Handler):
    """Keeps a worker's log records so the crawl process can log them in its own log."""

    def __init__(self):
        super().__init__(logging.INFO)
        self.records: list[tuple[str, int, str]] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append((record.name, record.levelno, record.getMessage()))


# --- inside a worker process ---------------------------------------------------------------------

_worker: SimpleNamespace | None = None


def _start_worker(method: str, settings: dict) -> None:
    """Executor initializer: open the template library and load the extraction library."""
    global _worker
    from .stages import extract_fields, warm_up
    from .templates import CrawlTemplates

    buffer = _Buffer()
    logging.getLogger("newscrawl").addHandler(buffer)
    logging.getLogger("newscrawl").setLevel(logging.INFO)
    stats = CountingStats()
    templates = CrawlTemplates(SimpleNamespace(settings=Settings(settings), stats=stats))
    _worker = SimpleNamespace(method=method, templates=templates, stats=stats, log=buffer,
                              extract_fields=extract_fields)
    warm_up(method)


def _run(job: dict) -> dict:
    """One page in a worker: ``{"fields"|"dropped", "stats", "logs"}``."""
    from ..extensions import Dropped

    worker = _worker
    outcome: dict[str, Any] = {}
    try:
        outcome["fields"] = worker.extract_fields(worker.templates, worker.method, **job)
    except Dropped as exc:
        outcome["dropped"] = (exc.reason, exc.detail)
    outcome["stats"], worker.stats.counts = dict(worker.stats.counts), Counter()
    outcome["logs"], worker.log.records = worker.log.records, []
    return outcome


def _ready() -> None:
    """A task that only makes the executor start its worker."""


def _close_worker() -> None:
    if _worker is not None:
        _worker.templates.close()


# --- in the crawl process ---------------------------------------------------------------------------


class ExtractionPool:
    """N single-process executors; :meth:`submit` picks one by the page's site."""

    def __init__(self, processes: int, method: str, settings: Settings):
        self.method = method
        # Only the project's own settings travel to the workers (they are plain values).
        self.settings = {k: v for k, v in settings.items() if k.startswith("NEWSCRAWL_")}
        self.executors = [self._executor() for _ in range(processes)]

    def _executor(self) -> ProcessPoolExecutor:
        executor = ProcessPoolExecutor(1, mp_context=get_context("spawn"), initializer=_start_worker,
                                       initargs=(self.method, self.settings))
        # Executors start their process on the first task: start it (and warm it up) now,
        # while the crawl reads its catalogue pages, not when the first article arrives.
        executor.submit(_ready)
        return executor

    def slot(self, site: str) -> int:
        return zlib.crc32(site.encode("utf-8")) % len(self.executors)

    def submit(self, site: str, job: dict) -> Future:
        return self.executors[self.slot(site)].submit(_run, dict(job, site=site))

    def replace(self, site: str) -> None:
        """Start a new executor in place of a broken one."""
        index = self.slot(site)
        broken, self.executors[index] = self.executors[index], self._executor()
        broken.shutdown(wait=False, cancel_futures=True)

    def close(self) -> None:
        """Let every worker save its template libraries, then stop it."""
        for executor in self.executors:
            try:
                executor.submit(_close_worker).result(timeout=60)
            except (BrokenProcessPool, TimeoutError, OSError) as exc:
                logger.warning("An extraction worker could not save its template library: %s", exc)
            executor.shutdown(wait=True, cancel_futures=True)


__all__ = ["BrokenProcessPool", "CountingStats", "ExtractionPool"]
