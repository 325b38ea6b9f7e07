"""The distributed crawl's settings: names, defaults, the key prefix, and :func:`settings_for`
(the settings a worker of a crawl of ``url`` runs with); :func:`template_store` opens the
shared template library for the extraction pipelines.
"""

from __future__ import annotations

import logging
from typing import Any

from newscrawl.state.redis_client import DEFAULT_PREFIX, RETRIES, connect
from newscrawl.state.redis_templates import RedisTemplateStore

logger = logging.getLogger(__name__)


SETTING = "NEWSCRAWL_DISTRIBUTED"


CLAIM_TTL = 6 * 3600


OUTAGE_TIMEOUT = 60.0


HEARTBEAT_TTL = 15.0


SCOPES = ("listing", "detail", "export")


REQUEUED = "newscrawl_requeued"  # meta flag: a request already claimed (taken from the queue, or held)


REASON = "redis_unavailable"  # finish_reason of a worker that gave up on Redis


STATS = "newscrawl/redis/"


JOURNAL = "redis-unrecorded.json"  # in the state directory: exported URLs Redis did not record



def _prefix(settings) -> str:
    return settings.get("NEWSCRAWL_REDIS_PREFIX") or DEFAULT_PREFIX



def _retries(settings) -> int:
    return settings.getint("NEWSCRAWL_REDIS_RETRIES", RETRIES)



def template_store(settings, *, readonly: bool = False) -> RedisTemplateStore | None:
    """The shared template library when ``NEWSCRAWL_DISTRIBUTED`` is set in ``settings``, else None.

    It has a client of its own (closed with the store): the crawl's extraction may run in
    worker processes (``NEWSCRAWL_EXTRACT_PROCESSES``), each opening its own store.
    """
    url = settings.get(SETTING)
    if not url:
        return None
    return RedisTemplateStore(connect(url, _retries(settings)), _prefix(settings), readonly=readonly,
                              owns_client=True)



def settings_for(url: str, **extra: Any) -> dict[str, Any]:
    """Settings that put a crawl in the distributed mode (for scripts and tests)."""
    return {SETTING: url, **extra}

