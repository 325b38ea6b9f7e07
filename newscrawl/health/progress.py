"""Where a long crawl is: one log line per interval, and a progress bar on a terminal.

Every ``NEWSCRAWL_PROGRESS_INTERVAL`` seconds (0: never) :class:`Progress` logs, for its site
(one line per site in ``crawlall``: each site's crawler has its own)::

    bbc: progress: 1,204 pages (87/min), exported 311, queue 95

``NEWSCRAWL_PROGRESS_BAR``: ``auto`` draws a tqdm bar on stderr only when stderr is a terminal,
so a cron run's stderr never holds one; ``always`` draws it anywhere; ``never`` not at all.
The bar's total is what the crawl knows it will fetch: pages done plus the queue.
"""

from __future__ import annotations

import logging
import sys
import time
from typing import Any

from scrapy import signals
from scrapy.exceptions import NotConfigured
from scrapy.utils.asyncio import create_looping_call

logger = logging.getLogger(__name__)

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
    def __init__(self, crawler, interval: float, bar: bool):
        self.crawler = crawler
        self.interval = interval
        self.draw_bar = bar
        self.bar: Any = None
        self.task: Any = None
        self.pages_before = 0
        self.clock = 0.0
        crawler.signals.connect(self.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(self.spider_closed, signal=signals.spider_closed)
        if bar:
            crawler.signals.connect(self.response_received, signal=signals.response_received)

    @classmethod
    def from_crawler(cls, crawler) -> Progress:
        interval = crawler.settings.getfloat("NEWSCRAWL_PROGRESS_INTERVAL", 60)
        bar = want_bar(str(crawler.settings.get("NEWSCRAWL_PROGRESS_BAR") or "auto"), sys.stderr)
        if interval <= 0 and not bar:
            raise NotConfigured
        return cls(crawler, interval, bar)

    def figures(self) -> dict[str, int]:
        stats = self.crawler.stats
        engine = self.crawler.engine
        scheduler = getattr(engine, "scheduler", None) if engine is not None else None
        try:
            queue = len(scheduler) if scheduler is not None else 0
        except TypeError:
            queue = 0
        return {"pages": stats.get_value("response_received_count", 0) or 0,
                "exported": stats.get_value("newscrawl/exported", 0) or 0, "queue": queue}

    def spider_opened(self, spider) -> None:
        self.site = spider.name
        self.clock = time.monotonic()
        if self.draw_bar:
            from tqdm import tqdm

            self.bar = tqdm(desc=spider.name, unit="page", file=sys.stderr, dynamic_ncols=True, leave=True)
        if self.interval > 0:
            self.task = create_looping_call(self.log)
            self.task.start(self.interval, now=False)

    def line(self) -> str:
        f = self.figures()
        rate = (f["pages"] - self.pages_before) * 60.0 / self.interval if self.interval > 0 else 0.0
        self.pages_before = f["pages"]
        return f"{self.site}: progress: {f['pages']:,} pages ({rate:.0f}/min), exported {f['exported']:,}, " \
               f"queue {f['queue']:,}"

    def log(self) -> None:
        logger.info("%s", self.line())

    def response_received(self, *args: Any, **kwargs: Any) -> None:
        if self.bar is not None:
            f = self.figures()
            self.bar.total = f["pages"] + f["queue"]
            self.bar.set_postfix(exported=f["exported"], queue=f["queue"], refresh=False)
            self.bar.update(1)

    def spider_closed(self, spider, reason: str) -> None:
        if self.task is not None and self.task.running:
            self.task.stop()
        if self.bar is not None:
            self.bar.close()
            self.bar = None
