"""List endpoints (no Scrapy imports): a catalogue page that loads its list from a JSON API
(``data-list-api``, :func:`find_list_apis`), and the article links, titles and dates read from
such a JSON reply (:func:`links_from_json`, :class:`ApiEntry`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from urllib.parse import urljoin, urlsplit

from lxml import html

from newscrawl.discovery.links import document_base
from newscrawl.extract.dom import normalize_space
from newscrawl.sites import host_allowed


def find_list_apis(root: html.HtmlElement | None, base_url: str) -> list[str]:
    """JSON endpoints a JavaScript-rendered list is built from (``data-list-api`` attributes)."""
    if root is None:
        return []
    base_url = document_base(root, base_url)
    urls = []
    for el in root.xpath("//*[@data-list-api]"):
        value = el.get("data-list-api", "").strip()
        if value:
            urls.append(urljoin(base_url, value))
    return list(dict.fromkeys(urls))


_URL_KEYS = ("url", "link", "href", "docurl", "article_url", "share_url")


_TITLE_KEYS = ("title", "headline", "name", "stitle")


_DATE_KEYS = ("published", "date", "datePublished", "pubDate", "time", "ctime", "publish_time")



@dataclass(frozen=True)
class ApiEntry:
    """One article listed by a JSON list endpoint."""

    url: str
    title: str
    published: str | None = None  # ISO 8601 with offset, when the endpoint gives a zone
    summary: str | None = None



def _iso_date(value: object) -> str | None:
    """An endpoint's date as ISO 8601 with offset: epoch seconds, or ISO text that carries an offset.

    A date without a zone is left out rather than guessed; the page's own date decides then.
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)) or (isinstance(value, str) and value.strip().isdigit()):
        seconds = float(value)
        seconds = seconds / 1000 if seconds > 1e11 else seconds  # milliseconds
        try:
            return datetime.fromtimestamp(seconds, UTC).isoformat()
        except (OverflowError, OSError, ValueError):
            return None
    if isinstance(value, str):
        try:
            parsed = datetime.fromisoformat(value.strip().replace(" ", "T", 1))
        except ValueError:
            return None
        return parsed.isoformat() if parsed.tzinfo else None
    return None



def links_from_json(data: bytes | str | object, base_url: str, domains: Iterable[str]) -> list[ApiEntry]:
    """Article entries anywhere in a JSON document: objects with a URL key and a title key."""
    if isinstance(data, (bytes, str)):
        try:
            data = json.loads(data)
        except (ValueError, UnicodeDecodeError):
            return []
    domains = tuple(domains)
    entries: dict[str, ApiEntry] = {}
    stack = [data]
    while stack:
        obj = stack.pop()
        if isinstance(obj, list):
            stack.extend(reversed(obj))
            continue
        if not isinstance(obj, dict):
            continue
        url = next((obj[k] for k in _URL_KEYS if isinstance(obj.get(k), str) and obj[k].strip()), None)
        title = next((obj[k] for k in _TITLE_KEYS if isinstance(obj.get(k), str) and obj[k].strip()), None)
        if url and title:
            absolute = urljoin(base_url, url.strip()).split("#")[0]
            parts = urlsplit(absolute)
            if parts.scheme in ("http", "https") and host_allowed(parts.hostname, domains):
                date = next((_iso_date(obj[k]) for k in _DATE_KEYS if obj.get(k) not in (None, "")), None)
                summary = obj.get("summary") or obj.get("description")
                summary = summary if isinstance(summary, str) else None
                entries.setdefault(absolute, ApiEntry(absolute, normalize_space(title), date, summary))
        stack.extend(reversed([v for v in obj.values() if isinstance(v, (dict, list))]))
    return list(entries.values())

