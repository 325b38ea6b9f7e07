"""Crawl state in Redis, shared by every worker of a distributed crawl (no Scrapy imports).

- :class:`RedisSeenStore` — the :class:`~newscrawl.store.SeenStore` interface (which
  article URLs a site has exported) in one Redis hash per site, ``url -> exported_at``.
- :class:`RedisClaims` — atomic first-come claims, the shared form of the single-process
  crawl's in-run sets: the first worker to claim a URL fetches it.  Each claim names its
  owner (a worker id), so a claim repeated after a lost reply is still the owner's, and
  a claim of a dead worker (see :class:`RedisWorkers`) can be taken over.  Claims last
  for one crawl job (cleared when its last worker finishes; a TTL covers killed jobs),
  so a page claimed but never exported is tried again by the next job.
- :class:`RedisWorkers` — the workers of a crawl job and their heartbeats: ``busy`` or
  ``idle`` while a worker beats, ``done`` after it finished cleanly, absent once its
  heartbeat expired (killed, or cut off from Redis).
- :class:`RedisTemplateStore` — Yan and Wang's (2020) per-site template library
  (:class:`~newscrawl.extract.methods.template.TemplateStore`'s interface), one library per site
  shared by all workers: each learns into it and cleans with it (merge rules in the class).

Keys all start with a prefix (``newscrawl`` by default) so several crawls can share a server::

    <prefix>:seen:<site>             hash   canonical URL -> ISO time exported
    <prefix>:seen-sites              set    sites with a seen hash (for count())
    <prefix>:unexported:<site>       hash   canonical URL -> JSON [reason, ISO time] of a page
                                            fetched and not exported (absent in older stores)
    <prefix>:claims:<scope>          hash   SHA-1 of a claimed URL -> owner (scope = spider:kind), TTL
    <prefix>:worker:<id>             string ``busy``/``idle`` (expires unless refreshed) or ``done``
    <prefix>:workers:<spider>        set    worker ids of the spider's crawl job
    <prefix>:<spider>:requests:last-pop:<id>  string  a worker's last pop (:class:`QueuePop`)
    <prefix>:data-kept               string marker: gone after an outage = Redis lost its data
    <prefix>:template:<site>         hash   template entry (JSON ``[tag, text]``) -> count
    <prefix>:template-hits:<site>    zset   template entry -> last hit (the bound drops the lowest)
    <prefix>:template-batches:<site> list   unfinished batches (``SiteTemplates.to_json()``) of closed workers
    <prefix>:template-sites          set    sites with a template library
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import redis
from redis.backoff import ExponentialBackoff
from redis.retry import Retry

from .extract.methods.template import (
    MAX_ENTRIES,
    N1,
    N2,
    LeafIndex,
    SiteTemplates,
    dumps_state,
    templates_from_json,
)
from .store import canonical_url, legacy_url_key

DEFAULT_PREFIX = "newscrawl"

logger = logging.getLogger(__name__)


#: What a Redis call raises when the server cannot be reached (after the client's own retries).
UNREACHABLE = (redis.ConnectionError, redis.TimeoutError)

RETRIES = 3  # the client's retries of one command: 0.1 + 0.2 + 0.4 s of backoff, then it fails
SOCKET_TIMEOUT = 10.0  # seconds for a reply (every command here is small)
CONNECT_TIMEOUT = 5.0


def client_params(retries: int = RETRIES) -> dict[str, Any]:
    """Keyword arguments of every Redis client of a crawl (newscrawl's and scrapy-redis's).

    redis-py's own reconnection: a command that fails with a connection error or a timeout
    is retried ``retries`` times on a fresh connection, with exponential backoff
    (``Retry`` + ``ExponentialBackoff``); a brief blip or a Redis restart is thus invisible.
    Longer outages are the crawl's business (:mod:`newscrawl.distributed`).  The timeouts
    bound how long one call can block the crawl's event loop.
    """
    return {
        "retry": Retry(ExponentialBackoff(cap=1.0, base=0.05), retries=max(0, int(retries))),
        "retry_on_error": [redis.ConnectionError, redis.TimeoutError],
        "socket_timeout": SOCKET_TIMEOUT,
        "socket_connect_timeout": CONNECT_TIMEOUT,
        "health_check_interval": 30,
    }


def connect(url: str, retries: int = RETRIES, *, ping: bool = True) -> redis.Redis:
    """A client for ``redis://host:port/db`` (also ``rediss://``, ``unix://``); fails fast if unreachable."""
    client = redis.Redis.from_url(url, **client_params(retries))
    if ping:
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

    def add_unexported(self, site: str, urls: Iterable[str], reason: str) -> None:
        """Record ``urls`` as fetched and not exported for ``reason`` (one round trip)."""
        value = json.dumps([reason, datetime.now(UTC).isoformat()])
        keys = [canonical_url(u) for u in dict.fromkeys(urls) if u]
        if keys:
            self.client.hset(f"{self.prefix}:unexported:{site}", mapping=dict.fromkeys(keys, value))

    def unexported(self, site: str, url: str) -> tuple[str, str] | None:
        """``(reason, ISO time)`` of the last fetch of ``url`` that exported nothing, or None."""
        raw = self.client.hget(f"{self.prefix}:unexported:{site}", canonical_url(url))
        try:
            reason, stamp = json.loads(raw)
        except (TypeError, ValueError):
            return None  # absent (or not written by this version)
        return str(reason), str(stamp)

    def count(self, site: str | None = None) -> int:
        if site is not None:
            return int(self.client.hlen(self._key(site)))
        sites = self.client.smembers(f"{self.prefix}:seen-sites")
        return sum(int(self.client.hlen(self._key(s.decode() if isinstance(s, bytes) else s))) for s in sites)

    def close(self) -> None:
        """The client belongs to the caller (it is shared with the claims and the scheduler)."""


_CLAIM = """
-- KEYS[1]: the scope's claims hash.  ARGV: owner, ttl, takeover (0/1), worker key prefix, members...
-- Returns {1} when every member is now the owner's (new, already its own, or taken over
-- from a worker whose heartbeat key is gone), else {0, holder, holder's state}.
local owner, prefix = ARGV[1], ARGV[4]
local taken = 0
for i = 5, #ARGV do
  local holder = redis.call('HGET', KEYS[1], ARGV[i])
  if holder and holder ~= owner then
    local state = redis.call('GET', prefix .. holder)
    if ARGV[3] == '0' or state then return {0, holder, state or 'gone'} end
    taken = taken + 1
  end
end
for i = 5, #ARGV do redis.call('HSET', KEYS[1], ARGV[i], owner) end
redis.call('EXPIRE', KEYS[1], ARGV[2])
return {1, taken}
"""


@dataclass(frozen=True)
class Claim:
    """The outcome of a claim: ``won`` (the caller owns it now); else who holds it and their state."""

    won: bool
    holder: str | None = None
    holder_state: str | None = None  # "busy", "idle", "done", or "gone" (when not taken over)
    taken_over: int = 0  # how many of the values were taken from dead workers

    def __bool__(self) -> bool:
        return self.won

    @property
    def holder_may_fail(self) -> bool:
        """Lost to a worker that may still drop the page: a busy one (it may die with the page in
        flight), or one without a heartbeat whose claim could not be taken over yet."""
        return not self.won and self.holder_state in ("busy", "gone")


class RedisClaims:
    """First-come claims shared by every worker: one Redis hash per scope (``spider:kind``).

    Each claimed value maps to its owner, the worker id given to the constructor.  A claim
    is won when the value is unclaimed or already the caller's — so a claim that redis-py
    repeats after a reply lost to a dropped connection still counts as won; callers keep
    their own in-run sets for duplicates within a run.  With ``takeover=True`` a value held
    by a worker whose heartbeat (:class:`RedisWorkers`) has expired is taken over: that
    worker was killed or cut off, and would never finish the page.

    A crawl job clears its scopes when it finishes (:meth:`reset`); the ``ttl`` (refreshed
    by every claim) is the safety net for a job whose workers were all killed.
    """

    def __init__(self, client: redis.Redis, prefix: str = DEFAULT_PREFIX, owner: str = "-"):
        self.client = client
        self.prefix = prefix
        self.owner = owner
        self._claim = client.register_script(_CLAIM)

    def key(self, scope: str) -> str:
        return f"{self.prefix}:claims:{scope}"

    @staticmethod
    def member(value: str) -> str:
        return hashlib.sha1(value.encode("utf-8", "surrogatepass")).hexdigest()

    def claim(self, scope: str, value: str, ttl: int, *, takeover: bool = False) -> Claim:
        """Claim ``value`` in ``scope`` for this owner (see the class docstring)."""
        return self.claim_all(scope, [value], ttl, takeover=takeover)

    def claim_all(self, scope: str, values: Iterable[str], ttl: int, *, takeover: bool = False) -> Claim:
        """Claim every value at once: all are the owner's afterwards, or none changed hands."""
        members = [self.member(v) for v in dict.fromkeys(values)]
        if not members:
            return Claim(True)
        args = [self.owner, max(1, int(ttl)), int(takeover), RedisWorkers.key_prefix(self.prefix), *members]
        reply = self._claim(keys=[self.key(scope)], args=args)
        if int(reply[0]):
            return Claim(True, taken_over=int(reply[1]))
        return Claim(False, _text(reply[1]), _text(reply[2]))

    def owner_of(self, scope: str, value: str) -> str | None:
        holder = self.client.hget(self.key(scope), self.member(value))
        return _text(holder) if holder is not None else None

    def release(self, scope: str, value: str) -> None:
        self.client.hdel(self.key(scope), self.member(value))

    def reset(self, *scopes: str) -> None:
        """Forget every claim of ``scopes`` (the crawl job is over)."""
        if scopes:
            self.client.delete(*(self.key(s) for s in scopes))


_LIVE_OTHERS = """
local live = 0
for _, id in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  local state = redis.call('GET', ARGV[1] .. id)
  if not state then redis.call('SREM', KEYS[1], id)
  elseif state ~= 'done' and id ~= ARGV[2] then live = live + 1 end
end
"""
# KEYS: the job's worker set, the worker's key, the shared queue, then the job's claim keys.
# ARGV: worker key prefix, worker id, then (join) heartbeat TTL in ms or (leave) done flag and TTL.
_JOIN = _LIVE_OTHERS + """
redis.call('SET', KEYS[2], 'idle', 'PX', ARGV[3])
redis.call('SADD', KEYS[1], ARGV[2])
if live == 0 and redis.call('EXISTS', KEYS[3]) == 0 and #KEYS > 3 then
  redis.call('DEL', unpack(KEYS, 4))
  return 1
end
return 0
"""
_LEAVE = """
if ARGV[3] ~= '1' then
  redis.call('DEL', KEYS[2])
  redis.call('SREM', KEYS[1], ARGV[2])
  return 0
end
redis.call('SET', KEYS[2], 'done', 'EX', ARGV[4])
""" + _LIVE_OTHERS + """
if live == 0 and redis.call('EXISTS', KEYS[3]) == 0 and #KEYS > 3 then
  redis.call('DEL', unpack(KEYS, 4))
  return 1
end
return 0
"""


class RedisWorkers:
    """The workers of one crawl job (a spider) and their heartbeats.

    ``<prefix>:worker:<id>`` is ``busy`` (requests in flight) or ``idle``, with a TTL of
    ``heartbeat_ttl`` seconds refreshed by :meth:`beat`; a worker killed or cut off from
    Redis for that long is gone, and the listing and detail claims it holds are taken over
    (:class:`RedisClaims`).  A worker that finished cleanly is ``done`` (its claims stand:
    it processed every request it took) for ``done_ttl`` seconds.  An idle worker has
    processed what it took, too: what it claimed is done or still in the shared queue.
    """

    def __init__(self, client: redis.Redis, prefix: str, spider: str, worker: str):
        self.client = client
        self.prefix = prefix
        self.worker = worker
        self.set_key = f"{prefix}:workers:{spider}"
        self._join = client.register_script(_JOIN)
        self._leave = client.register_script(_LEAVE)

    @staticmethod
    def key_prefix(prefix: str) -> str:
        return f"{prefix}:worker:"

    def key(self, worker: str | None = None) -> str:
        return self.key_prefix(self.prefix) + (worker or self.worker)

    def beat(self, heartbeat_ttl: float, *, busy: bool = False) -> None:
        with self.client.pipeline(transaction=True) as pipe:
            pipe.set(self.key(), "busy" if busy else "idle", px=max(1, int(heartbeat_ttl * 1000)))
            pipe.sadd(self.set_key, self.worker)
            pipe.execute()

    def join(self, heartbeat_ttl: float, job_keys: list[str], queue_key: str) -> bool:
        """Beat for the first time; True when this starts a new job (no other worker live, the queue
        empty): the previous job's ``job_keys`` (its claims) are then deleted, in the same script."""
        args = [self.key_prefix(self.prefix), self.worker, max(1, int(heartbeat_ttl * 1000))]
        return bool(self._join(keys=[self.set_key, self.key(), queue_key, *job_keys], args=args))

    def leave(self, *, done: bool, done_ttl: int, job_keys: list[str], queue_key: str) -> bool:
        """Leave the job: ``done`` after a clean finish (its claims stand), else gone at once (its claims
        are taken over).  True when a done worker was the last live one and the queue is empty: the
        job is over and its ``job_keys`` are deleted."""
        args = [self.key_prefix(self.prefix), self.worker, int(done), max(1, int(done_ttl))]
        return bool(self._leave(keys=[self.set_key, self.key(), queue_key, *job_keys], args=args))

    def state(self, worker: str) -> str | None:
        value = self.client.get(self.key(worker))
        return _text(value) if value is not None else None


_POP = """
-- KEYS[1]: the queue (a sorted set), KEYS[2]: the popping worker's last pop.  ARGV: pop number, TTL.
local seq = ARGV[1] .. '|'
local last = redis.call('GET', KEYS[2])
if last and string.sub(last, 1, #seq) == seq then return string.sub(last, #seq + 1) end
local first = redis.call('ZRANGE', KEYS[1], 0, 0)
if #first == 0 then return false end
redis.call('ZREMRANGEBYRANK', KEYS[1], 0, 0)
redis.call('SET', KEYS[2], seq .. first[1], 'EX', ARGV[2])
return first[1]
"""


class QueuePop:
    """Pops of scrapy-redis's priority queue (a sorted set) that a retry cannot lose.

    scrapy-redis pops with ``ZRANGE`` + ``ZREMRANGEBYRANK``: if the connection drops after
    Redis ran them but before the reply arrived, redis-py's retry pops the *next* request
    and the first is gone.  Here every pop has a number; Redis keeps the worker's last pop
    under that number, and a pop repeated with the same number (a retry, now or after an
    outage) returns the same request.  The caller moves to the next number only once it
    has the reply.
    """

    def __init__(self, client: redis.Redis, queue_key: str, last_key: str, ttl: int = 3600):
        self.queue_key = queue_key
        self.last_key = last_key
        self.ttl = ttl
        self.number = 0
        self._pop = client.register_script(_POP)

    def pop(self) -> bytes | None:
        data = self._pop(keys=[self.queue_key, self.last_key], args=[self.number, self.ttl])
        if data is not None:
            self.number += 1
        return data


_MERGE_TEMPLATE = """
-- KEYS: counts hash, hits zset, sites set.  ARGV: max entries, site, then (entry, count, hit) triples.
for i = 3, #ARGV, 3 do
  local entry, count, hit = ARGV[i], tonumber(ARGV[i + 1]), tonumber(ARGV[i + 2])
  local old = tonumber(redis.call('HGET', KEYS[1], entry))
  if not old or count > old then redis.call('HSET', KEYS[1], entry, count) end
  local seen = tonumber(redis.call('ZSCORE', KEYS[2], entry))
  if not seen or hit > seen then redis.call('ZADD', KEYS[2], hit, entry) end
end
local excess = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[1])
if excess > 0 then
  for _, entry in ipairs(redis.call('ZRANGE', KEYS[2], 0, excess - 1)) do
    redis.call('ZREM', KEYS[2], entry)
    redis.call('HDEL', KEYS[1], entry)
  end
end
redis.call('SADD', KEYS[3], ARGV[2])
return redis.call('HLEN', KEYS[1])
"""

MAX_PENDING_BATCHES = 64


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


class RedisTemplateStore:
    """Yan and Wang's (2020) per-site template libraries in Redis: one library per site for all workers.

    The interface of :class:`~newscrawl.extract.methods.template.TemplateStore` (``site``, ``save``,
    ``sites``, ``close``): each worker keeps the :class:`SiteTemplates` of a site in memory,
    learns into it page by page and cleans with it; :meth:`save` (the crawl calls it at the
    end of every batch of N1 pages and at close) merges the worker's template into Redis in
    one Lua script (atomic: concurrent saves of several workers never lose an entry) and
    then reloads the shared library, so each worker cleans with what all workers learned.

    Merge rules:

    - **entries: union**, near-identical texts of two workers included (both match the
      same leaves; the one matched less recently is the first to go when the bound bites);
    - **count: the maximum**, not the sum.  A count is the paper's evidence from *one*
      batch of N1 pages — how many of that batch's pages carried the leaf, at most N1 —
      and an entry is never re-counted once promoted (as in one process).  Adding the
      counts of different workers' batches would mix units; the maximum keeps the count
      meaning what it means in the SQLite store, and is idempotent and order-independent,
      so a save repeated after a network error or saves interleaved in any order give
      the same library;
    - **last hit: the maximum.**  Each worker's clock (pages cleaned) restarts from the
      shared maximum on every reload, so the clocks of workers stay within one batch of
      each other and the bound drops the entries no worker matched recently;
    - **bounded** to ``max_entries`` (least recently hit dropped first) inside the script.

    Batches are per worker: a worker counts the pages *it* extracts in batches of N1 and
    promotes entries seen on N2 of them, exactly as one process does (spreading one batch
    over workers would cost a Redis round trip per page).  So that short-lived workers'
    pages still add up, :meth:`close` hands an unfinished batch over (a Redis list) and the
    next worker to open the site resumes one (``LPOP``: each batch is resumed once).

    ``readonly`` (for ``scrapy templates``): :meth:`site` peeks at an unfinished batch
    instead of taking it, and :meth:`save`/:meth:`close` write nothing.  ``owns_client``:
    :meth:`close` closes the client too.
    """

    def __init__(self, client: redis.Redis, prefix: str = DEFAULT_PREFIX, n1: int = N1, n2: int = N2,
                 max_entries: int = MAX_ENTRIES, *, readonly: bool = False, owns_client: bool = False):
        self.client = client
        self.prefix = prefix
        self.n1, self.n2, self.max_entries = n1, n2, max_entries
        self.readonly = readonly
        self.owns_client = owns_client
        self._merge = client.register_script(_MERGE_TEMPLATE)
        self._sites: dict[str, SiteTemplates] = {}
        self._synced: dict[str, dict[tuple[str, str], tuple[int, int]]] = {}  # what Redis held at load

    def _keys(self, site: str) -> list[str]:
        return [f"{self.prefix}:template:{site}", f"{self.prefix}:template-hits:{site}",
                f"{self.prefix}:template-sites"]

    def _batches_key(self, site: str) -> str:
        return f"{self.prefix}:template-batches:{site}"

    def site(self, name: str) -> SiteTemplates:
        """The site's library, loaded on first use (resuming an unfinished batch if one waits)."""
        found = self._sites.get(name)
        if found is None:
            key = self._batches_key(name)
            raw = self.client.lindex(key, 0) if self.readonly else self.client.lpop(key)
            found = templates_from_json(self._batch_state(name, raw), [])
            found.n1, found.n2, found.max_entries = self.n1, self.n2, self.max_entries
            self._reload(name, found)
            self._sites[name] = found
        return found

    @staticmethod
    def _batch_state(name: str, raw: bytes | str | None) -> dict[str, Any]:
        if raw is None:
            return {}
        try:
            state = json.loads(raw)
            if isinstance(state, dict) and isinstance(state.get("cache", []), list):
                return state
        except ValueError:
            pass
        logger.warning("Unreadable unfinished template batch of %s in Redis: dropped", name)
        return {}

    def _read(self, name: str) -> list[tuple[str, str, int, int]]:
        """The shared library: ``(tag, text, count, last hit)``, most frequent first."""
        counts_key, hits_key, _ = self._keys(name)
        with self.client.pipeline(transaction=True) as pipe:
            pipe.hgetall(counts_key)
            pipe.zrange(hits_key, 0, -1, withscores=True)
            counts, hits = pipe.execute()
        last_hit = {_text(member): int(score) for member, score in hits}
        entries = []
        for member, count in counts.items():
            member = _text(member)
            try:
                tag, text = json.loads(member)
                entries.append((str(tag), str(text), int(count), last_hit.get(member, 0)))
            except (ValueError, TypeError):
                logger.warning("Unreadable template entry of %s in Redis skipped: %.80r", name, member)
        return sorted(entries, key=lambda e: (-e[2], -e[3], e[0], e[1]))

    def _reload(self, name: str, site: SiteTemplates) -> None:
        """Replace ``site``'s template by the shared one (its batch in progress is kept)."""
        template, synced = LeafIndex(), {}
        for tag, text, count, hit in self._read(name):
            template.add_entry(tag, text, count)
            synced[(tag, text)] = (count, hit)
        site.template = template
        site.last_hit = {key: hit for key, (_, hit) in synced.items()}
        site.clock = max([site.clock, *site.last_hit.values()])
        self._synced[name] = synced

    def save(self, name: str) -> None:
        """Merge the worker's template of ``name`` into Redis, then reload the shared one."""
        site = self._sites.get(name)
        if site is None or self.readonly:
            return
        synced = self._synced.get(name, {})
        args: list[Any] = [self.max_entries, name]
        for key, count in site.template.counts.items():
            hit = site.last_hit.get(key, 0)
            if synced.get(key) != (count, hit):  # only what changed since the last reload
                args += [json.dumps(list(key), ensure_ascii=False), count, hit]
        self._merge(keys=self._keys(name), args=args)
        self._reload(name, site)

    def sites(self) -> list[str]:
        return sorted(_text(s) for s in self.client.smembers(self._keys("")[2]))

    def close(self) -> None:
        """Hand the unfinished batches over to the next worker, then let go of the client."""
        try:
            if not self.readonly:
                for name, site in self._sites.items():
                    if site.pages_in_batch:
                        key = self._batches_key(name)
                        with self.client.pipeline(transaction=True) as pipe:
                            pipe.rpush(key, dumps_state(site))
                            pipe.ltrim(key, -MAX_PENDING_BATCHES, -1)
                            pipe.sadd(self._keys(name)[2], name)
                            pipe.execute()
        except redis.RedisError as exc:
            logger.warning("Could not hand the unfinished template batches over: %s", exc)
        finally:
            self._sites.clear()
            if self.owns_client:
                self.client.close()


class RedisDecorationStore:
    """The sites' title decorations (:mod:`newscrawl.extract.fields.title_decoration`) shared in Redis.

    ``<prefix>:template-titles:<site>`` is a hash: folded title part -> pages seen with it, and
    ``"\\x00pages"`` -> the site's pages counted.  Workers add what they counted since their last
    save (``HINCRBY``: additive, so concurrent saves lose nothing), then reload the shared counts.
    Only parts a worker saw on two pages or more are sent: a part seen once is a headline.
    """

    PAGES = "\x00pages"

    def __init__(self, client: redis.Redis, prefix: str = DEFAULT_PREFIX, *, readonly: bool = False):
        self.client = client
        self.prefix = prefix
        self.readonly = readonly
        self._sites: dict[str, Any] = {}
        self._synced: dict[str, dict[str, int]] = {}

    def _key(self, site: str) -> str:
        return f"{self.prefix}:template-titles:{site}"

    def site(self, name: str):
        found = self._sites.get(name)
        if found is None:
            from .extract.fields.title_decoration import SiteDecoration

            found = self._sites[name] = SiteDecoration()
            self._reload(name, found)
        return found

    def _reload(self, name: str, site) -> None:
        shared: dict[str, int] = {}
        for part, count in self.client.hgetall(self._key(name)).items():
            try:
                shared[_text(part)] = int(count)
            except ValueError:
                continue
        site.pages = shared.pop(self.PAGES, 0)
        local = {p: c for p, c in site.counts.items() if p not in shared and c == 1}
        site.counts = {**local, **shared}
        self._synced[name] = {**shared, self.PAGES: site.pages}

    def save(self, name: str) -> None:
        site = self._sites.get(name)
        if site is None or self.readonly or not site.changed:
            return
        synced = self._synced.get(name, {})
        with self.client.pipeline(transaction=True) as pipe:
            for part, count in site.counts.items():
                delta = count - synced.get(part, 0)
                if delta > 0 and count >= 2:
                    pipe.hincrby(self._key(name), part, delta)
            if site.pages > synced.get(self.PAGES, 0):
                pipe.hincrby(self._key(name), self.PAGES, site.pages - synced.get(self.PAGES, 0))
            pipe.execute()
        site.changed = False
        self._reload(name, site)

    def close(self) -> None:
        self._sites.clear()
