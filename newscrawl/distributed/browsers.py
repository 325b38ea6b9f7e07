"""The workers of a distributed crawl that have a headless browser, and the queue of the pages
only they render (no Scrapy imports).

A worker with a browser (:func:`newscrawl.middlewares.render.find_browser`) records itself in the
sorted set ``<prefix>:<spider>:browsers`` (worker id -> the time its entry expires) at every beat
of :class:`~newscrawl.distributed.idle.IdleWorker`; a worker killed or cut off drops out once
its entry expires.  A request to render (an app shell fetched plain, or a page of a kind the
site's learned verdict renders directly; :meth:`Rendering.routes_to_browser`) goes to the
priority queue ``<queue>:browser`` while such a worker is live, else to the shared queue (and is
fetched plain, counted ``newscrawl/render/unavailable``).  Workers with a browser pop the browser
queue first; the others pop it only when no worker with a browser is live, so that no request
waits there for ever.
"""

from __future__ import annotations

import time

BROWSER_QUEUE = "{queue}:browser"


class BrowserWorkers:
    """The live workers with a browser of one crawl job; ``alive`` is asked at most once every
    :data:`CACHE_SECONDS` (a scheduler asks it for every request)."""

    CACHE_SECONDS = 1.0

    def __init__(self, client, prefix: str, spider: str, worker: str, ttl: float):
        self.client = client
        self.key = f"{prefix}:{spider}:browsers"
        self.worker = worker
        self.ttl = ttl
        self._known: tuple[float, bool] = (0.0, False)

    def beat(self) -> None:
        """This worker has a browser, for ``ttl`` seconds more."""
        now = time.time()
        with self.client.pipeline(transaction=False) as pipe:
            pipe.zadd(self.key, {self.worker: now + self.ttl})
            pipe.zremrangebyscore(self.key, "-inf", now)
            pipe.execute()

    def leave(self) -> None:
        self.client.zrem(self.key, self.worker)

    def alive(self) -> bool:
        """Is a worker with a browser live (its entry not expired)?"""
        checked, answer = self._known
        now = time.monotonic()
        if now - checked >= self.CACHE_SECONDS:
            answer = bool(self.client.zcount(self.key, time.time(), "+inf"))
            self._known = (now, answer)
        return answer
