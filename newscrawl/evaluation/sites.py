"""Which site a dataset page belongs to, and the site split used to measure a rule on sites it was
not designed on (``scrapy evaluate --site-half``).  No Scrapy imports; nothing here imports the
runner, so every evaluation module may use it.
"""

from __future__ import annotations

import hashlib
import re
from functools import lru_cache
from urllib.parse import urlsplit

from ..extract.page import Page
from .datasets import Record

_WAYBACK = re.compile(r"^https?://web\.archive\.org/web/[^/]+/(.+)$")
_ID_SITE = re.compile(r"^([A-Za-z0-9][\w-]*?)_\d+$")


@lru_cache(maxsize=1)
def _tld_extract():
    import tldextract

    return tldextract.TLDExtract(suffix_list_urls=(), cache_dir=None)  # bundled list, no network


def registered_domain(url: str | None) -> str | None:
    """``news.sina.com.cn`` → ``sina.com.cn``; Wayback URLs give the archived site's domain."""
    if not url:
        return None
    wayback = _WAYBACK.match(url)
    if wayback:
        url = wayback.group(1)
    host = urlsplit(url if "//" in url else f"http://{url}").hostname
    if not host:
        return None
    found = _tld_extract()(host)
    return found.top_domain_under_public_suffix or host


def site_of(record: Record, page: Page | None = None) -> str | None:
    """The page's site: the registered domain of its ``url``, else the site its id names
    (``163_4``), else its canonical or ``og:url`` address; ``None`` when nothing names it."""
    site = registered_domain(record.url)
    if site:
        return site
    match = _ID_SITE.match(record.id)
    if match:
        return match.group(1)
    if page is not None:
        for url in page.root.xpath('//link[@rel="canonical"]/@href | //meta[@property="og:url"]/@content'):
            site = registered_domain(url.strip())
            if site:
                return site
    return None


# DAnIEL's page ids carry the host: "20111209_entertainment.dbw.cn_8fa5bd..."
_HOST_IN_ID = re.compile(r"^\d{8}_([A-Za-z0-9.-]+\.[A-Za-z]{2,})_")


def site_key(record: Record) -> str | None:
    """The page's site: the registered domain of its ``url``, or of the host its id names."""
    match = None if record.url else _HOST_IN_ID.match(record.id)
    return registered_domain(match.group(1)) if match else site_of(record)


def site_half(site: str) -> str:
    """``"A"`` or ``"B"``: a split of sites that does not depend on the set or the code."""
    return "AB"[hashlib.sha1(site.encode("utf-8")).digest()[0] % 2]


def in_half(record: Record, half: str) -> bool:
    """Is ``record``'s site in ``half`` of the site split?  A page without a site is its own."""
    return site_half(site_key(record) or f"page:{record.id}") == half
