"""The Scrapy extension that records a site's run in the history and raises its drift alarms.

:class:`HealthRecorder` (``EXTENSIONS``, after the feed exporter and the seen-URL store) feeds
every exported article to :class:`~newscrawl.health.signals.ExportSignals` on ``item_scraped``
and, at ``spider_closed``, writes the run's :class:`~newscrawl.health.history.RunRecord`, checks
it against the site's earlier runs (:func:`~newscrawl.health.alarms.evaluate`), logs each alarm
and leaves them in the stats (:data:`ALARMS_STAT`) for the run's closing line.  A history that
cannot be written costs a warning, never the run.  ``NEWSCRAWL_HEALTH = False`` turns it off.
"""

from __future__ import annotations

import logging
import time
import uuid
from datetime import UTC, datetime
from typing import Any

from scrapy import signals
from scrapy.exceptions import NotConfigured

from ..items import ArticleItem
from .alarms import Thresholds, evaluate
from .history import open_history, parse_time
from .signals import ExportSignals, record_from_stats

logger = logging.getLogger(__name__)

ALARMS_STAT = "newscrawl/health/alarms"  # list of alarm lines of this run


class HealthRecorder:
    def __init__(self, crawler):
        self.crawler = crawler
        settings = crawler.settings
        self.thresholds = Thresholds.from_settings(settings)
        self.run_id = settings.get("NEWSCRAWL_HEALTH_RUN_ID") or uuid.uuid4().hex
        self.fixed_start = settings.get("NEWSCRAWL_HEALTH_RUN_START")
        if self.fixed_start:
            try:
                parse_time(str(self.fixed_start))
            except ValueError:
                logger.error("NEWSCRAWL_HEALTH_RUN_START=%r is not an ISO 8601 time: recording the run "
                             "with its real start", self.fixed_start)
                self.fixed_start = None
        self.signals = ExportSignals()
        self.started = ""
        self.clock = 0.0
        crawler.signals.connect(self.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(self.item_scraped, signal=signals.item_scraped)
        crawler.signals.connect(self.spider_closed, signal=signals.spider_closed)

    @classmethod
    def from_crawler(cls, crawler) -> HealthRecorder:
        if not crawler.settings.getbool("NEWSCRAWL_HEALTH", True):
            raise NotConfigured("NEWSCRAWL_HEALTH is off")
        return cls(crawler)

    def spider_opened(self, spider) -> None:
        start = parse_time(str(self.fixed_start)) if self.fixed_start else datetime.now(UTC)
        self.started = start.astimezone(UTC).isoformat()
        self.clock = time.monotonic()

    def item_scraped(self, item: Any, spider) -> None:
        if isinstance(item, ArticleItem):
            self.signals.add(item)

    def spider_closed(self, spider, reason: str) -> None:
        stats = dict(self.crawler.stats.get_stats())
        stats.setdefault("finish_reason", reason)
        record = record_from_stats(spider.name, self.started or datetime.now(UTC).isoformat(), stats,
                                   self.signals, self.run_id, time.monotonic() - self.clock)
        client = getattr(self._seen(), "client", None)
        try:
            store = open_history(self.crawler.settings, client=client)
            try:
                store.add(record)
                runs = store.latest(self.thresholds.baseline_runs + 1, [spider.name]).get(spider.name, [])
            finally:
                store.close()
        except Exception as exc:  # noqa: BLE001 - the history is a report's input, never the run's failure
            logger.warning("Could not record the run in the site-health history: %s", exc)
            return
        alarms = evaluate(runs, self.thresholds)
        for alarm in alarms:
            logger.warning("Health alarm: %s", alarm.line())
        if alarms:
            self.crawler.stats.set_value(ALARMS_STAT, [a.line() for a in alarms])

    def _seen(self) -> Any:
        from newscrawl.state.seen_urls import SeenUrls

        return self.crawler.get_extension(SeenUrls)
