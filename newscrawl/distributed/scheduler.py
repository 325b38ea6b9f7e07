""":class:`DistributedScheduler`: scrapy-redis's scheduler with newscrawl's claims.

Every request, detail pages included, goes into the shared priority queue and is downloaded by
whichever worker pops it; a listing page is claimed when it is scheduled, so N workers starting
together read each catalogue page once; requests scheduled while Redis is down are held in
memory and queued when it is back.  Pages to render in a browser go to a queue of their own,
which the workers with a browser read first (:mod:`newscrawl.distributed.browsers`).
"""

from __future__ import annotations

import logging
from typing import Any

from scrapy.exceptions import NotConfigured
from scrapy_redis.queue import PriorityQueue
from scrapy_redis.scheduler import Scheduler as RedisScheduler

from newscrawl.distributed.browsers import BROWSER_QUEUE, BrowserWorkers
from newscrawl.distributed.claims import RedisClaims
from newscrawl.distributed.options import CLAIM_TTL, HEARTBEAT_TTL, REQUEUED, SETTING, STATS, _prefix
from newscrawl.distributed.queue_pop import QueuePop
from newscrawl.distributed.seen import RedisSeenUrls
from newscrawl.middlewares.render import RENDER_KIND, RENDER_NOW
from newscrawl.middlewares.scheduler import DETAIL_META
from newscrawl.state.redis_client import UNREACHABLE
from newscrawl.state.seen_store import canonical_url

logger = logging.getLogger(__name__)



def _seen(crawler) -> RedisSeenUrls:
    seen = crawler.get_extension(RedisSeenUrls)
    if seen is None:
        raise NotConfigured(f"{SETTING} needs the newscrawl.distributed.seen.RedisSeenUrls extension")
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
        heartbeat_ttl = settings.getfloat("NEWSCRAWL_REDIS_HEARTBEAT_TTL", HEARTBEAT_TTL)
        self.browsers_settings = (_prefix(settings), seen.worker, heartbeat_ttl)
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
            if claimed:  # seen already: queued again as it is, a page to render where only browsers read
                (self.browser_queue if self._for_browser(request) else self.queue).push(request)
                return True
            listing = DETAIL_META not in request.meta and not request.meta.get("retry_times")
            if request.meta.get(RENDER_NOW):  # this worker's own page again, for the browser
                claimed = True
            if request.dont_filter and listing and not claimed:
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
            if self._for_browser(request):
                return self._enqueue_for_browser(request)
            return super().enqueue_request(request)
        except UNREACHABLE as exc:
            self.link.failed(exc)
            return self._hold(request, claimed)

    def _for_browser(self, request) -> bool:
        """Is ``request`` a page to render, with a worker that has a browser live (this one or another)?"""
        kind = request.meta.get(RENDER_KIND)
        rendering = getattr(self.spider, "rendering", None)
        if kind is None or rendering is None or self.browser_queue is None:
            return False
        if not rendering.routes_to_browser(kind, asked=bool(request.meta.get(RENDER_NOW))):
            return False
        return self.has_browser or self.browsers.alive()

    def _enqueue_for_browser(self, request) -> bool:
        if not request.dont_filter and self.df.request_seen(request):
            self.df.log(request, self.spider)
            return False
        self.stats.inc_value("scheduler/enqueued/redis")
        self.stats.inc_value(STATS + "browser_queued")
        self.browser_queue.push(request)
        return True

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
            # A holder that is not busy has finished with the page, in this job or an earlier one
            # (it may have been killed since): the page is read again, as every job reads it.
            claim = self.claims.claim(self._scope(), key, self.claim_ttl, takeover=self.link.may_take_over(),
                                      also_from=("idle", "done"))
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
        self.pops = self.browser_queue = self.browser_pops = None
        rendering = getattr(spider, "rendering", None)
        self.has_browser = getattr(rendering, "browser", None) is not None
        prefix, worker, heartbeat_ttl = self.browsers_settings
        self.browsers = BrowserWorkers(self.server, prefix, spider.name, worker, heartbeat_ttl)
        if isinstance(self.queue, PriorityQueue):  # the queue the add-on configures
            self.pops = QueuePop(self.server, self.queue.key, f"{self.queue.key}:last-pop:{worker}")
            browser_key = BROWSER_QUEUE.format(queue=self.queue.key)
            self.browser_queue = PriorityQueue(self.server, spider, browser_key, serializer=self.serializer)
            self.browser_pops = QueuePop(self.server, self.browser_queue.key,
                                         f"{self.browser_queue.key}:last-pop:{worker}")
            if rendering is not None and not self.has_browser:
                rendering.browser_elsewhere = self.browsers.alive
        return result

    def _pops(self) -> list[QueuePop]:
        """The queues this worker pops, in order: the browser queue first on a worker with a
        browser; on one without, only while no worker with a browser is live."""
        if self.browser_pops is None:
            return [self.pops]
        if self.has_browser:
            return [self.browser_pops, self.pops]
        return [self.pops] if self.browsers.alive() else [self.pops, self.browser_pops]

    def next_request(self):
        if not self.link.up:
            return None
        try:
            if self.pops is None:
                return super().next_request()
            data = None
            for pops in self._pops():
                data = pops.pop()
                if data is not None:
                    break
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
                queue = getattr(self, "browser_queue", None)
                browser = len(queue) if queue is not None else 0
                return super().__len__() + browser + len(self.held)
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

    def flush(self):
        super().flush()
        if getattr(self, "browser_queue", None) is not None:
            self.browser_queue.clear()

