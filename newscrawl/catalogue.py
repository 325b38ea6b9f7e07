"""Catalogue (listing) pages: which links on a page are articles, and where the next page is.

Seed 003's first stage collects, from a news site's catalogue page, each article's
URL together with its *external title* (the anchor text), which the title stage later
matches against the detail page.  Real listing pages mix those links with navigation,
section links, ads and links to other sites, so every anchor gets a score from four
kinds of evidence:

- **anchor text** that reads like a headline: several words (or, for Chinese and
  Japanese, enough CJK characters), not a menu word such as "More" or "首页";
- **URL shape**: numeric ids, dates, ``.html``/``.shtml`` endings and long hyphenated
  slugs are article-like; the site root, one-segment section paths and query-only
  links are not; a configured ``article_pattern`` overrides the shape heuristics;
- **repeated list structure**: links sharing the same ancestor tag/class path with
  other headline-like links (``ul.news > li > a`` repeated 20 times) are a list;
- **placement**: links inside ``nav``/``header``/``footer``/``aside`` or containers
  whose class/id says menu, footer, ad, banner, share... are navigation or ads.

Only http(s) links on the site's own domains are considered.  No Scrapy imports.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from urllib.parse import urljoin, urlsplit

from lxml import html

from .extract.dom import normalize_space, parse_html
from .extract.errors import ExtractionError
from .sites import host_allowed

MIN_SCORE = 2.0
_CJK_RE = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")
_WORD_RE = re.compile(r"\w+", re.UNICODE)
_NAV_TAGS = {"nav", "header", "footer", "aside", "menu"}
_NAV_WORDS = re.compile(
    r"(^|[-_\s])(nav|navbar|menu|footer|header|breadcrumbs?|sidebar|toolbar|login|copyright|share|social|"
    r"tags?|pagination|pager|topbar|masthead)([-_\s]|$)",
    re.IGNORECASE,
)
_AD_WORDS = re.compile(r"(^|[-_\s])(ad|ads|advert\w*|banner|sponsor\w*|promo\w*|gg|guanggao)([-_\s]|$)", re.I)
_MENU_TEXT = {
    "home", "more", "next", "previous", "prev", "login", "sign in", "subscribe", "read more", "contact us",
    "about us", "首页", "更多", "下一页", "上一页", "登录", "注册", "главная", "далее", "ещё", "еще",
}
_NEXT_TEXT = re.compile(
    r"^(next( page)?|older( posts| entries)?|more|»|›|>|>>|下一页|下页|后一页|далее|следующая( страница)?|"
    r"next\s*[»›>]|[»›>]\s*next|→)$",
    re.IGNORECASE,
)
_DATE_RE = re.compile(r"(19|20)\d{2}[-/]?(0[1-9]|1[0-2])[-/]?([0-3]\d)?")
_ID_RE = re.compile(r"\d{5,}")
_EXT_RE = re.compile(r"\.(s?html?|php|aspx?)$", re.IGNORECASE)
_SKIP_EXT_RE = re.compile(r"\.(jpe?g|png|gif|webp|svg|pdf|zip|mp[34]|css|js|xml|rss|json)$", re.IGNORECASE)


@dataclass(frozen=True)
class CatalogueLink:
    """One article link found on a listing page, with its external title."""

    url: str
    title: str
    score: float


def parse(text: str | bytes) -> html.HtmlElement | None:
    """Parse a listing page; ``None`` when it holds no HTML."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    try:
        return parse_html(text)
    except ExtractionError:
        return None


def headline_like(text: str) -> bool:
    """Does ``text`` read like a headline rather than a menu label?"""
    text = normalize_space(text)
    if not text or text.casefold() in _MENU_TEXT:
        return False
    cjk = len(_CJK_RE.findall(text))
    if cjk >= 6:
        return len(text) <= 120
    words = _WORD_RE.findall(text)
    return 4 <= len(words) and 15 <= len(text) <= 300


def url_score(url: str, pattern: re.Pattern | None = None) -> float | None:
    """Evidence from the URL alone; ``None`` rejects the link outright."""
    parts = urlsplit(url)
    path = parts.path or "/"
    if _SKIP_EXT_RE.search(path):
        return None
    if pattern is not None:
        return 3.0 if pattern.search(url) else None
    segments = [s for s in path.split("/") if s]
    score = 0.0
    if not segments:
        return None  # the site root
    if _DATE_RE.search(path):
        score += 1.0
    if _ID_RE.search(path):
        score += 1.0
    if _EXT_RE.search(path):
        score += 0.5
    last = segments[-1]
    if last.count("-") >= 3 or last.count("_") >= 3:
        score += 1.0
    if len(segments) >= 2:
        score += 0.5
    if len(segments) == 1 and path.endswith("/") and not _ID_RE.search(path):
        score -= 1.5  # a section index such as /world/
    if parts.query and not segments[1:] and not _ID_RE.search(parts.query):
        score -= 1.0
    return score


def _placement_penalty(anchor: html.HtmlElement) -> float:
    penalty = 0.0
    for el in anchor.iterancestors():
        tag = el.tag if isinstance(el.tag, str) else ""
        marks = f"{el.get('class', '')} {el.get('id', '')} {el.get('role', '')}"
        if tag in _NAV_TAGS or el.get("role") == "navigation":
            penalty = max(penalty, 2.0)
        if _AD_WORDS.search(marks):
            return 4.0
        if _NAV_WORDS.search(marks):
            penalty = max(penalty, 2.0)
    return penalty


def _signature(anchor: html.HtmlElement, depth: int = 3) -> str:
    """Tag and class path of the anchor's nearest ancestors: the "list structure" key."""
    path = []
    for el in [anchor, *anchor.iterancestors()][: depth + 1]:
        cls = " ".join(sorted((el.get("class") or "").split()))
        path.append(f"{el.tag}.{cls}" if cls else str(el.tag))
    return ">".join(path)


def _anchor_text(anchor: html.HtmlElement) -> str:
    text = normalize_space(anchor.text_content())
    return text or normalize_space(anchor.get("title") or "")


def _candidates(root, base_url: str, domains: Iterable[str]) -> Iterator[tuple[html.HtmlElement, str, str]]:
    domains = tuple(domains)
    page = base_url.split("#")[0]
    for anchor in root.iter("a"):
        href = (anchor.get("href") or "").strip()
        if not href or href.startswith(("#", "javascript:", "mailto:", "tel:")):
            continue
        url = urljoin(base_url, href).split("#")[0]
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or url == page:
            continue
        if not host_allowed(parts.hostname, domains):
            continue
        yield anchor, url, _anchor_text(anchor)


def find_article_links(
    root: html.HtmlElement | str | bytes | None,
    base_url: str,
    domains: Iterable[str],
    pattern: str | re.Pattern | None = None,
    min_score: float = MIN_SCORE,
) -> list[CatalogueLink]:
    """The article links of a listing page, in page order, one per URL with its best title."""
    if not isinstance(root, html.HtmlElement):
        root = parse(root or "")
    if root is None:
        return []
    if isinstance(pattern, str):
        pattern = re.compile(pattern)
    found = [(a, url, text) for a, url, text in _candidates(root, base_url, domains)]
    repeated = Counter(_signature(a) for a, _, text in found if headline_like(text))
    best: dict[str, CatalogueLink] = {}
    for anchor, url, text in found:
        if not headline_like(text):
            continue
        shape = url_score(url, pattern)
        if shape is None:
            continue
        score = 1.0 + shape - _placement_penalty(anchor)
        if repeated[_signature(anchor)] >= 3:
            score += 1.0
        if score < min_score:
            continue
        if url not in best or len(text) > len(best[url].title):
            best[url] = CatalogueLink(url, text, round(score, 2))
    return list(best.values())


def find_next_page(root: html.HtmlElement | None, base_url: str, domains: Iterable[str]) -> str | None:
    """The listing's next page (``rel=next`` or a "Next"/"下一页"/"Далее" link) on the same site."""
    if root is None:
        return None
    domains = tuple(domains)
    for el in root.iter("link", "a"):
        if "next" in (el.get("rel") or "").lower().split() and el.get("href"):
            url = urljoin(base_url, el.get("href").strip()).split("#")[0]
            if host_allowed(urlsplit(url).hostname, domains) and url != base_url:
                return url
    for anchor, url, text in _candidates(root, base_url, domains):
        classes = (anchor.get("class") or "").lower().split()
        if _NEXT_TEXT.match(text) or "next" in classes or "pagination-next" in classes:
            return url
    return None


def find_list_apis(root: html.HtmlElement | None, base_url: str) -> list[str]:
    """JSON endpoints a JavaScript-rendered list is built from (``data-list-api`` attributes)."""
    if root is None:
        return []
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
