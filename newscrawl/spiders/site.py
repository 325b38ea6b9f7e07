"""The generic site spider: catalogue pages, feeds, sitemaps and JSON list endpoints in, listing items out.

One class serves every configured site (:mod:`newscrawl.spiders.loader` makes a named
subclass per site).  The spider only *lists* articles; fetching and extracting the
article pages is the item pipelines' job (:mod:`newscrawl.pipelines`), which hands each
detail page back to :meth:`SiteSpider.parse_article` through a scheduled request.

Arguments (``-a``):

- ``start_url`` — crawl this catalogue page (comma-separated for several) instead of the
  configured ones; its origin (scheme, host and port, not other ports or subdomains) is
  allowed for the run, besides the site's own;
- ``feed_url`` — read this feed instead of the configured ones (same rules);
- ``max_pages`` — catalogue pages followed per start page (pagination limit);
- ``since`` — an ISO 8601 date (``2026-11-01``) or date-time: articles published before it
  are dropped as ``too_old`` (replaces the site's ``since``/``max_age_days``).

**Date window.**  A listed article whose listing gives a date (a feed entry's or list
endpoint's published date, a sitemap entry's news publication date or ``lastmod``) older
than the window is dropped before its page is fetched; otherwise the extracted
``published`` date decides after extraction
(:class:`newscrawl.pipelines.stages.SinceFilterStage`); an article with no date is kept.

**Sitemaps** (:mod:`.sitemaps`): the site's ``sitemaps`` and, unless ``robots_sitemaps =
false``, the ``Sitemap:`` lines of the robots.txt files that Scrapy's robots.txt
middleware reads for the site's hosts (its ``robots_parsed`` signal).  Indexes are
followed to ``NEWSCRAWL_SITEMAP_MAX_DEPTH`` levels, each sitemap URL once per run (a loop
between indexes ends there), at most ``NEWSCRAWL_SITEMAP_MAX_FILES`` sitemaps per run.
Sitemap entries get a recency window: ``since``/``max_age_days`` when given, else
``NEWSCRAWL_SITEMAP_MAX_AGE_DAYS`` (default 7; 0: none).  An entry dated before it is
not listed (counted in ``newscrawl/sitemap/outside_window``, not as a drop: a sitemap lists
its site's whole history on every run), and neither is a whole child sitemap of an index whose ``lastmod`` is
before it (a sitemap not modified since cannot list anything newer; counted in
``newscrawl/sitemap/skipped_old``).  Entries already exported by an earlier run are
dropped by the seen filter before fetching, like any listing item.  Hostile sitemaps cost
a ``newscrawl/dropped/sitemap_<reason>`` count: ``too_large`` (over the protocol's 50 MB
uncompressed: a gzip bomb), ``too_many_urls`` (over 50,000 entries: the first 50,000 are
read), ``loop``, ``too_deep``, ``capped``, ``offsite`` (entries or sitemaps off the
allow-list, counted per entry, logged once per sitemap), ``invalid``, ``entity`` (an entry
whose ``<loc>`` needs an XML entity: entities are never expanded; a sitemap that declares
some is counted in ``newscrawl/sitemap/entities`` with a warning, and its other entries are
read), ``xml_error`` (a fatal XML error ended the reading: the entries before it are kept).

Every request the spider issues is ``dont_filter``: listing pages must be re-read on
every run (also when resuming a ``JOBDIR``), and duplicates are avoided by the spider's
own in-run set for listing pages and by the fetch stage for detail pages.
"""

from __future__ import annotations

import re
from dataclasses import asdict
from datetime import UTC, datetime, timedelta
from functools import cached_property
from itertools import islice
from typing import Any
from urllib.parse import urljoin, urlsplit, urlunsplit

import scrapy
from scrapy import signals
from scrapy.http import TextResponse
from scrapy.spidermiddlewares.httperror import HttpError
from scrapy.utils.defer import maybe_deferred_to_future
from scrapy.utils.httpobj import urlparse_cached
from twisted.internet.task import deferLater
from twisted.internet.threads import deferToThread

from newscrawl.discovery import links, list_api
from newscrawl.middlewares.render import RENDER_KIND, RENDER_NOW, RenderTimeout
from newscrawl.middlewares.retry import exception_reason
from newscrawl.middlewares.scheduler import DETAIL_META
from newscrawl.run.crawlstats import DETAIL_FAILED
from newscrawl.run.drops import DROP_PREFIX, record_drop
from newscrawl.state.seen_urls import SeenUrls

from ..items import ArticleItem, ListingItem, now_iso
from ..sites import (
    PLACEHOLDER_HOST,
    POLITENESS_SETTINGS,
    AllowList,
    SiteConfig,
    SiteConfigError,
    origin_of,
    parse_cutoff,
    politeness_problem,
)
from ..urls import short_url
from .feeds import DEFAULT_MAX_ENTRIES, parse_feed
from .pages import ArticlePages
from .rendering import Rendering, always_problem
from .sitemaps import MAX_URLS, SitemapEntry, SitemapError, parse_w3c_datetime, read_sitemap
from .url_shapes import CrawlUrlShapes

LISTING_PRIORITY = 0
OFF_REACTOR_BYTES = 256 * 1024  # larger sitemaps are parsed in a thread, not in the reactor
SITEMAP_BATCH = 1000  # sitemap entries handed out between two turns of the reactor
DETAIL_PRIORITY = 10  # articles before more listing pages: progress survives an interruption
LISTING_REQUESTS = "newscrawl/listing_requests"  # stats: listing pages requested
LISTING_ERROR_PREFIX = "newscrawl/listing_error/"  # stats: listing pages that gave nothing, by reason
SITEMAP_ENTITIES = "newscrawl/sitemap/entities"  # stats: sitemaps that declare XML entities (not expanded)
SITEMAP_SKIPPED_OLD = "newscrawl/sitemap/skipped_old"  # stats: child sitemaps not read (lastmod too old)
CATALOGUE_ACCEPTED = "newscrawl/catalogue/accepted"  # stats: article links taken from catalogue pages
# stats: catalogue links rejected for their anchor text or place (links.NEAR_MISSES), logged at close
NEAR_MISSES_STAT = "newscrawl/catalogue/near_misses"
NEAR_MISS_EXAMPLES = 3
# stats: the site's article_pattern rejected every link of every catalogue page (its value: how many)
PATTERN_MATCHED_NONE = "newscrawl/catalogue/pattern_matched_none"
SITEMAP_OUTSIDE_WINDOW = "newscrawl/sitemap/outside_window"  # stats: entries dated before the window


def failure_reason(failure) -> tuple[str, str]:
    """A drop reason and detail for a failed download (see
    :func:`newscrawl.middlewares.retry.exception_reason`)."""
    exc = failure.value
    if isinstance(exc, HttpError):
        return "http_error", f"HTTP {exc.response.status}"
    if isinstance(exc, RenderTimeout) or type(exc).__name__ == "TimeoutError" and \
            type(exc).__module__.startswith("playwright"):
        return "render_timeout", str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    if type(exc).__module__.startswith("playwright"):
        closed = "closed" in str(exc).lower() or "crash" in str(exc).lower()
        return ("render_crash" if closed else "render_error"), (str(exc).splitlines() or [""])[0]
    return exception_reason(exc)


def _split(value: str | None) -> tuple[str, ...]:
    return tuple(v.strip() for v in (value or "").split(",") if v.strip())


def _checked_urls(value: str | None, name: str) -> tuple[str, ...]:
    """The URLs of a ``start_url``/``feed_url`` argument; only absolute http(s) URLs with a host."""
    urls = _split(value)
    for url in urls:
        if origin_of(url) is None:
            raise ValueError(f"{name} must be an absolute http(s) URL, got {url!r}")
    return urls


def check_politeness_settings(settings) -> None:
    """The politeness settings in force (sites file, ``-s`` or project) in the sites file's ranges:
    a concurrency of 0 or a delay of inf or nan would hang or silently break the crawl."""
    read = {bool: settings.getbool, int: settings.getint}
    checked = [(key, name, expected) for key, (name, expected) in POLITENESS_SETTINGS.items()]
    checked.append(("concurrency", "CONCURRENT_REQUESTS", int))  # the global cap: 0 would hang too
    for key, name, expected in checked:
        raw = settings.get(name)
        try:
            value = read.get(expected, settings.getfloat)(name)
        except ValueError:
            value = raw
        problem = politeness_problem(key, value)
        if problem:
            raise SiteConfigError(f"setting {name}={raw!r}: {problem}")


class SiteSpider(scrapy.Spider):
    """Lists the articles of :attr:`site` (set on the per-site subclass)."""

    site: SiteConfig | None = None
    allow_list: AllowList  # set by from_crawler: the origins this run may request

    def __init__(self, *args: Any, start_url: str | None = None, feed_url: str | None = None,
                 max_pages: str | int | None = None, since: str | None = None, **kwargs: Any):
        super().__init__(*args, **kwargs)
        if self.site is None:
            raise ValueError(f"{type(self).__name__} has no site configuration")
        self.start_urls_arg, self.feed_urls_arg, pages, self.since_arg = SiteSpider.check_arguments(
            start_url=start_url, feed_url=feed_url, max_pages=max_pages, since=since)
        self.max_pages = self.site.max_pages if pages is None else pages
        self.date_cutoff: datetime | None = None  # set by from_crawler: articles older are dropped
        self.sitemap_cutoff: datetime | None = None  # the same for sitemap entries (recency window)
        self._listing_seen: set[str] = set()
        self._sitemaps_requested = 0
        self._near_misses: list[str] = []  # a few catalogue links rejected for their text or place
        self.demo_server = None
        self.served_netloc: str | None = None

    @classmethod
    def check_arguments(cls, start_url: str | None = None, feed_url: str | None = None,
                        max_pages: str | int | None = None, since: str | None = None, **_others: Any):
        """The ``-a`` values, checked before the crawl starts (``scrapy crawl`` makes a ValueError
        a usage error, exit status 2): (start URLs, feed URLs, max_pages or None, since or None)."""
        pages = None
        if max_pages is not None:
            try:
                pages = int(max_pages)
            except ValueError:
                raise ValueError(f"max_pages must be an integer, got {max_pages!r}") from None
            if pages < 1:
                raise ValueError("max_pages must be at least 1")
        try:
            cutoff = parse_cutoff(since)
        except ValueError as exc:
            raise ValueError(f"since: {exc}") from None
        return _checked_urls(start_url, "start_url"), _checked_urls(feed_url, "feed_url"), pages, cutoff

    @classmethod
    def update_settings(cls, settings) -> None:
        super().update_settings(settings)
        if cls.site is not None:
            settings.setdict(cls.site.scrapy_settings, priority="spider")

    @classmethod
    def from_crawler(cls, crawler, *args: Any, **kwargs: Any):
        check_politeness_settings(crawler.settings)
        spider = super().from_crawler(crawler, *args, **kwargs)
        if spider.site.serve is not None:
            from ..demo import DemoServer, serve_port

            port = crawler.settings.get("NEWSCRAWL_SERVE_PORT")
            port = serve_port(spider.name) if port is None else int(port)
            spider.demo_server = DemoServer(spider.site.serve, spider.site.headers)
            distributed = bool(crawler.settings.get("NEWSCRAWL_DISTRIBUTED"))
            spider.served_netloc = spider.demo_server.start(port, share_across_processes=distributed)
            spider.site = spider.site.with_host(spider.served_netloc)
            crawler.signals.connect(spider._stop_demo_server, signal=signals.spider_closed)
        # start_url/feed_url allow their own origin only; allowed_domains (hosts) is the
        # pre-filter link finders use, allow_list decides (and AllowedDomainsMiddleware enforces)
        spider.allow_list = spider.site.allow_list.with_origins(spider.start_urls_arg + spider.feed_urls_arg)
        spider.allowed_domains = spider.allow_list.hosts
        spider._set_date_windows(crawler.settings)
        crawler.signals.connect(spider._robots_parsed, signal=signals.robots_parsed)
        spider.url_shapes = CrawlUrlShapes.from_crawler(crawler, spider.name)  # what fetched links taught
        problem = always_problem(spider.site, crawler.settings)
        if problem:
            raise SiteConfigError(f"{spider.name}: {problem}")
        spider.rendering = Rendering.from_crawler(crawler, spider.site)  # which pages a browser renders
        return spider

    @classmethod
    def check_settings(cls, settings) -> None:
        """The site's needs the settings and this machine cannot meet (a usage error before the
        crawl starts): ``render = "always"`` without a browser."""
        problem = always_problem(cls.site, settings) if cls.site is not None else None
        if problem:
            raise ValueError(problem)

    def _set_date_windows(self, settings, now: datetime | None = None) -> None:
        """:attr:`date_cutoff`: ``-a since``, else the latest of the site's ``since`` and
        ``max_age_days``; :attr:`sitemap_cutoff`: that, else ``NEWSCRAWL_SITEMAP_MAX_AGE_DAYS``."""
        now = now or datetime.now(UTC)
        if self.since_arg is not None:
            self.date_cutoff = self.since_arg
        else:
            starts = [self.site.since]
            if self.site.max_age_days:
                starts.append(now - timedelta(days=self.site.max_age_days))
            self.date_cutoff = max((s for s in starts if s is not None), default=None)
        self.sitemap_cutoff = self.date_cutoff
        max_age = settings.getfloat("NEWSCRAWL_SITEMAP_MAX_AGE_DAYS", 7)
        if self.sitemap_cutoff is None and max_age > 0:
            self.sitemap_cutoff = now - timedelta(days=max_age)

    def store_url(self, url: str) -> str:
        """``url`` as the seen-URL store and the claims key it: for a locally served site, the
        served host on *any* port becomes the placeholder host.

        The port changes every run and differs between workers, so a key must not hold it:
        URLs read back from an earlier run's feed file, or a request another worker queued
        for its own server, key the same as this run's."""
        if self.served_netloc is None:
            return url
        parts = urlsplit(url)
        if parts.hostname != urlsplit(f"//{self.served_netloc}").hostname:
            return url
        return urlunsplit(parts._replace(netloc=PLACEHOLDER_HOST))

    def closed(self, reason: str) -> None:
        """A site's ``article_pattern`` that rejected every link of its catalogue pages (a pattern
        that matches none of the site's articles) is a warning and :data:`PATTERN_MATCHED_NONE`;
        the crawl's outcome is then not ok (:mod:`newscrawl.commands.outcome`)."""
        self._log_near_misses()
        stats = self.crawler.stats
        rejected = stats.get_value(links.REJECTED_STATS + "pattern", 0)
        if self.article_pattern is not None and rejected and not stats.get_value(CATALOGUE_ACCEPTED, 0):
            stats.set_value(PATTERN_MATCHED_NONE, rejected)
            self.logger.warning("%s: article_pattern %s matched none of the %d links of its catalogue pages: "
                                "fix or remove it in the sites file", self.name,
                                short_url(self.site.article_pattern), rejected)

    async def _stop_demo_server(self, spider, reason: str) -> None:
        """Stop serving; Scrapy awaits this, so the port is free when the crawl ends."""
        stopping = self.demo_server.stop() if self.demo_server is not None else None
        if stopping is not None:
            await maybe_deferred_to_future(stopping)

    # -- start -----------------------------------------------------------------------

    def listing_sources(self) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
        """(catalogues, feeds, list APIs) this run reads (sitemaps: :meth:`sitemap_sources`)."""
        if self.start_urls_arg or self.feed_urls_arg:
            return self.start_urls_arg, self.feed_urls_arg, ()
        return self.site.catalogues, self.site.feeds, self.site.list_apis

    def sitemap_sources(self) -> tuple[str, ...]:
        """The configured sitemaps this run reads (none with ``start_url``/``feed_url``)."""
        return () if self.start_urls_arg or self.feed_urls_arg else self.site.sitemaps

    async def start(self):
        catalogues, feeds, apis = self.listing_sources()
        for url in feeds:  # feeds first: their entries carry the richest listing data
            yield self._listing_request(url, self.parse_feed)
        for request in self._sitemap_requests(self.sitemap_sources(), 0, "the site's configuration"):
            yield request
        for url in apis:
            yield self._listing_request(url, self.parse_list_api)
        for url in catalogues:
            yield self._listing_request(url, self.parse_catalogue, page=1)

    def _listing_request(self, url: str, callback, **cb_kwargs: Any) -> scrapy.Request | None:
        self._listing_seen.add(url)
        self.crawler.stats.inc_value(LISTING_REQUESTS)  # against listing_error/*: did any listing page work?
        meta = {RENDER_KIND: "listing"} if callback == self.parse_catalogue else {}
        return scrapy.Request(url, callback=callback, errback=self.listing_failed, cb_kwargs=cb_kwargs,
                              dont_filter=True, priority=LISTING_PRIORITY, meta=meta)

    def listing_failed(self, failure) -> None:
        reason, detail = failure_reason(failure)
        self.crawler.stats.inc_value(f"newscrawl/listing_error/{reason}")
        self.logger.warning("Listing page %s failed: %s (%s)", short_url(failure.request.url), reason, detail)

    # -- listing pages ---------------------------------------------------------------

    def _listing(self, url: str, title: str | None, source: str, listing_url: str, **feed: Any):
        if not self.allow_list.allows(url):
            self.crawler.stats.inc_value("newscrawl/listing_offsite")  # apart from offsite article pages
            record_drop(self.crawler, "offsite", url, f"listed on {listing_url}")
            return None
        self.crawler.stats.inc_value("newscrawl/listed")  # too old or not: the listing page worked
        published = parse_w3c_datetime(feed.get("feed_published"))
        if published is not None and self.date_cutoff is not None and published < self.date_cutoff:
            record_drop(self.crawler, "too_old", url,
                        f"published {published.isoformat()}, listed on {listing_url}")
            return None
        return ListingItem(url=url, site=self.name, listing_title=title, source=source,
                           listing_url=listing_url, **feed)

    def parse_catalogue(self, response, page: int = 1):
        """Article links of a catalogue page, its JSON list endpoints and its next page."""
        if not isinstance(response, TextResponse):
            self.crawler.stats.inc_value("newscrawl/listing_error/not_html")
            return
        root = links.parse(response.text)
        max_links = self.crawler.settings.getint("NEWSCRAWL_MAX_LISTING_LINKS", 10_000)
        if root is not None and next(islice(root.iter("a"), max_links, None), None) is not None:
            # Link scoring is Python work per link: a page of 100,000 links would hold the
            # crawl for a minute and flood it with listing items.
            self.crawler.stats.inc_value("newscrawl/listing_error/too_many_links")
            self.logger.warning("Catalogue %s has more than %d links (NEWSCRAWL_MAX_LISTING_LINKS); skipped",
                                response.url, max_links)
            return
        learned = self.url_shapes.adjustment if getattr(self, "url_shapes", None) else None
        scores = links.score_links(root, response.url, self.allowed_domains, self.article_pattern,
                                       learned=learned)
        accepted, rejected = scores.accepted, scores.rejected
        shapes = self.url_shapes.shapes if learned is not None and self.article_pattern is None else None
        if shapes is not None and any(shapes.is_listed(link.url) for link in accepted):
            held = {link.url for link in accepted if not self.url_shapes.admit(link.url)}
            accepted = [link for link in accepted if link.url not in held]
            rejected = {**rejected, **dict.fromkeys(held, "off_listed_form")}
        self._count_rejected(rejected, response.url)
        apis = list_api.find_list_apis(root, response.url)
        if self.rendering.listing(response, len(scores.accepted) + len(apis)):  # a shell: the browser's turn
            yield response.request.replace(meta={RENDER_KIND: "listing", RENDER_NOW: True})
            return
        self.crawler.stats.inc_value(CATALOGUE_ACCEPTED, len(accepted))
        self.logger.debug("%d article links on %s", len(accepted), response.url)
        for link in accepted:
            item = self._listing(link.url, link.title or None, "catalogue", response.url)
            if item:
                yield item
        yield from self._list_api_requests(apis, response.url)
        if page < self.max_pages:
            following = links.find_next_page(root, response.url, self.allowed_domains)
            if following and following not in self._listing_seen and self.allow_list.allows(following):
                yield self._listing_request(following, self.parse_catalogue, page=page + 1)

    @cached_property
    def article_pattern(self) -> re.Pattern | None:
        """The site's ``article_pattern``, compiled once (it is user input, checked at load)."""
        return re.compile(self.site.article_pattern) if self.site.article_pattern else None

    def _count_rejected(self, rejected: dict[str, str], listing_url: str) -> None:
        """Links the catalogue stage did not take: ``newscrawl/catalogue/rejected/<reason>`` each,
        and one DEBUG line a link; the first few near misses are kept for :meth:`_log_near_misses`."""
        for url, reason in rejected.items():
            self.crawler.stats.inc_value(links.REJECTED_STATS + reason)
            self.logger.debug("Catalogue %s: link %s rejected (%s)", listing_url, url, reason)
            if reason in links.NEAR_MISSES and len(self._near_misses) < NEAR_MISS_EXAMPLES:
                self._near_misses.append(f"{short_url(url)} ({reason})")

    def _log_near_misses(self) -> None:
        """One INFO line: how many catalogue links with an article-like URL were rejected for their
        anchor text or place (:data:`~newscrawl.discovery.links.NEAR_MISSES`), with examples."""
        stats = self.crawler.stats
        counts = {reason: stats.get_value(links.REJECTED_STATS + reason, 0) for reason in links.NEAR_MISSES}
        total = sum(counts.values())
        if total:
            stats.set_value(NEAR_MISSES_STAT, total)
            by_reason = ", ".join(f"{reason} {n}" for reason, n in counts.items() if n)
            self.logger.info("%s: %d catalogue links rejected for their anchor text or place (%s), e.g. %s; "
                             "the DEBUG log lists each", self.name, total, by_reason,
                             ", ".join(self._near_misses))

    def _list_api_requests(self, apis: list[str], listing_url: str):
        """Requests for a catalogue page's list endpoints: new ones on the allow-list, at most
        ``NEWSCRAWL_MAX_LIST_APIS``; the rest are counted as ``newscrawl/dropped/list_api_capped``."""
        new = [api for api in apis if api not in self._listing_seen and self.allow_list.allows(api)]
        limit = self.crawler.settings.getint("NEWSCRAWL_MAX_LIST_APIS", 20)
        for api in new[:limit]:
            yield self._listing_request(api, self.parse_list_api)
        if len(new) > limit:
            self.crawler.stats.inc_value("newscrawl/dropped/list_api_capped", len(new) - limit)
            self.logger.warning("Catalogue %s names %d list endpoints; read the first %d "
                                "(NEWSCRAWL_MAX_LIST_APIS)", listing_url, len(new), limit)

    def parse_feed(self, response):
        """One listing item per feed entry whose link is an http(s) URL on the site."""
        content_type = response.headers.get("Content-Type", b"").decode("latin-1")
        max_entries = self.crawler.settings.getint("NEWSCRAWL_MAX_FEED_ENTRIES", DEFAULT_MAX_ENTRIES)
        feed = parse_feed(response.body, response.url, content_type, max_entries=max_entries)
        if feed.error:
            self.crawler.stats.inc_value("newscrawl/listing_error/feed")
            self.logger.warning("Feed %s: %s", response.url, feed.error)
        if feed.capped:
            self.crawler.stats.inc_value("newscrawl/feed_capped")
            self.logger.warning("Feed %s has more than %d entries (NEWSCRAWL_MAX_FEED_ENTRIES); "
                                "read the first %d", response.url, max_entries, max_entries)
        for entry in feed.entries:
            if not entry.link:
                record_drop(self.crawler, "no_link", None, f"feed entry {entry.title!r} on {response.url}")
                continue
            item = self._listing(entry.link, entry.title, "feed", response.url, feed_title=entry.title,
                                 feed_summary=entry.summary, feed_published=entry.published)
            self._learn_listed(entry.link)
            if item:
                yield item

    def _learn_listed(self, url: str) -> None:
        """A feed's or news sitemap's article URL on the site teaches its shape (:mod:`.url_shapes`)."""
        if getattr(self, "url_shapes", None) and self.allow_list.allows(url):
            self.url_shapes.listed(url)

    def parse_list_api(self, response):
        """Articles listed by a JSON endpoint (a JavaScript-rendered list)."""
        entries = list_api.links_from_json(response.body, response.url, self.allowed_domains)
        if not entries:
            self.crawler.stats.inc_value("newscrawl/listing_error/list_api")
            self.logger.warning("List endpoint %s listed no articles", response.url)
        for entry in entries:
            item = self._listing(entry.url, entry.title, "api", response.url, feed_title=entry.title,
                                 feed_summary=entry.summary, feed_published=entry.published)
            if item:
                yield item

    # -- sitemaps (see the module docstring) ------------------------------------------

    async def parse_sitemap(self, response, depth: int = 0):
        """Listing items of a ``urlset`` sitemap, requests for the child sitemaps of an index.

        A sitemap of more than :data:`OFF_REACTOR_BYTES`, or gzipped, is read in a thread of the
        reactor's pool (``deferToThread``): 50,000 entries take seconds to parse, and the reactor
        must go on receiving the other downloads meanwhile, or their ``DOWNLOAD_TIMEOUT`` runs
        out.  The entries are then handed out in batches of :data:`SITEMAP_BATCH`, letting the
        reactor run in between."""
        try:
            if len(response.body) > OFF_REACTOR_BYTES or response.body[:2] == b"\x1f\x8b":  # gzip: any size
                parsed = await maybe_deferred_to_future(deferToThread(read_sitemap, response.body))
            else:
                parsed = read_sitemap(response.body)
        except SitemapError as exc:
            self.crawler.stats.inc_value(LISTING_ERROR_PREFIX + "sitemap")
            record_drop(self.crawler, f"sitemap_{exc.reason}", response.url, exc.detail)
            return
        self._sitemap_damage(parsed, response.url)
        if parsed.capped:
            record_drop(self.crawler, "sitemap_too_many_urls", response.url,
                        f"more than {MAX_URLS:,} entries (sitemaps.org protocol): read the first ones")
        fresh = self._recent_onsite(parsed.entries, response.url, parsed.kind)
        if parsed.kind == "sitemapindex":
            for request in self._child_sitemaps(fresh, response.url, depth + 1):
                yield request
            return
        for number, entry in enumerate(fresh, 1):
            if number % SITEMAP_BATCH == 0:
                from twisted.internet import reactor  # the installed one (not at import: Scrapy picks it)

                await maybe_deferred_to_future(deferLater(reactor, 0, lambda: None))
            published = entry.news_published.isoformat() if entry.news_published else None
            item = self._listing(entry.loc, entry.news_title, "sitemap", response.url,
                                 feed_published=published)
            if entry.news_title or entry.news_published:  # a news sitemap lists articles only
                self._learn_listed(entry.loc)
            if item:
                yield item

    def _sitemap_damage(self, parsed, url: str) -> None:
        """Count and log what a sitemap's XML cost: declared entities (never expanded), entries
        whose ``<loc>`` needs one, and a fatal XML error that ended the reading early."""
        if parsed.entities:
            self.crawler.stats.inc_value(SITEMAP_ENTITIES)
            shown = ", ".join(parsed.entities[:5]) + (", ..." if len(parsed.entities) > 5 else "")
            self.logger.warning("Sitemap %s declares XML entities (%s): they are not expanded; its other "
                                "entries are read, %d whose <loc> uses one are dropped (sitemap_entity)",
                                url, shown, parsed.entity_locs)
        self._drop_many("sitemap_entity", parsed.entity_locs, url, "entries whose <loc> needs an XML entity")
        if parsed.stopped:
            record_drop(self.crawler, "sitemap_xml_error", url,
                        f"reading stopped after {len(parsed.entries)} entries: {parsed.stopped}")

    def _recent_onsite(self, entries: list[SitemapEntry], sitemap_url: str, kind: str) -> list[SitemapEntry]:
        """``entries`` on the allow-list and not older than :attr:`sitemap_cutoff`.  The others are
        counted, with one log line for the whole sitemap: ``sitemap_offsite``, and ``too_old``
        for articles or ``newscrawl/sitemap/skipped_old`` for the child sitemaps of an index."""
        onsite = [e for e in entries if self.allow_list.allows(e.loc)]
        self._drop_many("sitemap_offsite", len(entries) - len(onsite), sitemap_url,
                        "entries off the allow-list")
        cutoff = self.sitemap_cutoff
        fresh = [e for e in onsite if cutoff is None or e.date is None or e.date >= cutoff]
        old = len(onsite) - len(fresh)
        if kind == "sitemapindex" and old:
            self.crawler.stats.inc_value(SITEMAP_SKIPPED_OLD, old)
            self.logger.info("Sitemap index %s: %d sitemaps not modified since %s skipped",
                             sitemap_url, old, cutoff.isoformat())
        elif old:  # filtered, not dropped: a sitemap lists its whole history on every run
            self.crawler.stats.inc_value(SITEMAP_OUTSIDE_WINDOW, old)
            self.logger.debug("Sitemap %s: %d entries dated before %s not listed (the date window)",
                              sitemap_url, old, cutoff.isoformat())
        return fresh

    def _child_sitemaps(self, entries: list[SitemapEntry], index_url: str, depth: int):
        """Requests for an index's child sitemaps: each URL once per run, at most
        ``NEWSCRAWL_SITEMAP_MAX_DEPTH`` levels below a configured or robots.txt sitemap and
        ``NEWSCRAWL_SITEMAP_MAX_FILES`` sitemaps per run."""
        urls = list(dict.fromkeys(e.loc for e in entries))
        seen = [u for u in urls if u in self._listing_seen]
        self._drop_many("sitemap_loop", len(seen), index_url, "sitemaps already read in this run")
        new = [u for u in urls if u not in self._listing_seen]
        if depth > self.crawler.settings.getint("NEWSCRAWL_SITEMAP_MAX_DEPTH", 3):
            self._drop_many("sitemap_too_deep", len(new), index_url,
                            f"sitemaps {depth} index levels deep (NEWSCRAWL_SITEMAP_MAX_DEPTH)")
            return
        yield from self._sitemap_requests(new, depth, index_url)

    def _sitemap_requests(self, urls, depth: int, found_on: str) -> list[scrapy.Request]:
        """Listing requests for sitemaps, as many as ``NEWSCRAWL_SITEMAP_MAX_FILES`` still allows
        in this run; the rest are counted as ``sitemap_capped``."""
        urls = list(urls)
        budget = self.crawler.settings.getint("NEWSCRAWL_SITEMAP_MAX_FILES", 1000) - self._sitemaps_requested
        allowed = urls[:max(budget, 0)]
        self._sitemaps_requested += len(allowed)
        self._drop_many("sitemap_capped", len(urls) - len(allowed), found_on,
                        "sitemaps past NEWSCRAWL_SITEMAP_MAX_FILES in this run")
        return [self._listing_request(url, self.parse_sitemap, depth=depth) for url in allowed]

    def _robots_parsed(self, robotparser, request) -> None:
        """Scrapy's ``robots_parsed`` signal: the ``Sitemap:`` lines of a robots.txt on the
        site's allow-list become sitemap requests (unless ``robots_sitemaps = false`` or the run
        reads ``start_url``/``feed_url`` only)."""
        if not self.site.robots_sitemaps or self.start_urls_arg or self.feed_urls_arg:
            return
        parts = urlparse_cached(request)
        robots_url = f"{parts.scheme}://{parts.netloc}/robots.txt"
        if not self.allow_list.allows(robots_url):
            return
        urls = [u for u in robots_sitemaps(robotparser, robots_url) if u not in self._listing_seen]
        onsite = [u for u in urls if self.allow_list.allows(u)]
        self._drop_many("sitemap_offsite", len(urls) - len(onsite), robots_url, "sitemaps off the allow-list")
        for sitemap_request in self._sitemap_requests(dict.fromkeys(onsite), 0, robots_url):
            self.crawler.engine.crawl(sitemap_request)

    def _drop_many(self, reason: str, count: int, where: str, what: str) -> None:
        """``count`` listed URLs of one listing page dropped for ``reason``: counted each, logged once."""
        if count:
            self.crawler.stats.inc_value(DROP_PREFIX + reason, count)
            self.logger.info("Dropped %d %s on %s: %s", count, what, where, reason)

    def detail_request(self, listing: ListingItem, run_id: str, render: bool = False) -> scrapy.Request:
        """The request for a listing item's article page, answered by :meth:`parse_article`.

        ``run_id`` names the run that claimed the URL (see :mod:`newscrawl.middlewares`);
        ``render``: through the headless browser (its plain fetch was an app shell).
        """
        meta = {DETAIL_META: run_id, RENDER_KIND: "article", **({RENDER_NOW: True} if render else {})}
        return scrapy.Request(listing.url, callback=self.parse_article, errback=self.article_failed,
                              cb_kwargs={"listing": asdict(listing)}, dont_filter=True,
                              priority=DETAIL_PRIORITY, meta=meta)

    def parse_article(self, response, listing: dict[str, Any]):
        """The downloaded article page, raw, for the extraction stages; an article URL that was
        redirected to a listing page (the home page, a section) is dropped as
        ``redirected_to_listing`` (:meth:`redirected_to_listing`)."""
        if response.meta.get("redirect_urls") and self.redirected_to_listing(response):
            record_drop(self.crawler, "redirected_to_listing", listing.get("url"),
                        f"redirected to {short_url(response.url)}")
            return
        if self.rendering.article(response):  # an app shell: fetched again through the browser
            yield self.detail_request(ListingItem(**listing), response.meta.get(DETAIL_META, ""), render=True)
            return
        content_type = response.headers.get("Content-Type")
        item = ArticleItem.from_listing(
            listing,
            url=response.url,
            status=response.status,
            content_type=content_type.decode("latin-1") if content_type else None,
            body=response.body,
            fetched_at=now_iso(),
        )
        yield from self.pages.first_page(response, item, listing)  # its continuation pages first

    @cached_property
    def pages(self) -> ArticlePages:
        return ArticlePages(self)

    def detail_request_for(self, url: str, listing: dict[str, Any]) -> scrapy.Request:
        """The detail request for ``url`` in place of a listed page (an article's first page)."""
        seen = self.crawler.get_extension(SeenUrls)
        return self.detail_request(ListingItem(**{**listing, "url": url}), seen.run_id if seen else "")

    def parse_continuation(self, response, state: dict[str, Any], single: bool):
        """A continuation page of an article (:mod:`.pages`)."""
        yield from self.pages.continuation(response, state, single)

    def continuation_failed(self, failure):
        yield from self.pages.failed(failure, failure_reason(failure)[0])

    def redirected_to_listing(self, response) -> bool:
        """Did a redirect (Scrapy's ``redirect_urls``) end on a listing page rather than an article?

        Yes when it ends on the site's root, on a listing page of this run or of the site's
        configuration, or on a page without article metadata (``og:type`` article, a JSON-LD
        ``*Article``) whose URL reads as no article (:func:`newscrawl.discovery.links.url_score` rejects
        it or scores it at most 0, as for ``/world/`` or ``?page=2``; with an ``article_pattern``,
        a URL the pattern does not match).  A redirect to another article URL stays an article."""
        final = response.url.split("#")[0]
        if urlsplit(final).path in ("", "/") or final in self._listing_seen or final in self.site.catalogues:
            return True
        score = links.url_score(final, self.article_pattern)
        if score is not None and score > 0:
            return False
        if isinstance(response, TextResponse):
            root = links.parse(response.text)
            if root is not None and _article_metadata(root):
                return False
        return True

    def article_failed(self, failure) -> None:
        reason, detail = failure_reason(failure)
        self.crawler.stats.inc_value(DETAIL_FAILED)  # for the progress line's pages done
        record_drop(self.crawler, reason, failure.request.url, detail)

    # -- `scrapy parse --spider SITE URL` --------------------------------------------

    def parse(self, response, **kwargs: Any):
        """One page read as the crawl reads it, for ``scrapy parse --spider SITE URL``.

        A feed (RSS, Atom or RDF by its Content-Type or markup) goes to :meth:`parse_feed`,
        JSON to :meth:`parse_list_api`; an HTML page that :meth:`looks_like_article` is
        extracted by :meth:`parse_article_page`, any other to :meth:`parse_catalogue`.
        A sitemap (gzip, ``<urlset>`` or ``<sitemapindex>``) goes to :meth:`parse_sitemap`.
        ``scrapy parse -c parse_catalogue`` (or ``parse_feed``, ``parse_list_api``, ``parse_sitemap``,
        ``parse_article_page``) picks the reading instead.  The crawl itself never calls this:
        its requests name their callbacks.
        """
        kind = page_kind(response)
        if kind == "sitemap":
            return self.parse_sitemap(response)
        if kind == "feed":
            return self.parse_feed(response)
        if kind == "json":
            return self.parse_list_api(response)
        if isinstance(response, TextResponse) and self.looks_like_article(response):
            return self.parse_article_page(response)
        return self.parse_catalogue(response)

    def looks_like_article(self, response: TextResponse) -> bool:
        """Is this HTML page an article?  The site's ``article_pattern`` decides when it has one;
        otherwise the page's own metadata (``og:type`` article, a JSON-LD ``*Article`` or
        ``BlogPosting``), else an article-shaped URL (:func:`newscrawl.discovery.links.url_score`
        at least :data:`~newscrawl.discovery.links.MIN_SCORE`: a date or id plus a slug or ``.html``)."""
        if self.site.article_pattern:
            return links.url_score(response.url, self.article_pattern) is not None
        root = links.parse(response.text)
        if root is not None and _article_metadata(root):
            return True
        return (links.url_score(response.url) or 0.0) >= links.MIN_SCORE

    def parse_article_page(self, response):
        """The page's article, extracted as the pipelines would (without the template library)."""
        from newscrawl.run.drops import Dropped

        from ..pipelines.extraction import CrawlTemplates, extract_fields

        templates = CrawlTemplates(self.crawler)
        templates.enabled = False
        content_type = response.headers.get("Content-Type")
        item = ArticleItem(url=response.url, site=self.name, status=response.status,
                           content_type=content_type.decode("latin-1") if content_type else None,
                           fetched_at=now_iso())
        try:
            fields = extract_fields(templates, self.crawler.settings.get("NEWSCRAWL_METHOD", "auto"),
                                    site=self.name, body=response.body, url=response.url,
                                    content_type=item.content_type, listing_title=None, feed_entry={})
        except Dropped as exc:
            record_drop(self.crawler, exc.reason, response.url, exc.detail)
            return
        for name, value in fields.items():
            setattr(item, name, value)
        item.language = item.language or self.site.language
        yield item


_FEED_TYPES = ("rss", "atom", "rdf", "/xml", "+xml")
_FEED_ROOTS = (b"<rss", b"<feed", b"<rdf:rdf")
_SITEMAP_ROOTS = (b"<urlset", b"<sitemapindex")
_LD_JSON = "//script[@type='application/ld+json']/text()"
_LD_ARTICLE_RE = re.compile(r'"@type"\s*:\s*\[?\s*"(?:\w{0,30}Article|BlogPosting)"')


def _article_metadata(root) -> bool:
    """Does the page say it is an article (``og:type`` article, a JSON-LD ``*Article`` or ``BlogPosting``)?"""
    og_type = root.xpath("string(//meta[@property='og:type']/@content)").strip().lower()
    return og_type == "article" or any(_LD_ARTICLE_RE.search(text) for text in root.xpath(_LD_JSON))


def robots_sitemaps(robotparser, robots_url: str) -> list[str]:
    """The ``Sitemap:`` URLs of a parsed robots.txt, absolute: Protego's ``sitemaps`` (the
    project's ``ROBOTSTXT_PARSER``) or the standard library parser's ``site_maps()``."""
    rp = getattr(robotparser, "rp", None)
    if hasattr(rp, "sitemaps"):
        found = list(rp.sitemaps)
    elif hasattr(rp, "site_maps"):
        found = rp.site_maps() or []
    else:
        found = []
    return [urljoin(robots_url, url) for url in found if isinstance(url, str) and url.strip()]


def page_kind(response) -> str:
    """``sitemap``, ``feed``, ``json`` or ``html``: what a listing response holds, by Content-Type,
    else by its start (a gzip file or a ``<urlset>``/``<sitemapindex>`` root is a sitemap)."""
    head = response.body[:1024].lstrip().lower()
    if head[:3] == b"\x1f\x8b\x08" or _xml_root_in(head, _SITEMAP_ROOTS):
        return "sitemap"
    content_type = response.headers.get("Content-Type", b"").decode("latin-1").lower()
    if "json" in content_type:
        return "json"
    if "html" not in content_type and any(t in content_type for t in _FEED_TYPES):
        return "feed"
    if head.startswith((b"{", b"[")):
        return "json"
    if head.startswith(_FEED_ROOTS) or (head.startswith(b"<?xml") and any(r in head for r in _FEED_ROOTS)):
        return "feed"
    return "html"


def _xml_root_in(head: bytes, roots: tuple[bytes, ...]) -> bool:
    """Does a document starting with ``head`` (lower-cased) open with one of ``roots``?"""
    return head.startswith(roots) or (head.startswith(b"<?xml") and any(r in head for r in roots))
