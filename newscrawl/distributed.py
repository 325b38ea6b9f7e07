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
  de-duplication is by claims.  A detail URL is claimed when its listing item is read
  (one worker wins, so one request enters the queue, one worker pops it, one export);
  a listing page is claimed when it is scheduled, so N workers starting together read each
  catalogue page once; the export gate claims the article's URLs before export, so two
  listing URLs redirecting to one article are exported once across all workers;
- **the seen-URL store in the same Redis** (:class:`~newscrawl.redis_store.RedisSeenStore`);
- **the template library in the same Redis** (Yan and Wang (2020),
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
reading its maintainers call fragile (rmax/scrapy-redis#317).

**Workers and their claims.**  Every worker has an id and a heartbeat key in Redis
(:class:`~newscrawl.redis_store.RedisWorkers`), refreshed every :attr:`IdleWorker.BEAT`
seconds while it runs; each claim names its owner.  A listing or detail claim whose owner's
heartbeat has expired (``kill -9``, a crashed machine, a worker cut off from Redis) is taken
over by the next worker that claims the URL (``newscrawl/distributed/claims_taken_over``);
so is an export claim, after the seen-store check found the article unexported (the dead
worker claimed it and was killed before writing it; one it wrote but had not recorded is
recorded by the next run from the same state directory first, see
:meth:`~newscrawl.extensions.SeenUrls.reconcile`).  For ``NEWSCRAWL_REDIS_HEARTBEAT_TTL``
seconds after an outage a worker takes nothing over: every worker lost its heartbeat with
Redis and needs a beat to show it is alive (pages they hold stay parked meanwhile).
A listing or detail page claimed by a worker whose last beat said *busy* is parked and
claimed again every beat, so a run started right after a killed one reads the catalogue
and fetches the pages the dead worker had in flight once its heartbeat is gone
(``NEWSCRAWL_REDIS_HEARTBEAT_TTL``), instead of listing nothing; a page claimed by an
*idle* or *done* worker is left to it (it has processed what it took, or the request
waits in the shared queue).  A worker that finishes cleanly is ``done`` and its claims
stand until the job ends; the job's claims are cleared by its last live worker when it
finishes, and by a worker that starts when no worker is live and the shared queue is
empty (a new job).

**Redis outages** (:class:`RedisLink`).  Each Redis command is retried by redis-py itself
(``Retry`` with ``ExponentialBackoff`` on connection errors and timeouts, passed to
scrapy-redis's clients through ``REDIS_PARAMS``), so a blip or a quick restart goes
unnoticed.  When a command still fails, the worker marks Redis down (one warning,
``newscrawl/redis/outages``) and stops calling it, except for one ``PING`` per beat in a
thread: requests it schedules are held in memory and queued when Redis is back; listing and
article items wait in the pipeline (:class:`ListingGate` before the seen filter,
:class:`ExportGate` before the export gate; ``newscrawl/redis/items_held``) and resume with
their seen-store checks and claims; an exported article whose URLs cannot be recorded as
seen is recorded when Redis is back (``newscrawl/redis/seen_writes_held``).  If Redis stays
away for ``NEWSCRAWL_REDIS_OUTAGE_TIMEOUT`` seconds, the worker stops with finish_reason
``redis_unavailable``: the items still waiting are not exported (one error line;
``newscrawl/dropped/redis_unavailable``; their pages are fetched by a later run), requests
not queued are counted (``newscrawl/redis/requests_not_queued``), and exported URLs not yet
recorded are written to ``redis-unrecorded.json`` in the state directory, which the next
run of the site records first.  Nothing exported is lost or, from the same state
directory, exported twice.  Redis must persist its data (AOF, ``appendonly yes``) for the
shared queue and seen store to survive a Redis *restart*.

Settings (defaults):

- ``NEWSCRAWL_DISTRIBUTED`` (None) — the Redis URL; unset = the single-process crawl;
- ``NEWSCRAWL_REDIS_PREFIX`` ("newscrawl") — key prefix, so crawls can share a server;
- ``NEWSCRAWL_REDIS_OUTAGE_TIMEOUT`` (60) — seconds without Redis before a worker stops;
- ``NEWSCRAWL_REDIS_RETRIES`` (3) — redis-py's retries of one command (with backoff);
- ``NEWSCRAWL_REDIS_HEARTBEAT_TTL`` (15) — seconds without a heartbeat after which a
  worker counts as gone and its listing and detail claims are taken over;
- ``NEWSCRAWL_CLAIM_TTL`` (21600) — the claims of a crawl job expire after this many
  seconds of inactivity if no worker clears them;
- ``NEWSCRAWL_IDLE_CLOSE`` (5) — seconds an idle worker waits for work before it stops.

``docs/performance.md`` shows how to run N workers on N machines.  Compatibility with
scrapy-redis 0.9.1 on Scrapy 2.19 (its last release predates Scrapy 2.13): it works as it
is, with deprecation warnings; the one shim here is :meth:`DistributedScheduler.from_crawler`
passing the crawler's settings and stats explicitly.
"""


from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from typing import Any

from scrapy import signals
from scrapy.exceptions import DontCloseSpider, DropItem, NotConfigured
from scrapy.utils.defer import deferred_from_coro, maybe_deferred_to_future
from twisted.internet import defer, task, threads

from .extensions import DROP_PREFIX, SeenUrls
from .items import ArticleItem, ListingItem
from .middlewares import DETAIL_META
from .store import canonical_url, state_dir

try:  # the distributed mode needs scrapy-redis and redis; the single-process crawl does not
    from scrapy_redis.queue import PriorityQueue
    from scrapy_redis.scheduler import Scheduler as RedisScheduler

    from .redis_store import (
        DEFAULT_PREFIX,
        RETRIES,
        UNREACHABLE,
        QueuePop,
        RedisClaims,
        RedisSeenStore,
        RedisTemplateStore,
        RedisWorkers,
        client_params,
        connect,
    )
except ImportError as exc:  # pragma: no cover - exercised only without the packages
    RedisScheduler = object
    DEFAULT_PREFIX = "newscrawl"
    UNREACHABLE = ()
    _MISSING: ImportError | None = exc
else:
    _MISSING = None

logger = logging.getLogger(__name__)

SETTING = "NEWSCRAWL_DISTRIBUTED"
CLAIM_TTL = 6 * 3600
OUTAGE_TIMEOUT = 60.0
HEARTBEAT_TTL = 15.0
SCOPES = ("listing", "detail", "export")
REQUEUED = "newscrawl_requeued"  # meta flag: a request already claimed (taken from the queue, or held)
REASON = "redis_unavailable"  # finish_reason of a worker that gave up on Redis
STATS = "newscrawl/redis/"
JOURNAL = "redis-unrecorded.json"  # in the state directory: exported URLs Redis did not record


def _prefix(settings) -> str:
    return settings.get("NEWSCRAWL_REDIS_PREFIX") or DEFAULT_PREFIX


def _retries(settings) -> int:
    return settings.getint("NEWSCRAWL_REDIS_RETRIES", RETRIES)


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
            # scrapy-redis's clients (scheduler queue, dupefilter) reconnect like newscrawl's; keys of
            # REDIS_PARAMS in a settings file win (REDIS_PARAMS given with -s replaces all of these).
            "REDIS_PARAMS": {**client_params(_retries(settings)), **settings.getdict("REDIS_PARAMS")},
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
        pipelines = settings.getdict("ITEM_PIPELINES")
        # Gates just before the seen filter and the export gate (see ListingGate, ExportGate).
        seen_filter = pipelines.get("newscrawl.pipelines.SeenFilterStage") or 100
        export_gate = pipelines.get("newscrawl.pipelines.ExportGateStage") or 700
        pipelines["newscrawl.distributed.ListingGate"] = seen_filter - 1
        pipelines["newscrawl.distributed.ExportGate"] = export_gate - 1
        settings.set("ITEM_PIPELINES", pipelines, priority="spider")
        if settings.get("JOBDIR"):
            logger.warning("JOBDIR is ignored in the distributed mode: the queue lives in Redis")


class RedisGaveUp(Exception):
    """Redis stayed unreachable for ``NEWSCRAWL_REDIS_OUTAGE_TIMEOUT`` seconds."""


class RedisUnavailable(DropItem):
    """An item not exported because Redis stayed away (counted as ``newscrawl/dropped/redis_unavailable``;
    the outage is logged once, not per item)."""

    def __init__(self, url: str | None):
        super().__init__(f"{REASON}: {url}", log_level="DEBUG")


class RedisLink:
    """One worker's view of Redis: up, or down since when; what waits for it to come back.

    Components call Redis only while it is up (:attr:`up`) and report a failed call with
    :meth:`failed`.  While it is down, :meth:`check` (each beat of :class:`IdleWorker`)
    pings it from a thread — the client's ``Retry`` reconnects — and on success runs the
    recovery hooks (queue the held requests, record the held seen URLs) and wakes the
    items waiting in :meth:`call`.  After ``NEWSCRAWL_REDIS_OUTAGE_TIMEOUT`` seconds it
    gives up: waiting items fail with :class:`RedisGaveUp` and the spider closes with
    finish_reason ``redis_unavailable``.
    """

    def __init__(self, crawler, client):
        self.crawler = crawler
        self.client = client
        self.timeout = crawler.settings.getfloat("NEWSCRAWL_REDIS_OUTAGE_TIMEOUT", OUTAGE_TIMEOUT)
        self.heartbeat_ttl = crawler.settings.getfloat("NEWSCRAWL_REDIS_HEARTBEAT_TTL", HEARTBEAT_TTL)
        self.down_since: float | None = None
        self.recovered_at: float | None = None
        self.gave_up = False
        self._waiters: list[defer.Deferred] = []
        self._hooks: list[Callable[[], Any]] = []
        self._probe: defer.Deferred | None = None

    @property
    def up(self) -> bool:
        return self.down_since is None and not self.gave_up

    def may_take_over(self) -> bool:
        """May claims of workers without a heartbeat be taken over?  Not for a heartbeat TTL after an
        outage: the other workers were cut off too, and have not beaten again yet."""
        return self.recovered_at is None or time.monotonic() - self.recovered_at >= self.heartbeat_ttl

    def on_recovery(self, hook: Callable[[], Any]) -> None:
        """Run ``hook`` when Redis is back (it may raise an unreachable error: Redis is down again)."""
        self._hooks.append(hook)

    def failed(self, exc: BaseException) -> None:
        """A Redis call failed after the client's retries: Redis is down (logged once per outage)."""
        if not self.up:
            return
        self.down_since = time.monotonic()
        self.crawler.stats.inc_value(STATS + "outages")
        logger.warning("Redis is unreachable (%s: %s): this worker holds its requests and items until "
                       "Redis is back, and stops with finish_reason %s after %.0f s "
                       "(NEWSCRAWL_REDIS_OUTAGE_TIMEOUT)",
                       type(exc).__name__, exc, REASON, self.timeout)

    def check(self) -> None:
        """While down: give up past the timeout, else ping Redis (in a thread, one at a time)."""
        if self.up or self.gave_up:
            return
        if time.monotonic() - self.down_since >= self.timeout:
            self.give_up()
        elif self._probe is None:
            self._probe = threads.deferToThread(self.client.ping)
            self._probe.addCallbacks(self._back, self._still_down)

    def _still_down(self, failure) -> None:
        self._probe = None
        logger.debug("Redis still unreachable: %s", failure.value)

    def _back(self, _pong) -> None:
        self._probe = None
        if self.up or self.gave_up:
            return
        seconds = time.monotonic() - self.down_since
        self.down_since = None
        self.recovered_at = time.monotonic()
        self.crawler.stats.inc_value(STATS + "outage_seconds", round(seconds, 1))
        logger.warning("Redis is back after %.1f s: resuming %d held item(s)", seconds, len(self._waiters))
        for hook in self._hooks:
            try:
                hook()
            except UNREACHABLE as exc:  # down again: the next probe starts over
                self.failed(exc)
                break
        if self.up:
            self._release(None)
            engine = self.crawler.engine
            slot = getattr(engine, "_slot", None)  # take queued requests now, not at the 5 s heartbeat
            if slot is not None:
                slot.nextcall.schedule()

    def _release(self, error: BaseException | None) -> None:
        waiters, self._waiters = self._waiters, []
        for waiter in waiters:
            if error is None:
                waiter.callback(None)
            else:
                waiter.errback(error)

    def give_up(self) -> None:
        """Stop the worker: Redis has been away for longer than the timeout."""
        if self.gave_up:
            return
        self.gave_up = True
        logger.error("Redis unreachable for %.0f s: stopping this worker with finish_reason %s; %d "
                     "item(s) waiting for it are not exported (newscrawl/dropped/%s) and are fetched again "
                     "by a later run", time.monotonic() - self.down_since, REASON, len(self._waiters), REASON)
        self._release(RedisGaveUp())
        engine = self.crawler.engine
        if engine is not None and engine.spider is not None:
            deferred_from_coro(engine.close_spider_async(reason=REASON))

    async def call(self, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(*args)`` (a few Redis calls) once Redis answers, waiting out an outage.

        Raises :class:`RedisGaveUp` when the worker gives up on Redis.
        """
        held = False
        while True:
            if self.gave_up:
                raise RedisGaveUp
            if self.down_since is not None:
                if not held:
                    held = True
                    self.crawler.stats.inc_value(STATS + "items_held")
                waiter = defer.Deferred()
                self._waiters.append(waiter)
                await maybe_deferred_to_future(waiter)
                continue
            try:
                return fn(*args)
            except UNREACHABLE as exc:
                self.failed(exc)


def _seen(crawler) -> RedisSeenUrls:
    seen = crawler.get_extension(RedisSeenUrls)
    if seen is None:
        raise NotConfigured(f"{SETTING} needs the newscrawl.distributed.RedisSeenUrls extension")
    return seen


class DistributedScheduler(RedisScheduler):
    """scrapy-redis's scheduler plus newscrawl's listing claims and Redis outages (module docstring).

    While Redis is down, requests are held in memory (:attr:`held`) and queued when it is
    back; ``next_request`` gives nothing.  Listing and detail pages claimed by a busy worker
    wait in :attr:`parked` (see :meth:`retry_parked`).
    """

    @classmethod
    def from_crawler(cls, crawler):
        scheduler = cls.from_settings(crawler.settings)
        scheduler.stats = crawler.stats
        scheduler.crawler = crawler
        scheduler.attach(_seen(crawler), crawler.settings)
        return scheduler

    def attach(self, seen: RedisSeenUrls, settings) -> None:
        """Claim as the worker of ``seen`` and follow its view of Redis (its ``worker`` and ``link``)."""
        self.seen = seen
        self.link = seen.link
        self.claims = RedisClaims(self.server, _prefix(settings), owner=seen.worker)
        self.claim_ttl = settings.getint("NEWSCRAWL_CLAIM_TTL", CLAIM_TTL)
        self.held = []
        self.parked: dict[tuple[str, str], Any] = {}  # (kind, claimed key) -> request
        self.listed = set()  # listing pages this worker claimed (its own duplicates are refused)
        self.link.on_recovery(self.queue_held)

    def _scope(self, kind: str = "listing") -> str:
        return f"{self.spider.name}:{kind}"

    def enqueue_request(self, request) -> bool:
        claimed = request.meta.pop(REQUEUED, False)
        if not self.link.up:
            return self._hold(request, claimed)
        try:
            if claimed:
                self.queue.push(request)
                return True
            listing = DETAIL_META not in request.meta and not request.meta.get("retry_times")
            if request.dont_filter and listing:
                # A listing page (catalogue, feed, list endpoint): read once by all workers.
                verdict = self._claim_listing(request)
                if verdict is not None:
                    return verdict
                claimed = True
            elif DETAIL_META in request.meta:
                key = getattr(self.seen, "take_park", lambda url: None)(request.url)
                if key is not None:  # its claim is a busy worker's: see retry_parked
                    self._park("detail", key, request)
                    return True
            return super().enqueue_request(request)
        except UNREACHABLE as exc:
            self.link.failed(exc)
            return self._hold(request, claimed)

    def _hold(self, request, claimed: bool) -> bool:
        if claimed:
            request.meta[REQUEUED] = True
        self.held.append(request)
        self.stats.inc_value(STATS + "requests_held")
        return True

    def _claim_listing(self, request) -> bool | None:
        """None when this worker now owns the listing page; else whether the request was accepted."""
        key = canonical_url(request.url)
        claim = None
        if key not in self.listed:
            claim = self.claims.claim(self._scope(), key, self.claim_ttl, takeover=self.link.may_take_over())
        if claim:
            self.listed.add(key)
            if claim.taken_over:
                self.stats.inc_value("newscrawl/distributed/claims_taken_over", claim.taken_over)
            return None
        if claim is not None and claim.holder_may_fail:
            self._park("listing", key, request)
            return True
        self.stats.inc_value("newscrawl/distributed/listing_claimed_elsewhere")
        return False

    def _park(self, kind: str, key: str, request) -> None:
        self.parked[(kind, key)] = request
        self.stats.inc_value(f"newscrawl/distributed/{kind}_parked")

    def retry_parked(self) -> None:
        """Claim the parked pages again (each beat).

        Their holder was busy: it may be reading them, or it may have died with them in
        flight.  Taken over once its heartbeat is gone (and not in the grace after an outage,
        :meth:`RedisLink.may_take_over`); dropped once it is idle or done (it processed what
        it took, or the request waits in the shared queue).
        """
        for (kind, key), request in list(self.parked.items()):
            claim = self.claims.claim(self._scope(kind), key, self.claim_ttl,
                                      takeover=self.link.may_take_over())
            if claim.holder_may_fail:
                continue
            del self.parked[(kind, key)]
            if claim:
                if kind == "listing":
                    self.listed.add(key)
                self.stats.inc_value("newscrawl/distributed/claims_taken_over", claim.taken_over)
                request.meta[REQUEUED] = True
                self.enqueue_request(request)
            else:
                self.stats.inc_value(f"newscrawl/distributed/{kind}_claimed_elsewhere")

    def queue_held(self) -> None:
        """Queue the requests held during an outage (a recovery hook; Redis failing again re-holds them)."""
        held, self.held = self.held, []
        for request in held:
            self.enqueue_request(request)

    def open(self, spider):
        result = super().open(spider)
        self.pops = None
        if isinstance(self.queue, PriorityQueue):  # the queue the add-on configures
            worker = getattr(self.seen, "worker", "-")
            self.pops = QueuePop(self.server, self.queue.key, f"{self.queue.key}:last-pop:{worker}")
        return result

    def next_request(self):
        if not self.link.up:
            return None
        try:
            if self.pops is None:
                return super().next_request()
            data = self.pops.pop()
        except UNREACHABLE as exc:
            self.link.failed(exc)
            return None
        if data is None:
            return None
        if self.stats:
            self.stats.inc_value("scheduler/dequeued/redis")
        return self.queue._decode_request(data)  # noqa: SLF001 - scrapy-redis's own decoding

    def __len__(self) -> int:
        if self.link.up:
            try:
                return super().__len__() + len(self.held)
            except UNREACHABLE as exc:
                self.link.failed(exc)
        return len(self.held)

    def close(self, reason: str):
        if self.held:
            self.stats.inc_value(STATS + "requests_not_queued", len(self.held))
            logger.warning("%d request(s) scheduled while Redis was unreachable were never queued; a later "
                           "run reads their listing pages again", len(self.held))
        for kind, _ in self.parked:
            self.stats.inc_value(f"newscrawl/distributed/{kind}_claimed_elsewhere")
        return super().close(reason)


class RedisSeenUrls(SeenUrls):
    """:class:`~newscrawl.extensions.SeenUrls` with the store and the in-run claims in Redis.

    Owns the worker's id, its Redis client, its :class:`RedisLink` and its place in the
    job (:class:`~newscrawl.redis_store.RedisWorkers`).  The gate stages resolve an item's
    store checks and claims ahead (:meth:`resolve_listing`, :meth:`resolve_export`, waiting
    out an outage); the synchronous checks of the pipeline stages then read those answers.
    """

    def __init__(self, crawler):
        settings = crawler.settings
        self.client = connect(settings.get(SETTING), _retries(settings))
        prefix = _prefix(settings)
        super().__init__(crawler, store=RedisSeenStore(self.client, prefix))
        self.prefix = prefix
        self.worker = self.run_id
        self.claims = RedisClaims(self.client, prefix, owner=self.worker)
        self.workers = RedisWorkers(self.client, prefix, crawler.spidercls.name, self.worker)
        self.link = RedisLink(crawler, self.client)
        self.claim_ttl = settings.getint("NEWSCRAWL_CLAIM_TTL", CLAIM_TTL)
        self._exported_answers: dict[str, bool] = {}  # canonical URL -> in the store? (resolved ahead)
        self._rejected_answers: dict[str, tuple[str, str] | None] = {}  # -> unexported record (ahead)
        self._detail_claims: dict[str, bool] = {}  # canonical URL -> detail claim won? (resolved ahead)
        self._to_park: set[str] = set()  # detail claims a busy worker holds: the scheduler parks them
        self._export_claims: dict[tuple[str, ...], bool] = {}  # an article's URLs -> export claim won?
        self._unrecorded: dict[str, list[str]] = {}  # site -> exported URLs Redis has not recorded yet
        self.heartbeat_ttl = settings.getfloat("NEWSCRAWL_REDIS_HEARTBEAT_TTL", HEARTBEAT_TTL)
        self.link.on_recovery(lambda: self.workers.beat(self.heartbeat_ttl, busy=True))  # alive: first
        self.link.on_recovery(self.check_data_kept)
        self.link.on_recovery(self.record_unrecorded)
        crawler.signals.connect(self._close_client, signal=signals.engine_stopped)

    @classmethod
    def from_crawler(cls, crawler) -> RedisSeenUrls:
        if not crawler.settings.get(SETTING):
            raise NotConfigured(f"{SETTING} is not set")
        return cls(crawler)

    def _canonical(self, url: str) -> str:
        return canonical_url(self._key(url))

    def _scope(self, kind: str) -> str:
        return f"{self.crawler.spidercls.name}:{kind}"

    # -- answers resolved ahead by the gate stages ------------------------------------

    def resolve_listing(self, site: str, url: str) -> None:
        """Is the listed article exported?  If not, claim its detail page (ListingGate; may raise)."""
        key = self._canonical(url)
        if not self.fresh:
            self._exported_answers[key] = exported = self.store.contains(site, self._key(url))
            if exported:
                return
            if self.retry_days > 0:
                self._rejected_answers[key] = self.store.unexported(site, self._key(url))
        if key not in self._claimed and key not in self._detail_claims:
            claim = self.claims.claim(self._scope("detail"), key, self.claim_ttl,
                                      takeover=self.link.may_take_over())
            if claim.taken_over:
                self.crawler.stats.inc_value("newscrawl/distributed/claims_taken_over", claim.taken_over)
            if claim.holder_may_fail:
                self._to_park.add(key)  # scheduled, then parked until its holder is idle, done or gone
            self._detail_claims[key] = claim.won or key in self._to_park

    def resolve_export(self, site: str, urls: list[str]) -> None:
        """Was the article exported?  If not, claim its URLs for export (ExportGate; may raise)."""
        keys = tuple(self._canonical(u) for u in urls)
        if not self.fresh:
            answers = [self.store.contains(site, self._key(u)) for u in urls]
            self._exported_answers.update(zip(keys, answers, strict=True))
            if any(answers):
                return
        if keys:
            self._export_claims[keys] = self._claim_export(keys)

    def exported(self, site: str, url: str) -> bool:
        if self.fresh:
            return super().exported(site, url)
        answer = self._exported_answers.pop(self._canonical(url), None)
        if answer is not None:
            return answer
        if self.link.up:
            try:
                return super().exported(site, url)
            except UNREACHABLE as exc:
                self.link.failed(exc)
        return False  # unresolved and unknowable: the export gate's resolved answer decides

    def listed_earlier(self, url: str) -> bool:
        return self._canonical(url) in self._claimed or canonical_url(url) in self._exported

    def rejected(self, site: str, url: str) -> str | None:
        if self.fresh or self.retry_days <= 0:
            return None
        key = self._canonical(url)
        if key in self._rejected_answers:
            return self._judge(url, self._rejected_answers.pop(key))
        if self.link.up:
            try:
                return super().rejected(site, url)
            except UNREACHABLE as exc:
                self.link.failed(exc)
        return None  # unknowable now: fetch it

    def claim(self, url: str) -> bool:
        """Reserve ``url`` for fetching across all workers; False when any worker already did."""
        key = self._canonical(url)
        if key in self._claimed:
            return False
        won = self._detail_claims.pop(key, None)
        if won is None:  # not resolved ahead: ask Redis now; if it is down, fetch (the export gate guards)
            won = True
            if self.link.up:
                try:
                    won = self.claims.claim(self._scope("detail"), key, self.claim_ttl,
                                            takeover=self.link.may_take_over()).won
                except UNREACHABLE as exc:
                    self.link.failed(exc)
        if won:
            self._claimed.add(key)
        return won

    def _claim_export(self, keys: tuple[str, ...]) -> bool:
        claim = self.claims.claim_all(self._scope("export"), keys, self.claim_ttl,
                                      takeover=self.link.may_take_over())
        if claim.taken_over:
            self.crawler.stats.inc_value("newscrawl/distributed/claims_taken_over", claim.taken_over)
        return claim.won

    def take_park(self, url: str) -> str | None:
        """The claim key of a detail request to park (its claim is a busy worker's), else None."""
        key = self._canonical(url)
        if key in self._to_park:
            self._to_park.discard(key)
            return key
        return None

    def claim_export(self, urls: list[str]) -> bool:
        """Reserve an article's URLs for export across all workers (the export gate's check)."""
        keys = tuple(self._canonical(u) for u in urls)
        won = self._export_claims.pop(keys, None)
        if won is not None:
            return won
        try:
            return self._claim_export(keys)
        except UNREACHABLE as exc:
            self.link.failed(exc)
            logger.warning("Export claim of %s not resolved and Redis unreachable: not exported", urls[0])
            return False

    # -- recording exported URLs --------------------------------------------------------

    def item_scraped(self, item: Any, spider) -> None:
        if not isinstance(item, ArticleItem) or self.export_failed:
            return
        if self.link.up:
            try:
                super().item_scraped(item, spider)
                return
            except UNREACHABLE as exc:
                self.link.failed(exc)
        urls = [u for u in (item.url, item.listing_url) if u]
        self._unrecorded.setdefault(item.site, []).extend(self._key(u) for u in urls)
        self._exported.update(canonical_url(u) for u in urls)
        self.crawler.stats.inc_value("newscrawl/exported")
        self.crawler.stats.inc_value(STATS + "seen_writes_held")

    def record_unrecorded(self) -> None:
        """Record the URLs exported while Redis was down (a recovery hook; raises if it is down again)."""
        for site in list(self._unrecorded):
            self.store.add(site, self._unrecorded[site])
            del self._unrecorded[site]

    def _journal_path(self):
        return state_dir(self._state_dir) / JOURNAL

    def _journal(self) -> None:
        """Write the URLs Redis never recorded to the state directory, for the next run."""
        path = self._journal_path()
        try:
            pending = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            pending = {}
        count = 0
        for site, urls in self._unrecorded.items():
            key = f"{self.prefix}:{site}"
            pending[key] = list(dict.fromkeys([*pending.get(key, []), *urls]))
            count += len(set(urls))
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(pending, indent=1), encoding="utf-8")
        tmp.replace(path)
        self.crawler.stats.inc_value(STATS + "seen_writes_journaled", count)
        logger.warning("%d exported URL(s) could not be recorded in Redis; kept in %s, recorded by the "
                       "next run", count, path)
        self._unrecorded.clear()

    def replay_journal(self, site: str) -> int:
        """Record what an earlier run exported but could not record in Redis; returns how many URLs."""
        path = self._journal_path()
        try:
            pending = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return 0
        urls = pending.pop(f"{self.prefix}:{site}", [])
        if urls:
            self.store.add(site, urls)
            logger.info("Recorded %d URL(s) exported by an earlier run while Redis was unreachable",
                        len(urls))
            tmp = path.with_suffix(".tmp")
            tmp.write_text(json.dumps(pending, indent=1), encoding="utf-8")
            tmp.replace(path)
        return len(urls)

    def _marker(self) -> str:
        return f"{self.prefix}:data-kept"

    def check_data_kept(self) -> None:
        """After an outage: did Redis keep its data?  A marker set at start tells (a recovery hook)."""
        if self.client.set(self._marker(), "1", nx=True):
            self.crawler.stats.set_value(STATS + "data_lost", True)
            logger.error("Redis came back without its data (a restart without persistence? use appendonly "
                         "yes): the shared queue, the claims and the seen-URL store are gone; requests "
                         "queued before the outage are lost and articles may be exported again")

    def spider_opened(self, spider) -> None:
        try:
            self.client.set(self._marker(), "1")
            self.replay_journal(spider.name)
            super().spider_opened(spider)
        except UNREACHABLE as exc:  # the journal waits for the next run; the feeds are reconciled then too
            self.link.failed(exc)

    def spider_closed(self, spider, reason: str) -> None:
        if self._unrecorded and self.link.up:
            try:
                self.record_unrecorded()
            except UNREACHABLE as exc:
                self.link.failed(exc)
        if self._unrecorded:
            self._journal()
        super().spider_closed(spider, reason)

    def _close_client(self) -> None:
        self.client.close()


class _Gate:
    """Base of the gate stages: resolve an item's Redis answers ahead, waiting out an outage."""

    def __init__(self, crawler):
        self.crawler = crawler

    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler)

    def _resolved(self, item: Any, fn: Callable[..., None], *args: Any) -> Any:
        """``item`` once ``fn(*args)`` ran; a coroutine that waits for Redis when it is down."""
        link = _seen(self.crawler).link
        if link.up:
            try:
                fn(*args)
                return item
            except UNREACHABLE as exc:
                link.failed(exc)
        return self._wait(link, item, fn, *args)

    async def _wait(self, link: RedisLink, item: Any, fn: Callable[..., None], *args: Any) -> Any:
        try:
            await link.call(fn, *args)
        except RedisGaveUp:
            self.crawler.stats.inc_value(DROP_PREFIX + REASON)
            raise RedisUnavailable(getattr(item, "url", None)) from None
        return item


class ListingGate(_Gate):
    """Before the seen filter: a listing item's store check and detail claim, resolved in Redis."""

    def process_item(self, item: Any) -> Any:
        if not isinstance(item, ListingItem):
            return item
        return self._resolved(item, _seen(self.crawler).resolve_listing, item.site, item.url)


class ExportGate(_Gate):
    """Before the export gate: an article's store check and export claim, resolved in Redis."""

    def process_item(self, item: Any) -> Any:
        if not isinstance(item, ArticleItem):
            return item
        urls = [u for u in (item.url, item.listing_url) if u]
        return self._resolved(item, _seen(self.crawler).resolve_export, item.site, urls)


class IdleWorker:
    """The worker's beat: heartbeat, idle polling of the shared queue, Redis outages (module docstring).

    Every :data:`BEAT` seconds a worker refreshes its heartbeat key, offers its parked listing
    pages again and, while it has requests in flight, records itself in
    ``<prefix>:<spider>:busy`` (a sorted set of worker id -> time).  An idle worker stays open
    while the queue has requests, it has parked listing pages, another worker beat busy within
    :data:`BUSY_WINDOW` seconds, or Redis is down; and it hands a queued request to its engine
    at once instead of waiting for Scrapy's 5-second idle heartbeat.  While Redis is down the
    beat only checks on it (:meth:`RedisLink.check`).
    """

    BEAT = 0.5
    BUSY_WINDOW = 3.0

    def __init__(self, crawler):
        self.crawler = crawler
        self.idle_close = crawler.settings.getfloat("NEWSCRAWL_IDLE_CLOSE", 5.0)
        self.concurrency = crawler.settings.getint("CONCURRENT_REQUESTS", 16)
        self.heartbeat_ttl = crawler.settings.getfloat("NEWSCRAWL_REDIS_HEARTBEAT_TTL", HEARTBEAT_TTL)
        self.claim_ttl = crawler.settings.getint("NEWSCRAWL_CLAIM_TTL", CLAIM_TTL)
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
    def seen(self) -> RedisSeenUrls:
        return _seen(self.crawler)

    @property
    def worker(self) -> str:
        return self.seen.worker

    @property
    def scheduler(self) -> DistributedScheduler:
        return self.crawler.engine._slot.scheduler  # noqa: SLF001 - the engine exposes no accessor

    def _busy_key(self) -> str:
        return f"{_prefix(self.crawler.settings)}:{self.crawler.spider.name}:busy"

    def _job_keys(self, spider) -> list[str]:
        return [self.scheduler.claims.key(f"{spider.name}:{kind}") for kind in SCOPES]

    def spider_opened(self, spider) -> None:
        """Join the job: a new one, clearing the last job's claims, when no worker is live and the
        queue is empty."""
        self.loop = task.LoopingCall(self._tick)
        self.loop.start(self.BEAT, now=False)
        try:
            if self.seen.workers.join(self.heartbeat_ttl, self._job_keys(spider), self.scheduler.queue.key):
                logger.info("No other live worker and an empty queue: a new crawl job of %s (claims cleared)",
                            spider.name)
        except UNREACHABLE as exc:  # the next beats register this worker once Redis is back
            self.seen.link.failed(exc)

    def _tick(self) -> None:
        engine = self.crawler.engine
        if engine is None or engine.spider is None:
            return
        link = self.seen.link
        if not link.up:
            link.check()
            return
        try:
            in_flight = len(engine.downloader.active)
            scraping = not engine.scraper.slot.is_idle()
            busy = bool(in_flight or scraping or self.scheduler.held)
            self.seen.workers.beat(self.heartbeat_ttl, busy=busy)
            if in_flight or scraping:
                self.scheduler.server.zadd(self._busy_key(), {self.worker: time.time()})
                self.idle_since = None
            self.scheduler.retry_parked()
            # The shared queue makes has_pending_requests() true on every worker, so Scrapy
            # calls neither spider_idle nor next_request on a worker with nothing in flight
            # until its 5-second heartbeat.  Hand one queued request to the engine: that
            # schedules the engine's loop, which then pulls as many as its slots allow.
            if in_flight < self.concurrency and len(self.scheduler):
                request = self.scheduler.next_request()
                if request is not None:
                    request.meta[REQUEUED] = True
                    engine.crawl(request)
        except UNREACHABLE as exc:
            link.failed(exc)
        except Exception:  # noqa: BLE001 - one failed beat must not kill the loop; the next beat retries
            logger.warning("Distributed idle check failed", exc_info=True)

    def others_busy(self) -> bool:
        server = self.scheduler.server
        busy = server.zrangebyscore(self._busy_key(), time.time() - self.BUSY_WINDOW, "+inf")
        return any((b.decode() if isinstance(b, bytes) else b) != self.worker for b in busy)

    def spider_idle(self, spider) -> None:
        link = self.seen.link
        if link.gave_up:
            return
        try:
            waiting = not link.up or len(self.scheduler) or self.scheduler.parked or self.others_busy()
        except UNREACHABLE as exc:
            link.failed(exc)
            waiting = True
        if waiting:
            self.idle_since = None
            raise DontCloseSpider
        now = time.monotonic()
        if self.idle_since is None:
            self.idle_since = now
        if now - self.idle_since < self.idle_close:
            raise DontCloseSpider

    def spider_closed(self, spider, reason: str) -> None:
        """Leave the job: ``done`` after a clean finish; the last live worker clears the job's claims."""
        if self.loop is not None and self.loop.running:
            self.loop.stop()
        if not self.seen.link.up:
            return  # the heartbeat expires, and the claims of this worker are taken over
        try:
            scheduler = self.scheduler
            scheduler.server.zrem(self._busy_key(), self.worker)
            done = reason == "finished"
            if self.seen.workers.leave(done=done, done_ttl=self.claim_ttl, job_keys=self._job_keys(spider),
                                       queue_key=scheduler.queue.key):
                logger.info("Crawl job of %s finished: its claims are cleared for the next job", spider.name)
        except Exception:  # noqa: BLE001 - the claims are then taken over, or expire after NEWSCRAWL_CLAIM_TTL
            logger.warning("Could not leave the crawl job cleanly", exc_info=True)


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
    return RedisTemplateStore(connect(url, _retries(settings)), _prefix(settings), readonly=readonly,
                              owns_client=True)


def settings_for(url: str, **extra: Any) -> dict[str, Any]:
    """Settings that put a crawl in the distributed mode (for scripts and tests)."""
    return {SETTING: url, **extra}
