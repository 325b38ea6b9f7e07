""":class:`RedisLink`: a worker's view of Redis being up or down.

Each command is retried by redis-py itself; when one still fails, the worker marks Redis down
(one warning, ``newscrawl/redis/outages``) and stops calling it, except for one ``PING`` per
beat in a thread; callbacks registered with :meth:`RedisLink.on_recovery` run when it is
back.  After ``NEWSCRAWL_REDIS_OUTAGE_TIMEOUT`` seconds the worker gives up
(:class:`RedisGaveUp`; items still waiting are dropped as :class:`RedisUnavailable`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from scrapy.exceptions import DropItem
from scrapy.utils.defer import deferred_from_coro, maybe_deferred_to_future
from twisted.internet import defer, threads

from newscrawl.distributed.options import HEARTBEAT_TTL, OUTAGE_TIMEOUT, REASON, STATS
from newscrawl.state.redis_client import UNREACHABLE

logger = logging.getLogger(__name__)



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

