"""``Retry-After`` (RFC 9110 §10.2.3) honoured: a 429 or 503 that names a delay slows that host
down for that long (capped by ``NEWSCRAWL_RETRY_AFTER_MAX``); :func:`exception_reason` names the
drop reason of a failed download.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from urllib.parse import urlsplit

from scrapy.exceptions import (
    DownloadCancelledError,
    DownloadTimeoutError,
    IgnoreRequest,
    ResponseDataLossError,
)
from twisted.internet.error import TimeoutError as TwistedTimeoutError

from newscrawl.extract.fields.dates import http_date
from newscrawl.middlewares.origins import Refused

logger = logging.getLogger(__name__)



def exception_reason(exc: BaseException) -> tuple[str, str]:
    """A drop reason and detail for a request that failed with ``exc`` rather than a response."""
    if isinstance(exc, Refused):
        return exc.reason, exc.detail
    if isinstance(exc, (DownloadTimeoutError, TwistedTimeoutError)):
        return "timeout", str(exc) or type(exc).__name__
    if isinstance(exc, ResponseDataLossError):  # DOWNLOAD_FAIL_ON_DATALOSS: fewer bytes than Content-Length
        return "truncated", "the connection closed before the whole body arrived"
    if isinstance(exc, DownloadCancelledError):
        # Scrapy cancels a download only when the body outgrows DOWNLOAD_MAXSIZE (or the
        # request's download_maxsize); without Content-Length the error has no message.
        return "too_large", str(exc) or "body larger than DOWNLOAD_MAXSIZE"
    text = str(exc).lower()
    if isinstance(exc, IgnoreRequest):
        if "robots" in text:
            return "robots", str(exc)
        if "offsite" in text:
            return "offsite", str(exc)
        if "max redirections" in text:
            return "redirect_loop", str(exc)
        if "download_maxsize" in text:  # e.g. a gzip bomb, stopped while decompressing
            return "too_large", str(exc)
        return "ignored", str(exc)
    if "download max size" in text or "maxsize" in text:
        return "too_large", str(exc)
    return "download_error", f"{type(exc).__name__}: {exc}"



def retry_after_seconds(value: bytes | str | None) -> float | None:
    """``Retry-After`` as seconds from now: delta-seconds or an HTTP date; None when unreadable."""
    if not value:
        return None
    text = value.decode("latin-1") if isinstance(value, bytes) else value
    text = text.strip()
    if text.isdigit():
        return float(text)
    when = http_date(text)
    if when is None:
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

