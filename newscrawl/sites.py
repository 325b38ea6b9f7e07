"""Site configuration: which sites newscrawl crawls, read from one TOML file.

A site is a table under ``[sites.<name>]``; the name becomes the spider name::

    [sites.bbc]
    language = "en"
    domains = ["bbc.co.uk", "bbc.com"]
    catalogues = ["https://www.bbc.com/news"]
    feeds = ["https://feeds.bbci.co.uk/news/rss.xml"]
    article_pattern = '/news/(articles/[a-z0-9]+|[a-z_-]+-\\d{6,})$'
    politeness = { download_delay = 2.0 }

Keys (only ``domains`` and one of ``catalogues``/``feeds``/``list_apis``/``sitemaps`` are required):

- ``domains``: allowed domains (subdomains included) on the default ports (80 for http,
  443 for https); ``"host:port"`` allows that port instead; each needs a label below the
  public suffix (``"com"`` or ``"co.uk"`` alone is refused, see :func:`domain_problem`);
- ``catalogues``: listing pages whose article links the spider finds by itself;
- ``feeds``: RSS/Atom feed URLs;
- ``list_apis``: JSON endpoints a JavaScript-rendered list is built from;
- ``sitemaps``: XML sitemaps or sitemap indexes (gzip and Google News sitemaps too);
- ``robots_sitemaps``: read the ``Sitemap:`` lines of the site's robots.txt files too
  (default ``true``);
- ``since``: skip articles published before this date (``2026-11-01``, a TOML date or
  date-time, or such a string);
- ``max_age_days``: skip articles older than this many days (with ``since``: the later wins);
- ``article_pattern``: a regular expression (``re.search``) an article URL matches;
  when present it decides which links are articles;
- ``language``: ISO 639-1 code of the site's main language;
- ``kind``: free label such as ``news`` or ``blog``;
- ``max_pages``: catalogue pages followed per start page (default 1 + pagination limit);
- ``politeness``: per-site overrides, keys in :data:`POLITENESS_SETTINGS`, in the ranges of
  :data:`POLITENESS_RANGES` (finite numbers only: TOML's ``nan``/``inf`` are refused);
- ``private_network``: the site is on a private network (its host names resolve to private
  addresses), so its crawl may reach addresses that are not globally routable (default
  ``false``; a site whose URLs are all on private IP addresses or ``localhost`` may anyway);
- ``accept_kinds``: kinds of page exported besides articles, e.g. ``["documentation"]`` (the
  kinds of :data:`newscrawl.extract.page_type.KINDS`; default none: only articles);
- ``render``: ``"auto"`` (default), ``"always"`` or ``"never"``: which pages go through a
  headless browser (:mod:`newscrawl.spiders.rendering`, docs/rendering.md);
- ``serve``/``headers``: serve this directory (relative to the TOML file) on a local
  port and rewrite the placeholder host :data:`PLACEHOLDER_HOST` to it (the demo).

:func:`load_sites` validates everything at start and raises :class:`SiteConfigError`
naming the file, the site and the bad key.  No Scrapy imports here.

Where a crawl may send requests is an :class:`AllowList` of origins (scheme, host, port):
the site's ``domains`` and the origins of its configured URLs (a catalogue on
``http://127.0.0.1:8123/`` allows that port, no other).
"""

from __future__ import annotations

import ipaddress
import math
import re
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime, time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import tldextract

from newscrawl.extract.page_type import KINDS
from newscrawl.resources import data_path

DEFAULT_SITES_FILE = data_path("sites.toml")  # data/sites.toml; package data when installed
PLACEHOLDER_HOST = "demo.invalid"

# politeness key -> (Scrapy setting, expected type)
POLITENESS_SETTINGS: dict[str, tuple[str, type | tuple[type, ...]]] = {
    "download_delay": ("DOWNLOAD_DELAY", (int, float)),
    "autothrottle": ("AUTOTHROTTLE_ENABLED", bool),
    "concurrency": ("CONCURRENT_REQUESTS_PER_DOMAIN", int),
    "delay_jitter": ("DOWNLOAD_DELAY_JITTER", (int, float)),
    "download_timeout": ("DOWNLOAD_TIMEOUT", (int, float)),
}
# politeness key -> (lowest, highest, lowest allowed itself): a delay of inf or a concurrency
# of 0 never downloads, nan compares false with everything and so slips past plain checks
POLITENESS_RANGES: dict[str, tuple[float, float, bool]] = {
    "download_delay": (0, 3600, True),
    "concurrency": (1, math.inf, True),
    "delay_jitter": (0, 1, True),  # Scrapy waits delay * uniform(1 - jitter, 1 + jitter)
    "download_timeout": (0, 3600, False),
}
DEFAULT_PORTS = {"http": 80, "https": 443}
_NAME_RE = re.compile(r"[a-z][a-z0-9_]*")  # fullmatch: "$" would accept a final newline
_ISO_DATE = re.compile(r"\A\s*+\d{4}-\d{2}-\d{2}[^\n]{0,40}")  # a cutoff; \A: linear even in a search
# The public suffix list as bundled with tldextract (no download: suffix_list_urls=()),
# private suffixes included, so "github.io" alone is a suffix too.
_PSL = tldextract.TLDExtract(suffix_list_urls=(), cache_dir=None, include_psl_private_domains=True)
_NAT64 = ipaddress.ip_network("64:ff9b::/96")  # RFC 6052: the last 32 bits are the IPv4 address reached


class SiteConfigError(ValueError):
    """The sites file is invalid; the message names the file, site and key."""


@dataclass(frozen=True)
class SiteConfig:
    """One configured site (see the module docstring for the keys)."""

    name: str
    domains: tuple[str, ...]
    catalogues: tuple[str, ...] = ()
    feeds: tuple[str, ...] = ()
    list_apis: tuple[str, ...] = ()
    sitemaps: tuple[str, ...] = ()
    robots_sitemaps: bool = True
    since: datetime | None = None
    max_age_days: int | None = None
    article_pattern: str | None = None
    language: str | None = None
    kind: str = "news"
    max_pages: int = 3
    politeness: dict[str, Any] = field(default_factory=dict)
    serve: Path | None = None
    headers: Path | None = None
    private_network: bool = False  # may reach addresses that are not globally routable (an intranet site)
    accept_kinds: tuple[str, ...] = ()  # page kinds exported besides articles (newscrawl.extract.page_type)
    render: str = "auto"  # auto, always, never: pages rendered in a headless browser

    @property
    def allow_list(self) -> AllowList:
        """The origins this site's crawl may request: its domains and configured URLs."""
        return AllowList.of(self.domains, self.catalogues + self.feeds + self.list_apis + self.sitemaps)

    @property
    def scrapy_settings(self) -> dict[str, Any]:
        """The politeness overrides as Scrapy settings (spider priority)."""
        return {POLITENESS_SETTINGS[key][0]: value for key, value in self.politeness.items()}

    def with_host(self, netloc: str) -> SiteConfig:
        """This site with :data:`PLACEHOLDER_HOST` replaced by ``netloc`` (e.g. ``127.0.0.1:8123``),
        in its URLs and in its domains (the port included: the placeholder allows that port only)."""

        def swap(url: str) -> str:
            parts = urlsplit(url)
            if parts.hostname != PLACEHOLDER_HOST:
                return url
            return urlunsplit(parts._replace(netloc=netloc))

        return replace(
            self,
            domains=tuple(netloc if d == PLACEHOLDER_HOST else d for d in self.domains),
            catalogues=tuple(map(swap, self.catalogues)),
            feeds=tuple(map(swap, self.feeds)),
            list_apis=tuple(map(swap, self.list_apis)),
            sitemaps=tuple(map(swap, self.sitemaps)),
        )


_KEYS: dict[str, type | tuple[type, ...]] = {
    "domains": list,
    "catalogues": list,
    "feeds": list,
    "list_apis": list,
    "sitemaps": list,
    "robots_sitemaps": bool,
    "since": (str, date),  # a TOML date or date-time (datetime is a date) or an ISO 8601 string
    "max_age_days": int,
    "article_pattern": str,
    "language": str,
    "kind": str,
    "max_pages": int,
    "politeness": dict,
    "serve": str,
    "headers": str,
    "private_network": bool,
    "accept_kinds": list,
    "render": str,
}
RENDER_MODES = ("auto", "always", "never")


def load_sites(path: str | Path | None = None) -> dict[str, SiteConfig]:
    """Read and validate the sites file (default ``data/sites.toml``); name → config, in file order."""
    path = Path(path) if path else DEFAULT_SITES_FILE
    try:
        data = tomllib.loads(path.read_bytes().decode("utf-8"))
    except FileNotFoundError as exc:
        raise SiteConfigError(f"{path}: sites file not found") from exc
    except IsADirectoryError as exc:
        raise SiteConfigError(f"{path}: is a directory, not a sites file") from exc
    except OSError as exc:
        raise SiteConfigError(f"{path}: cannot read the sites file: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise SiteConfigError(f"{path}: not UTF-8 text (byte {exc.start}); TOML files are UTF-8") from exc
    except tomllib.TOMLDecodeError as exc:
        raise SiteConfigError(f"{path}: not valid TOML: {exc}") from exc
    return parse_sites(data, source=str(path), base_dir=path.parent)


def parse_sites(data: dict[str, Any], *, source: str = "<sites>", base_dir: Path | None = None) -> dict:
    """Validate an already parsed sites document (``{"sites": {name: table}}``)."""
    extra = set(data) - {"sites"}
    if extra:
        key = sorted(extra)[0]
        raise SiteConfigError(f"{source}: unknown top-level key {key!r} (expected [sites.<name>])")
    tables = data.get("sites")
    if not isinstance(tables, dict) or not tables:
        raise SiteConfigError(f"{source}: no [sites.<name>] tables")
    return {name: _parse_site(name, table, source, base_dir) for name, table in tables.items()}


def _parse_site(name: str, table: Any, source: str, base_dir: Path | None) -> SiteConfig:
    where = f"{source}: sites.{name}"
    if not _NAME_RE.fullmatch(name):
        raise SiteConfigError(f"{where}: site name must be lower-case letters, digits and '_'")
    if not isinstance(table, dict):
        raise SiteConfigError(f"{where}: must be a table")
    for key, value in table.items():
        if key not in _KEYS:
            raise SiteConfigError(f"{where}: unknown key {key!r} (allowed: {', '.join(sorted(_KEYS))})")
        if not isinstance(value, _KEYS[key]) or (isinstance(value, bool) and _KEYS[key] is int):
            raise SiteConfigError(f"{where}.{key}: expected {_type_name(_KEYS[key])}, got {value!r}")
    if "domains" not in table:
        raise SiteConfigError(f"{where}: missing required key 'domains'")
    domains = tuple(_strings(table["domains"], f"{where}.domains"))
    if not domains:
        raise SiteConfigError(f"{where}.domains: must list at least one domain")
    for domain in domains:
        problem = domain_problem(domain)
        if problem:
            raise SiteConfigError(f"{where}.domains: {domain!r} {problem}")
    urls = {}
    for key in ("catalogues", "feeds", "list_apis", "sitemaps"):
        urls[key] = tuple(_strings(table.get(key, []), f"{where}.{key}"))
        for url in urls[key]:
            _check_url(url, domains, f"{where}.{key}")
    if not any(urls.values()) and "serve" not in table:
        raise SiteConfigError(
            f"{where}: needs at least one of 'catalogues', 'feeds', 'list_apis' or 'sitemaps'")
    pattern = table.get("article_pattern")
    if pattern is not None:
        try:
            re.compile(pattern)
        except re.error as exc:
            raise SiteConfigError(f"{where}.article_pattern: invalid regular expression: {exc}") from exc
    max_pages = table.get("max_pages", 3)
    if max_pages < 1:
        raise SiteConfigError(f"{where}.max_pages: must be at least 1")
    since, max_age_days = _date_window(table, where)
    politeness = dict(table.get("politeness", {}))
    for key, value in politeness.items():
        if key not in POLITENESS_SETTINGS:
            raise SiteConfigError(
                f"{where}.politeness: unknown key {key!r} (allowed: {', '.join(sorted(POLITENESS_SETTINGS))})"
            )
        problem = politeness_problem(key, value)
        if problem:
            raise SiteConfigError(f"{where}.politeness.{key}: {problem}")
    accept_kinds = tuple(_strings(table.get("accept_kinds", []), f"{where}.accept_kinds"))
    for kind in accept_kinds:
        if kind not in KINDS:
            raise SiteConfigError(
                f"{where}.accept_kinds: unknown kind {kind!r} (allowed: {', '.join(KINDS)})")
    render = table.get("render", "auto")
    if render not in RENDER_MODES:
        raise SiteConfigError(f"{where}.render: must be one of {', '.join(RENDER_MODES)}, got {render!r}")
    base = base_dir or Path.cwd()
    serve = _inside(base, table["serve"], f"{where}.serve") if "serve" in table else None
    headers = _inside(base, table["headers"], f"{where}.headers") if "headers" in table else None
    return SiteConfig(
        name=name,
        domains=domains,
        catalogues=urls["catalogues"],
        feeds=urls["feeds"],
        list_apis=urls["list_apis"],
        sitemaps=urls["sitemaps"],
        robots_sitemaps=table.get("robots_sitemaps", True),
        since=since,
        max_age_days=max_age_days,
        article_pattern=pattern,
        language=table.get("language"),
        kind=table.get("kind", "news"),
        max_pages=max_pages,
        politeness=politeness,
        serve=serve,
        headers=headers,
        private_network=table.get("private_network", False),
        accept_kinds=accept_kinds,
        render=render,
    )


def parse_cutoff(value: Any) -> datetime | None:
    """A date window's start (``since``): an ISO 8601 date or date-time string, or a TOML date
    or date-time, as an aware datetime (UTC when no offset is given; a date is its midnight UTC).

    Raises ValueError for anything else.
    """
    if value is None:
        return None
    if isinstance(value, str) and _ISO_DATE.fullmatch(value):
        try:
            value = datetime.fromisoformat(value.strip())
        except ValueError:
            pass
    if isinstance(value, datetime):
        return value if value.tzinfo is not None else value.replace(tzinfo=UTC)
    if isinstance(value, date):
        return datetime.combine(value, time(), tzinfo=UTC)
    raise ValueError(f"expected an ISO 8601 date such as 2026-11-01, got {value!r}")


def _date_window(table: dict[str, Any], where: str) -> tuple[datetime | None, int | None]:
    """The site's ``since`` (an aware datetime) and ``max_age_days`` (at least 1)."""
    try:
        since = parse_cutoff(table.get("since"))
    except ValueError as exc:
        raise SiteConfigError(f"{where}.since: {exc}") from None
    max_age_days = table.get("max_age_days")
    if max_age_days is not None and not 1 <= max_age_days <= 36_500:
        raise SiteConfigError(f"{where}.max_age_days: must be from 1 to 36500, got {max_age_days!r}")
    return since, max_age_days


def _inside(base: Path, relative: str, where: str) -> Path:
    """``relative`` under ``base`` (the sites file's directory); no absolute path, no escape via ``..``
    or a symbolic link, so a sites file can only point at files beside it."""
    if not relative.strip() or Path(relative).is_absolute():
        raise SiteConfigError(f"{where}: {relative!r} must be a path relative to the sites file")
    path = base / relative
    if not path.resolve().is_relative_to(base.resolve()):
        raise SiteConfigError(f"{where}: {relative!r} leaves the sites file's directory {base}")
    return path


def _strings(values: list, where: str) -> list[str]:
    for value in values:
        if not isinstance(value, str) or not value.strip():
            raise SiteConfigError(f"{where}: expected non-empty strings, got {value!r}")
    return [v.strip() for v in values]


def _check_url(url: str, domains: tuple[str, ...], where: str) -> None:
    if origin_of(url) is None:
        raise SiteConfigError(f"{where}: {url!r} is not an http(s) URL")
    if not host_allowed(urlsplit(url).hostname, [_split_domain(d)[0] for d in domains]):
        raise SiteConfigError(f"{where}: {url!r} is not on the site's domains {list(domains)}")


def politeness_problem(key: str, value: Any) -> str | None:
    """Why ``value`` cannot be the politeness setting ``key``; None when it can."""
    expected = POLITENESS_SETTINGS[key][1]
    if not isinstance(value, expected) or (isinstance(value, bool) and expected is not bool):
        return f"expected {_type_name(expected)}, got {value!r}"
    if key not in POLITENESS_RANGES:
        return None
    if not math.isfinite(value):
        return f"must be a finite number, got {value!r}"
    low, high, low_included = POLITENESS_RANGES[key]
    if value < low or (value == low and not low_included):
        return f"must be {'at least' if low_included else 'more than'} {low}, got {value!r}"
    if value > high:
        return f"must be at most {high}, got {value!r}"
    return None


def domain_problem(domain: str) -> str | None:
    """Why ``domain`` (``host`` or ``host:port``) cannot be a site's domain; None when it can.

    The host must have a label of its own below its public suffix (Public Suffix List,
    https://publicsuffix.org/): ``"com"``, ``"co.uk"``, ``"xn--p1ai"`` or ``"github.io"``
    alone would allow every site under them.  IP addresses and ``localhost`` are hosts.
    """
    if any(c in domain for c in "/?#@\\ ") or not domain.strip("."):
        return "is not a bare domain name"
    try:
        host, _ = _split_domain(domain)
    except ValueError:
        return "has an invalid port"
    if not host:
        return "is not a bare domain name"
    if _is_ip(host) or host == "localhost":
        return None
    if not _PSL(host).domain:
        return "is a public suffix: name a registrable domain under it (such as 'example.com')"
    return None


@dataclass(frozen=True)
class AllowList:
    """Where a crawl may send requests, by origin (scheme, host, port; RFC 6454 §4).

    ``domains`` are (domain, port) pairs: a URL's host must be the domain or a subdomain
    of it, and its port ``port``, or, when that is None, the default port of the URL's
    scheme (80 for http, 443 for https).  ``origins`` are exact (scheme, host, port)
    triples: configured listing URLs and ``start_url``/``feed_url`` arguments.
    """

    domains: tuple[tuple[str, int | None], ...] = ()
    origins: frozenset[tuple[str, str, int]] = frozenset()

    @classmethod
    def of(cls, domains: Iterable[str], urls: Iterable[str] = ()) -> AllowList:
        """The allow-list of ``domains`` (``host`` or ``host:port``) plus the origins of ``urls``."""
        return cls(tuple(_split_domain(d) for d in domains)).with_origins(urls)

    def with_origins(self, urls: Iterable[str]) -> AllowList:
        """This allow-list plus the origin of each of ``urls`` (that origin only)."""
        added = {origin for origin in map(origin_of, urls) if origin is not None}
        return replace(self, origins=self.origins | added)

    @property
    def hosts(self) -> list[str]:
        """The host names involved, without ports, as Scrapy's ``allowed_domains`` takes them
        (a host-only pre-filter: :meth:`allows` decides)."""
        return list(dict.fromkeys([d for d, _ in self.domains] + sorted(h for _, h, _ in self.origins)))

    def allows(self, url: str) -> bool:
        """True when ``url`` is an http(s) URL on one of the allowed origins."""
        origin = origin_of(url)
        if origin is None:
            return False
        if origin in self.origins:
            return True
        scheme, host, port = origin
        return any(
            port == (allowed_port or DEFAULT_PORTS[scheme]) and host_allowed(host, [domain])
            for domain, allowed_port in self.domains
        )


def origin_of(url: str) -> tuple[str, str, int] | None:
    """``url``'s origin (scheme, ASCII lower-case host, port with the default filled in);
    None unless it is an http(s) URL with a host and a valid port."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS or not parts.hostname:
        return None
    return scheme, _ascii_host(parts.hostname), DEFAULT_PORTS[scheme] if port is None else port


def _split_domain(domain: str) -> tuple[str, int | None]:
    """``"host"`` or ``"host:port"`` as (ASCII lower-case host, port or None); ValueError for a bad port."""
    parts = urlsplit("//" + domain.strip())
    port = parts.port
    if port == 0:
        raise ValueError(f"port 0 in {domain!r}")
    return _ascii_host(parts.hostname or ""), port


def _ascii_host(host: str) -> str:
    """``host`` lower-cased, without a trailing dot, internationalised names as IDNA (``xn--``),
    the form a request URL carries."""
    host = host.lower().rstrip(".")
    if host.isascii():
        return host
    try:
        return host.encode("idna").decode("ascii")
    except UnicodeError:
        return host


def private_address(url: str) -> bool | None:
    """Is ``url``'s host an address that is not globally routable (:func:`private_ip`: ``127.0.0.2``,
    ``10.1.2.3``, ``[::1]``, ``169.254.169.254``, ``100.100.100.200``, ``[2002:7f00:1::]``) or
    ``localhost``?  None for another host name (``2130706433`` too): only resolving it can tell."""
    host = _ascii_host(urlsplit(url).hostname or "")
    if host == "localhost" or host.endswith(".localhost"):
        return True
    if not _is_ip(host):
        return None
    return private_ip(host)


def private_ip(address: str) -> bool:
    """Is ``address`` (an IP address) one a crawl of the public web must not reach: not globally
    routable (``ipaddress``'s ``is_global``: loopback, RFC 1918 and RFC 4193 private, 100.64.0.0/10
    shared, link-local such as the 169.254.169.254 metadata service, unspecified...), reserved
    or multicast, or an IPv6 address carrying such an IPv4 address (IPv4-mapped, NAT64
    ``64:ff9b::/96``, 6to4 ``2002::/16``, Teredo)?"""
    ip = ipaddress.ip_address(address)
    if isinstance(ip, ipaddress.IPv6Address):
        embedded = ip.ipv4_mapped or (ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF) if ip in _NAT64 else None)
        if embedded is not None:  # the IPv4 address is the one reached
            return private_ip(str(embedded))
        inner = [ip.sixtofour, *(ip.teredo or ())]
        if any(v4 is not None and private_ip(str(v4)) for v4 in inner):
            return True
    return not ip.is_global or ip.is_reserved or ip.is_multicast


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def host_allowed(host: str | None, domains: tuple[str, ...] | list[str]) -> bool:
    """True when ``host`` is one of ``domains`` or a subdomain of one (as Scrapy's offsite rule)."""
    if not host:
        return False
    host = _ascii_host(host)
    return any(host == d or host.endswith("." + d) for d in (_ascii_host(d).lstrip(".") for d in domains))


def _type_name(expected: type | tuple[type, ...]) -> str:
    if isinstance(expected, tuple):
        return " or ".join(t.__name__ for t in expected)
    return {list: "array", dict: "table", str: "string", int: "integer", bool: "boolean", date: "date"}.get(
        expected, expected.__name__
    )
