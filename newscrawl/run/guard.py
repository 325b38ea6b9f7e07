""":class:`RunGuard`, the start checks of a run (a Scrapy extension that runs before the engine).

One run at a time per spider and state directory, per ``JOBDIR`` and per export file
(:class:`~newscrawl.state.run_lock.RunLock`); the seen-URL store, the template library and
``JOBDIR`` readable, writable and not corrupt (a corrupt store is moved aside and rebuilt
from the feeds); export files regular files, writable, and ending on a complete record.  A
run that cannot start stops with finish_reason ``locked`` or ``state_unwritable``
(:class:`StartRefused`).
"""

from __future__ import annotations

import logging
import os
import sqlite3
import stat
import tempfile
from pathlib import Path
from urllib.parse import quote

from scrapy import signals

from newscrawl.export.files import feed_path
from newscrawl.export.storage import _record_end, cut_partial_record
from newscrawl.extract.methods.template import TEMPLATE_DB
from newscrawl.state.run_lock import RunLock
from newscrawl.state.seen_store import (
    DB_NAME,
    CorruptStore,
    check_sqlite,
    move_aside,
    state_dir,
)
from newscrawl.state.seen_urls import rebuild_seen_store

logger = logging.getLogger(__name__)



class StartRefused(Exception):
    """The crawl cannot start safely; ``reason`` is its ``finish_reason``.  Raised before any fetch."""

    reason = "refused"



class RunLocked(StartRefused):
    """Another run holds the spider's state directory, the ``JOBDIR`` or an export file."""

    reason = "locked"



class StateUnwritable(StartRefused):
    """The state directory, the seen-URL store, the template library or ``JOBDIR`` cannot be written."""

    reason = "state_unwritable"



class ExportPathError(StartRefused, OSError):
    """A feed file of ``FEEDS`` cannot be written or is not a regular file; raised before the crawl starts."""

    reason = "export_failed"





class RunGuard:
    """Checks and locks taken when the crawler is built, before any file is opened or page fetched.

    1. **One run at a time.**  An exclusive ``flock`` on ``<state dir>/<spider>.lock``
       (not with ``NEWSCRAWL_DISTRIBUTED``, whose workers share their state in Redis), on
       ``<JOBDIR>/newscrawl.lock`` and on every local export file.  A second run stops at
       once with :class:`RunLocked` (``finish_reason`` ``locked``): it would truncate the
       first run's ``-O`` file, or discard its ``JOBDIR`` queue.  The kernel drops the locks
       of a killed run.
    2. **The crawl state is usable.**  The seen-URL store and the template library pass
       ``PRAGMA quick_check`` and take a write (:func:`~newscrawl.state.seen_store.check_sqlite`).
       A corrupt store is moved aside with a warning; the seen-URL store is then rebuilt
       from the export files of the site's last run and of this one
       (:func:`rebuild_seen_store`), the template library is learned again.  State that
       cannot be created, read or written stops the run (:class:`StateUnwritable`).
    3. **The export files are writable regular files.**  A named pipe or device is
       refused (a pipe would block the crawl; neither can be locked or repaired).  A file
       that an interrupted write left ending inside a record is cut back to its last
       complete record before this run appends to it.

    Failures after the start are :func:`export_failed` and :func:`state_write_failed`.
    """

    def __init__(self, crawler):
        self.crawler = crawler
        self.site = getattr(crawler.spider, "name", None) or getattr(crawler.spidercls, "name", "spider")
        self.state = state_dir(crawler.settings.get("NEWSCRAWL_STATE_DIR"))
        self.distributed = bool(crawler.settings.get("NEWSCRAWL_DISTRIBUTED"))
        self.locks: list[RunLock] = []
        self.created: list[Path] = []  # export files created here to lock them: removed if left empty
        try:
            self._lock_run()
            if not self.distributed:
                self._check_stores()
            self._check_exports()
        except StartRefused as exc:
            self.release()
            crawler.stats.set_value("finish_reason", exc.reason)
            logger.error("%s", exc)
            raise
        feeds = crawler.settings.getdict("FEEDS")
        # Unlock after the feed files are closed (FeedExporter closes them in tasks of its own).
        closed = signals.feed_exporter_closed if feeds else signals.spider_closed
        crawler.signals.connect(self.release, signal=closed)
        crawler.signals.connect(self.release, signal=signals.engine_stopped)

    @classmethod
    def from_crawler(cls, crawler) -> RunGuard:
        return cls(crawler)

    def release(self, *args, **kwargs) -> None:
        """Drop every lock this run holds, and the export files it created but never wrote."""
        for path in self.created:
            try:
                if path.stat().st_size == 0:
                    path.unlink()
            except OSError:
                pass
        self.created = []
        for lock in self.locks:
            lock.release()
        self.locks = []

    # -- 1. locks ---------------------------------------------------------------------

    def _lock_run(self) -> None:
        try:
            self.state.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StateUnwritable(f"cannot create the state directory {self.state}: {exc.strerror or exc}; "
                                  "fix NEWSCRAWL_STATE_DIR") from None
        if not self.distributed:
            self._lock(self.state / f"{quote(self.site, safe='')}.lock",
                       f"state directory {self.state} for {self.site}", "NEWSCRAWL_STATE_DIR")
        jobdir = self.crawler.settings.get("JOBDIR")
        if jobdir:
            try:
                Path(jobdir).mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StateUnwritable(f"cannot create JOBDIR {jobdir}: {exc.strerror or exc}") from None
            self._lock(Path(jobdir) / "newscrawl.lock", f"JOBDIR {jobdir}", "JOBDIR")

    def _lock(self, path: Path, what: str, setting: str) -> None:
        lock = RunLock(path)
        try:
            taken = lock.acquire()
        except OSError as exc:
            raise StateUnwritable(f"cannot write {path}: {exc.strerror or exc}; fix {setting}") from None
        if not taken:
            pid = lock.holder()
            raise RunLocked(f"another run{f' (pid {pid})' if pid else ''} is using the {what}; "
                            f"not starting (wait for it to finish, or give this run another {setting})")
        self.locks.append(lock)

    # -- 2. state -----------------------------------------------------------------------

    def _check_stores(self) -> None:
        self._check_store(self.state / DB_NAME, "seen-URL store", rebuild=True)
        settings = self.crawler.settings
        if settings.getbool("NEWSCRAWL_TEMPLATES", True) and settings.getbool("NEWSCRAWL_EXTRACT", True):
            self._check_store(self.state / TEMPLATE_DB, "template library", rebuild=False)

    def _check_store(self, path: Path, what: str, *, rebuild: bool) -> None:
        try:
            check_sqlite(path)
        except CorruptStore as exc:
            try:
                moved = move_aside(path)
                logger.warning("The %s %s is corrupt (%s): moved it to %s and starting a new one", what, path,
                               exc, moved.name)
                if rebuild:
                    added = rebuild_seen_store(self.crawler, path, self.site)
                    logger.warning("Rebuilt the seen-URL store from the export files: %d URL(s) recorded "
                                   "as exported", added)
            except (OSError, sqlite3.Error) as again:
                raise StateUnwritable(f"cannot replace the corrupt {what} {path}: {again}") from None
        except (OSError, sqlite3.Error) as exc:
            raise StateUnwritable(f"cannot use the {what} {path}: {exc}; free space or fix "
                                  "NEWSCRAWL_STATE_DIR") from None

    # -- 3. export files ------------------------------------------------------------

    def _check_exports(self) -> None:
        exporters = self.crawler.settings.getwithbase("FEED_EXPORTERS")
        for uri, options in self.crawler.settings.getdict("FEEDS").items():
            options = options if isinstance(options, dict) else {}
            path = feed_path(uri, self.site)
            if path is None:
                continue  # remote storages check themselves
            exact = feed_path(uri, self.site, exact=True)
            if exact is not None:
                self._refuse_special(exact)
            _check_writable_dir(path)
            if exact is not None:
                self._lock_export(exact)
                if not options.get("overwrite", False):
                    end = _record_end(exporters.get(options.get("format")))
                    if end:
                        cut_partial_record(exact, end)

    def _refuse_special(self, path: Path) -> None:
        try:
            mode = path.stat().st_mode
        except FileNotFoundError:
            return
        except OSError as exc:
            raise ExportPathError(exc.errno, f"cannot write the export file {path}: {exc.strerror}") from None
        if not stat.S_ISREG(mode):
            raise ExportPathError(f"the export file {path} is not a regular file (a named pipe, device or "
                                  "directory); export to a regular file, or to stdout with -o -:jsonlines")

    def _lock_export(self, path: Path) -> None:
        lock = RunLock(path, note_pid=False)
        existed = path.exists()
        try:
            taken = lock.acquire()
        except OSError as exc:
            raise ExportPathError(exc.errno, f"cannot write the export file {path}: {exc.strerror}; "
                                             "fix FEEDS or -o") from None
        if not taken:
            raise RunLocked(f"another run is writing the export file {path}; not starting (wait for it to "
                            "finish, or export to another file)")
        self.locks.append(lock)
        if not existed:
            self.created.append(path)
        if not stat.S_ISREG(os.fstat(lock.fd).st_mode):  # replaced since the check above
            raise ExportPathError(f"the export file {path} is not a regular file")



def _check_writable_dir(path: Path) -> None:
    """Create the export file's directory and a temporary file in it; ExportPathError if that fails."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=path.parent):
            pass
    except OSError as exc:
        where = f" ({exc.filename})" if exc.filename and str(exc.filename) != str(path) else ""
        raise ExportPathError(exc.errno, f"cannot write the export file {path}: "
                                         f"{exc.strerror or exc}{where}; fix FEEDS or -o") from None

