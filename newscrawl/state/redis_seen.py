"""The seen-URL store in Redis (no Scrapy imports): the :class:`~newscrawl.state.seen_store.SeenStore`
interface in one hash per site, ``url -> exported_at``, plus the unexported pages of a site
(``<prefix>:unexported:<site>``) and the sites whose extraction the last run found failing
(``<prefix>:degraded-sites``), shared by every worker of a distributed crawl.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from datetime import UTC, datetime

import redis

from newscrawl.state.redis_client import DEFAULT_PREFIX
from newscrawl.state.seen_store import LASTING, RECHECK, canonical_url, legacy_url_key

logger = logging.getLogger(__name__)



class RedisSeenStore:
    """:class:`~.seen_store.SeenStore` in Redis (one hash per site; ``add`` is one round trip)."""

    def __init__(self, client: redis.Redis, prefix: str = DEFAULT_PREFIX):
        self.client = client
        self.prefix = prefix

    def _key(self, site: str) -> str:
        return f"{self.prefix}:seen:{site}"

    def contains(self, site: str, url: str) -> bool:
        """Whether ``url`` was exported; keys written before :func:`canonical_url` folded
        tracking parameters and AMP/mobile variants are looked up too."""
        key, legacy = canonical_url(url), legacy_url_key(url)
        if legacy == key:
            return bool(self.client.hexists(self._key(site), key))
        return any(self.client.hmget(self._key(site), [key, legacy]))

    def add(self, site: str, urls: Iterable[str]) -> None:
        stamp = datetime.now(UTC).isoformat()
        keys = [canonical_url(u) for u in dict.fromkeys(urls) if u]
        if not keys:
            return
        with self.client.pipeline(transaction=True) as pipe:
            for key in keys:
                pipe.hsetnx(self._key(site), key, stamp)
            pipe.sadd(f"{self.prefix}:seen-sites", site)
            pipe.execute()

    def forget(self, site: str, urls: Iterable[str]) -> None:
        """Take back the export record of ``urls`` (a text that proved not to be the article)."""
        keys = [canonical_url(u) for u in dict.fromkeys(urls) if u]
        if keys:
            self.client.hdel(self._key(site), *keys)

    def _unexported_key(self, site: str) -> str:
        return f"{self.prefix}:unexported:{site}"

    def add_unexported(self, site: str, urls: Iterable[str], reason: str, cause: str = LASTING) -> None:
        """Record ``urls`` as fetched and not exported for ``reason`` (one round trip)."""
        value = json.dumps([reason, datetime.now(UTC).isoformat(), cause])
        keys = [canonical_url(u) for u in dict.fromkeys(urls) if u]
        if keys:
            self.client.hset(self._unexported_key(site), mapping=dict.fromkeys(keys, value))

    def unexported(self, site: str, url: str) -> tuple[str, str, str] | None:
        """``(reason, ISO time, cause)`` of the last fetch of ``url`` that exported nothing, or None."""
        return _record(self.client.hget(self._unexported_key(site), canonical_url(url)))

    def recheck(self, site: str) -> int:
        """Mark every remembered rejection of ``site`` for a fetch on its next run; returns how many."""
        marked = {}
        for url, raw in self.client.hscan_iter(self._unexported_key(site)):
            found = _record(raw)
            if found is not None:
                marked[url] = json.dumps([found[0], found[1], RECHECK])
        for start in range(0, len(marked), 1000):
            chunk = dict(list(marked.items())[start:start + 1000])
            self.client.hset(self._unexported_key(site), mapping=chunk)
        return len(marked)

    def degraded(self, site: str) -> str | None:
        """When the last run that judged ``site`` found its extraction failing (ISO time), or None."""
        raw = self.client.hget(f"{self.prefix}:degraded-sites", site)
        return raw.decode() if isinstance(raw, bytes) else raw

    def set_degraded(self, site: str, degraded: bool) -> None:
        """Mark ``site``'s extraction as failing (since now, unless marked already) or as healthy."""
        if degraded:
            self.client.hsetnx(f"{self.prefix}:degraded-sites", site, datetime.now(UTC).isoformat())
        else:
            self.client.hdel(f"{self.prefix}:degraded-sites", site)

    def count(self, site: str | None = None) -> int:
        if site is not None:
            return int(self.client.hlen(self._key(site)))
        sites = self.client.smembers(f"{self.prefix}:seen-sites")
        return sum(int(self.client.hlen(self._key(s.decode() if isinstance(s, bytes) else s))) for s in sites)

    def close(self) -> None:
        """The client belongs to the caller (it is shared with the claims and the scheduler)."""



def _record(raw) -> tuple[str, str, str] | None:
    """A stored ``[reason, time, cause]`` (``[reason, time]`` before cause classes: lasting), or None."""
    try:
        reason, stamp, *rest = json.loads(raw)
    except (TypeError, ValueError):
        return None  # absent, or not written by this version
    return str(reason), str(stamp), str(rest[0]) if rest else LASTING
