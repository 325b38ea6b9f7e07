"""Scrapy components besides pipelines and extensions: a crash-aware scheduler, a
domain allow-list that also holds for ``dont_filter`` requests, and ``Retry-After``.

:class:`AllowedDomainsMiddleware` exists because every request newscrawl issues is
``dont_filter`` (see :mod:`newscrawl.spiders.site`), and Scrapy's own offsite middleware
lets ``dont_filter`` requests through: without it a redirect from an article URL to
another host would be fetched and exported.

:class:`CrashSafeScheduler` is Scrapy's scheduler with two changes for ``JOBDIR`` crawls:

- **A killed run's queue is discarded.**  Scrapy's disk queues are written without a
  journal: after ``kill -9`` their files may be truncated or stale (queuelib then fails
  with ``struct.error`` while pushing).  A marker file records that a run has the queue
  open; if it is still there at start, the previous run died and its queue is removed
  with a warning.  Nothing is lost: listing pages are re-read on every run and the
  seen-URL store knows what was exported.  After a clean stop (one Ctrl-C) the queue is
  resumed as usual.
- **Resumed detail requests join the in-run dedup.**  A detail request restored from the
  queue was claimed by the previous run, not this one; when it is popped, it claims its
  URL now (:meth:`newscrawl.extensions.SeenUrls.claim`) and is skipped if this run
  already scheduled that page, so no page is fetched twice in a run.
"""

from __future__ import annotations

import logging
import shutil
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from pathlib import Path
from urllib.parse import urlsplit

from scrapy.core.scheduler import Scheduler
from scrapy.exceptions import IgnoreRequest

from .extensions import SeenUrls, record_drop
from .sites import host_allowed

logger = logging.getLogger(__name__)
MARKER = "newscrawl-run-open"
DETAIL_META = "newscrawl_run"  # set on detail requests: the id of the run that claimed the URL


class CrashSafeScheduler(Scheduler):
    """See the module docstring."""

    def open(self, spider):
        if self.dqdir:
            marker = Path(self.dqdir, MARKER)
            if marker.exists():
                logger.warning("The previous run with JOBDIR %s did not stop cleanly; discarding its "
                               "request queue (listing pages are re-read, nothing is lost)",
                               Path(self.dqdir).parent)
                shutil.rmtree(self.dqdir)
                Path(self.dqdir).mkdir(parents=True)
            marker.touch()
        return super().open(spider)

    def close(self, reason: str):
        result = super().close(reason)
        if self.dqdir:
            Path(self.dqdir, MARKER).unlink(missing_ok=True)
        return result

    def next_request(self):
        while True:
            request = super().next_request()
            if request is None or DETAIL_META not in request.meta:
                return request
            seen = self.crawler.get_extension(SeenUrls)
            if seen is None or request.meta[DETAIL_META] == seen.run_id:
                return request
            if seen.claim(request.url):  # resumed from the queue: claim it for this run
                request.meta[DETAIL_META] = seen.run_id
                return request
            record_drop(self.crawler, "duplicate", request.url, "resumed request already fetched in this run")


class AllowedDomainsMiddleware:
    """Downloader middleware: only http(s) URLs on the spider's ``allowed_domains``, redirects included.

    Ignored requests fail with an ``offsite`` message, which the spider's errbacks count
    as ``newscrawl/dropped/offsite``.  robots.txt requests are for hosts already allowed.
    Spiders without ``allowed_domains`` are not restricted.
    """

    def __init__(self, crawler):
        self.crawler = crawler

    @classmethod
    def from_crawler(cls, crawler) -> AllowedDomainsMiddleware:
        return cls(crawler)

    def process_request(self, request, spider=None):
        parts = urlsplit(request.url)
        if parts.scheme not in ("http", "https"):
            raise IgnoreRequest(f"offsite: {request.url} is not an http(s) URL")
        domains = getattr(self.crawler.spider, "allowed_domains", None)
        if domains and not host_allowed(parts.hostname, domains):
            raise IgnoreRequest(f"offsite: {parts.hostname} is not one of {list(domains)}")
        return None


def retry_after_seconds(value: bytes | str | None) -> float | None:
    """``Retry-After`` as seconds from now: delta-seconds or an HTTP date; None when unreadable."""
    if not value:
        return None
    text = value.decode("latin-1") if isinstance(value, bytes) else value
    text = text.strip()
    if text.isdigit():
        return float(text)
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


class RetryAfterMiddleware:
    """Downloader middleware: a 429 or 503 with ``Retry-After`` slows the whole host down.

    The host's download slot gets a delay of ``Retry-After`` seconds (at most
    ``NEWSCRAWL_RETRY_AFTER_MAX``, default 120), so Scrapy's retry of the page and every
    other request to that host wait at least that long; AutoThrottle lowers the delay
    again as the host answers normally.  Scrapy's retry middleware ignores the header.
    """

    def __init__(self, crawler):
        self.crawler = crawler
        self.max_delay = crawler.settings.getfloat("NEWSCRAWL_RETRY_AFTER_MAX", 120.0)

    @classmethod
    def from_crawler(cls, crawler) -> RetryAfterMiddleware:
        return cls(crawler)

    def process_response(self, request, response, spider=None):
        if response.status not in (429, 503):
            return response
        seconds = retry_after_seconds(response.headers.get("Retry-After"))
        if seconds is None or seconds <= 0:
            return response
        downloader = self.crawler.engine.downloader
        slot = downloader.slots.get(downloader.get_slot_key(request))
        if slot is not None:
            # the slot's delay is jittered by ±jitter: scale it so that even the shortest wait is enough
            jitter = min(getattr(slot, "jitter", 0.0) or 0.0, 0.9)
            slot.delay = max(slot.delay, min(seconds, self.max_delay) / (1 - jitter))
            self.crawler.stats.inc_value("newscrawl/retry_after")
            logger.info("%s answered %d with Retry-After %s: waiting %.0f s between its requests",
                        urlsplit(request.url).hostname, response.status, seconds, slot.delay)
        return response
