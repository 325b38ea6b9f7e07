"""The workers of a distributed crawl job and their heartbeats in Redis (no Scrapy imports):
``busy`` or ``idle`` while a worker beats, ``done`` after it finished cleanly, absent once its
heartbeat expired (killed, or cut off from Redis).  Joining and leaving are Lua scripts, so
the last worker to leave is the one that clears the job's claims.
"""

from __future__ import annotations

import logging

import redis

from newscrawl.state.redis_client import _text

logger = logging.getLogger(__name__)


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
redis.call('SET', KEYS[2], 'busy', 'PX', ARGV[3])
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

    ``<prefix>:worker:<id>`` is ``busy`` (requests in flight, and from :meth:`join` to its first
    beat: it is about to schedule its listing pages) or ``idle``, with a TTL of
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

