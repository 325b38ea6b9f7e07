"""The numbers the page-type model reads from a parsed page (no Scrapy imports).

:func:`page_features` gives one row of :data:`FEATURES`, from one walk of the cleaned tree
(:func:`~newscrawl.extract.page_signals.page_signals`: text, link text, headline links, teaser
items, the longest run of prose, elements by tag, class names, price- and date-like tokens),
the page's declared types (JSON-LD ``@type``, ``og:type``), its URL's shape and a few counts
of the source the clean-up drops (inputs, buttons, selects).  Counts enter as ``log1p``, so
one large page does not weigh like many.
"""

from __future__ import annotations

import math
import re
from urllib.parse import urlsplit

from .page import Page
from .page_signals import SETTLING_TYPES, PageSignals, page_signals

# JSON-LD @type groups (lower-cased).
_LD_GROUPS = {
    "ld_article": SETTLING_TYPES,
    "ld_tech": {"techarticle", "apireference", "howto", "faqpage"},
    "ld_listing": {"collectionpage", "itemlist", "searchresultspage", "blog", "breadcrumblist"},
    "ld_product": {"product", "offer", "aggregateoffer", "productgroup", "aggregaterating",
                   "individualproduct"},
    "ld_forum": {"discussionforumposting", "qapage", "question", "answer", "comment", "socialmediaposting"},
    "ld_service": {"service", "localbusiness", "organization", "professionalservice", "contactpage",
                   "aboutpage", "event", "course", "softwareapplication", "educationalorganization"},
    "ld_webpage": {"webpage", "website"},
}
_OG = ("article", "website", "product", "blog", "")

# Words in the URL's path (lower-cased), by group.
_URL_SHOP = re.compile(r"product|shop|store|cart|checkout|/p/|/dp/|/item|buy|pricing|catalog")
_URL_FORUM = re.compile(r"forum|thread|topic|community|discuss|/t/|questions|answers|board|viewtopic")
_URL_DOCS = re.compile(r"docs?/|documentation|/api|reference|/help|support|guide|manual|tutorial"
                       r"|/wiki|faq")
_URL_SERVICE = re.compile(r"service|about|contact|pricing|login|account|signup|register|solutions|plans")
_URL_LIST = re.compile(r"/tags?/|/categor|/topics?/|/section|/archive|/page/\d|/search"
                       r"|/blog/?\Z|/news/?\Z")
_URL_NEWS = re.compile(r"news|article|story|/blog/.|/post|/\d{4}/\d{2}/|opinion|politic")
_URL_WORDS = {"url_shop": _URL_SHOP, "url_forum": _URL_FORUM, "url_docs": _URL_DOCS,
              "url_service": _URL_SERVICE, "url_list": _URL_LIST, "url_news": _URL_NEWS}
_DIGIT_RUN = re.compile(r"\d{5,}")
_DATE_PATH = re.compile(r"/(?:19|20)\d\d/\d{1,2}/|/(?:19|20)\d\d-?\d\d-?\d\d|/(?:19|20)\d\d/")

_TAGS = ("p", "li", "h1", "h2", "h3", "table", "tr", "pre", "code", "img", "article", "time", "dl",
         "form", "nav", "aside", "a", "blockquote", "figure", "ul", "span", "div")
_CLASS_WORDS = ("comment", "reply", "post", "thread", "forum", "message", "product", "price", "cart",
                "sku", "toc", "sidebar", "breadcrumb", "highlight", "pagination", "card", "menu",
                "author", "share", "related", "review")
_SOURCE = ("<input", "<button", "<select", "<textarea")

FEATURES: tuple[str, ...] = (
    "text", "link_share", "headline_links", "longest_run", "run_share", "teaser_items",
    "error_title", "password", "form", "prices", "dates", "headline_share",
    *_LD_GROUPS, "ld_none", *(f"og_{v or 'none'}" for v in _OG), "og_other",
    "url_depth", "url_date", "url_digits", "url_slug", "url_slug_words", "url_slash", "url_query",
    "url_home", "url_section", "url_html", *_URL_WORDS,
    *(f"tag_{t}" for t in _TAGS), "p_share", "li_share",
    *(f"class_{w}" for w in _CLASS_WORDS), *(f"src_{s[1:]}" for s in _SOURCE),
)


def _log(n: float) -> float:
    return math.log1p(max(n, 0))


def features_of(page: Page, s: PageSignals) -> list[float]:
    """The row of :data:`FEATURES` for ``page`` and its signals."""
    row = [
        _log(s.text), s.link_share, _log(s.headline_links), _log(s.longest_run),
        s.longest_run / s.text if s.text else 0.0, _log(s.teaser_items),
        float(s.error_title), float(s.password), float(s.form), _log(s.prices), _log(s.dates),
        s.headline_links / (1 + s.text / 200),
    ]
    ld = s.ld_types
    row += [float(bool(ld & group)) for group in _LD_GROUPS.values()]
    row.append(float(not ld))
    row += [float(s.og_type == v) for v in _OG]
    row.append(float(s.og_type not in _OG))
    row += _url_row(page.url, s)
    tags = s.tags
    row += [_log(tags.get(t, 0)) for t in _TAGS]
    blocks = tags.get("p", 0) + tags.get("li", 0) + 1
    row += [tags.get("p", 0) / blocks, tags.get("li", 0) / blocks]
    row += [_log(s.class_words.get(w, 0)) for w in _CLASS_WORDS]
    source = page.text
    row += [_log(source.count(tag)) for tag in _SOURCE]
    return row


def _url_row(url: str | None, s: PageSignals) -> list[float]:
    try:
        parts = urlsplit(url or "")
    except ValueError:
        parts = urlsplit("")
    path = parts.path.lower()[:500]
    segments = [seg for seg in path.split("/") if seg]
    slug = segments[-1] if segments else ""
    row = [
        float(len(segments)), float(bool(_DATE_PATH.search(path))), float(bool(_DIGIT_RUN.search(path))),
        _log(len(slug)), float(slug.count("-") + slug.count("_")), float(path.endswith("/")),
        float(bool(parts.query)), float(s.index_url == "home"), float(s.index_url == "section"),
        float(slug.endswith((".html", ".htm", ".shtml", ".php", ".aspx"))),
    ]
    row += [float(bool(pattern.search(path))) for pattern in _URL_WORDS.values()]
    return row


def page_features(page: Page) -> tuple[list[float], PageSignals]:
    """The feature row of ``page`` and the signals it was read from (one walk)."""
    signals = page_signals(page)
    return features_of(page, signals), signals
