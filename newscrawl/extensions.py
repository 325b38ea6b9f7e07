"""Crawl accounting: drop reasons, the seen-URL bookkeeping, the closing summary, durable feeds.

- :func:`record_drop` — every article the crawl gives up on goes through here: one log
  line and a ``newscrawl/dropped/<reason>`` stats counter.  Pipelines raise
  :class:`Dropped` (counted by :class:`CrawlReport` on ``item_dropped``); spider
  errbacks and listing filters call :func:`record_drop` directly.
- :class:`SeenUrls` — owns the seen-URL store and the in-run set of scheduled detail
  URLs; marks a URL as seen on ``item_scraped``, i.e. after the feed exporter wrote it,
  and remembers a fetched page dropped for a lasting reason (:data:`UNEXPORTED_REASONS`)
  on ``item_dropped``, so that later runs skip it for ``NEWSCRAWL_RETRY_UNEXPORTED_DAYS``.
- :class:`CrawlReport` — on ``spider_closed`` logs items, drops by reason, methods used
  and extraction time per page.
- :class:`RunGuard` — the start checks: one run at a time per spider and state directory,
  per ``JOBDIR`` and per export file (``flock`` locks); the seen-URL store, the template
  library and ``JOBDIR`` readable, writable and not corrupt; export files regular files,
  writable, and ending on a complete record.
- :class:`FlushingFileFeedStorage` — Scrapy's local-file feed storage, flushed after each
  item, so an exported item is on disk before :class:`SeenUrls` marks it seen; a failed
  write is cut back to the last complete record.

A crawl that cannot go on stops with its own ``finish_reason``: ``locked``,
``state_unwritable`` (both before the engine starts: :class:`StartRefused`),
``state_write_failed`` (:func:`state_write_failed`) or ``export_failed``
(:func:`export_failed`).
"""

from __future__ import annotations

import io
import json
import logging
import os
import pickle
import sqlite3
import stat
import tempfile
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import IO, Any
from urllib.parse import quote, urlparse

from scrapy import signals
from scrapy.exceptions import CloseSpider, DropItem
from scrapy.exporters import CsvItemExporter, JsonLinesItemExporter
from scrapy.extensions.feedexport import FileFeedStorage
from scrapy.extensions.spiderstate import SpiderState as ScrapySpiderState
from scrapy.utils.defer import deferred_from_coro
from scrapy.utils.misc import load_object
from w3lib.url import file_uri_to_path

from .dedup import ContentIndex, figures, fingerprint, from_bytes, to_bytes
from .extract.methods.template import TEMPLATE_DB
from .items import ArticleItem
from .store import (
    DB_NAME,
    FINGERPRINTS_PER_SITE,
    CorruptStore,
    RunLock,
    SeenStore,
    SqliteSeenStore,
    canonical_url,
    check_sqlite,
    move_aside,
    state_dir,
)
from .urls import short_text, short_url

logger = logging.getLogger(__name__)
DROP_PREFIX = "newscrawl/dropped/"
#: Drop reasons of a fetched page that a later fetch would most likely drop again: such a page is
#: remembered (with its reason) and not fetched again for NEWSCRAWL_RETRY_UNEXPORTED_DAYS.  Not
#: transient failures (HTTP errors, timeouts, worker crashes) nor reasons that depend on other
#: articles or on the run's options (duplicate_content, too_old).
UNEXPORTED_REASONS = ("no_text", "no_title", "empty_body", "binary", "unparseable", "too_deep")
UNEXPORTED_PREFIXES = ("not_article/",)
RETRY_UNEXPORTED_DAYS = 30.0
UNEXPORTED_STATS = "newscrawl/unexported/"  # recorded, retried, again/<reason>
#: Drop reasons of links a run skips by design, one DEBUG line each (the closing summary counts them).
QUIET_REASONS = frozenset({"already_exported", "already_rejected", "listed_twice"})


def remembered(reason: str) -> bool:
    """Is a page dropped for ``reason`` remembered as unexported (see :data:`UNEXPORTED_REASONS`)?"""
    return reason in UNEXPORTED_REASONS or reason.startswith(UNEXPORTED_PREFIXES)


class Dropped(DropItem):
    """An article dropped for ``reason`` (a short stable code, e.g. ``no_text``)."""

    def __init__(self, reason: str, detail: str = "", url: str | None = None):
        super().__init__(f"{reason}: {detail}" if detail else reason, log_level="DEBUG")
        self.reason = reason
        self.detail = detail
        self.url = url


class Scheduled(DropItem):
    """Not a loss: the listing item became a detail-page request (see the fetch stage)."""

    def __init__(self, url: str):
        super().__init__(f"scheduled detail request for {url}", log_level="DEBUG")


def record_drop(crawler, reason: str, url: str | None, detail: str = "") -> None:
    """Log why ``url`` is dropped and count it under ``newscrawl/dropped/<reason>``.

    A link skipped by design (:data:`QUIET_REASONS`: exported or rejected by an earlier run,
    listed twice) is logged at DEBUG: an unchanged site lists thousands of them on every run,
    and the closing summary (:class:`CrawlReport`) gives their count at INFO."""
    crawler.stats.inc_value(DROP_PREFIX + reason)
    level = logging.DEBUG if reason in QUIET_REASONS else logging.INFO
    logger.log(level, "Dropped %s: %s%s", short_url(url), reason,
               f" ({short_text(detail)})" if detail else "")


class SeenUrls:
    """The seen-URL store plus the in-run set of detail URLs already scheduled.

    Settings: ``NEWSCRAWL_STATE_DIR`` (default ``$NEWSCRAWL_STATE_DIR`` or ``.newscrawl``)
    and ``NEWSCRAWL_FRESH`` (ignore what earlier runs exported; still record this run).
    Must be listed after Scrapy's FeedExporter in ``EXTENSIONS`` so that its
    ``item_scraped`` handler runs after the item was written.

    A ``kill -9`` between the feed write and the store's commit would leave an article
    exported but unrecorded, and the next run would export it again.  So each run notes
    its local JSON/JSON-lines feed files in the state directory (:data:`RECENT_FEEDS`),
    and the next run first records the articles at the end of those files that the
    store lacks (:meth:`reconcile`).
    """

    def __init__(self, crawler, store: SeenStore | None = None):
        self.crawler = crawler
        self.fresh = crawler.settings.getbool("NEWSCRAWL_FRESH")
        self._state_dir = crawler.settings.get("NEWSCRAWL_STATE_DIR")
        self.store = store
        self.run_id = uuid.uuid4().hex  # marks the detail requests this run scheduled
        self._claimed: set[str] = set()
        self._exported: set[str] = set()
        self._content: dict[str, ContentIndex] = {}  # site -> fingerprints of exported bodies
        self.fingerprints_kept = crawler.settings.getint("NEWSCRAWL_FINGERPRINTS_PER_SITE",
                                                         FINGERPRINTS_PER_SITE)
        self._fingerprints: dict[str, Any] = {}  # URL -> MinHash of a body passed for export, unrecorded
        self.export_failed = False  # set when a feed write failed: record nothing more
        self.state_failed = False  # set when the store could not record: export nothing more
        self.retry_days = crawler.settings.getfloat("NEWSCRAWL_RETRY_UNEXPORTED_DAYS", RETRY_UNEXPORTED_DAYS)
        self._retrying: set[str] = set()  # listed URLs fetched again after their unexported record expired
        self._unexported_warned = False
        crawler.signals.connect(self.item_scraped, signal=signals.item_scraped)
        crawler.signals.connect(self.item_dropped, signal=signals.item_dropped)
        crawler.signals.connect(self.spider_closed, signal=signals.spider_closed)
        crawler.signals.connect(self.spider_opened, signal=signals.spider_opened)

    @classmethod
    def from_crawler(cls, crawler) -> SeenUrls:
        return cls(crawler)

    def spider_opened(self, spider) -> None:
        try:
            self.reconcile(spider.name)
        except (OSError, sqlite3.Error) as exc:
            self.crawler.stats.set_value("newscrawl/state_write_failed", str(exc))
            logger.error("Cannot write the crawl state in %s: %s. Not starting.",
                         state_dir(self._state_dir), exc)
            raise CloseSpider("state_unwritable") from None

    def reconcile(self, site: str) -> int:
        """Record the articles the previous runs of ``site`` wrote last to their feeds but did not
        record (killed in between); then note this run's feed files.  Returns how many were added."""
        notes = state_dir(self._state_dir) / RECENT_FEEDS
        try:
            recent = json.loads(notes.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            recent = {}
        missing: list[str] = []
        for feed in recent.get(site, []) if isinstance(recent, dict) else []:
            for record in last_records(Path(feed)):
                urls = [u for u in (record.get("url"), record.get("listing_url")) if isinstance(u, str) and u]
                if urls and not self._store().contains(site, self._key(urls[0])):
                    missing.extend(urls)
        if missing:
            self._store().add(site, [self._key(u) for u in missing])
            logger.warning("Recorded %d URL(s) that an interrupted run exported to its feed but had not "
                           "recorded as exported", len(missing))
        recent = recent if isinstance(recent, dict) else {}
        recent[site] = local_line_feeds(self.crawler.settings, site)
        notes.parent.mkdir(parents=True, exist_ok=True)
        tmp = notes.with_suffix(f".{os.getpid()}.tmp")  # distributed workers may share the directory
        tmp.write_text(json.dumps(recent, indent=1), encoding="utf-8")
        tmp.replace(notes)
        return len(missing)

    def _store(self) -> SeenStore:
        if self.store is None:
            self.store = SqliteSeenStore.in_dir(self._state_dir)
        return self.store

    def _key(self, url: str) -> str:
        """The URL as stored: a locally served site's random port is replaced by its placeholder host."""
        spider = self.crawler.spider
        return spider.store_url(url) if hasattr(spider, "store_url") else url

    def exported(self, site: str, url: str) -> bool:
        """Was ``url`` exported before (by an earlier run, or earlier in this one)?

        Always False with ``NEWSCRAWL_FRESH`` for URLs of earlier runs.
        """
        if self.fresh:
            return canonical_url(url) in self._exported
        return self._store().contains(site, self._key(url))

    def listed_earlier(self, url: str) -> bool:
        """Was ``url`` claimed for fetching, or exported, earlier in this run (listed twice)?"""
        key = canonical_url(url)
        return key in self._claimed or key in self._exported

    def rejected(self, site: str, url: str) -> str | None:
        """The reason an earlier run fetched ``url`` and did not export it, if that was less than
        ``NEWSCRAWL_RETRY_UNEXPORTED_DAYS`` ago (0: never skip); None otherwise, and always with
        ``NEWSCRAWL_FRESH``.  A record that expired marks the URL as retried in this run."""
        if self.fresh or self.retry_days <= 0:
            return None
        lookup = getattr(self._store(), "unexported", None)
        found = lookup(site, self._key(url)) if lookup is not None else None
        return self._judge(url, found)

    def _judge(self, url: str, found: tuple[str, str] | None) -> str | None:
        if found is None:
            return None
        reason, stamp = found
        try:
            when = datetime.fromisoformat(stamp)
        except ValueError:
            return None
        if datetime.now(UTC) - when < timedelta(days=self.retry_days):
            return reason
        self._retrying.add(canonical_url(url))
        self.crawler.stats.inc_value(UNEXPORTED_STATS + "retried")
        return None

    def item_dropped(self, item: Any, spider, exception: BaseException) -> None:
        """Remember a fetched page dropped for a lasting reason (see :data:`UNEXPORTED_REASONS`)."""
        reason = getattr(exception, "reason", None)
        if not isinstance(item, ArticleItem) or not reason or not remembered(reason) or self.state_failed:
            return
        urls = [u for u in (item.url, item.listing_url) if u]
        if any(canonical_url(u) in self._retrying for u in urls):
            self.crawler.stats.inc_value(f"{UNEXPORTED_STATS}again/{reason}")
        add = getattr(self._store(), "add_unexported", None)
        if add is None:
            return
        try:
            add(item.site, [self._key(u) for u in urls], reason)
        except Exception as exc:  # noqa: BLE001 - a missed record costs one fetch next run, nothing more
            if not self._unexported_warned:
                self._unexported_warned = True
                logger.warning("Cannot record unexported pages in %s: %s (they are fetched again next run)",
                               self._store_name(), exc)
            return
        self.crawler.stats.inc_value(UNEXPORTED_STATS + "recorded")

    def content_duplicate(self, site: str, url: str, text: str | None,
                          computed: bytes | None = None) -> str | None:
        """The URL of an article exported earlier (this run, or a run before unless
        ``NEWSCRAWL_FRESH``) whose body is the same text as ``text``; None when there is none.
        A body that is new is held for :meth:`item_scraped` to record once it is exported.
        ``computed``: ``text``'s fingerprint as an extraction worker computed it (``b""``: too
        short to have one), so that the crawl process does not compute it again."""
        if self.fingerprints_kept <= 0:
            return None
        if computed is None:
            minhash = fingerprint(text or "")
        else:
            minhash = from_bytes(computed) if computed else None
        if minhash is None:
            return None
        index = self._content_index(site)
        body_figures = figures(text)
        earlier = index.match(minhash, body_figures)
        if earlier is None:
            # the same run: a second copy waits for no export
            index.add(self._key(url), minhash, body_figures)
            self._fingerprints[url] = minhash
        return earlier

    def _content_index(self, site: str) -> ContentIndex:
        index = self._content.get(site)
        if index is None:
            stored = getattr(self._store(), "fingerprints", None)
            index = ContentIndex(stored(site) if stored is not None and not self.fresh else ())
            self._content[site] = index
        return index

    def claim(self, url: str) -> bool:
        """Reserve ``url`` for fetching in this run; False when it was already claimed."""
        key = canonical_url(url)
        if key in self._claimed:
            return False
        self._claimed.add(key)
        return True

    def item_scraped(self, item: Any, spider) -> None:
        if isinstance(item, ArticleItem) and not self.export_failed and not self.state_failed:
            urls = [u for u in (item.url, item.listing_url, item.canonical) if u]
            minhash = self._fingerprints.pop(item.url, None)
            try:
                self._store().add(item.site, [self._key(u) for u in urls])
                add_fingerprint = getattr(self._store(), "add_fingerprint", None)
                if minhash is not None and add_fingerprint is not None:
                    add_fingerprint(item.site, self._key(item.url), to_bytes(minhash),
                                    keep=self.fingerprints_kept)
            except (OSError, sqlite3.Error) as exc:
                # This article is in the feed but not recorded: the next run's reconcile() records it.
                state_write_failed(self.crawler, self._store_name(), exc)
                return
            self._exported.update(canonical_url(u) for u in urls)
            self.crawler.stats.inc_value("newscrawl/exported")

    def _store_name(self) -> str:
        """The store's file (or kind) for messages."""
        if self.store is None:
            return str(state_dir(self._state_dir) / DB_NAME)
        path = getattr(self.store, "path", None)
        return str(path) if path is not None else type(self.store).__name__

    def spider_closed(self, spider, reason: str) -> None:
        if self.store is not None:
            self.store.close()
            self.store = None


RECENT_FEEDS = "recent-feeds.json"  # in the state directory: site -> this run's feed files


def local_line_feeds(settings, site: str) -> list[str]:
    """The local files of ``FEEDS`` written one item per line (JSON lines, JSON), as absolute paths."""
    exporters = settings.getwithbase("FEED_EXPORTERS")
    paths = []
    for uri, options in settings.getdict("FEEDS").items():
        uri = str(uri)
        fmt = (options or {}).get("format") if isinstance(options, dict) else None
        exporter = str(exporters.get(fmt) or "")
        if not exporter.endswith(("JsonLinesItemExporter", "JsonItemExporter")):
            continue
        path = feed_path(uri, site)
        if path is not None:
            paths.append(str(path.resolve()))
    return paths


def feed_path(uri: str, site: str, *, exact: bool = False) -> Path | None:
    """The local file a ``FEEDS`` URI writes for ``site``; None for remote storages and stdout.

    ``%(name)s`` is the site; other URI parameters (``%(time)s``, ...) become ``check``,
    or with ``exact`` the answer is None, as the run's real file name is not known yet.
    """
    uri = str(uri)
    if uri.startswith("file:"):
        return Path(file_uri_to_path(uri))
    if urlparse(uri).scheme:
        return None  # s3://, ftp://, stdout:, ...
    try:
        return Path(uri % ({"name": site} if exact else _AnyParam(name=site)))
    except (KeyError, TypeError, ValueError):
        return None


def iter_records(path: Path) -> Iterator[dict]:
    """Every JSON object of a JSON-lines (or one-object-per-line JSON array) file; broken lines skipped."""
    try:
        with path.open("rb") as fh:
            for line in fh:
                line = line.strip().lstrip(b"[").rstrip(b",]").strip()
                try:
                    record = json.loads(line)
                except ValueError:
                    continue
                if isinstance(record, dict):
                    yield record
    except OSError as exc:
        logger.warning("Cannot read the export file %s back: %s", path, exc.strerror or exc)


def last_records(path: Path, lines: int = 8, max_bytes: int = 64 * 2**20) -> list[dict]:
    """The last complete JSON objects of a JSON-lines (or JSON array) file, one per line."""
    try:
        with path.open("rb") as fh:
            size = fh.seek(0, io.SEEK_END)
            chunk, start = b"", size
            while start > 0 and chunk.count(b"\n") <= lines and size - start < max_bytes:
                step = min(start, 2**20)
                start -= step
                fh.seek(start)
                chunk = fh.read(step) + chunk
    except OSError:
        return []
    records = []
    for line in chunk.split(b"\n")[-lines - 1:]:
        line = line.strip().lstrip(b"[").rstrip(b",]").strip()
        try:
            record = json.loads(line)
        except ValueError:
            continue  # a line cut by the kill, or cut by the chunk's start
        if isinstance(record, dict):
            records.append(record)
    return records


class CrawlReport:
    """Counts drops by reason and summarises the crawl when the spider closes."""

    def __init__(self, crawler):
        self.crawler = crawler
        self.methods: Counter[str] = Counter()
        self.extraction_seconds = 0.0
        self.extracted = 0
        crawler.signals.connect(self.item_scraped, signal=signals.item_scraped)
        crawler.signals.connect(self.item_dropped, signal=signals.item_dropped)
        crawler.signals.connect(self.spider_closed, signal=signals.spider_closed)

    @classmethod
    def from_crawler(cls, crawler) -> CrawlReport:
        return cls(crawler)

    def item_scraped(self, item: Any, spider) -> None:
        if isinstance(item, ArticleItem):
            self.methods[item.method or "?"] += 1
            if item.extraction_seconds is not None:
                self.extraction_seconds += item.extraction_seconds
                self.extracted += 1

    def item_dropped(self, item: Any, spider, exception: BaseException) -> None:
        if isinstance(exception, Dropped):
            record_drop(self.crawler, exception.reason, exception.url or getattr(item, "url", None),
                        exception.detail)
        elif isinstance(exception, Scheduled):
            self.crawler.stats.inc_value("newscrawl/scheduled")

    def summary(self) -> dict[str, Any]:
        stats = self.crawler.stats.get_stats()
        drops = {k[len(DROP_PREFIX):]: v for k, v in stats.items() if k.startswith(DROP_PREFIX)}
        return {
            "exported": stats.get("newscrawl/exported", 0),
            "listed": stats.get("newscrawl/listed", 0),
            "scheduled": stats.get("newscrawl/scheduled", 0),
            "dropped": dict(sorted(drops.items())),
            "outside_window": stats.get("newscrawl/sitemap/outside_window", 0),
            "methods": dict(self.methods.most_common()),
            "extraction_ms_per_page": round(1000 * self.extraction_seconds / self.extracted, 1)
            if self.extracted
            else None,
        }

    def spider_closed(self, spider, reason: str) -> None:
        s = self.summary()
        drops = ", ".join(f"{k}={v}" for k, v in s["dropped"].items()) or "none"
        methods = ", ".join(f"{k}={v}" for k, v in s["methods"].items()) or "none"
        window = (f" ({s['outside_window']} sitemap entries outside the date window not listed)"
                  if s["outside_window"] else "")
        logger.info(
            "newscrawl summary for %s (%s): %d articles exported from %d listed links%s (%d fetched); "
            "dropped: %s; methods: %s; extraction %s ms/page",
            spider.name, reason, s["exported"], s["listed"], window, s["scheduled"], drops, methods,
            s["extraction_ms_per_page"] if s["extraction_ms_per_page"] is not None else "n/a",
        )


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


class _AnyParam(dict):
    """``%(name)s``-style feed URI parameters: the spider name, anything else a placeholder."""

    def __missing__(self, key: str) -> str:
        return "check"


RECORD_ENDS = {JsonLinesItemExporter: b"\n", CsvItemExporter: b"\r\n"}  # what ends a complete record


class RunGuard:
    """Checks and locks taken when the crawler is built, before any file is opened or page fetched.

    1. **One run at a time.**  An exclusive ``flock`` on ``<state dir>/<spider>.lock``
       (not with ``NEWSCRAWL_DISTRIBUTED``, whose workers share their state in Redis), on
       ``<JOBDIR>/newscrawl.lock`` and on every local export file.  A second run stops at
       once with :class:`RunLocked` (``finish_reason`` ``locked``): it would truncate the
       first run's ``-O`` file, or discard its ``JOBDIR`` queue.  The kernel drops the locks
       of a killed run.
    2. **The crawl state is usable.**  The seen-URL store and the template library pass
       ``PRAGMA quick_check`` and take a write (:func:`~newscrawl.store.check_sqlite`).
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


def _record_end(exporter: Any) -> bytes | None:
    """The bytes that end a complete record of ``exporter`` (a class or its path), if it writes records."""
    try:
        cls = load_object(exporter) if isinstance(exporter, str) else exporter
    except (ImportError, NameError, ValueError):
        return None
    for base, end in RECORD_ENDS.items():
        if isinstance(cls, type) and issubclass(cls, base):
            return end
    return None


def cut_partial_record(path: Path, end: bytes, chunk: int = 2**16) -> int:
    """Cut a file that does not end with ``end`` back to just after its last ``end``; returns bytes cut.

    Only the last, incomplete record is read (backwards, ``chunk`` bytes at a time).  A
    JSON-lines file whose last line is a whole JSON object without its newline (as other
    tools may write it) gets the newline instead.
    """
    with path.open("r+b") as fh:
        size = fh.seek(0, io.SEEK_END)
        if size == 0:
            return 0
        fh.seek(max(0, size - len(end)))
        if fh.read() == end:
            return 0
        keep, pos, tail = 0, size, b""
        while pos > 0:
            start = max(0, pos - chunk)
            fh.seek(start)
            tail = fh.read(pos - start) + tail[: len(end) - 1]
            found = tail.rfind(end)
            if found >= 0:
                keep = start + found + len(end)
                break
            pos = start
        if end == b"\n" and _is_json_object(fh, keep, size):
            fh.seek(size)
            fh.write(end)
            return 0
        fh.truncate(keep)
    logger.warning("The export file %s ended inside a record (an interrupted write): cut %d byte(s) back to "
                   "its last complete record", path, size - keep)
    return size - keep


def _is_json_object(fh: IO[bytes], start: int, stop: int) -> bool:
    fh.seek(start)
    try:
        return isinstance(json.loads(fh.read(stop - start)), dict)
    except ValueError:
        return False


def rebuild_seen_store(crawler, path: Path, site: str) -> int:
    """Record as exported every URL in the export files of each site's last run (``recent-feeds.json``)
    and in ``site``'s JSON/JSON-lines feed files of this run; returns how many URLs were read."""
    try:
        recent = json.loads((path.parent / RECENT_FEEDS).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        recent = {}
    feeds = {site: list(files) for site, files in recent.items() if isinstance(files, list)} \
        if isinstance(recent, dict) else {}
    feeds.setdefault(site, []).extend(local_line_feeds(crawler.settings, site))
    store_url = getattr(crawler.spider, "store_url", None)  # the key of a locally served site's URLs
    store = SqliteSeenStore(path)
    added = 0
    try:
        for name, files in feeds.items():
            for file in dict.fromkeys(files):
                urls = [r["url"] for r in iter_records(Path(file)) if isinstance(r.get("url"), str)]
                if name == site and store_url is not None:
                    urls = [store_url(u) for u in urls]
                store.add(name, urls)
                added += len(urls)
    finally:
        store.close()
    return added


class SpiderState(ScrapySpiderState):
    """Scrapy's ``JOBDIR`` spider state (``spider.state``), tolerant of a damaged file.

    A run that stopped on a full disk leaves ``spider.state`` empty or cut: the next run
    starts with an empty state and a warning instead of a traceback, and a state that
    cannot be saved costs a warning (the crawl's outcome was decided already).
    """

    def spider_opened(self, spider) -> None:
        try:
            super().spider_opened(spider)
        except (OSError, EOFError, pickle.UnpicklingError, ValueError) as exc:
            logger.warning("Cannot read the spider state %s (%s): starting with an empty one",
                           self.statefn, exc)
            spider.state = {}

    def spider_closed(self, spider) -> None:
        try:
            super().spider_closed(spider)
        except OSError as exc:
            logger.warning("Cannot save the spider state %s: %s", self.statefn, exc.strerror or exc)


def state_write_failed(crawler, what: str, exc: BaseException) -> None:
    """The crawl state could not be written mid-run (full disk, read-only file system).

    One error line, the ``newscrawl/state_write_failed`` stat, nothing more exported
    (an article exported but not recorded would be exported again by the next run; the
    one in flight is recorded by the next run's :meth:`SeenUrls.reconcile`), and the
    crawl stops with ``finish_reason`` ``state_write_failed``.
    """
    seen = crawler.get_extension(SeenUrls)
    if seen is not None:
        if seen.state_failed:
            return
        seen.state_failed = True
    why = getattr(exc, "strerror", None) or str(exc)
    crawler.stats.set_value("newscrawl/state_write_failed", f"{what}: {why}")
    logger.error("Cannot write the crawl state %s: %s. Stopping the crawl; articles not recorded are not "
                 "exported and will be fetched again by the next run.", what, why)
    if crawler.engine is not None and crawler.engine.spider is not None:
        deferred_from_coro(crawler.engine.close_spider_async(reason="state_write_failed"))


def export_failed(crawler, path: str, exc: OSError) -> None:
    """A feed write failed: one error line, nothing more marked as exported, the crawl stops."""
    seen = crawler.get_extension(SeenUrls)
    if seen is not None:
        seen.export_failed = True
    crawler.stats.set_value("newscrawl/export_failed", f"{path}: {exc.strerror or exc}")
    logger.error("Cannot write the export file %s: %s. Stopping the crawl; articles not written are "
                 "not marked as exported and will be fetched again by the next run.",
                 path, exc.strerror or exc)
    if crawler.engine is not None and crawler.engine.spider is not None:
        deferred_from_coro(crawler.engine.close_spider_async(reason="export_failed"))


class _FlushingWriter(io.BufferedWriter):
    """A buffered file that flushes after every write (one write per exported item).

    The first failing write (disk full, file system gone) is cut off the file, so that
    it ends on the last complete record and the next run appends cleanly, and calls
    ``on_error`` once; later writes are discarded while the crawl closes, so a full disk
    gives one error line, not a traceback per item.  So are all writes once ``stopped()``
    is true (the crawl state could not record the last item).
    """

    def __init__(self, raw, on_error: Callable[[OSError], None], stopped: Callable[[], bool] = lambda: False):
        super().__init__(raw)
        self.on_error = on_error
        self.stopped = stopped
        self.failed = False

    def write(self, data) -> int:
        if self.failed or self.stopped():
            return len(data)
        complete = None
        try:
            complete = os.fstat(self.raw.fileno()).st_size  # each write is whole records
            written = super().write(data)
            self.flush()
        except OSError as exc:
            self.failed = True
            if complete is not None:
                self._cut_back(complete)
            self.on_error(exc)
            return len(data)
        return written

    def flush(self) -> None:
        if not self.failed:  # the refused bytes stay unwritten (an exporter's detach() flushes too)
            super().flush()

    def _cut_back(self, size: int) -> None:
        """Drop the bytes of the failed write that did reach the file."""
        try:
            os.ftruncate(self.raw.fileno(), size)
        except OSError as exc:  # the next run's RunGuard cuts it instead
            logger.warning("Could not cut the partial record off %s: %s", getattr(self.raw, "name", "?"), exc)

    def close(self) -> None:
        if self.failed:
            self.raw.close()  # the refused bytes stay unwritten instead of failing again here
        else:
            super().close()


class FlushingFileFeedStorage(FileFeedStorage):
    """Local feed files whose every item reaches the OS before the item counts as exported.

    Scrapy's own storage keeps up to a buffer's worth of items in memory; after a
    ``kill -9`` those would be lost although already recorded in the seen-URL store.
    A failing write stops the crawl (see :func:`export_failed`).
    """

    crawler = None

    @classmethod
    def from_crawler(cls, crawler, uri: str, *, feed_options: dict | None = None):
        storage = cls(uri, feed_options=feed_options)
        storage.crawler = crawler
        return storage

    def _failed(self, exc: OSError) -> None:
        if self.crawler is not None:
            export_failed(self.crawler, str(self.path), exc)
        else:
            raise exc

    def _state_failed(self) -> bool:
        seen = self.crawler.get_extension(SeenUrls) if self.crawler is not None else None
        return seen is not None and seen.state_failed

    def open(self, spider) -> IO[bytes]:
        path = Path(self.path)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            raw = io.FileIO(path, self.write_mode.replace("b", ""))
        except OSError as exc:
            self._failed(exc)
            writer = _FlushingWriter(io.FileIO(os.devnull, "w"), self._failed)
            writer.failed = True
            return writer
        return _FlushingWriter(raw, self._failed, self._state_failed)
