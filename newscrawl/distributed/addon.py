""":class:`RedisAddon`: ``NEWSCRAWL_DISTRIBUTED`` set, it switches a crawl to scrapy-redis's
scheduler and duplicate filter, the Redis seen store and claims, and the extensions of
:mod:`newscrawl.distributed` (see the package docstring).
"""

from __future__ import annotations

import logging

from newscrawl.distributed.options import SETTING, _prefix, _retries
from newscrawl.state.redis_client import client_params

logger = logging.getLogger(__name__)



class RedisAddon:
    """Turns the distributed mode on when ``NEWSCRAWL_DISTRIBUTED`` is set (listed in ``ADDONS``).

    Settings are set at ``spider`` priority: above the project's defaults (which name the
    single-process scheduler), below ``-s`` on the command line.
    """

    def update_settings(self, settings) -> None:
        url = settings.get(SETTING)
        if not url:
            return
        if not str(url).startswith(("redis://", "rediss://", "unix://")):
            raise ValueError(f"{SETTING}={url!r}: expected redis://host:port/db")
        prefix = _prefix(settings)
        values = {
            "REDIS_URL": url,
            # scrapy-redis's clients (scheduler queue, dupefilter) reconnect like newscrawl's; keys of
            # REDIS_PARAMS in a settings file win (REDIS_PARAMS given with -s replaces all of these).
            "REDIS_PARAMS": {**client_params(_retries(settings)), **settings.getdict("REDIS_PARAMS")},
            "SCHEDULER": "newscrawl.distributed.scheduler.DistributedScheduler",
            "DUPEFILTER_CLASS": "scrapy_redis.dupefilter.RFPDupeFilter",
            "SCHEDULER_PERSIST": True,  # one worker stopping must not flush everyone's queue
            "SCHEDULER_QUEUE_KEY": f"{prefix}:%(spider)s:requests",
            "SCHEDULER_DUPEFILTER_KEY": f"{prefix}:%(spider)s:dupefilter",
        }
        for name, value in values.items():
            settings.set(name, value, priority="spider")
        extensions = settings.getdict("EXTENSIONS")
        order = (extensions.get("newscrawl.distributed.seen.RedisSeenUrls")  # applied twice: same result
                 or extensions.get("newscrawl.state.seen_urls.SeenUrls") or 900)
        extensions["newscrawl.state.seen_urls.SeenUrls"] = None
        extensions["newscrawl.distributed.seen.RedisSeenUrls"] = order
        extensions["newscrawl.distributed.idle.IdleWorker"] = order + 5
        settings.set("EXTENSIONS", extensions, priority="spider")
        pipelines = settings.getdict("ITEM_PIPELINES")
        # Gates just before the seen filter and the export gate (see ListingGate, ExportGate).
        seen_filter = pipelines.get("newscrawl.pipelines.SeenFilterStage") or 100
        export_gate = pipelines.get("newscrawl.pipelines.ExportGateStage") or 700
        pipelines["newscrawl.distributed.gates.ListingGate"] = seen_filter - 1
        pipelines["newscrawl.distributed.gates.ExportGate"] = export_gate - 1
        settings.set("ITEM_PIPELINES", pipelines, priority="spider")
        if settings.get("JOBDIR"):
            logger.warning("JOBDIR is ignored in the distributed mode: the queue lives in Redis")

