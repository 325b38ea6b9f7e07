""":class:`QueuePop`: pop a request from scrapy-redis's shared priority queue and remember it
under the worker's ``last-pop`` key in the same Lua script, so a request popped by a worker
that dies before scheduling it is not lost (no Scrapy imports).
"""

from __future__ import annotations

import logging

import redis

logger = logging.getLogger(__name__)


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

