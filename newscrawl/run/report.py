""":class:`CrawlReport`: on ``spider_closed``, the closing summary of a run: items exported,
drops by reason (:mod:`newscrawl.run.drops`), methods used and extraction time per page.
"""

from __future__ import annotations

import logging
from collections import Counter
from typing import Any

from scrapy import signals

from newscrawl.items import ArticleItem
from newscrawl.run.drops import DROP_PREFIX, Dropped, Scheduled, record_drop

logger = logging.getLogger(__name__)



class CrawlReport:
    """Counts drops by reason and summarises the crawl when the spider closes."""

    def __init__(self, crawler):
        self.crawler = crawler
        self.methods: Counter[str] = Counter()
        self.extraction_seconds = 0.0
        self.extracted = 0
        crawler.signals.connect(self.item_scraped, signal=signals.item_scraped)
        crawler.signals.connect(self.item_dropped, signal=signals.item_dropped)
        crawler.signals.connect(self.spider_closed, signal=signals.spider_closed)

    @classmethod
    def from_crawler(cls, crawler) -> CrawlReport:
        return cls(crawler)

    def item_scraped(self, item: Any, spider) -> None:
        if isinstance(item, ArticleItem):
            self.methods[item.method or "?"] += 1
            if item.extraction_seconds is not None:
                self.extraction_seconds += item.extraction_seconds
                self.extracted += 1

    def item_dropped(self, item: Any, spider, exception: BaseException) -> None:
        if isinstance(exception, Dropped):
            record_drop(self.crawler, exception.reason, exception.url or getattr(item, "url", None),
                        exception.detail)
        elif isinstance(exception, Scheduled):
            self.crawler.stats.inc_value("newscrawl/scheduled")

    def summary(self) -> dict[str, Any]:
        stats = self.crawler.stats.get_stats()
        drops = {k[len(DROP_PREFIX):]: v for k, v in stats.items() if k.startswith(DROP_PREFIX)}
        return {
            "exported": stats.get("newscrawl/exported", 0),
            "listed": stats.get("newscrawl/listed", 0),
            "scheduled": stats.get("newscrawl/scheduled", 0),
            "dropped": dict(sorted(drops.items())),
            "outside_window": stats.get("newscrawl/sitemap/outside_window", 0),
            "methods": dict(self.methods.most_common()),
            "extraction_ms_per_page": round(1000 * self.extraction_seconds / self.extracted, 1)
            if self.extracted
            else None,
        }

    def spider_closed(self, spider, reason: str) -> None:
        s = self.summary()
        drops = ", ".join(f"{k}={v}" for k, v in s["dropped"].items()) or "none"
        methods = ", ".join(f"{k}={v}" for k, v in s["methods"].items()) or "none"
        window = (f" ({s['outside_window']} sitemap entries outside the date window not listed)"
                  if s["outside_window"] else "")
        logger.info(
            "newscrawl summary for %s (%s): %d articles exported from %d listed links%s (%d fetched); "
            "dropped: %s; methods: %s; extraction %s ms/page",
            spider.name, reason, s["exported"], s["listed"], window, s["scheduled"], drops, methods,
            s["extraction_ms_per_page"] if s["extraction_ms_per_page"] is not None else "n/a",
        )

