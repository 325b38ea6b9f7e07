"""``scrapy crawl discover -a url=https://www.example.com/``: crawl a site nobody configured.

From the home page the spider finds the site's feeds, section pages and JSON list endpoints
(:mod:`newscrawl.discovery`) and reads them as the site spider reads configured ones, section
pages with their pagination (``max_pages``, default 3, as for a configured catalogue); the
``Sitemap:`` lines of the host's robots.txt are read as for any site.

**Where it goes.** Discovery stays on the origin of ``url`` (scheme, host and port): a page is
hostile input, and a feed, sitemap, section or article it names elsewhere (another port, another
host) is reported (``newscrawl/discover/off_origin/<feed|sitemap|section>``, logged once a page)
and not followed; article links elsewhere are dropped as ``offsite``. More is allowed with ``-a
allow=feeds.example.com,cdn.example.com:8443`` (comma-separated domains, ``host`` for the
default ports, subdomains included, or ``host:port``) or the ``NEWSCRAWL_DISCOVER_ALLOW``
setting. A home page that redirects within its own registrable domain (``http://example.com/``
-> ``https://www.example.com/``) moves discovery to where it lands
(``newscrawl/discover/home_redirect``); one that redirects to another site is not followed, with
a warning naming it (``newscrawl/discover/home_redirect_offsite``). Unless the start URL itself
is on one, no request goes to an address that is not globally routable
(:mod:`newscrawl.middlewares.addresses`, which judges what host names resolve to as well): a
public page cannot aim the crawl at the machine's network.

**Its own site.**  Each discovered site is named after its registrable domain
(``https://www.example.com/`` -> ``example_com``, :func:`newscrawl.discovery.survey.site_name`), so its
items, seen store, template library and state are its own, not shared by every discovered site.

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
from urllib.parse import urlsplit

import scrapy
from scrapy.http import TextResponse
from scrapy.utils.defer import maybe_deferred_to_future

from newscrawl.discovery import links
from newscrawl.discovery.survey import (
    Survey,
    feed_links,
    page_language,
    probe_urls,
    registrable_domain,
    section_links,
    site_name,
)

from ..items import ListingItem
from ..middlewares.addresses import PrivateAnswer
from ..sites import AllowList, SiteConfig, domain_problem, origin_of, private_address, private_ip
from ..urls import short_url
from .site import SiteSpider, page_kind, robots_sitemaps

DISCOVER_STATS = "newscrawl/discover/"  # stats prefix: what discovery found and tried


class DiscoverSpider(SiteSpider):
    """A site spider whose site is discovered from its home page (see the module docstring)."""

    name = "discover"

    def __init__(self, *args: Any, url: str | None = None, survey: str | bool = False,
                 allow: str | None = None, **kwargs: Any):
        self.allow_arg = self.check_allow(url=url, allow=allow)
        host = urlsplit(url).netloc.rsplit("@", 1)[-1]
        self.site = SiteConfig(name=site_name(url), domains=(host,), catalogues=(url,))
        super().__init__(*args, **kwargs)
        self.name = self.site.name  # the site's own name: its items, seen store and templates
        self.home_url = url
        self.surveying = str(survey).lower() in ("1", "true", "yes")
        self.survey = Survey(home=url)
        # judged again at start for a host name (resolved); an IP literal or localhost is known now
        self.refuse_private_addresses = not private_address(url)

    @classmethod
    def check_arguments(cls, url: str | None = None, allow: str | None = None, **others: Any):
        cls.check_allow(url=url, allow=allow)
        return super().check_arguments(**others)

    @staticmethod
    def check_allow(url: str | None = None, allow: str | None = None, **_others: Any) -> tuple[str, ...]:
        """``url`` is an absolute http(s) URL; the domains of ``allow``, valid sites-file domains."""
        if not url or origin_of(url) is None:
            raise ValueError("discover needs -a url=<the site's home page, an absolute http(s) URL>")
        domains = tuple(d.strip() for d in (allow or "").split(",") if d.strip())
        for domain in domains:
            problem = domain_problem(domain)
            if problem:
                raise ValueError(f"allow: {domain!r} {problem}")
        return domains

    @classmethod
    def from_crawler(cls, crawler, *args: Any, **kwargs: Any):
        spider = super().from_crawler(crawler, *args, **kwargs)
        allowed = spider.allow_arg + tuple(crawler.settings.getlist("NEWSCRAWL_DISCOVER_ALLOW"))
        for domain in allowed:
            problem = domain_problem(domain)
            if problem:
                raise ValueError(f"NEWSCRAWL_DISCOVER_ALLOW: {domain!r} {problem}")
        spider.allow_list = AllowList.of(allowed, [spider.home_url])  # the start origin, and what was allowed
        spider.allowed_domains = spider.allow_list.hosts
        spider.survey.allowed = list(allowed)
        return spider

    def adopt_redirect(self, request) -> bool:
        """Is ``request``, refused by the allow-list, the home page's own redirect within its
        registrable domain?  Then its origin joins the allow-list and becomes the home page."""
        chain = request.meta.get("redirect_urls") or ()
        if not chain or chain[0] != self.home_url or self.survey.language is not None:
            return False
        if registrable_domain(request.url) != registrable_domain(self.home_url):
            self._count("home_redirect_offsite")
            self.logger.warning("The home page %s redirects to %s, another site: not followed (discover that "
                           "site with -a url=, or allow it with -a allow=)", short_url(self.home_url),
                           short_url(request.url))
            return False
        self._count("home_redirect")
        self.logger.info("The home page %s redirects to %s: discovering there", short_url(self.home_url),
                    short_url(request.url))
        self.allow_list = self.allow_list.with_origins([request.url])
        self.allowed_domains = self.allow_list.hosts
        return True

    def _setting(self, name: str, default: int) -> int:
        return self.crawler.settings.getint(name, default)

    async def start(self):
        if self.refuse_private_addresses and private_address(self.home_url) is None:
            from twisted.internet import reactor

            try:  # a host name: private when it resolves to a private address
                address = await maybe_deferred_to_future(reactor.resolve(urlsplit(self.home_url).hostname))
            except PrivateAnswer as exc:  # GuardedResolver's answer while this crawl is still guarded
                address = exc.address
            except Exception:  # noqa: BLE001 - unresolvable: the home page's download reports it
                address = None
            self.refuse_private_addresses = not (address and private_ip(address))
        yield self._listing_request(self.home_url, self.parse_home)

    # -- the home page ---------------------------------------------------------------

    def parse_home(self, response):
        """Feeds, sections and list endpoints of the home page, and its own article links."""
        if not isinstance(response, TextResponse):
            self.crawler.stats.inc_value("newscrawl/listing_error/not_html")
            return
        root = links.parse(response.text)
        if root is None:
            self.crawler.stats.inc_value("newscrawl/listing_error/not_html")
            return
        max_links = self.crawler.settings.getint("NEWSCRAWL_MAX_LISTING_LINKS", 10_000)
        if next(islice(root.iter("a"), max_links, None), None) is not None:
            yield from self.parse_catalogue(response)  # counts and logs the page as too_many_links
            return
        if response.url != self.home_url and self.allow_list.allows(response.url):
            self.home_url = self.survey.home = response.url  # a redirect adopted above
        self.survey.language = page_language(root)
        feeds = feed_links(root, response.url, self.allowed_domains)
        sections = section_links(root, response.url, self.allowed_domains)
        sections = self._on_origin(sections, "section", response.url)
        sections = [s for s in sections if s not in self._listing_seen]
        self.survey.sections = sections
        self._count("sections", len(sections))
        yield from self._feed_requests(feeds, index_pages=True)
        if not feeds:
            for url in probe_urls(response.url, self._setting("NEWSCRAWL_DISCOVER_FEED_PROBES", 4)):
                if url not in self._listing_seen and self.allow_list.allows(url):
                    self._listing_seen.add(url)
                    self._count("feed_probes")
                    yield scrapy.Request(url, callback=self.parse_probe, errback=self.probe_missed,
                                         dont_filter=True, priority=0)
        for url in sections[: self._setting("NEWSCRAWL_DISCOVER_MAX_SECTIONS", 10)]:
            yield self._listing_request(url, self.parse_catalogue, page=1)
        yield from self.parse_catalogue(response, page=1)

    def _feed_requests(self, feeds: list[str], index_pages: bool):
        """Requests for new feeds on the allowed origins, up to ``NEWSCRAWL_DISCOVER_MAX_FEEDS`` a
        run; a feed named on another origin is reported, not read."""
        budget = self._setting("NEWSCRAWL_DISCOVER_MAX_FEEDS", 20) - self.crawler.stats.get_value(
            DISCOVER_STATS + "feeds_requested", 0)
        feeds = [url for url in dict.fromkeys(feeds) if url not in self._listing_seen]
        new = self._on_origin(feeds, "feed", self.home_url)[: max(budget, 0)]
        for url in new:
            self._count("feeds_requested")
            yield self._listing_request(url, self.parse_discovered_feed, index_pages=index_pages)

    # -- feeds -----------------------------------------------------------------------

    def parse_discovered_feed(self, response, index_pages: bool = False):
        """A feed found on the home page; an HTML page there is read once for the feeds it lists."""
        if page_kind(response) == "feed":
            yield from self._recorded(self.parse_feed(response), response.url, "feed")
        elif index_pages and isinstance(response, TextResponse):
            root = links.parse(response.text)
            listed = feed_links(root, response.url, self.allowed_domains)
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
            found = [u for u in robots_sitemaps(robotparser, robots_url) if u not in self.survey.sitemaps]
            for url in self._on_origin(found, "sitemap", robots_url):
                if url not in self.survey.sitemaps:
                    self.survey.sitemaps.append(url)
        if not self.surveying:
            super()._robots_parsed(robotparser, request)

    def _on_origin(self, urls: list[str], kind: str, found_on: str) -> list[str]:
        """``urls`` on the allow-list; the others are counted each
        (``newscrawl/discover/off_origin/<kind>``), logged once, and not followed."""
        kept = [url for url in urls if self.allow_list.allows(url)]
        refused = [url for url in urls if url not in kept]
        if refused:
            self._count(f"off_origin/{kind}", len(refused))
            self.logger.warning("Discover: %d %s URL(s) named on %s are off the start origin, not followed "
                                "(-a allow=HOST[:PORT] allows a domain), e.g. %s", len(refused), kind,
                                short_url(found_on), short_url(refused[0]))
        return kept

    def _count(self, what: str, count: int = 1) -> None:
        self.crawler.stats.inc_value(DISCOVER_STATS + what, count)
