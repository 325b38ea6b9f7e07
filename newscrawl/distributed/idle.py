""":class:`IdleWorker`: a worker whose own work is done keeps polling the shared queue while it
has requests or another worker is busy, beats its heartbeat every :attr:`IdleWorker.BEAT`
seconds, and closes after ``NEWSCRAWL_IDLE_CLOSE`` seconds with nothing to do; the last worker
of a job clears the job's claims.
"""

from __future__ import annotations

import logging
import time

from scrapy import signals
from scrapy.exceptions import DontCloseSpider, NotConfigured
from twisted.internet import task

from newscrawl.distributed.options import CLAIM_TTL, HEARTBEAT_TTL, REQUEUED, SCOPES, SETTING, _prefix
from newscrawl.distributed.scheduler import DistributedScheduler, _seen
from newscrawl.distributed.seen import RedisSeenUrls
from newscrawl.state.redis_client import UNREACHABLE

logger = logging.getLogger(__name__)



class IdleWorker:
    """The worker's beat: heartbeat, idle polling of the shared queue, Redis outages (module docstring).

    Every :data:`BEAT` seconds a worker refreshes its heartbeat key (and, with a browser, its
    entry among the workers that render: :mod:`newscrawl.distributed.browsers`), offers its parked listing
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
            if self.scheduler.has_browser:
                self.scheduler.browsers.beat()
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
            if self.scheduler.has_browser:
                self.scheduler.browsers.beat()
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
            if scheduler.has_browser:
                scheduler.browsers.leave()
            done = reason == "finished"
            if self.seen.workers.leave(done=done, done_ttl=self.claim_ttl, job_keys=self._job_keys(spider),
                                       queue_key=scheduler.queue.key):
                logger.info("Crawl job of %s finished: its claims are cleared for the next job", spider.name)
        except Exception:  # noqa: BLE001 - the claims are then taken over, or expire after NEWSCRAWL_CLAIM_TTL
            logger.warning("Could not leave the crawl job cleanly", exc_info=True)

