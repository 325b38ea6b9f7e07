""":class:`SeenUrls`, the crawl's bookkeeping of seen URLs (a Scrapy extension).

It owns the seen-URL store (:mod:`newscrawl.state.seen_store`) and the in-run set of
scheduled detail URLs; marks a URL as seen on ``item_scraped``, i.e. after the feed exporter
wrote it (a live blog with the keys of its entries and until when it is live: :mod:`.live`), and
remembers a fetched page dropped without an article on ``item_dropped``, with its reason and cause
class, to fetch it again when that cause is gone (:mod:`.rejections`).
At start it reconciles the store with the last records of this site's feeds (an item written
but not recorded before a crash is recorded, never exported again); :func:`rebuild_seen_store`
rebuilds a store lost or moved aside from the exported feeds.  When the state cannot be
written mid-run, :func:`state_write_failed` stops the crawl (finish_reason
``state_write_failed``).
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import uuid
from pathlib import Path
from typing import Any

from scrapy import signals
from scrapy.exceptions import CloseSpider
from scrapy.utils.defer import deferred_from_coro

from newscrawl.dedup import ContentIndex, figures, fingerprint, from_bytes, to_bytes
from newscrawl.export.files import RECENT_FEEDS, iter_records, last_records, local_line_feeds
from newscrawl.extract.fields.entries import entry_key
from newscrawl.items import ArticleItem
from newscrawl.state.live import LIVE_DAYS, live_until, still_live
from newscrawl.state.rejections import RETRY_UNEXPORTED_DAYS, RejectionMemory
from newscrawl.state.seen_store import (
    DB_NAME,
    FINGERPRINTS_PER_SITE,
    SeenStore,
    SqliteSeenStore,
    canonical_url,
    state_dir,
)

logger = logging.getLogger(__name__)



class SeenUrls(RejectionMemory):
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
        self._exported_urls: dict[str, list[str]] = {}  # canonical URL -> the URLs recorded for its export
        self._content: dict[str, ContentIndex] = {}  # site -> fingerprints of exported bodies
        self.fingerprints_kept = crawler.settings.getint("NEWSCRAWL_FINGERPRINTS_PER_SITE",
                                                         FINGERPRINTS_PER_SITE)
        self._fingerprints: dict[str, Any] = {}  # URL -> MinHash of a body passed for export, unrecorded
        self.export_failed = False  # set when a feed write failed: record nothing more
        self.state_failed = False  # set when the store could not record: export nothing more
        self.retry_days = crawler.settings.getfloat("NEWSCRAWL_RETRY_UNEXPORTED_DAYS", RETRY_UNEXPORTED_DAYS)
        self.live_days = crawler.settings.getfloat("NEWSCRAWL_LIVE_DAYS", LIVE_DAYS)
        self._init_rejections()
        crawler.signals.connect(self.item_scraped, signal=signals.item_scraped)
        crawler.signals.connect(self.item_dropped, signal=signals.item_dropped)
        crawler.signals.connect(self.spider_closed, signal=signals.spider_closed)
        crawler.signals.connect(self.spider_opened, signal=signals.spider_opened)

    @classmethod
    def from_crawler(cls, crawler) -> SeenUrls:
        return cls(crawler)

    def spider_opened(self, spider) -> None:
        # Judged after every other spider_closed handler (the health alarms are set in theirs).
        self.crawler.signals.connect(self.judge_run, signal=signals.spider_closed)
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
                if urls and not self._store().contains(site, self._key(urls[0])) \
                        and not self._taken_back(site, urls[0], record.get("fetched_at")):
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

    def still_live(self, site: str, url: str) -> bool:
        """Is ``url`` an exported live blog still live (:mod:`.live`), so fetched again?"""
        live = None if self.fresh else getattr(self._store(), "live", None)
        record = live(site, self._key(url)) if live is not None else None
        return record is not None and still_live(record[0])

    def live_entries(self, site: str, urls: list[str]) -> set[str] | None:
        """The keys of the entries an earlier run exported for the live blog at ``urls``; None when
        none of them was exported as one."""
        live = None if self.fresh else getattr(self._store(), "live", None)
        records = [r for u in urls if (r := live(site, self._key(u)))] if live is not None else []
        return {key for _, keys in records for key in keys} if records else None

    def listed_earlier(self, url: str) -> bool:
        """Was ``url`` claimed for fetching, or exported, earlier in this run (listed twice)?"""
        key = canonical_url(url)
        return key in self._claimed or key in self._exported

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
            # a multi-page article's continuation pages are exported with it, never alone
            urls = [u for u in (item.url, item.listing_url, item.canonical, *(item.page_urls or ())) if u]
            urls = list(dict.fromkeys(urls))
            minhash = self._fingerprints.pop(item.url, None)
            try:
                self._store().add(item.site, [self._key(u) for u in urls])
                set_live = getattr(self._store(), "set_live", None)
                if item.entries and set_live is not None:
                    set_live(item.site, [self._key(u) for u in urls],
                             live_until(item.entries, item.coverage_end, self.live_days),
                             [entry_key(e) for e in item.entries])
                add_fingerprint = getattr(self._store(), "add_fingerprint", None)
                if minhash is not None and add_fingerprint is not None:
                    add_fingerprint(item.site, self._key(item.url), to_bytes(minhash),
                                    keep=self.fingerprints_kept)
            except (OSError, sqlite3.Error) as exc:
                # This article is in the feed but not recorded: the next run's reconcile() records it.
                state_write_failed(self.crawler, self._store_name(), exc)
                return
            self._exported.update(canonical_url(u) for u in urls)
            self._exported_urls[canonical_url(item.url)] = urls
            self.crawler.stats.inc_value("newscrawl/exported")
            self._exported_one(item.site)

    def _store_name(self) -> str:
        """The store's file (or kind) for messages."""
        if self.store is None:
            return str(state_dir(self._state_dir) / DB_NAME)
        path = getattr(self.store, "path", None)
        return str(path) if path is not None else type(self.store).__name__

    def spider_closed(self, spider, reason: str) -> None:
        """The store stays open for :meth:`judge_run`, the last handler."""

    def judge_run(self, spider, reason: str) -> None:
        """Judge the run's extraction of the site, then close the store.

        *Degraded*: a health alarm, or more than ``NEWSCRAWL_MAX_ERROR_RATE`` of the pages fetched
        for the first time rejected (copies aside): every rejection of the run is the site's
        (``degraded``) and the site is marked so (its next run probes one).  *Healthy*: articles
        exported, failures within the rate: the mark goes, and a page that failed again as before
        (fetched again because the site looked healthy) is the page's own (``lasting``).  A run
        that fetched nothing new leaves everything as it was."""
        try:
            if self.store is not None and not self.state_failed:
                self._judge_site(spider.name)
        except Exception as exc:  # noqa: BLE001 - the records stand as written during the run
            logger.warning("Cannot record the site's extraction health in %s: %s", self._store_name(), exc)
        finally:
            if self.store is not None:
                self.store.close()
                self.store = None

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


