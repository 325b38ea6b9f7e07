"""Scrapy's core stats and progress lines, told in the crawl's own terms.

- :class:`CoreStats` — Scrapy's ``CoreStats``, except that a listing item handed over to
  its detail request (:class:`~newscrawl.run.drops.Scheduled`, a ``DropItem`` so that the
  item pipelines can end it) is not counted in ``item_dropped_count``: it is counted as
  ``newscrawl/scheduled`` by :class:`~newscrawl.run.report.CrawlReport`.  Real drops are still
  ``item_dropped_count`` and ``item_dropped_reasons_count/Dropped``.
- :class:`LogFormatter` — Scrapy's, without its own line for an item dropped by a newscrawl stage
  (:class:`~newscrawl.run.drops.Dropped`, :class:`~newscrawl.run.drops.Scheduled`):
  :func:`~newscrawl.run.drops.record_drop` logs those once, with the URL and the reason.
- :class:`Progress` — replaces Scrapy's ``LogStats``: every ``NEWSCRAWL_PROGRESS_INTERVAL`` seconds
  (0: never) one INFO line per site, ``<site>: 37/120 article pages done (30 exported, 7 dropped),
  12/min; 51 responses (20/min), queue 95``; *total* is the article pages scheduled so far (it
  grows while the listing pages are read).  ``NEWSCRAWL_PROGRESS_BAR``: ``auto`` draws a tqdm bar
  on stderr only when stderr is a terminal, so a cron run's stderr never holds one; ``always``
  draws it anywhere; ``never`` not at all.
"""

from __future__ import annotations

import logging
import sys
from typing import Any

from scrapy import signals
from scrapy.exceptions import NotConfigured
from scrapy.extensions.corestats import CoreStats as ScrapyCoreStats
from scrapy.logformatter import LogFormatter as ScrapyLogFormatter
from scrapy.utils.asyncio import create_looping_call

from ..items import ArticleItem
from .drops import Dropped, Scheduled

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


BAR_MODES = ("auto", "always", "never")


def want_bar(mode: str, stream: Any) -> bool:
    """Whether to draw the bar on ``stream`` for ``NEWSCRAWL_PROGRESS_BAR`` = ``mode``."""
    mode = (mode or "auto").lower()
    if mode not in BAR_MODES:
        raise NotConfigured(f"NEWSCRAWL_PROGRESS_BAR must be one of {', '.join(BAR_MODES)}, got {mode!r}")
    if mode == "auto":
        isatty = getattr(stream, "isatty", None)
        return bool(isatty and isatty())
    return mode == "always"


class Progress:
    """One progress line per site and interval, and a bar on a terminal (see the module docstring)."""

    def __init__(self, crawler, interval: float, bar: bool):
        self.crawler = crawler
        self.interval = interval
        self.draw_bar = bar
        self.bar: Any = None
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
        interval = crawler.settings.getfloat("NEWSCRAWL_PROGRESS_INTERVAL", 60)
        bar = want_bar(str(crawler.settings.get("NEWSCRAWL_PROGRESS_BAR") or "auto"), sys.stderr)
        if interval <= 0 and not bar:
            raise NotConfigured
        return cls(crawler, interval, bar)

    def item_scraped(self, item: Any, spider) -> None:
        if isinstance(item, ArticleItem):
            self.exported += 1
            self._tick()

    def item_dropped(self, item: Any, spider, exception: BaseException) -> None:
        if isinstance(item, ArticleItem):
            self.dropped += 1
            self._tick()

    def spider_opened(self, spider) -> None:
        if self.draw_bar:
            from tqdm import tqdm

            self.bar = tqdm(desc=spider.name, unit="article", file=sys.stderr, dynamic_ncols=True, leave=True)
        if self.interval > 0:
            self.task = create_looping_call(self.log, spider)
            self.task.start(self.interval, now=False)

    def _queue(self) -> int:
        engine = self.crawler.engine
        scheduler = getattr(engine, "scheduler", None) if engine is not None else None
        try:
            return len(scheduler) if scheduler is not None else 0
        except TypeError:
            return 0

    def _done_total(self) -> tuple[int, int]:
        stats = self.crawler.stats
        done = self.exported + self.dropped + stats.get_value(DETAIL_FAILED, 0)
        return done, max(stats.get_value("newscrawl/scheduled", 0), done)

    def line(self, spider) -> str:
        """The progress line (also the figures' single source for tests)."""
        stats = self.crawler.stats
        done, total = self._done_total()
        responses = stats.get_value("response_received_count", 0)
        per_minute = 60.0 / self.interval if self.interval > 0 else 0.0
        rate = (done - self._last[0]) * per_minute
        response_rate = (responses - self._last[1]) * per_minute
        self._last = (done, responses)
        return (f"{spider.name}: {done}/{total} article pages done ({self.exported} exported, "
                f"{done - self.exported} dropped), {rate:.0f}/min; {responses} responses "
                f"({response_rate:.0f}/min), queue {self._queue()}")

    def log(self, spider) -> None:
        logger.info("%s", self.line(spider), extra={"spider": spider})

    def _tick(self) -> None:
        if self.bar is not None:
            done, total = self._done_total()
            self.bar.total = total
            self.bar.set_postfix(exported=self.exported, queue=self._queue(), refresh=False)
            self.bar.update(done - self.bar.n)

    def spider_closed(self, spider, reason: str) -> None:
        if self.task is not None and self.task.running:
            self.task.stop()
        if self.bar is not None:
            self.bar.close()
            self.bar = None
