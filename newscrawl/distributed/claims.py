"""Atomic first-come claims in Redis, the shared form of the single-process crawl's in-run sets
(no Scrapy imports): the first worker to claim a URL fetches it.  Each claim names its owner
(a worker id), so a claim repeated after a lost reply is still the owner's, and a claim of a
dead worker (:mod:`newscrawl.distributed.workers`) can be taken over.  Claims last for one
crawl job (cleared when its last worker finishes; a TTL covers killed jobs), so a page
claimed but never exported is tried again by the next job.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Iterable
from dataclasses import dataclass

import redis

from newscrawl.distributed.workers import RedisWorkers
from newscrawl.state.redis_client import DEFAULT_PREFIX, _text

logger = logging.getLogger(__name__)


_CLAIM = """
-- KEYS[1]: the scope's claims hash.  ARGV: owner, ttl, the holder states that give a claim up
-- (comma-separated: gone, idle, done; empty for none), worker key prefix, members...
-- Returns {1, taken} when every member is now the owner's (new, already its own, or taken
-- over from a holder in one of those states), else {0, holder, holder's state}.
local owner, prefix, free = ARGV[1], ARGV[4], ',' .. ARGV[3] .. ','
local taken = 0
for i = 5, #ARGV do
  local holder = redis.call('HGET', KEYS[1], ARGV[i])
  if holder and holder ~= owner then
    local state = redis.call('GET', prefix .. holder) or 'gone'
    if not string.find(free, ',' .. state .. ',', 1, true) then return {0, holder, state} end
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

    def claim(self, scope: str, value: str, ttl: int, *, takeover: bool = False,
              also_from: tuple[str, ...] = ()) -> Claim:
        """Claim ``value`` in ``scope`` for this owner (see the class docstring)."""
        return self.claim_all(scope, [value], ttl, takeover=takeover, also_from=also_from)

    def claim_all(self, scope: str, values: Iterable[str], ttl: int, *, takeover: bool = False,
                  also_from: tuple[str, ...] = ()) -> Claim:
        """Claim every value at once: all are the owner's afterwards, or none changed hands.
        ``also_from``: holder states (``idle``, ``done``) that give the claim up as a dead holder does."""
        members = [self.member(v) for v in dict.fromkeys(values)]
        if not members:
            return Claim(True)
        free = ",".join((*(("gone",) if takeover else ()), *also_from))
        args = [self.owner, max(1, int(ttl)), free, RedisWorkers.key_prefix(self.prefix), *members]
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

