"""Crawl state in Redis, shared by every worker of a distributed crawl (no Scrapy imports).

- :class:`RedisSeenStore` — the :class:`~newscrawl.store.SeenStore` interface (which
  article URLs a site has exported) in one Redis hash per site, ``url -> exported_at``.
- :class:`RedisClaims` — atomic first-come claims (``SADD``), the shared form of the
  single-process crawl's in-run sets: the first worker to claim a URL fetches it.  They
  last for one crawl job (cleared when its last worker finishes; a TTL covers killed
  jobs), so a page claimed but never exported is tried again by the next job.
- :class:`TemplateLibrary` / :class:`RedisTemplateLibrary` — the interface a per-site
  template library needs (named JSON documents per site), and its Redis form, so learned
  templates can be shared by all workers when that stage lands.

Keys all start with a prefix (``newscrawl`` by default) so several crawls can share a server::

    <prefix>:seen:<site>            hash   canonical URL -> ISO time exported
    <prefix>:seen-sites             set    sites with a seen hash (for count())
    <prefix>:claims:<scope>         set    SHA-1s of claimed URLs (scope = spider:kind), with a TTL
    <prefix>:templates:<site>       hash   template name -> JSON
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any, Protocol

import redis

from .store import canonical_url

DEFAULT_PREFIX = "newscrawl"


def connect(url: str) -> redis.Redis:
    """A client for ``redis://host:port/db`` (also ``rediss://``, ``unix://``); fails fast if unreachable."""
    client = redis.Redis.from_url(url, socket_connect_timeout=10, socket_timeout=30, retry_on_timeout=True)
    client.ping()
    return client


class RedisSeenStore:
    """:class:`~newscrawl.store.SeenStore` in Redis (one hash per site; ``add`` is one round trip)."""

    def __init__(self, client: redis.Redis, prefix: str = DEFAULT_PREFIX):
        self.client = client
        self.prefix = prefix

    def _key(self, site: str) -> str:
        return f"{self.prefix}:seen:{site}"

    def contains(self, site: str, url: str) -> bool:
        return bool(self.client.hexists(self._key(site), canonical_url(url)))

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

    def count(self, site: str | None = None) -> int:
        if site is not None:
            return int(self.client.hlen(self._key(site)))
        sites = self.client.smembers(f"{self.prefix}:seen-sites")
        return sum(int(self.client.hlen(self._key(s.decode() if isinstance(s, bytes) else s))) for s in sites)

    def close(self) -> None:
        """The client belongs to the caller (it is shared with the claims and the scheduler)."""


_CLAIM_ALL = """
for i = 2, #ARGV do
  if redis.call('SISMEMBER', KEYS[1], ARGV[i]) == 1 then return 0 end
end
for i = 2, #ARGV do redis.call('SADD', KEYS[1], ARGV[i]) end
redis.call('EXPIRE', KEYS[1], ARGV[1])
return 1
"""


class RedisClaims:
    """First-come claims shared by every worker: one Redis set per scope (``spider:kind``).

    A crawl job clears its scopes when it finishes (:meth:`reset`); the ``ttl`` (refreshed
    by every claim) is the safety net for a job whose workers were all killed.
    """

    def __init__(self, client: redis.Redis, prefix: str = DEFAULT_PREFIX):
        self.client = client
        self.prefix = prefix
        self._claim_all = client.register_script(_CLAIM_ALL)

    def key(self, scope: str) -> str:
        return f"{self.prefix}:claims:{scope}"

    @staticmethod
    def member(value: str) -> str:
        return hashlib.sha1(value.encode("utf-8", "surrogatepass")).hexdigest()

    def claim(self, scope: str, value: str, ttl: int) -> bool:
        """True for the first caller to claim ``value`` in ``scope``."""
        with self.client.pipeline(transaction=True) as pipe:
            pipe.sadd(self.key(scope), self.member(value))
            pipe.expire(self.key(scope), max(1, int(ttl)))
            return bool(pipe.execute()[0])

    def claim_all(self, scope: str, values: Iterable[str], ttl: int) -> bool:
        """Claim every value at once; True only if none was claimed before (then all are claimed now)."""
        members = [self.member(v) for v in dict.fromkeys(values)]
        if not members:
            return True
        return bool(self._claim_all(keys=[self.key(scope)], args=[max(1, int(ttl)), *members]))

    def release(self, scope: str, value: str) -> None:
        self.client.srem(self.key(scope), self.member(value))

    def reset(self, *scopes: str) -> None:
        """Forget every claim of ``scopes`` (the crawl job is over)."""
        if scopes:
            self.client.delete(*(self.key(s) for s in scopes))


class TemplateLibrary(Protocol):
    """What a per-site template library needs from its storage: named JSON documents per site."""

    def get(self, site: str, name: str) -> dict[str, Any] | None: ...

    def put(self, site: str, name: str, document: dict[str, Any]) -> None: ...

    def names(self, site: str) -> list[str]: ...


class RedisTemplateLibrary:
    """:class:`TemplateLibrary` in one Redis hash per site (``name -> JSON``)."""

    def __init__(self, client: redis.Redis, prefix: str = DEFAULT_PREFIX):
        self.client = client
        self.prefix = prefix

    def _key(self, site: str) -> str:
        return f"{self.prefix}:templates:{site}"

    def get(self, site: str, name: str) -> dict[str, Any] | None:
        raw = self.client.hget(self._key(site), name)
        return json.loads(raw) if raw is not None else None

    def put(self, site: str, name: str, document: dict[str, Any]) -> None:
        self.client.hset(self._key(site), name, json.dumps(document, ensure_ascii=False, sort_keys=True))

    def names(self, site: str) -> list[str]:
        return sorted(n.decode() if isinstance(n, bytes) else n for n in self.client.hkeys(self._key(site)))
