"""Per-site learned state in Redis, shared by every worker of a distributed crawl (no Scrapy imports).

- :class:`RedisTemplateStore` — Yan and Wang's (2020) per-site template library
  (:class:`~newscrawl.extract.methods.template.TemplateStore`'s interface): each worker learns
  into it and cleans with it; a batch is merged by one atomic Lua script (union of entries,
  the highest count), bounded per site by the entries hit least recently.
- :class:`RedisDecorationStore` — the site's title decoration
  (:mod:`newscrawl.extract.fields.title_decoration`), the same way.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import redis

from newscrawl.extract.methods.template import (
    MAX_ENTRIES,
    N1,
    N2,
    LeafIndex,
    SiteTemplates,
    dumps_state,
    templates_from_json,
)
from newscrawl.state.redis_client import DEFAULT_PREFIX, _text

logger = logging.getLogger(__name__)


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
            from ..extract.fields.title_decoration import SiteDecoration

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

