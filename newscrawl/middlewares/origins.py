"""Which requests a crawl may send (downloader middlewares).

:class:`AllowedDomainsMiddleware` exists because every request newscrawl issues is
``dont_filter`` (see :mod:`newscrawl.spiders.site`), and Scrapy's own offsite middleware
lets ``dont_filter`` requests through: without it a redirect from an article URL to
another host, or to another port of the same host, would be fetched and exported.

:class:`UrlLengthMiddleware` exists because Scrapy's ``URLLENGTH_LIMIT`` is a spider
middleware: it never sees the detail requests the fetch stage schedules with
``engine.crawl``, nor redirects.

Private addresses are kept out by :mod:`newscrawl.middlewares.addresses`.
"""

from __future__ import annotations

import logging
from urllib.parse import urlsplit

from scrapy.exceptions import IgnoreRequest

from newscrawl.sites import AllowList

logger = logging.getLogger(__name__)



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

