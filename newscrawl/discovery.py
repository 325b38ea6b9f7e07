"""Zero-configuration discovery: a news site's feeds, sitemaps, sections and list endpoints
from its home page.  No Scrapy imports."""

from __future__ import annotations

from urllib.parse import urlsplit

from .sites import _PSL


def registrable_domain(url: str) -> str:
    """The registrable domain of ``url``'s host (``news.163.com`` -> ``163.com``), by the public
    suffix list; the host itself for an IP address, ``localhost`` or an unknown suffix."""
    host = (urlsplit(url).hostname or "").lower().rstrip(".")
    extracted = _PSL(host)
    return extracted.top_domain_under_public_suffix or host
