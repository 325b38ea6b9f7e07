""":class:`SeenUrls`, the crawl's bookkeeping of seen URLs (a Scrapy extension).

It owns the seen-URL store (:mod:`newscrawl.state.seen_store`) and the in-run set of
scheduled detail URLs; marks a URL as seen on ``item_scraped``, i.e. after the feed exporter
wrote it, and remembers a fetched page dropped for a reason a new fetch would likely repeat
(:func:`remembered`) on ``item_dropped``, with its cause class (:func:`cause_of`), so that later
runs skip it: a ``lasting`` one for ``NEWSCRAWL_RETRY_UNEXPORTED_DAYS``, a ``degraded`` one (the
site's own failure) until the site is healthy again (:meth:`SeenUrls.rejection`).
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
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from scrapy import signals
from scrapy.exceptions import CloseSpider
from scrapy.utils.defer import deferred_from_coro

from newscrawl.dedup import ContentIndex, figures, fingerprint, from_bytes, to_bytes
from newscrawl.export.files import RECENT_FEEDS, iter_records, last_records, local_line_feeds
from newscrawl.items import ArticleItem
from newscrawl.run.drops import DROP_PREFIX
from newscrawl.state.seen_store import (
    DB_NAME,
    DEGRADED,
    FINGERPRINTS_PER_SITE,
    LASTING,
    RECHECK,
    SeenStore,
    SqliteSeenStore,
    canonical_url,
    state_dir,
)

logger = logging.getLogger(__name__)



#: Drop reasons of a fetched page that a later fetch would most likely drop again, of the page's own
#: making (cause ``lasting``): remembered, and not fetched again for NEWSCRAWL_RETRY_UNEXPORTED_DAYS.
#: A copy of an exported article (duplicate, duplicate_content) stays one.  Not transient failures
#: (HTTP errors, timeouts, worker crashes) nor reasons that depend on the run's options (too_old).
UNEXPORTED_REASONS = ("no_text", "no_title", "empty_body", "binary", "unparseable", "too_deep",
                      "duplicate", "duplicate_content")


UNEXPORTED_PREFIXES = ("not_article/",)


COPIES = ("duplicate", "duplicate_content")


#: Drop reasons of a page that failed because of its site (a wall in front of the articles, a layout
#: the extraction no longer reads): cause ``degraded``, fetched again once the site is healthy.
DEGRADED_REASONS = ("consent_wall", "login_wall")


DEGRADED_PREFIXES = ("extraction_failed/",)


RETRY_UNEXPORTED_DAYS = 30.0


UNEXPORTED_STATS = "newscrawl/unexported/"  # recorded, retried, probed, requeued, again/<reason>



def remembered(reason: str) -> bool:
    """Is a page dropped for ``reason`` remembered as unexported (lasting or degraded)?"""
    return (reason in UNEXPORTED_REASONS or reason.startswith(UNEXPORTED_PREFIXES)
            or cause_of(reason) == DEGRADED)


def cause_of(reason: str) -> str:
    """The cause class a drop reason has by its name: ``degraded`` (the site's failure) or ``lasting``."""
    return DEGRADED if reason in DEGRADED_REASONS or reason.startswith(DEGRADED_PREFIXES) else LASTING


@dataclass(frozen=True)
class Rejection:
    """Why an earlier run fetched a page and exported nothing: its drop reason and cause class."""

    reason: str
    cause: str



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
        self._exported_urls: dict[str, list[str]] = {}  # canonical URL -> the URLs recorded for its export
        self._content: dict[str, ContentIndex] = {}  # site -> fingerprints of exported bodies
        self.fingerprints_kept = crawler.settings.getint("NEWSCRAWL_FINGERPRINTS_PER_SITE",
                                                         FINGERPRINTS_PER_SITE)
        self._fingerprints: dict[str, Any] = {}  # URL -> MinHash of a body passed for export, unrecorded
        self.export_failed = False  # set when a feed write failed: record nothing more
        self.state_failed = False  # set when the store could not record: export nothing more
        self.retry_days = crawler.settings.getfloat("NEWSCRAWL_RETRY_UNEXPORTED_DAYS", RETRY_UNEXPORTED_DAYS)
        self._retrying: dict[str, Rejection] = {}  # canonical URL of a rejected page fetched again -> why
        self._unexported_warned = False
        self._healthy: set[str] = set()  # sites this run has shown healthy (:meth:`_exported_one`)
        self._exports: dict[str, int] = {}  # site -> articles exported in this run before it was healthy
        self._want_probe: set[str] = set()  # sites whose next held listing is fetched as a probe
        self._probed: set[str] = set()  # sites of a degraded mark whose run fetched one rejection again
        self._degraded: dict[str, bool] = {}  # site -> marked degraded by the run before (read once)
        self._held: dict[str, list[tuple[Any, Rejection]]] = {}  # site -> degraded rejections skipped
        self._recorded: dict[str, dict[tuple[str, ...], tuple[str, str, bool]]] = {}  # site -> this
        # run's rejections: URLs -> (reason, cause, failed again after a fetch again)
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

    def _taken_back(self, site: str, url: str, fetched_at: Any) -> bool:
        """Was the export of ``url`` (fetched at ``fetched_at``) taken back by a later rejection?"""
        lookup = getattr(self._store(), "unexported", None)
        found = lookup(site, self._key(url)) if lookup is not None else None
        try:
            return found is not None and datetime.fromisoformat(found[1]) >= datetime.fromisoformat(
                fetched_at)
        except (TypeError, ValueError):
            return False

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
        """The reason of :meth:`rejection`, or None."""
        found = self.rejection(site, url)
        return found.reason if found else None

    def rejection(self, site: str, url: str) -> Rejection | None:
        """Why an earlier run fetched ``url`` and exported nothing, when that still holds it back;
        None when it is to be fetched (always with ``NEWSCRAWL_FRESH`` or
        ``NEWSCRAWL_RETRY_UNEXPORTED_DAYS = 0``).  See :meth:`_judge`."""
        if self.fresh or self.retry_days <= 0:
            return None
        lookup = getattr(self._store(), "unexported", None)
        found = lookup(site, self._key(url)) if lookup is not None else None
        return self._judge(site, url, found)

    def _judge(self, site: str, url: str, found: tuple[str, ...] | None) -> Rejection | None:
        """A remembered rejection holds a page back unless it is older than
        ``NEWSCRAWL_RETRY_UNEXPORTED_DAYS`` or marked by ``scrapy recheck`` (``retried``).  A
        ``degraded`` one is fetched again once this run has shown the site healthy
        (``requeued``, :meth:`_exported_one`), and one of them as a probe when the run before
        found the site's extraction failing (``probed``): the site may be fixed.  A page fetched
        again is noted, so that failing again the same way is not a new failure
        (:meth:`item_dropped`)."""
        if found is None:
            return None
        reason, stamp, cause = (*found, LASTING)[:3]
        try:
            when = datetime.fromisoformat(stamp)
        except ValueError:
            return None
        rejection = Rejection(reason, cause)
        if cause == RECHECK or datetime.now(UTC) - when >= timedelta(days=self.retry_days):
            return self._retry(url, rejection, "retried")
        if cause == DEGRADED:
            if site in self._healthy:
                return self._retry(url, rejection, "requeued")
            if site not in self._probed and self._site_degraded(site):
                self._probed.add(site)
                return self._retry(url, rejection, "probed")
        return rejection

    def _retry(self, url: str, rejection: Rejection, why: str) -> None:
        self._retrying[canonical_url(url)] = rejection
        self.crawler.stats.inc_value(UNEXPORTED_STATS + why)
        return None

    def _site_degraded(self, site: str) -> bool:
        if site not in self._degraded:
            lookup = getattr(self._store(), "degraded", None)
            self._degraded[site] = bool(lookup(site)) if lookup is not None else False
        return self._degraded[site]

    def hold(self, item: Any, rejection: Rejection) -> None:
        """Keep a listing skipped for a ``degraded`` rejection: fetched if the site proves healthy."""
        if rejection.cause == DEGRADED:
            self._held.setdefault(item.site, []).append((item, rejection))
            if item.site in self._want_probe:  # an export is waiting for its further probe
                self._want_probe.discard(item.site)
                self._requeue(item.site, 1, "probed")

    def _exported_one(self, site: str) -> None:
        """An article of ``site`` was exported.  The first one shows the site healthy, or the second
        when the run before found its extraction failing (a wall's first page of a run can pass
        for an article; its second cannot): then the listings held back for a degraded rejection
        are fetched now.  Before that, each export of such a site lets one held listing through,
        as a further probe."""
        if site in self._healthy:
            return
        self._exports[site] = self._exports.get(site, 0) + 1
        if self._exports[site] >= (2 if self._site_degraded(site) else 1):
            self._healthy.add(site)
            self._requeue(site, len(self._held.get(site, ())), "requeued")
        elif not self._requeue(site, 1, "probed"):
            self._want_probe.add(site)  # the next held listing is the probe

    def _requeue(self, site: str, count: int, why: str) -> int:
        """Fetch ``count`` held listings of ``site`` now (their ``already_rejected`` drop is taken
        back: the closing line counts each listing once); returns how many."""
        spider, engine, held = self.crawler.spider, self.crawler.engine, self._held.get(site, [])
        done = 0
        while held and done < count and spider is not None and engine is not None:
            item, rejection = held.pop(0)
            if not self.claim(item.url):
                continue
            done += 1
            self._retry(item.url, rejection, why)
            self.crawler.stats.inc_value(DROP_PREFIX + "already_rejected", -1)
            self.crawler.stats.inc_value("newscrawl/scheduled")
            engine.crawl(spider.detail_request(item, self.run_id))
        return done

    def item_dropped(self, item: Any, spider, exception: BaseException) -> None:
        """Remember a fetched page dropped for a reason a new fetch would likely repeat
        (:func:`remembered`).  A page fetched again after an earlier rejection that fails again in
        the same way (the same reason or cause class) counts under ``again/<reason>``, not as a
        new failure, and keeps its cause."""
        reason = getattr(exception, "reason", None)
        if not isinstance(item, ArticleItem) or not reason or self.state_failed:
            return
        urls = [u for u in (item.url, item.listing_url) if u]
        before = next((self._retrying[k] for u in urls if (k := canonical_url(u)) in self._retrying), None)
        again = before is not None and remembered(reason) and (before.reason == reason
                                                                or before.cause == cause_of(reason))
        if again:
            self.crawler.stats.inc_value(f"{UNEXPORTED_STATS}again/{reason}")
        if reason == "extraction_failed/shared_body":
            self._take_back(item.site, getattr(exception, "detail", ""))
        if not remembered(reason):
            return
        cause = before.cause if again and before.cause != RECHECK else cause_of(reason)
        self._remember(item.site, urls, reason, cause, again)

    def _take_back(self, site: str, detail: str) -> None:
        """The page a shared body was first extracted from, exported earlier in this run, exported
        that body too: its export record is taken back and it is remembered as a degraded rejection,
        so it is fetched (and exported) again once the site is healthy."""
        from newscrawl.pipelines.shared_body import first_page  # the pipelines import this module

        first = first_page(detail or "")
        urls = self._exported_urls.pop(canonical_url(first), None) if first else None
        forget = getattr(self._store(), "forget", None)
        if not urls or forget is None:
            return
        try:
            forget(site, [self._key(u) for u in urls])
        except Exception as exc:  # noqa: BLE001 - it stays exported, as before
            logger.warning("Cannot take back the export of %s: %s", first, exc)
            return
        self._exported.difference_update(canonical_url(u) for u in urls)
        self._claimed.update(canonical_url(u) for u in urls)  # not fetched again in this run
        self.crawler.stats.inc_value(UNEXPORTED_STATS + "taken_back")
        logger.warning("The text exported for %s is a body other pages share, not its article: it is "
                       "fetched and exported again once the site is healthy", first)
        self._remember(site, urls, "extraction_failed/shared_body", DEGRADED, again=False)

    def _remember(self, site: str, urls: list[str], reason: str, cause: str, again: bool) -> None:
        """Record a rejection of this run, and note it for :meth:`judge_run`."""
        if self._record(site, urls, reason, cause):
            self._recorded.setdefault(site, {})[tuple(urls)] = (reason, cause, again)

    def _record(self, site: str, urls: list[str], reason: str, cause: str, count: bool = True) -> bool:
        add = getattr(self._store(), "add_unexported", None)
        if add is None:
            return False
        try:
            add(site, [self._key(u) for u in urls], reason, cause)
        except Exception as exc:  # noqa: BLE001 - a missed record costs one fetch next run, nothing more
            if not self._unexported_warned:
                self._unexported_warned = True
                logger.warning("Cannot record unexported pages in %s: %s (they are fetched again next run)",
                               self._store_name(), exc)
            return False
        if count:
            self.crawler.stats.inc_value(UNEXPORTED_STATS + "recorded")
        return True

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

    def _judge_site(self, site: str) -> None:
        stats = self.crawler.stats
        recorded = self._recorded.get(site, {})
        # copies are not failures of the extraction: a site that syndicates much is not failing
        new = sum(1 for reason, _, again in recorded.values() if not again and reason not in COPIES)
        exported = stats.get_value("newscrawl/exported", 0)
        exported -= stats.get_value(UNEXPORTED_STATS + "taken_back", 0)  # their text was no article
        try:
            max_rate = self.crawler.settings.getfloat("NEWSCRAWL_MAX_ERROR_RATE", 0.5)
        except ValueError:
            max_rate = 0.5
        alarmed = bool(stats.get_value("newscrawl/health/alarms"))
        degraded = alarmed or (new > 0 and new / (new + exported) > max_rate)
        mark = getattr(self.store, "set_degraded", None)
        if degraded:
            changed = {urls: reason for urls, (reason, cause, _) in recorded.items() if cause != DEGRADED}
            stats.set_value(UNEXPORTED_STATS + "site_degraded", 1)
        elif exported:
            changed = {urls: reason for urls, (reason, cause, again) in recorded.items()
                       if again and cause != LASTING}
        else:
            return
        for urls, reason in changed.items():
            self._record(site, list(urls), reason, DEGRADED if degraded else LASTING, count=False)
        if mark is not None:
            mark(site, degraded)




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


