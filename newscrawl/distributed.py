"""Scale-out on scrapy-redis: any number of workers, on any number of machines, share one frontier.

``-s NEWSCRAWL_DISTRIBUTED=redis://host:6379/0`` (or the setting in a settings file) makes the
:class:`RedisAddon` switch a crawl to:

- **scrapy-redis's scheduler** (:class:`DistributedScheduler`, a subclass) with its
  priority queue in Redis: every request — catalogue pages, feeds *and the detail pages*
  the fetch stage schedules through ``crawler.engine.crawl()`` — goes into the shared queue
  and is downloaded by whichever worker pops it, not by the worker that read the listing;
- **scrapy-redis's duplicate filter** for requests that are not ``dont_filter``;
- **shared claims instead of the in-run sets** (:class:`~newscrawl.redis_store.RedisClaims`):
  newscrawl's requests are all ``dont_filter`` (see :mod:`newscrawl.pipelines`), and
  de-duplication is by claims.  A detail URL is claimed by the fetch stage (``SET NX EX``:
  one worker wins, so one request enters the queue, one worker pops it, one export);
  a listing page is claimed when it is scheduled, so N workers starting together read each
  catalogue page once; the export gate claims the article's URLs before export, so two
  listing URLs redirecting to one article are exported once across all workers;
- **the seen-URL store in the same Redis** (:class:`~newscrawl.redis_store.RedisSeenStore`);
- **the template library in the same Redis** (seed 004,
  :class:`~newscrawl.redis_store.RedisTemplateStore`, opened by :func:`template_store` for
  :mod:`newscrawl.pipelines.templates` instead of ``templates.sqlite3``): one library per
  site; each worker counts its own batches of N1 pages, merges what it learned into Redis
  at the end of every batch (one atomic Lua script: union of entries, the highest count)
  and reloads the shared library then, so every worker cleans with what all have learned;
  a worker that stops mid-batch leaves the batch for the next one to resume.
  ``scrapy templates SITE -s NEWSCRAWL_DISTRIBUTED=...`` prints it;
- **idle handling** (:class:`IdleWorker`): a worker whose own work is done keeps polling the
  shared queue while it has requests or another worker is busy (it may still discover
  pages), and closes after ``NEWSCRAWL_IDLE_CLOSE`` seconds with nothing to do.

Start URLs come from the spiders' own ``start()`` (catalogues and feeds of the site
configuration), not from scrapy-redis's ``RedisSpider`` start-URL list, whose idle-time
reading its maintainers call fragile (rmax/scrapy-redis#317).  Settings (defaults):

- ``NEWSCRAWL_DISTRIBUTED`` (None) — the Redis URL; unset = the single-process crawl;
- ``NEWSCRAWL_REDIS_PREFIX`` ("newscrawl") — key prefix, so crawls can share a server;
- ``NEWSCRAWL_CLAIM_TTL`` (21600) — the claims of a crawl job (listing, detail, export)
  are cleared when its last worker finishes, so the next job re-reads the catalogues and
  retries pages claimed but not exported; if every worker was killed, they expire after
  this many seconds of inactivity instead;
- ``NEWSCRAWL_IDLE_CLOSE`` (5) — seconds an idle worker waits for work before it stops.

``docs/performance.md`` shows how to run N workers on N machines.  Compatibility with
scrapy-redis 0.9.1 on Scrapy 2.19 (its last release predates Scrapy 2.13): it works as it
is, with deprecation warnings; the one shim here is :meth:`DistributedScheduler.from_crawler`
passing the crawler's settings and stats explicitly.
"""

from __future__ import annotations

import logging
import time
import uuid
from typing import Any

from scrapy import signals
from scrapy.exceptions import DontCloseSpider, NotConfigured
from twisted.internet import task

from .extensions import SeenUrls
from .middlewares import DETAIL_META
from .store import canonical_url

try:  # the distributed mode needs scrapy-redis and redis; the single-process crawl does not
    from scrapy_redis.scheduler import Scheduler as RedisScheduler

    from .redis_store import DEFAULT_PREFIX, RedisClaims, RedisSeenStore, RedisTemplateStore, connect
except ImportError as exc:  # pragma: no cover - exercised only without the packages
    RedisScheduler = object
    DEFAULT_PREFIX = "newscrawl"
    _MISSING: ImportError | None = exc
else:
    _MISSING = None

logger = logging.getLogger(__name__)

SETTING = "NEWSCRAWL_DISTRIBUTED"
CLAIM_TTL = 6 * 3600
SCOPES = ("listing", "detail", "export")
REQUEUED = "newscrawl_requeued"  # meta flag: a request taken from the queue and handed back


def _prefix(settings) -> str:
    return settings.get("NEWSCRAWL_REDIS_PREFIX") or DEFAULT_PREFIX


class RedisAddon:
    """Turns the distributed mode on when ``NEWSCRAWL_DISTRIBUTED`` is set (listed in ``ADDONS``).

    Settings are set at ``spider`` priority: above the project's defaults (which name the
    single-process scheduler), below ``-s`` on the command line.
    """

    def update_settings(self, settings) -> None:
        url = settings.get(SETTING)
        if not url:
            return
        if _MISSING is not None:
            raise NotConfigured(f"{SETTING} needs scrapy-redis==0.9.1 and redis installed ({_MISSING})")
        if not str(url).startswith(("redis://", "rediss://", "unix://")):
            raise ValueError(f"{SETTING}={url!r}: expected redis://host:port/db")
        prefix = _prefix(settings)
        values = {
            "REDIS_URL": url,
            "SCHEDULER": "newscrawl.distributed.DistributedScheduler",
            "DUPEFILTER_CLASS": "scrapy_redis.dupefilter.RFPDupeFilter",
            "SCHEDULER_PERSIST": True,  # one worker stopping must not flush everyone's queue
            "SCHEDULER_QUEUE_KEY": f"{prefix}:%(spider)s:requests",
            "SCHEDULER_DUPEFILTER_KEY": f"{prefix}:%(spider)s:dupefilter",
        }
        for name, value in values.items():
            settings.set(name, value, priority="spider")
        extensions = settings.getdict("EXTENSIONS")
        order = (extensions.get("newscrawl.distributed.RedisSeenUrls")  # applied twice: same result
                 or extensions.get("newscrawl.extensions.SeenUrls") or 900)
        extensions["newscrawl.extensions.SeenUrls"] = None
        extensions["newscrawl.distributed.RedisSeenUrls"] = order
        extensions["newscrawl.distributed.IdleWorker"] = order + 5
        settings.set("EXTENSIONS", extensions, priority="spider")
        if settings.get("JOBDIR"):
            logger.warning("JOBDIR is ignored in the distributed mode: the queue lives in Redis")


class DistributedScheduler(RedisScheduler):
    """scrapy-redis's scheduler plus newscrawl's listing claims (see the module docstring)."""

    @classmethod
    def from_crawler(cls, crawler):
        scheduler = cls.from_settings(crawler.settings)
        scheduler.stats = crawler.stats
        scheduler.crawler = crawler
        prefix = _prefix(crawler.settings)
        scheduler.claims = RedisClaims(scheduler.server, prefix)
        scheduler.claim_ttl = crawler.settings.getint("NEWSCRAWL_CLAIM_TTL", CLAIM_TTL)
        return scheduler

    def enqueue_request(self, request) -> bool:
        if request.meta.pop(REQUEUED, False):
            self.queue.push(request)
            return True
        if request.dont_filter and DETAIL_META not in request.meta and not request.meta.get("retry_times"):
            # A listing page (catalogue, feed, list endpoint): read once by all workers.
            scope = f"{self.spider.name}:listing"
            if not self.claims.claim(scope, canonical_url(request.url), self.claim_ttl):
                if self.stats:
                    self.stats.inc_value("newscrawl/distributed/listing_claimed_elsewhere")
                return False
        return super().enqueue_request(request)


class RedisSeenUrls(SeenUrls):
    """:class:`~newscrawl.extensions.SeenUrls` with the store and the in-run claims in Redis."""

    def __init__(self, crawler):
        settings = crawler.settings
        self.client = connect(settings.get(SETTING))
        prefix = _prefix(settings)
        super().__init__(crawler, store=RedisSeenStore(self.client, prefix))
        self.claims = RedisClaims(self.client, prefix)
        self.claim_ttl = settings.getint("NEWSCRAWL_CLAIM_TTL", CLAIM_TTL)

    @classmethod
    def from_crawler(cls, crawler) -> RedisSeenUrls:
        if not crawler.settings.get(SETTING):
            raise NotConfigured(f"{SETTING} is not set")
        return cls(crawler)

    def claim(self, url: str) -> bool:
        """Reserve ``url`` for fetching across all workers; False when any worker already did."""
        return self.claims.claim(f"{self.crawler.spider.name}:detail", canonical_url(self._key(url)),
                                 self.claim_ttl)

    def claim_export(self, urls: list[str]) -> bool:
        """Reserve an article's URLs for export across all workers (the export gate's check)."""
        keys = [canonical_url(self._key(u)) for u in urls]
        return self.claims.claim_all(f"{self.crawler.spider.name}:export", keys, self.claim_ttl)

    def spider_closed(self, spider, reason: str) -> None:
        super().spider_closed(spider, reason)
        self.client.close()


class IdleWorker:
    """Keeps an idle worker polling the shared queue while there may be work (see module docstring).

    A worker records a heartbeat in ``<prefix>:<spider>:busy`` (a sorted set of worker id ->
    time) every :data:`BEAT` seconds while it has requests in flight.  An idle worker stays
    open while the queue has requests or another worker beat within :data:`BUSY_WINDOW`
    seconds, and hands a queued request to its engine at once instead of waiting for
    Scrapy's 5-second idle heartbeat.
    """

    BEAT = 0.5
    BUSY_WINDOW = 3.0

    def __init__(self, crawler):
        self.crawler = crawler
        self.idle_close = crawler.settings.getfloat("NEWSCRAWL_IDLE_CLOSE", 5.0)
        self.concurrency = crawler.settings.getint("CONCURRENT_REQUESTS", 16)
        self.worker = uuid.uuid4().hex
        self.idle_since: float | None = None
        self.loop: task.LoopingCall | None = None
        crawler.signals.connect(self.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(self.spider_idle, signal=signals.spider_idle)
        crawler.signals.connect(self.spider_closed, signal=signals.spider_closed)

    @classmethod
    def from_crawler(cls, crawler) -> IdleWorker:
        if not crawler.settings.get(SETTING):
            raise NotConfigured(f"{SETTING} is not set")
        return cls(crawler)

    @property
    def scheduler(self) -> DistributedScheduler:
        return self.crawler.engine._slot.scheduler  # noqa: SLF001 - the engine exposes no accessor

    def _busy_key(self) -> str:
        return f"{_prefix(self.crawler.settings)}:{self.crawler.spider.name}:busy"

    def spider_opened(self, spider) -> None:
        self.loop = task.LoopingCall(self._tick)
        self.loop.start(self.BEAT, now=False)

    def _tick(self) -> None:
        engine = self.crawler.engine
        if engine is None or engine.spider is None:
            return
        try:
            in_flight = len(engine.downloader.active)
            scraping = not engine.scraper.slot.is_idle()
            if in_flight or scraping:
                self.scheduler.server.zadd(self._busy_key(), {self.worker: time.time()})
                self.idle_since = None
            # The shared queue makes has_pending_requests() true on every worker, so Scrapy
            # calls neither spider_idle nor next_request on a worker with nothing in flight
            # until its 5-second heartbeat.  Hand one queued request to the engine: that
            # schedules the engine's loop, which then pulls as many as its slots allow.
            if in_flight < self.concurrency and len(self.scheduler):
                request = self.scheduler.next_request()
                if request is not None:
                    request.meta[REQUEUED] = True
                    engine.crawl(request)
        except Exception:  # noqa: BLE001 - a Redis hiccup must not kill the loop; the next tick retries
            logger.warning("Distributed idle check failed", exc_info=True)

    def others_busy(self) -> bool:
        server = self.scheduler.server
        busy = server.zrangebyscore(self._busy_key(), time.time() - self.BUSY_WINDOW, "+inf")
        return any((b.decode() if isinstance(b, bytes) else b) != self.worker for b in busy)

    def spider_idle(self, spider) -> None:
        if len(self.scheduler) or self.others_busy():
            self.idle_since = None
            raise DontCloseSpider
        now = time.monotonic()
        if self.idle_since is None:
            self.idle_since = now
        if now - self.idle_since < self.idle_close:
            raise DontCloseSpider

    def spider_closed(self, spider, reason: str) -> None:
        """Leave the job; the last worker to finish it clears the job's claims."""
        if self.loop is not None and self.loop.running:
            self.loop.stop()
        try:
            scheduler = self.scheduler
            scheduler.server.zrem(self._busy_key(), self.worker)
            if reason == "finished" and not len(scheduler) and not self.others_busy():
                scheduler.claims.reset(*(f"{spider.name}:{kind}" for kind in SCOPES))
                logger.info("Crawl job of %s finished: its claims are cleared for the next job", spider.name)
        except Exception:  # noqa: BLE001 - the claims then expire after NEWSCRAWL_CLAIM_TTL
            logger.warning("Could not clear the crawl job's claims", exc_info=True)


def template_store(settings, *, readonly: bool = False) -> RedisTemplateStore | None:
    """The shared template library when ``NEWSCRAWL_DISTRIBUTED`` is set in ``settings``, else None.

    It has a client of its own (closed with the store): the crawl's extraction may run in
    worker processes (``NEWSCRAWL_EXTRACT_PROCESSES``), each opening its own store.
    """
    url = settings.get(SETTING)
    if not url:
        return None
    if _MISSING is not None:
        raise NotConfigured(f"{SETTING} needs scrapy-redis==0.9.1 and redis installed ({_MISSING})")
    return RedisTemplateStore(connect(url), _prefix(settings), readonly=readonly, owns_client=True)


def settings_for(url: str, **extra: Any) -> dict[str, Any]:
    """Settings that put a crawl in the distributed mode (for scripts and tests)."""
    return {SETTING: url, **extra}
