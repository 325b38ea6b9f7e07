"""Scrapy components besides pipelines and extensions: a crash-aware scheduler, an
origin allow-list that also holds for ``dont_filter`` requests, a URL length limit for
every request, robots.txt failures read as RFC 9309 says, and ``Retry-After``.

:class:`AllowedDomainsMiddleware` exists because every request newscrawl issues is
``dont_filter`` (see :mod:`newscrawl.spiders.site`), and Scrapy's own offsite middleware
lets ``dont_filter`` requests through: without it a redirect from an article URL to
another host, or to another port of the same host, would be fetched and exported.

:class:`UrlLengthMiddleware` exists because Scrapy's ``URLLENGTH_LIMIT`` is a spider
middleware: it never sees the detail requests the fetch stage schedules with
``engine.crawl``, nor redirects.

:class:`PrivateAddressMiddleware` keeps a crawl of the public web off the machine's own
network (server-side request forgery): a spider with ``refuse_private_addresses`` (``scrapy
crawl discover`` from a public start URL) sends nothing to a loopback, private or link-local
address, whether the URL names it or its host name resolves to it.

:class:`DecompressionMiddleware` is Scrapy's HttpCompressionMiddleware with the end of each
coded stream checked (:mod:`newscrawl.codings`), and with a body that the download itself
cut short (Scrapy's ``dataloss`` flag, fewer bytes than ``Content-Length``) refused: reason
``truncated``, never a shorter page.

:class:`RobotsTxtMiddleware` is Scrapy's with RFC 9309's failure rules: Scrapy reads a
robots.txt that fails (5xx, timeout, too large) as "allow all"; the RFC says "disallow".

:class:`CrashSafeScheduler` is Scrapy's scheduler with two changes for ``JOBDIR`` crawls:

- **A killed run's queue is discarded.**  Scrapy's disk queues are written without a
  journal: after ``kill -9`` their files may be truncated or stale (queuelib then fails
  with ``struct.error`` while pushing).  A marker file records that a run has the queue
  open; if it is still there at start, the previous run died and its queue is removed
  with a warning.  Nothing is lost: listing pages are re-read on every run and the
  seen-URL store knows what was exported.  After a clean stop (one Ctrl-C) the queue is
  resumed as usual.
- **An unreadable queue is discarded too**, with the same warning (a clean stop that could
  not write its queue, a disk that filled up).  Another run never shares the queue:
  :class:`newscrawl.run.guard.RunGuard` locks ``JOBDIR`` for one run at a time.
- **A queue write that fails mid-run stops the crawl** (``finish_reason``
  ``state_write_failed``, one error line; the request is kept in memory meanwhile).
- **Resumed detail requests join the in-run dedup.**  A detail request restored from the
  queue was claimed by the previous run, not this one; when it is popped, it claims its
  URL now (:meth:`newscrawl.state.seen_urls.SeenUrls.claim`) and is skipped if this run
  already scheduled that page, so no page is fetched twice in a run.
"""

from __future__ import annotations

import logging
import shutil
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from pathlib import Path
from urllib.parse import urlsplit

from scrapy import Request
from scrapy.core.scheduler import Scheduler
from scrapy.downloadermiddlewares.httpcompression import HttpCompressionMiddleware
from scrapy.downloadermiddlewares.robotstxt import RobotsTxtMiddleware as ScrapyRobotsTxtMiddleware
from scrapy.exceptions import (
    DownloadCancelledError,
    DownloadTimeoutError,
    IgnoreRequest,
    ResponseDataLossError,
)
from scrapy.http.request import NO_CALLBACK
from scrapy.robotstxt import RobotParser
from scrapy.utils._compression import _DecompressionMaxSizeExceeded
from scrapy.utils.defer import maybe_deferred_to_future
from scrapy.utils.httpobj import urlparse_cached
from twisted.internet.defer import Deferred
from twisted.internet.error import TimeoutError as TwistedTimeoutError

from newscrawl.run.drops import record_drop
from newscrawl.state.seen_urls import SeenUrls, state_write_failed

from . import codings
from .sites import AllowList, private_address, private_ip

logger = logging.getLogger(__name__)
MARKER = "newscrawl-run-open"
DETAIL_META = "newscrawl_run"  # set on detail requests: the id of the run that claimed the URL


class CrashSafeScheduler(Scheduler):
    """See the module docstring."""

    def open(self, spider):
        if self.dqdir:
            marker = Path(self.dqdir, MARKER)
            if marker.exists():
                self._discard_queue("did not stop cleanly")
            marker.touch()
            try:
                return super().open(spider)
            except Exception as exc:  # noqa: BLE001 - queuelib/pickle/json errors of a damaged queue
                self._discard_queue(f"left a request queue that cannot be read ({type(exc).__name__}: {exc})")
                marker.touch()
        return super().open(spider)

    def _discard_queue(self, why: str) -> None:
        logger.warning("The previous run with JOBDIR %s %s; discarding its request queue (listing pages "
                       "are re-read, nothing is lost)", Path(self.dqdir).parent, why)
        shutil.rmtree(self.dqdir)
        Path(self.dqdir).mkdir(parents=True)

    def _dqpush(self, request) -> bool:
        try:
            return super()._dqpush(request)
        except OSError as exc:
            state_write_failed(self.crawler, f"request queue in {self.dqdir}", exc)
            return False  # Scheduler.enqueue_request keeps it in memory

    def close(self, reason: str):
        try:
            result = super().close(reason)
        except OSError as exc:  # the marker stays: the next run discards the half-written queue
            logger.warning("Cannot write the request queue in %s: %s; the next run discards it",
                           self.dqdir, exc.strerror or exc)
            return self.df.close(reason)
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


class Refused(IgnoreRequest):
    """A request newscrawl will not send, with the drop ``reason`` the errbacks count."""

    def __init__(self, reason: str, detail: str):
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail


class AllowedDomainsMiddleware:
    """Downloader middleware: only http(s) URLs on the spider's allowed origins, redirects included.

    The spider's ``allow_list`` (:class:`newscrawl.sites.AllowList`) decides by scheme, host
    and port; a spider with only ``allowed_domains`` gets those domains on the default
    ports.  Refused requests fail with reason ``offsite``, which the spider's errbacks
    count as ``newscrawl/dropped/offsite``.  robots.txt requests pass through here too, so
    a robots.txt redirected off the allow-list is not fetched (and counts as unreachable).
    A spider may take a refused redirect in (``adopt_redirect(request)``: the ``discover``
    spider's home page moving within its registrable domain).
    Spiders with neither attribute are not restricted.
    """

    def __init__(self, crawler):
        self.crawler = crawler
        self._allow_list: AllowList | None = None

    @classmethod
    def from_crawler(cls, crawler) -> AllowedDomainsMiddleware:
        return cls(crawler)

    def allow_list(self) -> AllowList | None:
        spider = self.crawler.spider
        allow_list = getattr(spider, "allow_list", None)
        if allow_list is None and getattr(spider, "allowed_domains", None):
            if self._allow_list is None:
                self._allow_list = AllowList.of(spider.allowed_domains)
            allow_list = self._allow_list
        return allow_list

    def process_request(self, request, spider=None):
        parts = urlsplit(request.url)
        if parts.scheme not in ("http", "https"):
            raise Refused("offsite", f"{request.url} is not an http(s) URL")
        allow_list = self.allow_list()
        if allow_list is not None and not allow_list.allows(request.url):
            adopt = getattr(self.crawler.spider, "adopt_redirect", None)
            if adopt is not None and adopt(request):
                return None
            raise Refused("offsite", f"{parts.netloc} is not an allowed origin of this crawl")
        return None


class PrivateAddressMiddleware:
    """Downloader middleware: a spider whose ``refuse_private_addresses`` is true gets no request
    sent to a loopback, private, link-local or unspecified address (:func:`newscrawl.sites.private_ip`),
    redirects and robots.txt included: reason ``private_address``.

    An IP literal or ``localhost`` is judged as written; another host name is resolved with the
    crawl's own resolver (Scrapy's caching resolver, so the connection then uses the very
    address checked).  A name that does not resolve is let through: the download fails anyway.
    """

    def __init__(self, crawler):
        self.crawler = crawler

    @classmethod
    def from_crawler(cls, crawler) -> PrivateAddressMiddleware:
        return cls(crawler)

    def process_request(self, request, spider=None):
        if not getattr(self.crawler.spider, "refuse_private_addresses", False):
            return None
        verdict = private_address(request.url)
        if verdict is None:
            return self._resolved(request)
        if verdict:
            raise self._refusal(request, urlsplit(request.url).hostname)
        return None

    async def _resolved(self, request):
        from twisted.internet import reactor

        host = urlsplit(request.url).hostname
        try:
            address = await maybe_deferred_to_future(reactor.resolve(host))
        except Exception:  # noqa: BLE001 - no address: the download reports the DNS failure itself
            return None
        if private_ip(address):
            raise self._refusal(request, f"{host} ({address})")
        return None

    @staticmethod
    def _refusal(request, address: str) -> Refused:
        return Refused("private_address", f"{address} is a loopback, private or link-local address; "
                                          f"this crawl started from a public one")


class UrlLengthMiddleware:
    """Downloader middleware: a request whose URL is longer than ``URLLENGTH_LIMIT``
    (Scrapy's setting, default 2083; 0 = no limit) is not sent: reason ``url_too_long``.

    Scrapy applies that limit only to requests coming out of spider callbacks; this one
    holds it for every request, the fetch stage's detail requests and redirects included.
    """

    def __init__(self, limit: int):
        self.limit = limit

    @classmethod
    def from_crawler(cls, crawler) -> UrlLengthMiddleware:
        return cls(crawler.settings.getint("URLLENGTH_LIMIT"))

    def process_request(self, request, spider=None):
        if self.limit and len(request.url) > self.limit:
            raise Refused("url_too_long", f"URL of {len(request.url)} characters {request.url[:80]}..., "
                                          f"more than URLLENGTH_LIMIT ({self.limit})")
        return None


class DecompressionMiddleware(HttpCompressionMiddleware):
    """Scrapy's HttpCompressionMiddleware (same place, 590; same codings and ``DOWNLOAD_MAXSIZE``
    limit) refusing a body that was cut short: reason ``truncated``.

    A body is cut short when Scrapy flags it ``dataloss`` (with ``DOWNLOAD_FAIL_ON_DATALOSS``
    off), when it holds fewer bytes than its ``Content-Length`` says, or when its content
    coding ends before the coding's end mark (a gzip member without its trailer, an unfinished
    Brotli stream, ...).  Scrapy's own decoders return what a cut stream gave, and the crawl
    would export the first part of the article as if it were the whole.
    """

    def process_response(self, request, response, spider=None):
        if request.method != "HEAD" and response.status not in (204, 304):
            if "dataloss" in (response.flags or ()):
                raise Refused("truncated", "the connection closed before the whole body arrived (dataloss)")
            stated = response.headers.get("Content-Length")
            if stated and stated.strip().isdigit() and int(stated) > len(response.body):
                raise Refused("truncated", f"{len(response.body)} of its {int(stated)} bytes "
                                           "(Content-Length)")
        try:
            return super().process_response(request, response)
        except codings.Truncated as exc:
            coding = response.headers.get("Content-Encoding", b"").decode("latin-1")
            raise Refused("truncated", f"Content-Encoding {coding}: {exc}") from None

    @staticmethod
    def _decode(body: bytes, encoding: bytes, max_size: int) -> bytes:
        try:
            return codings.decode(body, encoding.decode("latin-1"), max_size)
        except codings.TooLarge as exc:
            raise _DecompressionMaxSizeExceeded(exc.size, exc.max_size) from None


class Unreachable(RobotParser):
    """The rules of a host whose robots.txt could not be read: nothing is allowed."""

    def __init__(self, reason: str):
        self.reason = reason

    @classmethod
    def from_crawler(cls, crawler, robotstxt_body: bytes) -> Unreachable:  # pragma: no cover - never parsed
        return cls("unreachable")

    def allowed(self, url, user_agent) -> bool:
        return False

    def crawl_delay(self, user_agent) -> float | None:
        return None


class RobotsTxtMiddleware(ScrapyRobotsTxtMiddleware):
    """Scrapy's robots.txt middleware (Protego parses) with the failure rules of RFC 9309 §2.3.1:

    - 2xx (redirects followed up to Scrapy's limit): the rules, as Scrapy reads them;
    - 4xx, "unavailable" (§2.3.1.3; also a 3xx Scrapy did not follow, §2.3.1.2): no rules,
      everything is allowed;
    - 5xx, a timeout or network error, a body over ``NEWSCRAWL_ROBOTSTXT_MAXSIZE`` or a
      redirect off the allow-list, "unreachable" (§2.3.1.4): everything on that host is
      disallowed for the rest of the run.  Scrapy's retry middleware has already retried a
      5xx or a timeout ``RETRY_TIMES`` times; the next run asks again.  The host is logged
      once and counted in ``newscrawl/robots_unreachable``; each request it blocks fails
      with reason ``robots_unreachable`` (dropped, not retried).

    ``NEWSCRAWL_ROBOTSTXT_MAXSIZE`` (default 512 KiB) must stay at least 500 KiB, the
    minimum a crawler must parse (§2.5).
    """

    def __init__(self, crawler):
        super().__init__(crawler)
        self.maxsize = crawler.settings.getint("NEWSCRAWL_ROBOTSTXT_MAXSIZE", 512 * 1024)

    def process_request_2(self, rp, request) -> None:
        if isinstance(rp, Unreachable):
            self._stats.inc_value("robotstxt/forbidden")
            raise Refused("robots_unreachable", f"robots.txt of {urlparse_cached(request).netloc} "
                                                f"could not be read ({rp.reason}); nothing there is fetched")
        super().process_request_2(rp, request)

    async def robot_parser(self, request):
        url = urlparse_cached(request)
        netloc = url.netloc
        if netloc not in self._parsers:
            self._parsers[netloc] = Deferred()
            robots_request = Request(
                f"{url.scheme}://{netloc}/robots.txt",
                priority=self.DOWNLOAD_PRIORITY,
                meta={"dont_obey_robotstxt": True, "download_maxsize": self.maxsize},
                callback=NO_CALLBACK,
            )
            try:
                response = await self.crawler.engine.download_async(robots_request)
            except Exception as exc:  # noqa: BLE001 - every way of failing means "unreachable"
                self._unreachable(netloc, _robots_failure(exc))
            else:
                await self._read_robots(response, netloc, request)
            self._stats.inc_value("robotstxt/request_count")
        parser = self._parsers[netloc]
        if isinstance(parser, Deferred):
            # Not the Deferred's result: asFuture() hands it to the first waiter only and the
            # next ones get None, which Scrapy 2.19 reads as "no robots.txt" (requests 3, 4, ...
            # to a host sent while its robots.txt downloads ignored the rules).  The parser is
            # stored before the Deferred fires.
            await maybe_deferred_to_future(parser)
            parser = self._parsers[netloc]
        return parser

    async def _read_robots(self, response, netloc: str, request) -> None:
        if 300 <= response.status < 500:
            # unavailable (4xx; a 3xx left after the redirects): as an empty file, which allows everything
            await self._parse_robots(response.replace(body=b""), netloc, request)
        elif response.status >= 500 or response.status < 200:
            self._stats.inc_value("robotstxt/response_count")
            self._stats.inc_value(f"robotstxt/response_status_count/{response.status}")
            self._unreachable(netloc, f"HTTP {response.status}")
        else:
            await self._parse_robots(response, netloc, request)

    def _unreachable(self, netloc: str, reason: str) -> None:
        logger.warning("robots.txt of %s could not be read (%s): nothing on that host is fetched in this "
                       "run (RFC 9309 2.3.1.4)", netloc, reason)
        self._stats.inc_value("newscrawl/robots_unreachable")
        pending = self._parsers[netloc]
        self._parsers[netloc] = parser = Unreachable(reason)
        if isinstance(pending, Deferred):
            pending.callback(parser)


def _robots_failure(exc: Exception) -> str:
    """A short description of why robots.txt could not be downloaded."""
    reason, detail = exception_reason(exc)
    return f"{reason}: {detail}" if detail else reason


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
