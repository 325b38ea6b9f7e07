"""Extraction in worker processes: ``NEWSCRAWL_EXTRACT_PROCESSES = N`` (default 1; 0 = in the
crawl process), each page under a time limit, ``NEWSCRAWL_EXTRACT_TIMEOUT`` (default 20 s).

Scrapy runs in one thread, so without workers, downloading and extraction share one core and
one pathological page holds the whole crawl.  With ``N ≥ 1`` the extract stage sends each
page's bytes to one of N worker processes and awaits the result, while the crawl process keeps
downloading.

- **Site affinity.**  Each worker is its own single-process executor and a site always goes
  to the same one, so a site's template library (Yan and Wang 2020, :mod:`.templates`) is learned and
  applied in one process, in page order, exactly as in-process.  A site's first page picks
  the least-loaded worker (fewest body bytes waiting, then fewest pages), and the site stays
  there for the rest of the run: an archive of many sites (CC-NEWS) keeps every worker busy
  even when a few large sites come in long runs.  (A site's library is read from the store
  on its first page in a worker, so a site may have another worker in the next run.)
  The worker opens the template store itself (SQLite in the state directory, or Redis in
  distributed mode), saves it at the end of every batch of pages and when the
  crawl closes.
- **Same outcome as in-process.**  The worker runs :func:`extract_fields`, the function the
  in-process stage runs, and also the article text's MinHash fingerprint
  (:func:`newscrawl.dedup.fingerprint`, for ``duplicate_content``), which the crawl process
  would otherwise compute itself (~0.7 ms a page, the largest share of its own per-page work);
  drops come back as ``(reason, detail)`` and become the same
  :class:`~newscrawl.run.drops.Dropped`; the worker's stats increments and log records are
  replayed in the crawl process (``newscrawl/template/...`` counters, template warnings).
- **A time limit per page.**  A worker runs its pages one after the other, so the page at the
  head of its queue is the one running, since the previous one came back.  A supervisor
  thread kills the worker whose head page has run longer than the timeout (one task of an
  executor cannot be cancelled: its process is killed), fails that page with
  :class:`ExtractionTimeout` (the stage drops it as ``extraction_timeout``), starts a new
  worker and sends it the pages that were queued behind.  The new worker reopens the
  template store: a site keeps its worker and its library as saved at the last batch end,
  as after a restart of the crawl.
- **A dead worker costs at most its page.**  A worker that dies (killed, out of memory) is
  replaced the same way and its queued pages re-sent; the page it was running is tried once
  more, and dropped (:class:`WorkerCrashed`, ``extraction_crash``) if it kills that worker too.
  ``newscrawl/extract/worker_restarts`` counts replacements.
- **Workers die with the crawl.**  A worker asks Linux to ``SIGKILL`` it when the crawl
  process exits (``prctl(PR_SET_PDEATHSIG)``, which works even while the worker is stuck in C
  code), and a daemon thread polls ``os.getppid()`` as the portable fallback: a ``kill -9``
  of the crawl leaves no worker behind.  Linux sends the signal when the *thread* that
  started the worker ends, so workers are only started from threads that outlive them (the
  crawl's thread and the supervisor).
- Workers are started with ``spawn`` (never ``fork`` from a process running a reactor)
  and warmed up before the first page, so start-up costs one import of the library per
  worker (~1 s, not counted in any page's time) and each worker's memory is its own
  (``bench/crawl_throughput.py`` reports both).

- **One pool per process.**  Every crawler of a process asks for the pool with :func:`shared_pool`
  and gets the same one (for the same worker count, method, time limit and ``NEWSCRAWL_*``
  settings): ``scrapy crawlall`` runs its sites with N workers in all, not N per site.  When a
  site's crawl closes, :meth:`ExtractionPool.finish_sites` has its worker save the site's template
  library and drop it from memory; the pool itself closes when its last crawler has closed (or,
  under :func:`held`, when ``crawlall`` is done with every site).
- **Closing does not wait for idle workers.**  A worker that never got a page has no template
  library to save: it is stopped at once, also while it is still starting (it used to be sent a
  close task and awaited, which waited for its start and warm-up: seconds per crawl that fetched
  no article, ~30 s when many crawls warmed up workers at once).
- **Closing is bounded.**  Saving template libraries (a site's when its crawl closes, every
  one when the pool closes) may take a worker as long as a page may, ``NEWSCRAWL_EXTRACT_TIMEOUT``
  (:data:`CLOSE_SECONDS` without a time limit): the supervisor kills a worker that has not
  answered by then (frozen, stopped by a signal, stuck in a lock), with a warning, and its
  libraries stay as saved at their last batch end.  A new worker is started only for pages
  waiting or still to come.

Test-only hook: a worker whose settings hold ``NEWSCRAWL_TEST_HANG_MARKER`` hangs on every
page whose body contains that string (tests/test_extract_timeout.py); never set it in a crawl.
"""

from __future__ import annotations

import logging
import os
import signal
import sys
import threading
import time
from collections import Counter, deque
from concurrent.futures import CancelledError, Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from functools import partial
from multiprocessing import get_context
from types import SimpleNamespace
from typing import Any

from scrapy.settings import Settings

logger = logging.getLogger(__name__)

PAGE_TRIES = 2  # a page on which this many workers died is dropped
START_TRIES = 3  # a slot whose worker failed to start this many times in a row fails its pages
CLOSE_SECONDS = 60  # how long a worker may take to save its template libraries at the end


class ExtractionTimeout(Exception):
    """The page's extraction ran past ``NEWSCRAWL_EXTRACT_TIMEOUT``; its worker was replaced."""


class WorkerCrashed(Exception):
    """The page's extraction killed its worker twice (or no worker could be started)."""


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
PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def _die_with(parent_pid: int) -> None:
    """End this worker when the crawl process ends, however it ends (``kill -9`` included)."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        except (OSError, AttributeError):  # no prctl: the poll below still ends the worker
            pass
    threading.Thread(target=_watch_parent, args=(parent_pid,), name="watch-parent", daemon=True).start()


def _watch_parent(parent_pid: int, interval: float = 1.0) -> None:
    """Exit once this process is no longer ``parent_pid``'s child (the parent died)."""
    while os.getppid() == parent_pid:
        time.sleep(interval)
    os._exit(1)


def _start_worker(method: str, settings: dict, parent_pid: int) -> None:
    """Executor initializer: tie the worker to the crawl, open the template library, load the
    extraction library."""
    global _worker
    _die_with(parent_pid)
    from .extraction import extract_fields, warm_up
    from .shared_body import shared_bodies
    from .templates import CrawlTemplates

    buffer = _Buffer()
    logging.getLogger("newscrawl").addHandler(buffer)
    logging.getLogger("newscrawl").setLevel(logging.INFO)
    stats = CountingStats()
    templates = CrawlTemplates(SimpleNamespace(settings=Settings(settings), stats=stats))
    marker = settings.get("NEWSCRAWL_TEST_HANG_MARKER")
    fingerprint = None
    if int(settings.get("NEWSCRAWL_FINGERPRINTS_PER_SITE", 1) or 0) > 0:
        from ..dedup import fingerprint
    bodies = shared_bodies(Settings(settings))
    _worker = SimpleNamespace(method=method, templates=templates, stats=stats, log=buffer, bodies=bodies,
                              extract_fields=extract_fields, fingerprint=fingerprint,
                              hang_marker=marker.encode("utf-8") if marker else None)
    warm_up(method)
    if templates.enabled:  # open the store now (SQLite, or scrapy-redis's import), not on the first page
        try:
            templates._store()
        except Exception:  # noqa: BLE001 - the first page reports it (and counts a template error)
            logger.debug("Could not open the template store", exc_info=True)


def _run(job: dict) -> dict:
    """One page in a worker: ``{"fields"|"dropped", "stats", "logs"}``."""
    from newscrawl.run.drops import Dropped

    worker = _worker
    if worker.hang_marker and worker.hang_marker in job["body"]:
        while True:  # the test-only hook: a page whose extraction never ends
            time.sleep(60)
    outcome: dict[str, Any] = {}
    try:
        outcome["fields"] = fields = worker.extract_fields(worker.templates, worker.method,
                                                           bodies=worker.bodies, **job)
    except Dropped as exc:
        outcome["dropped"] = (exc.reason, exc.detail)
    else:
        if worker.fingerprint is not None and "fingerprint" not in fields:
            fields["fingerprint"] = _fingerprint(worker.fingerprint, fields.get("text"))
    outcome["stats"], worker.stats.counts = dict(worker.stats.counts), Counter()
    outcome["logs"], worker.log.records = worker.log.records, []
    return outcome


def _fingerprint(fingerprint, text: str | None) -> bytes:
    """The stored form of the text's fingerprint (:func:`newscrawl.dedup.to_bytes`); ``b""`` for
    a text too short to have one."""
    from ..dedup import to_bytes

    try:
        minhash = fingerprint(text or "")
    except Exception:  # noqa: BLE001 - a fingerprint bug must cost the duplicate check, not the article
        logger.debug("Fingerprint failed", exc_info=True)
        return b""
    return to_bytes(minhash) if minhash is not None else b""


def _ready() -> None:
    """A task that only makes the executor start its worker."""


def _close_worker() -> None:
    if _worker is not None:
        _worker.templates.close()


def _finish_sites(sites: list[str]) -> None:
    """Save the sites' template libraries and forget them (their crawls closed)."""
    if _worker is not None:
        for site in sites:
            _worker.templates.finish(site)


# --- in the crawl process ---------------------------------------------------------------------------

_TASKS = {"start": _ready, "page": _run, "close": _close_worker, "finish": _finish_sites}


@dataclass(eq=False)
class _Job:
    """A task for one worker: ``kind`` is ``start``, ``page`` or ``close``.  ``outer`` is the
    future the caller holds; ``attempt`` the executor future of the current try."""

    kind: str
    page: dict | None = None
    sites: list[str] | None = None  # of a "finish" job
    outer: Future = field(default_factory=Future)
    attempt: Future | None = None
    deaths: int = 0
    sent_bytes: int = 0  # counted in its slot's waiting_bytes until it is settled


@dataclass(eq=False)
class _Slot:
    """One worker (a single-process executor) and the jobs sent to it, oldest (running) first."""

    number: int
    executor: ProcessPoolExecutor | None = None
    jobs: deque = field(default_factory=deque)
    waiting_bytes: int = 0  # body bytes of the pages sent and not back yet: the load of a new site
    head_since: float = 0.0  # when the head job started: when the one before it came back
    broken: bool = False
    failed_starts: int = 0
    down: bool = False  # no worker started START_TRIES times in a row: try again on the next page
    used: bool = False  # was sent a page: has template libraries to save at close


class ExtractionPool:
    """N worker processes; :meth:`submit` sends a page to its site's worker (a new site's: the
    least-loaded); a supervisor thread enforces ``timeout`` seconds per page (0: none) and
    replaces dead workers."""

    def __init__(self, processes: int, method: str, settings: Settings, timeout: float = 0.0):
        self.method = method
        self.timeout = timeout
        # Only the project's own settings travel to the workers (they are plain values).
        self.settings = {k: v for k, v in settings.items() if k.startswith("NEWSCRAWL_")}
        self.restarts = 0
        self._lock = threading.RLock()  # executor callbacks may run at once, in the caller's thread
        self._wake = threading.Event()
        self._stopping = False
        self.slots = [_Slot(number) for number in range(processes)]
        self.sites: dict[str, int] = {}  # site -> the number of its worker, for the whole run
        self.users = 0  # crawlers using this pool (see shared_pool)
        self.closed = False
        with self._lock:
            for slot in self.slots:
                # Start (and warm up) every worker now, while the crawl reads its catalogue pages.
                self._start(slot)
        self._supervisor = threading.Thread(target=self._supervise, name="extraction-supervisor",
                                            daemon=True)
        self._supervisor.start()

    def slot(self, site: str) -> int:
        """The number of the site's worker; a new site gets the least-loaded one (fewest body
        bytes waiting, then fewest pages) and keeps it for the rest of the run."""
        with self._lock:
            number = self.sites.get(site)
            if number is None:
                number = self.sites[site] = min(self.slots, key=_load).number
            return number

    def submit(self, site: str, job: dict) -> Future:
        """The page's outcome (see :func:`_run`), or :class:`ExtractionTimeout` / :class:`WorkerCrashed`."""
        task = _Job("page", dict(job, site=site))
        with self._lock:
            slot = self.slots[self.slot(site)]
            slot.used = True
            if slot.down:
                slot.down = False
                self._start(slot)
            self._send(slot, task)
        return task.outer

    # --- sending, and what comes back (callbacks run in the executors' threads) ---

    def _start(self, slot: _Slot) -> None:
        slot.executor = ProcessPoolExecutor(1, mp_context=get_context("spawn"), initializer=_start_worker,
                                            initargs=(self.method, self.settings, os.getpid()))
        self._send(slot, _Job("start"))  # its first task spawns the process, in this thread

    def _send(self, slot: _Slot, job: _Job) -> None:
        slot.jobs.append(job)
        if len(slot.jobs) == 1:
            slot.head_since = time.monotonic()
        args = (job.page,) if job.kind == "page" else (job.sites,) if job.kind == "finish" else ()
        if job.kind == "page":
            job.sent_bytes = job.sent_bytes or len(job.page.get("body") or b"") + 1
            slot.waiting_bytes += job.sent_bytes
        try:
            job.attempt = slot.executor.submit(_TASKS[job.kind], *args)
        except BrokenProcessPool:  # the worker died already: it is replaced with its jobs
            job.attempt = None
            slot.broken = True
            self._wake.set()
            return
        except RuntimeError as exc:  # a slot that is down at close, or the interpreter exiting
            slot.jobs.remove(job)
            slot.waiting_bytes -= job.sent_bytes
            job.outer.set_exception(WorkerCrashed(f"no extraction worker: {exc}"))
            return
        job.attempt.add_done_callback(partial(self._finished, slot, job))

    def _finished(self, slot: _Slot, job: _Job, attempt: Future) -> None:
        with self._lock:
            if job.attempt is not attempt or attempt.cancelled():
                return  # a try on a worker since replaced: the job was re-sent or settled
            if isinstance(attempt.exception(), BrokenProcessPool):
                slot.broken = True  # the supervisor replaces the worker and re-sends its jobs
                self._wake.set()
                return
            slot.jobs.remove(job)
            slot.waiting_bytes -= job.sent_bytes
            slot.head_since = time.monotonic()
            if job.kind == "start":
                slot.failed_starts = 0
        _settle(job.outer, attempt)

    # --- the supervisor thread ---

    def _supervise(self) -> None:
        tick = min(1.0, self.timeout / 4) if self.timeout > 0 else 1.0
        while not self._stopping:
            self._wake.wait(tick)
            self._wake.clear()
            failed: list[tuple[_Job, Exception]] = []
            with self._lock:
                if self._stopping:
                    return
                for slot in self.slots:
                    if slot.broken or self._overdue(slot):
                        failed += self._restart(slot, timed_out=not slot.broken)
            for job, exc in failed:
                if not job.outer.done():
                    job.outer.set_exception(exc)

    def _overdue(self, slot: _Slot) -> bool:
        limit = self._limit(slot.jobs[0].kind) if slot.jobs else 0.0
        return limit > 0 and time.monotonic() - slot.head_since > limit

    def _limit(self, kind: str) -> float:
        """Seconds a job of this kind may run (0: no limit): a page, the time limit; saving the
        template libraries, the same (:data:`CLOSE_SECONDS` without one); a start, none."""
        if kind == "page":
            return self.timeout
        return (self.timeout or CLOSE_SECONDS) if kind in ("finish", "close") else 0.0

    def _restart(self, slot: _Slot, timed_out: bool) -> list[tuple[_Job, Exception]]:
        """Kill the slot's worker, start a new one and re-send the jobs it had; returns the jobs
        that fail instead, with their exception."""
        _kill(slot.executor)
        jobs, slot.jobs, slot.broken, slot.waiting_bytes = list(slot.jobs), deque(), False, 0
        for job in jobs:
            job.attempt = None  # what the old executor still reports about them is ignored
        head = jobs[0] if jobs else None
        failed = self._blame(slot, jobs, timed_out)
        if timed_out and head is not None and head.kind in ("finish", "close"):
            logger.warning("Extraction worker %d did not answer within %g s while saving template "
                           "libraries: stopped", slot.number, self._limit(head.kind))
            if not jobs:  # nothing waits for a worker: the next page starts one (see submit)
                slot.down, slot.used = True, False
                return failed
        if slot.down:
            logger.error("Extraction worker %d does not start; %d pages dropped", slot.number, len(failed))
            return failed
        self.restarts += 1
        self._start(slot)
        for job in jobs:
            self._send(slot, job)
        url = failed[0][0].page["url"] if failed and failed[0][0].page else None
        if url is not None or not timed_out:  # (a worker stopped while saving was logged above)
            what = f"stopped: {url} ran past {self.timeout:g} s" if timed_out else "died"
            (logger.info if timed_out else logger.warning)(
                "Extraction worker %d %s; a new worker takes its %d queued pages",
                slot.number, what, len(jobs))
        return failed

    def _blame(self, slot: _Slot, jobs: list[_Job], timed_out: bool) -> list[tuple[_Job, Exception]]:
        """Take from ``jobs`` (in place) the ones that fail: the page that timed out, a page on
        which :data:`PAGE_TRIES` workers died, every page once no worker starts."""
        if not jobs:
            return []
        head = jobs[0]
        if head.kind == "start":
            jobs.pop(0)  # the new executor gets its own start task
            slot.failed_starts += 1
            if slot.failed_starts < START_TRIES:
                return []
            slot.failed_starts, slot.down = 0, True
            failed = [(job, WorkerCrashed("the extraction worker does not start")) for job in jobs]
            jobs.clear()
            return failed
        if timed_out and head.kind != "page":
            return [(jobs.pop(0), ExtractionTimeout(f"no answer within {self._limit(head.kind):g} s"))]
        if timed_out:
            return [(jobs.pop(0), ExtractionTimeout(f"extraction ran past {self.timeout:g} s"))]
        head.deaths += 1
        if head.deaths >= PAGE_TRIES:
            return [(jobs.pop(0), WorkerCrashed(f"{head.deaths} extraction workers died on this page"))]
        return []

    # --- the end ---

    def finish_sites(self, sites) -> Future:
        """Have the workers save the template libraries of ``sites`` (their crawls closed) and drop
        them from memory; the future is done when they have.  Sites never sent here are skipped."""
        by_slot: dict[int, list[str]] = {}
        with self._lock:
            for site in sites:
                number = self.sites.pop(site, None)
                if number is not None:
                    by_slot.setdefault(number, []).append(site)
            jobs = [_Job("finish", sites=names) for names in by_slot.values()]
            for number, job in zip(by_slot, jobs, strict=True):
                self._send(self.slots[number], job)
        done: Future = Future()
        if not jobs:
            done.set_result(None)
            return done
        waiting = [len(jobs)]

        def settled(_future: Future) -> None:
            with self._lock:
                waiting[0] -= 1
                last = waiting[0] == 0
            if last:
                failed = [j.outer.exception() for j in jobs if j.outer.exception() is not None]
                if failed:
                    done.set_exception(failed[0])
                else:
                    done.set_result(None)

        for job in jobs:
            job.outer.add_done_callback(settled)
        return done

    def close(self) -> None:
        """Let every worker that had pages save its template libraries, then stop it (and the
        supervisor).  A worker that never had a page is stopped at once (nothing to save)."""
        self.closed = True
        with self._lock:
            closers = {slot.number: _Job("close") for slot in self.slots if slot.used and not slot.down}
            for number, closer in closers.items():
                self._send(self.slots[number], closer)
        for slot in self.slots:
            closer = closers.get(slot.number)
            if closer is None:
                _kill(slot.executor)  # idle, perhaps still starting: nothing to save, nothing to wait for
                continue
            try:
                closer.outer.result(timeout=CLOSE_SECONDS + self.timeout)
            except (BrokenProcessPool, WorkerCrashed, ExtractionTimeout, TimeoutError, CancelledError,
                    OSError) as exc:
                logger.warning("Extraction worker %d could not save its template library: %r",
                               slot.number, exc)
                _kill(slot.executor)
        # The libraries are saved: the workers the supervisor started may now get their SIGKILL
        # when its thread ends (see _die_with); the others stop as executors do.
        with self._lock:
            self._stopping = True
        self._wake.set()
        self._supervisor.join()
        for slot in self.slots:
            slot.executor.shutdown(wait=True, cancel_futures=True)

    def worker_pids(self) -> list[int]:
        """The worker processes' ids (for tests and diagnostics)."""
        return [pid for slot in self.slots for pid in list(getattr(slot.executor, "_processes", None) or {})]


# --- one pool per process -------------------------------------------------------------------------------

_SHARED: dict[tuple, ExtractionPool] = {}
_HOLDS = [0]  # open held() blocks: pools stay open between crawls


def _pool_key(processes: int, method: str, settings: Settings, timeout: float) -> tuple:
    own = sorted((k, repr(v)) for k, v in settings.items() if k.startswith("NEWSCRAWL_"))
    return processes, method, float(timeout), tuple(own)


def shared_pool(processes: int, method: str, settings: Settings, timeout: float = 0.0) -> ExtractionPool:
    """The process's pool for these parameters, started on first use; release it with
    :func:`release_pool` when the crawler closes."""
    key = _pool_key(processes, method, settings, timeout)
    pool = _SHARED.get(key)
    if pool is None or pool.closed:
        pool = _SHARED[key] = ExtractionPool(processes, method, settings, timeout)
    pool.users += 1
    return pool


def release_pool(pool: ExtractionPool) -> None:
    """One crawler less; the last one closes the pool, unless :func:`held` keeps it for more."""
    pool.users -= 1
    if pool.users <= 0 and not _HOLDS[0]:
        _close_shared(pool)


def _close_shared(pool: ExtractionPool) -> None:
    for key, known in list(_SHARED.items()):
        if known is pool:
            del _SHARED[key]
    if not pool.closed:
        pool.close()


class held:
    """``with held():`` pools shared by crawlers started in the block stay open until it ends,
    also when no crawler uses them for a moment (``crawlall`` between two sites)."""

    def __enter__(self) -> held:
        _HOLDS[0] += 1
        return self

    def __exit__(self, *exc_info) -> None:
        _HOLDS[0] -= 1
        if not _HOLDS[0]:
            for pool in list(_SHARED.values()):
                if pool.users <= 0:
                    _close_shared(pool)


def shared_pools() -> list[ExtractionPool]:
    """The open shared pools (for tests and diagnostics)."""
    return [pool for pool in _SHARED.values() if not pool.closed]


def _load(slot: _Slot) -> tuple[int, int, int]:
    """How busy a worker is, for the choice of a new site's worker."""
    return (slot.waiting_bytes, sum(job.kind == "page" for job in slot.jobs), slot.number)


def _kill(executor: ProcessPoolExecutor) -> None:
    """Kill an executor's processes: the only way to stop a task already running.  The
    executor's own thread then notices and fails the futures it holds."""
    for process in list((getattr(executor, "_processes", None) or {}).values()):
        process.kill()
    executor.shutdown(wait=False, cancel_futures=True)


def _settle(outer: Future, attempt: Future) -> None:
    """Copy an attempt's outcome to the caller's future."""
    if outer.done():
        return
    exc = attempt.exception()
    if exc is not None:
        outer.set_exception(exc)
    else:
        outer.set_result(attempt.result())


__all__ = ["CountingStats", "ExtractionPool", "ExtractionTimeout", "WorkerCrashed", "held", "release_pool",
           "shared_pool", "shared_pools"]
