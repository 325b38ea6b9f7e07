"""Scrapy components besides pipelines and extensions: a crash-aware scheduler and a
domain allow-list that also holds for ``dont_filter`` requests.

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
