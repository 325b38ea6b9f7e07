"""No request to an address that is not globally routable, unless the site is itself on one
(server-side request forgery, DNS rebinding).

A crawl is *guarded* when its spider's ``refuse_private_addresses`` is true: ``discover`` sets
it from its start URL; for a configured site :class:`PrivateAddressMiddleware` sets it at
``spider_opened``: true unless the site has ``private_network = true`` or every URL the run
starts from (its configured sources, or its ``start_url``/``feed_url`` arguments) is on a
private IP address or ``localhost``.  What "not globally routable" means is
:func:`newscrawl.sites.private_ip` (``ipaddress``'s ``is_global``, embedded IPv4 included).

Two checks, both reason ``private_address`` (a counted drop with its log line):

- :class:`PrivateAddressMiddleware`, before a request goes anywhere (robots.txt, redirects,
  feeds, sitemaps and articles all pass it): an IP literal is judged as written; a host name
  (``2130706433`` and ``0x7f.1`` too) by what the crawl's resolver answers for it;
- :class:`GuardedResolver` (``TWISTED_DNS_RESOLVER``), at connection time: Scrapy's caching
  resolver judging every answer it gives for a guarded host, cached ones included, so an
  address that changed since the first check leaves the connection without an address;
  :class:`ResolvedAddressMiddleware` names that failure before Scrapy's retry sees it.

The resolver serves the whole process (``scrapy crawlall`` runs every site in it), so it
guards by host name: the hosts on the allow-lists of the guarded spiders (:func:`guarded`).
"""

from __future__ import annotations

import weakref
from urllib.parse import urlsplit

from scrapy import signals
from scrapy.exceptions import CannotResolveHostError
from scrapy.resolver import CachingThreadedResolver
from scrapy.utils.datatypes import LocalCache
from scrapy.utils.defer import maybe_deferred_to_future
from twisted.internet.error import DNSLookupError

from newscrawl.middlewares.origins import Refused
from newscrawl.sites import SiteConfig, host_allowed, private_address, private_ip

_GUARDED: weakref.WeakSet = weakref.WeakSet()  # this process's spiders that may refuse private addresses
_REFUSED: LocalCache[str, str] = LocalCache(10_000)  # host name -> the non-global address it resolved to


class PrivateAnswer(DNSLookupError):
    """A host name of a guarded crawl resolved to an address that is not globally routable."""

    def __init__(self, host: str, address: str):
        super().__init__(f"{host} resolves to {address}")
        self.host = host
        self.address = address


def guarded(host: str) -> bool:
    """Is ``host`` on the allow-list of a crawl of this process that refuses private addresses?"""
    for spider in list(_GUARDED):
        if not getattr(spider, "refuse_private_addresses", False):
            continue
        allow_list = getattr(spider, "allow_list", None)
        hosts = allow_list.hosts if allow_list is not None else getattr(spider, "allowed_domains", None)
        if not hosts or host_allowed(host, hosts):
            return True
    return False


def refuses_private_addresses(spider) -> bool:
    """Must ``spider``'s crawl keep off addresses that are not globally routable?  A site spider
    must unless its site has ``private_network = true`` or every URL its run starts from is on
    a private IP address or ``localhost``; a spider without a site is not restricted."""
    site = getattr(spider, "site", None)
    if not isinstance(site, SiteConfig) or site.private_network:
        return False
    if hasattr(spider, "listing_sources"):  # a site spider: what this run reads (arguments included)
        urls = [url for group in spider.listing_sources() for url in group] + list(spider.sitemap_sources())
    else:
        urls = [*site.catalogues, *site.feeds, *site.list_apis, *site.sitemaps]
    return not (urls and all(private_address(url) for url in urls))


def refusal(host: str, address: str) -> Refused:
    """The ``private_address`` refusal of a request to ``host`` (``address``: what it resolved to)."""
    where = host if host == address else f"{host} ({address})"
    return Refused("private_address", f"{where} is not a globally routable address, and this crawl "
                                      "starts from public ones (sites.toml: private_network)")


class _Guarding:
    """Either middleware decides whether its crawl is guarded and registers its spider with
    :class:`GuardedResolver` (the other one may be turned off)."""

    def __init__(self, crawler):
        self.crawler = crawler
        crawler.signals.connect(self.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(self.spider_closed, signal=signals.spider_closed)

    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler)

    @staticmethod
    def spider_opened(spider) -> None:
        if getattr(spider, "refuse_private_addresses", None) is None:
            spider.refuse_private_addresses = refuses_private_addresses(spider)
        _GUARDED.add(spider)

    @staticmethod
    def spider_closed(spider) -> None:
        _GUARDED.discard(spider)


class PrivateAddressMiddleware(_Guarding):
    """Downloader middleware: a guarded crawl sends no request to an address that is not
    globally routable, by IP literal or by what its host name resolves to."""

    def process_request(self, request, spider=None):
        if not getattr(self.crawler.spider, "refuse_private_addresses", False):
            return None
        host = urlsplit(request.url).hostname or ""
        verdict = private_address(request.url)
        if verdict is None:
            return self._resolved(host)
        if verdict:
            raise refusal(host, host)
        return None

    async def _resolved(self, host: str) -> None:
        address = await resolved_private(host)
        if address is not None:
            raise refusal(host, address)
        return None


async def resolved_private(host: str) -> str | None:
    """The address ``host`` resolves to (by the crawl's resolver) when it is not globally
    routable; None for a global one or none at all (the download reports a DNS failure itself)."""
    from twisted.internet import reactor

    try:
        address = await maybe_deferred_to_future(reactor.resolve(host))
    except PrivateAnswer as exc:  # GuardedResolver's verdict
        return exc.address
    except Exception:  # noqa: BLE001 - no address
        return None
    return address if private_ip(address) else None


async def private_target(url: str) -> str | None:
    """The non-global address ``url``'s host is (an IP literal) or resolves to; None otherwise."""
    host = urlsplit(url).hostname or ""
    verdict = private_address(url)
    if verdict is None:
        return await resolved_private(host)
    return host if verdict else None


class GuardedResolver(CachingThreadedResolver):
    """Scrapy's default resolver (IPv4, cached, ``DNS_TIMEOUT``) judging every answer it gives
    for a guarded host, from the cache or not: a non-global one fails with :class:`PrivateAnswer`."""

    def getHostByName(self, name, timeout=()):  # noqa: N802 - Twisted's IResolverSimple
        return super().getHostByName(name, timeout).addCallback(self._judged, name)

    @staticmethod
    def _judged(address: str, name) -> str:
        host = (name.decode("ascii", "replace") if isinstance(name, bytes) else name).lower().rstrip(".")
        if private_ip(address) and guarded(host):
            _REFUSED[host] = address
            raise PrivateAnswer(host, address)
        _REFUSED.pop(host, None)
        return address


class ResolvedAddressMiddleware(_Guarding):
    """Downloader middleware placed after Scrapy's retry middleware (so its ``process_exception``
    comes first): a connection left without an address by :class:`GuardedResolver` is the drop
    ``private_address``, not a DNS failure to retry."""

    def process_exception(self, request, exception, spider=None):
        if isinstance(exception, (DNSLookupError, CannotResolveHostError)):
            host = (urlsplit(request.url).hostname or "").rstrip(".")
            address = _REFUSED.get(host)
            if address is not None:
                raise refusal(host, address)
        return None
