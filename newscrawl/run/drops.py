"""Drop reasons: every article or link the crawl gives up on goes through here.

:func:`record_drop` logs one line and counts ``newscrawl/dropped/<reason>``; pipelines raise
:class:`Dropped` (counted by :class:`newscrawl.run.report.CrawlReport` on ``item_dropped``);
spider errbacks and listing filters call :func:`record_drop` directly.  Links skipped by
design (:data:`QUIET_REASONS`) log at DEBUG.  :class:`Scheduled` is not a loss: a listing
item that became a detail-page request.
"""

from __future__ import annotations

import logging

from scrapy.exceptions import DropItem

from newscrawl.urls import short_text, short_url

logger = logging.getLogger(__name__)


DROP_PREFIX = "newscrawl/dropped/"



#: Drop reasons of links a run skips by design, one DEBUG line each (the closing summary counts them).
QUIET_REASONS = frozenset({"already_exported", "already_rejected", "listed_twice"})



class Dropped(DropItem):
    """An article dropped for ``reason`` (a short stable code, e.g. ``no_text``)."""

    def __init__(self, reason: str, detail: str = "", url: str | None = None):
        super().__init__(f"{reason}: {detail}" if detail else reason, log_level="DEBUG")
        self.reason = reason
        self.detail = detail
        self.url = url



class Scheduled(DropItem):
    """Not a loss: the listing item became a detail-page request (see the fetch stage)."""

    def __init__(self, url: str):
        super().__init__(f"scheduled detail request for {url}", log_level="DEBUG")



def record_drop(crawler, reason: str, url: str | None, detail: str = "") -> None:
    """Log why ``url`` is dropped and count it under ``newscrawl/dropped/<reason>``.

    A link skipped by design (:data:`QUIET_REASONS`: exported or rejected by an earlier run,
    listed twice) is logged at DEBUG: an unchanged site lists thousands of them on every run,
    and the closing summary (:class:`CrawlReport`) gives their count at INFO."""
    crawler.stats.inc_value(DROP_PREFIX + reason)
    level = logging.DEBUG if reason in QUIET_REASONS else logging.INFO
    logger.log(level, "Dropped %s: %s%s", short_url(url), reason,
               f" ({short_text(detail)})" if detail else "")

