""":class:`CrashSafeScheduler` is Scrapy's scheduler with two changes for ``JOBDIR`` crawls:

- **A killed run's queue is discarded.**  Scrapy's disk queues are written without a
  journal: after ``kill -9`` their files may be truncated or stale (queuelib then fails
  with ``struct.error`` while pushing).  A marker file records that a run has the queue
  open; if it is still there at start, the previous run died and its queue is removed
  with a warning.  Nothing is lost: listing pages are re-read on every run and the
  seen-URL store knows what was exported.  After a clean stop (one Ctrl-C) the queue is
  resumed as usual.
- **An unreadable queue is discarded too**, with the same warning (a clean stop that could
  not write its queue, a disk that filled up).  Another run never shares the queue:
  :class:`newscrawl.run.guard.RunGuard` locks ``JOBDIR`` for one run at a time.
- **A queue write that fails mid-run stops the crawl** (``finish_reason``
  ``state_write_failed``, one error line; the request is kept in memory meanwhile).
- **Resumed detail requests join the in-run dedup.**  A detail request restored from the
  queue was claimed by the previous run, not this one; when it is popped, it claims its
  URL now (:meth:`newscrawl.state.seen_urls.SeenUrls.claim`) and is skipped if this run
  already scheduled that page, so no page is fetched twice in a run.
"""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

from scrapy.core.scheduler import Scheduler

from newscrawl.run.drops import record_drop
from newscrawl.state.seen_urls import SeenUrls, state_write_failed

logger = logging.getLogger(__name__)


MARKER = "newscrawl-run-open"


DETAIL_META = "newscrawl_run"  # set on detail requests: the id of the run that claimed the URL



class CrashSafeScheduler(Scheduler):
    """See the module docstring."""

    def open(self, spider):
        if self.dqdir:
            marker = Path(self.dqdir, MARKER)
            if marker.exists():
                self._discard_queue("did not stop cleanly")
            marker.touch()
            try:
                return super().open(spider)
            except Exception as exc:  # noqa: BLE001 - queuelib/pickle/json errors of a damaged queue
                self._discard_queue(f"left a request queue that cannot be read ({type(exc).__name__}: {exc})")
                marker.touch()
        return super().open(spider)

    def _discard_queue(self, why: str) -> None:
        logger.warning("The previous run with JOBDIR %s %s; discarding its request queue (listing pages "
                       "are re-read, nothing is lost)", Path(self.dqdir).parent, why)
        shutil.rmtree(self.dqdir)
        Path(self.dqdir).mkdir(parents=True)

    def _dqpush(self, request) -> bool:
        try:
            return super()._dqpush(request)
        except OSError as exc:
            state_write_failed(self.crawler, f"request queue in {self.dqdir}", exc)
            return False  # Scheduler.enqueue_request keeps it in memory

    def close(self, reason: str):
        try:
            result = super().close(reason)
        except OSError as exc:  # the marker stays: the next run discards the half-written queue
            logger.warning("Cannot write the request queue in %s: %s; the next run discards it",
                           self.dqdir, exc.strerror or exc)
            return self.df.close(reason)
        if self.dqdir:
            Path(self.dqdir, MARKER).unlink(missing_ok=True)
        return result

    def next_request(self):
        while True:
            request = super().next_request()
            if request is None or DETAIL_META not in request.meta:
                return request
            seen = self.crawler.get_extension(SeenUrls)
            if seen is None or request.meta[DETAIL_META] == seen.run_id:
                return request
            if seen.claim(request.url):  # resumed from the queue: claim it for this run
                request.meta[DETAIL_META] = seen.run_id
                return request
            record_drop(self.crawler, "duplicate", request.url, "resumed request already fetched in this run")

