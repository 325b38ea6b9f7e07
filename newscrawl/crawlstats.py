"""Scrapy's core stats and progress lines, told in the crawl's own terms.

- :class:`CoreStats` — Scrapy's ``CoreStats``, except that a listing item handed over to
  its detail request (:class:`~newscrawl.extensions.Scheduled`, a ``DropItem`` so that the
  item pipelines can end it) is not counted in ``item_dropped_count``: it is counted as
  ``newscrawl/scheduled`` by :class:`~newscrawl.extensions.CrawlReport`.  Real drops are still
  ``item_dropped_count`` and ``item_dropped_reasons_count/Dropped``.
- :class:`LogFormatter` — Scrapy's, without its own line for an item dropped by a newscrawl stage
  (:class:`~newscrawl.extensions.Dropped`, :class:`~newscrawl.extensions.Scheduled`):
  :func:`~newscrawl.extensions.record_drop` logs those once, with the URL and the reason.
- :class:`Progress` — replaces Scrapy's ``LogStats``: every ``LOGSTATS_INTERVAL`` seconds one
  INFO line per site, ``<site>: 37/120 article pages done (30 exported, 7 dropped), 12/min;
  51 responses (20/min)``; *total* is the article pages scheduled so far (it grows while the
  listing pages are read).
"""

from __future__ import annotations

import logging
from typing import Any

from scrapy import signals
from scrapy.exceptions import NotConfigured
from scrapy.extensions.corestats import CoreStats as ScrapyCoreStats
from scrapy.logformatter import LogFormatter as ScrapyLogFormatter
from scrapy.utils.asyncio import create_looping_call

from .extensions import Dropped, Scheduled
from .items import ArticleItem

logger = logging.getLogger(__name__)

DETAIL_FAILED = "newscrawl/detail_failed"  # article pages whose download failed (spider errback)


class CoreStats(ScrapyCoreStats):
    def item_dropped(self, item: Any, spider, exception: BaseException) -> None:
        if isinstance(exception, Scheduled):
            return  # not a drop: the listing item became a detail request
        super().item_dropped(item, spider, exception)


class LogFormatter(ScrapyLogFormatter):
    def dropped(self, item, exception, response, spider=None):
        if isinstance(exception, (Dropped, Scheduled)):
            return None  # logged once by record_drop (Scheduled: not a drop at all)
        return super().dropped(item, exception, response, spider)


class Progress:
    """One progress line per site and interval (see the module docstring)."""

    def __init__(self, crawler, interval: float):
        self.crawler = crawler
        self.interval = interval
        self.exported = 0
        self.dropped = 0
        self._last = (0, 0)  # (articles done, responses) at the previous line
        self.task = None
        crawler.signals.connect(self.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(self.spider_closed, signal=signals.spider_closed)
        crawler.signals.connect(self.item_scraped, signal=signals.item_scraped)
        crawler.signals.connect(self.item_dropped, signal=signals.item_dropped)

    @classmethod
    def from_crawler(cls, crawler) -> Progress:
        interval = crawler.settings.getfloat("LOGSTATS_INTERVAL")
        if not interval:
            raise NotConfigured
        return cls(crawler, interval)

    def item_scraped(self, item: Any, spider) -> None:
        if isinstance(item, ArticleItem):
            self.exported += 1

    def item_dropped(self, item: Any, spider, exception: BaseException) -> None:
        if isinstance(item, ArticleItem):
            self.dropped += 1

    def spider_opened(self, spider) -> None:
        self.task = create_looping_call(self.log, spider)
        self.task.start(self.interval, now=False)

    def line(self, spider) -> str:
        """The progress line (also the figures' single source for tests)."""
        stats = self.crawler.stats
        failed = stats.get_value(DETAIL_FAILED, 0)
        done = self.exported + self.dropped + failed
        total = max(stats.get_value("newscrawl/scheduled", 0), done)
        responses = stats.get_value("response_received_count", 0)
        per_minute = 60.0 / self.interval
        rate = (done - self._last[0]) * per_minute
        response_rate = (responses - self._last[1]) * per_minute
        self._last = (done, responses)
        return (f"{spider.name}: {done}/{total} article pages done ({self.exported} exported, "
                f"{self.dropped + failed} dropped), {rate:.0f}/min; {responses} responses "
                f"({response_rate:.0f}/min)")

    def log(self, spider) -> None:
        logger.info("%s", self.line(spider), extra={"spider": spider})

    def spider_closed(self, spider, reason: str) -> None:
        if self.task is not None and self.task.running:
            self.task.stop()
