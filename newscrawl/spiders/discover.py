"""``scrapy crawl discover -a url=https://www.example.com/``: crawl a site nobody configured.

From the home page the spider finds the site's feeds, section pages and JSON list endpoints
(:mod:`newscrawl.discovery`) and reads them as the site spider reads configured ones; the
``Sitemap:`` lines of the host's robots.txt are read as for any site.  The run's site is
built at start: its domain is the registrable domain of ``url`` (``www.example.com`` ->
``example.com``, subdomains included), plus the origin of ``url`` itself and of each feed
the home page declares on another host.

Bounds (settings): ``NEWSCRAWL_DISCOVER_MAX_SECTIONS`` section pages read (default 10),
``NEWSCRAWL_DISCOVER_MAX_FEEDS`` feeds (default 20), ``NEWSCRAWL_DISCOVER_FEED_PROBES`` common
feed paths (``/rss``, ``/feed``, ``/rss.xml``, ...) tried when the home page names no feed
(default 4).  A feed link that answers with an HTML page (a site's "RSS feeds" page) is read
once for the feeds it lists.

With ``-a survey=1`` (what ``scrapy addsite`` runs) nothing is listed for fetching: the spider
only records what it found in :attr:`DiscoverSpider.survey`.
"""

from __future__ import annotations

from itertools import islice
from typing import Any

import scrapy
from scrapy.http import TextResponse

from .. import catalogue, discovery
from ..discovery import Survey
from ..items import ListingItem
from ..sites import SiteConfig, origin_of
from .site import SiteSpider, page_kind, robots_sitemaps

DISCOVER_STATS = "newscrawl/discover/"  # stats prefix: what discovery found and tried


class DiscoverSpider(SiteSpider):
    """A site spider whose site is discovered from its home page (see the module docstring)."""

    name = "discover"

    def __init__(self, *args: Any, url: str | None = None, survey: str | bool = False, **kwargs: Any):
        if not url or origin_of(url) is None:
            raise ValueError("discover needs -a url=<the site's home page, an absolute http(s) URL>")
        domain = discovery.registrable_domain(url)
        self.site = SiteConfig(name=self.name, domains=(domain,), catalogues=(url,), max_pages=1)
        super().__init__(*args, **kwargs)
        self.home_url = url
        self.surveying = str(survey).lower() in ("1", "true", "yes")
        self.survey = Survey(home=url)

    def _setting(self, name: str, default: int) -> int:
        return self.crawler.settings.getint(name, default)

    async def start(self):
        yield self._listing_request(self.home_url, self.parse_home)

    # -- the home page ---------------------------------------------------------------

    def parse_home(self, response):
        """Feeds, sections and list endpoints of the home page, and its own article links."""
        if not isinstance(response, TextResponse):
            self.crawler.stats.inc_value("newscrawl/listing_error/not_html")
            return
        root = catalogue.parse(response.text)
        if root is None:
            self.crawler.stats.inc_value("newscrawl/listing_error/not_html")
            return
        max_links = self.crawler.settings.getint("NEWSCRAWL_MAX_LISTING_LINKS", 10_000)
        if next(islice(root.iter("a"), max_links, None), None) is not None:
            yield from self.parse_catalogue(response)  # counts and logs the page as too_many_links
            return
        self.survey.language = discovery.page_language(root)
        feeds = discovery.feed_links(root, response.url, self.allowed_domains)
        sections = discovery.section_links(root, response.url, self.allowed_domains)
        sections = [s for s in sections if s not in self._listing_seen and self.allow_list.allows(s)]
        self.survey.sections = sections
        self._count("sections", len(sections))
        yield from self._feed_requests(feeds, index_pages=True)
        if not feeds:
            for url in discovery.probe_urls(response.url, self._setting("NEWSCRAWL_DISCOVER_FEED_PROBES", 4)):
                if url not in self._listing_seen and self.allow_list.allows(url):
                    self._listing_seen.add(url)
                    self._count("feed_probes")
                    yield scrapy.Request(url, callback=self.parse_probe, errback=self.probe_missed,
                                         dont_filter=True, priority=0)
        for url in sections[: self._setting("NEWSCRAWL_DISCOVER_MAX_SECTIONS", 10)]:
            yield self._listing_request(url, self.parse_catalogue, page=1)
        yield from self.parse_catalogue(response, page=1)

    def _feed_requests(self, feeds: list[str], index_pages: bool):
        """Requests for new feeds, up to ``NEWSCRAWL_DISCOVER_MAX_FEEDS`` a run; a feed the page
        declares on another host is allowed for the run (its origin only)."""
        budget = self._setting("NEWSCRAWL_DISCOVER_MAX_FEEDS", 20) - self.crawler.stats.get_value(
            DISCOVER_STATS + "feeds_requested", 0)
        new = [url for url in dict.fromkeys(feeds) if url not in self._listing_seen][: max(budget, 0)]
        if new:
            self.allow_list = self.allow_list.with_origins(new)
            self.allowed_domains = self.allow_list.hosts
        for url in new:
            self._count("feeds_requested")
            yield self._listing_request(url, self.parse_discovered_feed, index_pages=index_pages)

    # -- feeds -----------------------------------------------------------------------

    def parse_discovered_feed(self, response, index_pages: bool = False):
        """A feed found on the home page; an HTML page there is read once for the feeds it lists."""
        if page_kind(response) == "feed":
            yield from self._recorded(self.parse_feed(response), response.url, "feed")
        elif index_pages and isinstance(response, TextResponse):
            root = catalogue.parse(response.text)
            listed = discovery.feed_links(root, response.url, self.allowed_domains)
            self._count("feed_index_pages")
            yield from self._feed_requests(listed, index_pages=False)
        else:
            self.crawler.stats.inc_value("newscrawl/listing_error/feed")
            self.logger.info("Discovered feed %s is no feed (%s)", response.url, page_kind(response))

    def parse_probe(self, response):
        """A common feed path: read when it answers with a feed, else ignored."""
        if page_kind(response) != "feed":
            self._count("feed_probe_missed")
            return
        self._count("feed_probe_found")
        self.allow_list = self.allow_list.with_origins([response.url])
        yield from self._recorded(self.parse_feed(response), response.url, "feed")

    def probe_missed(self, failure) -> None:
        self._count("feed_probe_missed")
        self.logger.debug("Feed probe %s: nothing there (%s)", failure.request.url, failure.value)

    # -- catalogue pages (home and sections) ------------------------------------------

    def parse_catalogue(self, response, page: int = 1):
        yield from self._recorded(super().parse_catalogue(response, page), response.url, "catalogue")

    def _recorded(self, results, listing_url: str, kind: str):
        """Pass on a parse method's results, noting the listed articles; surveying, the listing
        items stay here (no article is fetched) and so do further listing pages."""
        listed = 0
        for result in results:
            if isinstance(result, ListingItem):
                listed += 1
                self.survey.articles.append(result.url)
                if not self.surveying:
                    yield result
            elif not self.surveying or result.callback == self.parse_list_api:
                yield result
        if kind == "feed" and listed and listing_url not in self.survey.feeds:
            self.survey.feeds.append(listing_url)
        elif kind == "api" and listed and listing_url not in self.survey.list_apis:
            self.survey.list_apis.append(listing_url)
        elif kind == "catalogue":
            self.survey.catalogue_links[listing_url] = listed

    def parse_list_api(self, response):
        yield from self._recorded(super().parse_list_api(response), response.url, "api")

    # -- robots.txt --------------------------------------------------------------------

    def _robots_parsed(self, robotparser, request) -> None:
        """The ``Sitemap:`` lines are noted; surveying, they are not read."""
        parts = request.url.split("/")
        robots_url = "/".join(parts[:3]) + "/robots.txt"
        if self.allow_list.allows(robots_url):
            for url in robots_sitemaps(robotparser, robots_url):
                if url not in self.survey.sitemaps and self.allow_list.allows(url):
                    self.survey.sitemaps.append(url)
        if not self.surveying:
            super()._robots_parsed(robotparser, request)

    def _count(self, what: str, count: int = 1) -> None:
        self.crawler.stats.inc_value(DISCOVER_STATS + what, count)
