"""Crawl accounting: drop reasons, the seen-URL bookkeeping, the closing summary, durable feeds.

- :func:`record_drop` — every article the crawl gives up on goes through here: one log
  line and a ``newscrawl/dropped/<reason>`` stats counter.  Pipelines raise
  :class:`Dropped` (counted by :class:`CrawlReport` on ``item_dropped``); spider
  errbacks and listing filters call :func:`record_drop` directly.
- :class:`SeenUrls` — owns the seen-URL store and the in-run set of scheduled detail
  URLs; marks a URL as seen on ``item_scraped``, i.e. after the feed exporter wrote it.
- :class:`CrawlReport` — on ``spider_closed`` logs items, drops by reason, methods used
  and extraction time per page.
- :class:`FlushingFileFeedStorage` — Scrapy's local-file feed storage, flushed after each
  item, so an exported item is on disk before :class:`SeenUrls` marks it seen.
"""

from __future__ import annotations

import io
import json
import logging
import os
import tempfile
import uuid
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from scrapy import signals
from scrapy.exceptions import DropItem
from scrapy.extensions.feedexport import FileFeedStorage
from scrapy.utils.defer import deferred_from_coro
from w3lib.url import file_uri_to_path

from .items import ArticleItem
from .store import SeenStore, SqliteSeenStore, canonical_url, state_dir

logger = logging.getLogger(__name__)
DROP_PREFIX = "newscrawl/dropped/"


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
    """Log why ``url`` is dropped and count it under ``newscrawl/dropped/<reason>``."""
    crawler.stats.inc_value(DROP_PREFIX + reason)
    logger.info("Dropped %s: %s%s", url or "<no url>", reason, f" ({detail})" if detail else "")


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
        self.export_failed = False  # set when a feed write failed: record nothing more
        crawler.signals.connect(self.item_scraped, signal=signals.item_scraped)
        crawler.signals.connect(self.spider_closed, signal=signals.spider_closed)
        crawler.signals.connect(self.spider_opened, signal=signals.spider_opened)

    @classmethod
    def from_crawler(cls, crawler) -> SeenUrls:
        return cls(crawler)

    def spider_opened(self, spider) -> None:
        self.reconcile(spider.name)

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
        tmp = notes.with_suffix(".tmp")
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

    def claim(self, url: str) -> bool:
        """Reserve ``url`` for fetching in this run; False when it was already claimed."""
        key = canonical_url(url)
        if key in self._claimed:
            return False
        self._claimed.add(key)
        return True

    def item_scraped(self, item: Any, spider) -> None:
        if isinstance(item, ArticleItem) and not self.export_failed:
            urls = [u for u in (item.url, item.listing_url) if u]
            self._store().add(item.site, [self._key(u) for u in urls])
            self._exported.update(canonical_url(u) for u in urls)
            self.crawler.stats.inc_value("newscrawl/exported")

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
        if "://" in uri and not uri.startswith("file:"):
            continue
        path = file_uri_to_path(uri) if uri.startswith("file:") else uri % _AnyParam(name=site)
        paths.append(str(Path(path).resolve()))
    return paths


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
            "methods": dict(self.methods.most_common()),
            "extraction_ms_per_page": round(1000 * self.extraction_seconds / self.extracted, 1)
            if self.extracted
            else None,
        }

    def spider_closed(self, spider, reason: str) -> None:
        s = self.summary()
        drops = ", ".join(f"{k}={v}" for k, v in s["dropped"].items()) or "none"
        methods = ", ".join(f"{k}={v}" for k, v in s["methods"].items()) or "none"
        logger.info(
            "newscrawl summary for %s (%s): %d articles exported from %d listed links (%d fetched); "
            "dropped: %s; methods: %s; extraction %s ms/page",
            spider.name, reason, s["exported"], s["listed"], s["scheduled"], drops, methods,
            s["extraction_ms_per_page"] if s["extraction_ms_per_page"] is not None else "n/a",
        )


class ExportPathError(OSError):
    """A feed file of ``FEEDS`` cannot be written; raised before the crawl starts."""


class _AnyParam(dict):
    """``%(name)s``-style feed URI parameters: the spider name, anything else a placeholder."""

    def __missing__(self, key: str) -> str:
        return "check"


class ExportCheck:
    """Fail at start, with one clear message, when a local feed file of ``FEEDS`` cannot be written.

    Without it an unwritable ``-o`` path shows only at the first item, as one traceback
    per item.  The check creates the feed's directory and a temporary file in it; write
    failures later in the crawl (a full disk) are handled by the feed storage below.
    """

    def __init__(self, crawler):
        params = _AnyParam(name=getattr(crawler.spidercls, "name", "spider"))
        for uri in crawler.settings.getdict("FEEDS"):
            uri = str(uri)
            if "://" in uri and not uri.startswith("file:"):
                continue  # remote storages check themselves
            path = Path(file_uri_to_path(uri) if uri.startswith("file:") else uri % params)
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                with tempfile.TemporaryFile(dir=path.parent):
                    pass
                if path.exists():
                    with path.open("ab"):
                        pass
            except OSError as exc:
                where = f" ({exc.filename})" if exc.filename and str(exc.filename) != str(path) else ""
                raise ExportPathError(exc.errno, f"cannot write the export file {path}: "
                                                 f"{exc.strerror or exc}{where}; fix FEEDS or -o") from None

    @classmethod
    def from_crawler(cls, crawler) -> ExportCheck:
        return cls(crawler)


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

    The first failing write (disk full, file system gone) calls ``on_error`` once; later
    writes are discarded while the crawl closes, so a full disk gives one error line,
    not a traceback per item.
    """

    def __init__(self, raw, on_error: Callable[[OSError], None]):
        super().__init__(raw)
        self.on_error = on_error
        self.failed = False

    def write(self, data) -> int:
        if self.failed:
            return len(data)
        try:
            written = super().write(data)
            self.flush()
        except OSError as exc:
            self.failed = True
            self.on_error(exc)
            return len(data)
        return written

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
        return _FlushingWriter(raw, self._failed)
