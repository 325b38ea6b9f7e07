"""The Redis client every shared store uses (no Scrapy imports): :func:`connect` with redis-py's own
``Retry``/``ExponentialBackoff`` on connection errors and timeouts (:func:`client_params`, also
handed to scrapy-redis), short socket timeouts, and :data:`UNREACHABLE`, the errors that mean
"Redis is away" rather than a bug.  Keys all start with a prefix (:data:`DEFAULT_PREFIX`) so
several crawls can share a server; the key layout is listed in :mod:`newscrawl.state`.
"""

from __future__ import annotations

import logging
from typing import Any

import redis
from redis.backoff import ExponentialBackoff
from redis.retry import Retry

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



def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value

