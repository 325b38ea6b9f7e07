""":class:`RobotsTxtMiddleware` is Scrapy's with RFC 9309's failure rules: Scrapy reads a
robots.txt that fails (5xx, timeout, too large) as "allow all"; the RFC says "disallow".
"""

from __future__ import annotations

import logging

from scrapy import Request
from scrapy.downloadermiddlewares.robotstxt import RobotsTxtMiddleware as ScrapyRobotsTxtMiddleware
from scrapy.http.request import NO_CALLBACK
from scrapy.robotstxt import RobotParser
from scrapy.utils.defer import maybe_deferred_to_future
from scrapy.utils.httpobj import urlparse_cached
from twisted.internet.defer import Deferred

from newscrawl.middlewares.origins import Refused
from newscrawl.middlewares.retry import exception_reason

logger = logging.getLogger(__name__)



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

