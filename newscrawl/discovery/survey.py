"""Zero-configuration discovery: what a news site's home page tells (no Scrapy imports).

Each function takes a parsed page, its URL and the site's domains:

- :func:`feed_links`: feeds the page declares (``<link rel="alternate"
  type="application/rss+xml|atom+xml">``, RSS Advisory Board "RSS Autodiscovery", 2006) and
  anchors that point at a feed (a path ending in ``.rss``/``.xml``/``.atom`` or a
  ``rss``/``feed``/``atom`` segment, on the site); :data:`FEED_PATHS` are the common places
  to probe when the page names none;
- :func:`section_links`: the site's navigation: same-site short paths (one or two segments, or
  a subdomain's root) with a short label, inside ``nav``/``header``/menu containers or in a row
  of such links, not media/tag/account pages;
- list endpoints: :func:`newscrawl.discovery.list_api.find_list_apis` (``data-list-api``);
- sitemaps: the ``Sitemap:`` lines of robots.txt, which the site spider reads already.

:func:`site_table` and :func:`site_entry` turn a :class:`Survey` (what the ``discover`` spider
found) into a validated ``[sites.NAME]`` entry, with an article pattern from
:mod:`newscrawl.discovery.patterns`.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from urllib.parse import urljoin, urlsplit

from lxml import html
from w3lib.url import safe_url_string

from newscrawl.discovery import links
from newscrawl.discovery.patterns import infer_article_pattern
from newscrawl.discovery.url_forms import ID_RE
from newscrawl.extract.dom import normalize_space
from newscrawl.sites import _PSL, AllowList, _ascii_host, _is_ip, host_allowed, private_address

FEED_TYPES = ("application/rss+xml", "application/atom+xml", "application/rdf+xml", "application/feed+json")


FEED_PATHS = ("/rss", "/feed", "/rss.xml", "/index.xml", "/atom.xml", "/feed.xml")  # probed if none named


MAX_SECTIONS = 40  # section links kept from one page, in page order


_FEED_PATH_RE = re.compile(
    r"(\.(rss|atom|rdf)$|(^|/)(rss|feeds?|atom)(/|\.xml$|$)|rss[^/]{0,40}\.xml$)", re.IGNORECASE)


_NOT_SECTION_WORDS = frozenset({
    "about", "contact", "contacts", "privacy", "terms", "cookies", "help", "faq", "careers", "jobs", "login",
    "signin", "signup", "register", "account", "subscribe", "subscription", "newsletter", "newsletters",
    "search", "shop", "store", "advertise", "ads", "donate", "rss", "feed", "feeds", "sitemap", "legal",
    "policy", "copyright", "author", "authors", "tag", "tags", "user", "profile", "cart", "app", "apps",
})


_NOT_NAME_RE = re.compile(r"[^a-z0-9]+")


_MAX_SECTION_WORDS = 5


_MAX_SECTION_CJK = 8



@dataclass
class Survey:
    """What a discovery run found (``scrapy addsite`` turns it into a sites-file entry)."""

    home: str
    language: str | None = None
    feeds: list[str] = field(default_factory=list)  # feeds that parsed with entries
    sitemaps: list[str] = field(default_factory=list)  # robots.txt Sitemap: lines
    sections: list[str] = field(default_factory=list)  # section pages named by the home page
    list_apis: list[str] = field(default_factory=list)
    catalogue_links: dict[str, int] = field(default_factory=dict)  # catalogue page -> article links on it
    articles: list[str] = field(default_factory=list)  # article URLs listed anywhere
    allowed: list[str] = field(default_factory=list)  # domains the user allowed besides the home origin



def registrable_domain(url: str) -> str:
    """The registrable domain of ``url``'s host (``news.163.com`` -> ``163.com``), by the public
    suffix list; the host itself for an IP address, ``localhost`` or an unknown suffix."""
    host = (urlsplit(url).hostname or "").lower().rstrip(".")
    extracted = _PSL(host)
    return extracted.top_domain_under_public_suffix or host



def site_name(url: str) -> str:
    """A site name (``[a-z][a-z0-9_]*``) for a discovered site: its registrable domain
    (``https://www.example.co.uk/`` -> ``example_co_uk``); an IP address or ``localhost`` with
    its port (``http://127.0.0.1:8080/`` -> ``site_127_0_0_1_8080``)."""
    name = _NOT_NAME_RE.sub("_", _ascii_host(_site_domain(url))).strip("_")
    return name if name[:1].isalpha() else f"site_{name}"



def page_language(root: html.HtmlElement) -> str | None:
    """The page's language as an ISO 639-1 code: what it declares
    (:func:`newscrawl.extract.language.declared_language`), confirmed or overruled by reading
    its text (:func:`newscrawl.extract.language.detect_language`)."""
    from ..extract.language import declared_language, detect_language

    declared = declared_language(root)
    body = root.find("body")
    found = detect_language(body if body is not None else root, declared)
    return found.split("-")[0].lower() if found else None



def feed_links(root: html.HtmlElement | None, base_url: str, domains: Iterable[str]) -> list[str]:
    """Feeds the page names: declared ones (any host: the page vouches for them) first, then
    same-site anchors whose URL reads as a feed."""
    if root is None:
        return []
    domains = tuple(domains)
    base_url = links.document_base(root, base_url)
    found = []
    for link in root.iter("link"):
        rels = (link.get("rel") or "").lower().split()
        kind = (link.get("type") or "").lower().split(";")[0].strip()
        if "alternate" in rels and kind in FEED_TYPES and link.get("href"):
            found.append(_absolute(base_url, link.get("href")))
    for anchor in root.iter("a"):
        href = anchor.get("href")
        if not href:
            continue
        url = _absolute(base_url, href)
        parts = urlsplit(url)
        if parts.scheme in ("http", "https") and host_allowed(parts.hostname, domains) and (
                _FEED_PATH_RE.search(parts.path) or _feed_host(parts.hostname)):
            found.append(url)
    return [url for url in dict.fromkeys(found) if urlsplit(url).scheme in ("http", "https")]



def _feed_host(host: str | None) -> bool:
    """``rss.example.com``/``feeds.example.com``: a host that serves feeds only."""
    return bool(host) and host.split(".")[0] in ("rss", "feeds", "feed")



def probe_urls(home_url: str, limit: int = len(FEED_PATHS)) -> list[str]:
    """The common feed locations on the home page's origin, at most ``limit``."""
    return [urljoin(home_url, path) for path in FEED_PATHS[:limit]]



def section_links(root: html.HtmlElement | None, base_url: str, domains: Iterable[str]) -> list[str]:
    """The site's section pages named on the page: same-site short paths (or another
    subdomain's root) with a short label, in its navigation (``nav``/``header``/menu
    containers), in a run of three or more such links in one list, or as a heading's link (a
    block titled by its section); in page order, without query (tracking parameters), at most
    :data:`MAX_SECTIONS`."""
    if root is None:
        return []
    home = urlsplit(base_url)
    tree = root.getroottree()
    runs: Counter = Counter()
    candidates = []
    for anchor, url, text in links._candidates(root, base_url, domains):
        section = _section_url(url, home)
        if section and _section_label(text):
            parent = anchor.getparent()
            holder = parent.getparent() if parent is not None and parent.tag == "li" else parent
            key = tree.getpath(holder) if holder is not None else ""
            runs[key] += 1
            candidates.append((anchor, section, key))
    cache: dict = {}
    found = [section for anchor, section, key in candidates
             if runs[key] >= 3 or _in_heading(anchor) or links._placement_penalty(anchor, cache) >= 2.0]
    return list(dict.fromkeys(found))[:MAX_SECTIONS]



def _in_heading(anchor: html.HtmlElement) -> bool:
    parent = anchor.getparent()
    return parent is not None and parent.tag in ("h1", "h2", "h3", "h4", "h5", "h6")



def _section_url(url: str, home) -> str | None:
    """``url`` without its query when it is a section: a short same-site path that is not an
    article, a file or an account/tag page, or another subdomain's root."""
    parts = urlsplit(url)
    segments = [s for s in parts.path.split("/") if s]
    bare = f"{parts.scheme}://{parts.netloc}{parts.path or '/'}"
    if len(segments) > 2:
        return None
    if not segments:
        return bare if parts.hostname != home.hostname else None  # money.example.com is a section
    if any(s.lower().rsplit(".", 1)[0] in _NOT_SECTION_WORDS for s in segments):
        return None
    shape = links.url_score(bare)
    if shape is None or ID_RE.search(parts.path) or links._DATE_RE.search(parts.path):
        return None
    return bare if shape < links.MIN_SCORE else None



def _section_label(text: str) -> bool:
    text = normalize_space(text)
    if not text or text.casefold() in links._MENU_TEXT:
        return False
    if len(links._CJK_RE.findall(text)) > 0:
        return len(text) <= _MAX_SECTION_CJK
    return len(links._WORD_RE.findall(text)) <= _MAX_SECTION_WORDS and len(text) <= 40



def _absolute(base_url: str, href: str) -> str:
    return urljoin(base_url, href.strip()).split("#")[0]


MIN_CATALOGUE_LINKS = 3  # a section page listing fewer article links is not kept as a catalogue


MAX_CATALOGUES = 10



def site_table(survey: Survey) -> dict:
    """The ``[sites.<name>]`` table for a surveyed site: its domain (the home page's host, with
    its port when not the default, and the domains the user allowed), the home page and the
    section pages that listed articles as catalogues, its feeds, sitemaps and list endpoints,
    language and inferred ``article_pattern``.  Only URLs on the home page's origin or an
    allowed domain are written (what the page names elsewhere was not followed, and a sites
    file keeps an access for every later crawl); an address on the machine's own network
    (loopback, private, link-local) only when the home page is on one.  Keys without a value
    are left out."""
    home = urlsplit(survey.home)
    domains = [home.netloc.rsplit("@", 1)[-1].lower()] + list(survey.allowed)
    allow_list = AllowList.of(survey.allowed, [survey.home])
    local = bool(private_address(survey.home))

    def kept(urls: Iterable[str]) -> list[str]:
        """On the origin; as a request carries it (control characters, spaces: percent-encoded)."""
        return [url for url in dict.fromkeys(safe_url_string(u) for u in urls)
                if allow_list.allows(url) and (local or not private_address(url))]

    listing = [url for url in survey.sections if survey.catalogue_links.get(url, 0) >= MIN_CATALOGUE_LINKS]
    sections = kept(listing)
    table = {
        "language": survey.language,
        "domains": list(dict.fromkeys(domains)),
        "catalogues": [survey.home, *sections][:MAX_CATALOGUES],
        "feeds": sorted(kept(survey.feeds)),  # responses arrive in any order: a stable entry
        "sitemaps": kept(survey.sitemaps),
        "list_apis": kept(survey.list_apis),
        "article_pattern": infer_article_pattern(kept(survey.articles), [survey.home, *survey.sections]),
    }
    return {key: value for key, value in table.items() if value}



def _site_domain(url: str) -> str:
    """A URL's registrable domain; an IP address or ``localhost`` keeps its port (a test server)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if (_is_ip(host) or host == "localhost") and parts.port:
        return f"{host}:{parts.port}"
    return registrable_domain(url)



def site_entry(name: str, table: dict) -> str:
    """``table`` as a validated TOML ``[sites.<name>]`` entry (:func:`newscrawl.siteswriter.entry_text`)."""
    from ..siteswriter import entry_text

    return entry_text(name, table)

