"""The article's declared metadata: description, canonical URL, site name, tags, keywords,
section, paywall and main image, read from ``<meta>`` (Open Graph, Twitter cards, Dublin Core),
``<link>``, JSON-LD (schema.org ``NewsArticle``) and ``rel=tag`` links.

These are what the publisher declares, not what a method infers: each field takes the first
source that gives a value, in the order a publisher's own tools give them most reliably
(schema.org and Open Graph are the formats search engines and social sites read).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import chain
from typing import Any
from urllib.parse import urljoin, urlsplit

from lxml import etree

from .. import dom
from ..page import BODY_CLASSES, Page

# The page's own description first: Open Graph's is often a site-wide line or a cut teaser.
DESCRIPTION_META = ("description", "og:description", "twitter:description", "dc.description",
                    "dcterms.description")
MAX_TAGS = 50  # more "tags" than this are a keyword-stuffed list, cut to its first ones
MAX_TAG_CHARS = 100
# Separators of a tag list given as one string: commas, semicolons and bars (ASCII, full-width,
# ideographic, Arabic) and the ideographic space.
_TAG_SPLIT = re.compile(r"[,;，、；|｜،؛\u3000]")
# "Politics / Economy" (tag strings come white-space-normalised); "AC/DC" and "9/11" are one tag
_SPACED_SLASH = re.compile(r" [/／] ")
_SLASH = re.compile(r"[/／]")
# Chinese and Japanese words (Han, kana): written without spaces, so a space between them separates tags.
_CJK_CHAR = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_ASCII_ALNUM = re.compile(r"[A-Za-z0-9]")
# Classes and ids that mark a paywall: a reader sees a teaser and a subscription prompt.
_PAYWALL_MARKUP = re.compile(r"(?:^|[\s_-])(?:paywall|subscriber-only|piano-paywall|regwall)(?:$|[\s_-])",
                             re.IGNORECASE)
_PAYWALL_WORDS = ("aywall", "AYWALL", "regwall", "subscriber-only")  # one of them is in every name above
_PAYWALL_CLASS_WORDS = ("paywall", "regwall", "subscriber-only")  # in every name above, lower-cased
_ARTICLE_TYPES = ("Article", "NewsArticle", "BlogPosting", "ReportageNewsArticle", "AnalysisNewsArticle",
                  "OpinionNewsArticle", "ReviewNewsArticle", "LiveBlogPosting", "Report", "TechArticle",
                  "ScholarlyArticle")
_PAGE_TYPES = {"WebPage", "SocialMediaPosting"}
_PUBLISHER_TYPES = {"WebSite", "NewsMediaOrganization", "Organization"}


def _types(obj: dict) -> set[str]:
    kind = obj.get("@type")
    if isinstance(kind, str):
        return {kind}
    return {k for k in kind if isinstance(k, str)} if isinstance(kind, list) else set()


def articles_ld(page: Page) -> list[dict]:
    """The page's JSON-LD objects of an article type, article types first then web pages."""
    found = [o for o in page.json_ld if _types(o) & set(_ARTICLE_TYPES)]
    return found + [o for o in page.json_ld if _types(o) & _PAGE_TYPES and o not in found]


def _ld_values(page: Page, key: str) -> Iterator[Any]:
    for obj in articles_ld(page):
        value = obj.get(key)
        if value not in (None, "", []):
            yield value


def _text_of(value: Any) -> str | None:
    if isinstance(value, str):
        return dom.normalize_space(value) or None
    if isinstance(value, dict):
        return _text_of(value.get("name") or value.get("@value"))
    if isinstance(value, list):
        return next((t for t in map(_text_of, value) if t), None)
    return None


def _absolute(page: Page, value: str | None) -> str | None:
    if not value:
        return None
    value = value.strip()
    if len(value) > 2000:
        return None
    try:
        url = urljoin(page.base_url or page.url or "", value)
        scheme = urlsplit(url).scheme.lower()
    except ValueError:
        return None
    return url if scheme in ("http", "https") else None


def description(page: Page) -> str | None:
    """``<meta name=description>``, else Open Graph, Twitter, Dublin Core, JSON-LD ``description``."""
    found = next(filter(None, (page.meta(name) for name in DESCRIPTION_META)), None)  # in this order
    return found or next((t for t in map(_text_of, _ld_values(page, "description")) if t), None)


def canonical_url(page: Page) -> str | None:
    """``<link rel=canonical>``, else ``og:url``, else JSON-LD ``url``/``mainEntityOfPage``, absolute."""
    for link in page.root.iter("link"):
        if "canonical" in (link.get("rel") or "").lower().split():
            found = _absolute(page, link.get("href"))
            if found:
                return found
    found = _absolute(page, page.meta("og:url"))
    if found:
        return found
    for key in ("mainEntityOfPage", "url"):
        for value in _ld_values(page, key):
            url = value.get("@id") or value.get("url") if isinstance(value, dict) else value
            if isinstance(url, str) and (found := _absolute(page, url)):
                return found
    return None


def site_name(page: Page) -> str | None:
    """``og:site_name``, else ``application-name``, else the JSON-LD publisher's name: what the
    page calls its publication (never a crawl's configured name for the site)."""
    found = page.meta("og:site_name", "application-name", "al:android:app_name")
    if found:
        return found
    for value in _ld_values(page, "publisher"):
        if (name := _text_of(value)):
            return name
    for obj in page.json_ld:
        if _types(obj) & _PUBLISHER_TYPES and (name := _text_of(obj.get("name"))):
            return name
    return None


def _split_tags(values: Iterator[Any]) -> list[str]:
    tags: list[str] = []
    for value in values:
        items = value if isinstance(value, list) else [value]
        for item in items:
            text = _text_of(item)
            if not text:
                continue
            for tag in _tag_pieces(text):
                tag = tag.strip().strip("#").strip()
                if tag and len(tag) <= MAX_TAG_CHARS:
                    tags.append(tag)
    seen: dict[str, str] = {}
    for tag in tags:
        seen.setdefault(tag.casefold(), tag)
    return list(seen.values())[:MAX_TAGS]


def _tag_pieces(text: str) -> Iterator[str]:
    """The tags of one declared string: split on :data:`_TAG_SPLIT` and on a slash between spaces;
    a piece of Chinese or Japanese words separated by spaces ("投资 完成 亿元") or of hashtags
    ("#news #world") is split on its spaces, and one of Chinese or Japanese words only on its
    slashes ("政治/经济"); "New York", "서울 시장", "AC/DC" and "9/11" stay one tag."""
    for piece in chain.from_iterable(map(_SPACED_SLASH.split, _TAG_SPLIT.split(text))):
        words = piece.split()
        if len(words) > 1 and (all(map(_CJK_CHAR.search, words)) or all(w.startswith("#") for w in words)):
            yield from words
        elif _CJK_CHAR.search(piece) and not _ASCII_ALNUM.search(piece):
            yield from _SLASH.split(piece)
        else:
            yield piece


def keywords(page: Page) -> list[str]:
    """The page's declared ``<meta name=keywords>`` (and ``news_keywords``), split on commas."""
    return _split_tags(content for key, content in page.metas if key in ("keywords", "news_keywords"))


def tags(page: Page) -> list[str]:
    """``article:tag`` (every one), else JSON-LD ``keywords``, else ``rel=tag`` links, else the
    declared meta keywords: the publisher's topic labels for the article."""
    found = _split_tags(content for key, content in page.metas if key in ("article:tag", "og:article:tag"))
    if not found:
        found = _split_tags(_ld_values(page, "keywords"))
    if not found:
        found = _split_tags(dom.node_text(a) for a in page.root.iter("a")
                            if "tag" in (a.get("rel") or "").lower().split())
    return found or keywords(page)


def section(page: Page) -> str | None:
    """``article:section``, else JSON-LD ``articleSection``, else the last named item of a
    ``BreadcrumbList`` before the article itself."""
    found = page.meta("article:section", "og:article:section", "section")
    if found:
        return found
    found = next((t for t in map(_text_of, _ld_values(page, "articleSection")) if t), None)
    if found:
        return found
    for obj in page.json_ld:
        if "BreadcrumbList" in _types(obj) and isinstance(obj.get("itemListElement"), list):
            names = [_text_of(item.get("name") or item.get("item")) for item in obj["itemListElement"]
                     if isinstance(item, dict)]
            names = [n for n in names if n]
            if len(names) >= 2:
                return names[-2] if len(names) > 2 else names[-1]
    return None


def paywalled(page: Page) -> bool:
    """JSON-LD ``isAccessibleForFree`` false, or an element marked as a paywall."""
    for value in _ld_values(page, "isAccessibleForFree"):
        if value is False or (isinstance(value, str) and value.strip().lower() == "false"):
            return True
    if (page.meta("article:content_tier") or "").lower() in ("locked", "metered"):
        return True
    classes = _class_values(page)
    if classes is not None:  # the classes first (in one string), the whole page only if one is a paywall
        joined = "\n".join(classes)
        if joined.isascii():  # (ASCII: lower() is what the pattern's IGNORECASE matches)
            lowered = joined.lower()  # once, not once a word
            if not any(word in lowered for word in _PAYWALL_CLASS_WORDS):
                return False
        return any(_PAYWALL_MARKUP.search(cls) for cls in classes) and _names_paywall(page.text)
    if not _names_paywall(page.text):  # substring scans; most pages name none
        return False
    for el in page.elements:
        cls = el.get("class") if isinstance(el.tag, str) else None
        if cls and _PAYWALL_MARKUP.search(cls):
            return True
    return False


def _names_paywall(text: str) -> bool:
    return any(word in text for word in _PAYWALL_WORDS)


def _class_values(page: Page) -> list[str] | None:
    """Every class attribute of the page's elements, when a body method has read those under
    ``<body>`` already (:data:`~..page.BODY_CLASSES`, auto's Gain): the few elements outside it
    are read here.  None otherwise."""
    below = page.derived.get(BODY_CLASSES)
    body, root = page.body, page.root
    if below is None or body is None:
        return None
    values = [body.get("class")]  # <body> and the elements outside it: ``below`` holds those under it
    node = body
    while node is not root:
        parent = node.getparent()
        if parent is None:  # a body outside the root: read every element as before
            return None
        values.append(parent.get("class"))
        for sibling in parent.iterchildren():
            if sibling is not node:
                values.extend(el.get("class") for el in sibling.iter(etree.Element))
        node = parent
    return [cls for cls in below if cls] + [cls for cls in values if cls]


def meta_image(page: Page) -> str | None:
    """``og:image`` (``og:image:secure_url``, ``og:image:url``), else ``twitter:image``, else the
    JSON-LD article's ``image`` / ``thumbnailUrl``, absolute."""
    found = _absolute(page, page.meta("og:image:secure_url", "og:image", "og:image:url"))
    if found:
        return found
    found = _absolute(page, page.meta("twitter:image", "twitter:image:src"))
    if found:
        return found
    for key in ("image", "thumbnailUrl"):
        for value in _ld_values(page, key):
            first = value[0] if isinstance(value, list) and value else value
            url = first.get("url") or first.get("contentUrl") if isinstance(first, dict) else first
            if isinstance(url, str) and (found := _absolute(page, url)):
                return found
    for link in page.root.iter("link"):
        if (link.get("rel") or "").lower() == "image_src" and (found := _absolute(page, link.get("href"))):
            return found
    return None
