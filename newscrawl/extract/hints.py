"""Structural hints shared by the combined and learned methods: how an element's name,
class, id and role bear on whether its text is article body.

The patterns are the conventions of the web at large (they follow Mozilla
Readability's candidate regexes), not rules for particular sites.
"""

from __future__ import annotations

import re

from lxml import html

NEGATIVE = re.compile(
    r"comment|disqus|respond|reply|replies|sidebar|side-bar|widget|related|recommend|popular|trending|"
    r"most-read|mostread|share|sharing|social|newsletter|subscribe|signup|promo|sponsor|advert|"
    r"(?:^|[-_ ])ads?(?:$|[-_ ])|banner|breadcrumb|pagination|pager|footer|foot(?:$|[-_ ])|"
    r"copyright|cookie|gdpr|consent|modal|popup|overlay|masthead|navbar|(?:^|[-_ ])nav(?:$|[-_ ])|"
    r"menu|toolbar|tags?(?:$|[-_ ])|byline|author-bio|caption|credit|outbrain|taboola|skip-link|"
    r"read-more|readmore|more-stories|next-article|prev-article|print-only|visually-hidden|sr-only",
    re.IGNORECASE,
)
POSITIVE = re.compile(
    r"article|body|content|entry|hentry|h-entry|main|post|text|blog|story|detail|news|"
    r"zhengwen|neirong|正文",
    re.IGNORECASE,
)
NEGATIVE_TAGS = frozenset({"nav", "aside", "footer", "header", "menu", "dialog", "figcaption"})
STRONG_POSITIVE = re.compile(
    r"(?:article|story|post|entry|news)[-_]*(?:body|content|text)|body[-_]*text|main[-_]*text", re.I
)
STRONG = 1.5

HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.IGNORECASE)


def descriptor(el: html.HtmlElement) -> str:
    return f"{el.get('class') or ''} {el.get('id') or ''} {el.get('role') or ''}"


def is_hidden(el: html.HtmlElement) -> bool:
    """Hidden from readers: ``hidden``/``aria-hidden`` attributes or an inline ``display:none``."""
    if el.get("hidden") is not None or el.get("aria-hidden") == "true":
        return True
    style = el.get("style")
    return bool(style and HIDDEN_STYLE.search(style))


def element_weight(el: html.HtmlElement) -> float:
    """How much an element's own markup says its text is body: 0 (noise) … 1.5 (body)."""
    if el.get("itemprop") == "articleBody":
        return STRONG
    desc = descriptor(el)
    tag = el.tag if isinstance(el.tag, str) else ""
    if STRONG_POSITIVE.search(desc):
        return STRONG
    negative = tag in NEGATIVE_TAGS or (desc.strip() and NEGATIVE.search(desc))
    positive = tag in ("article", "main") or (desc.strip() and POSITIVE.search(desc))
    if negative and not positive:
        return 0.0
    if positive and not negative:
        return 1.25
    return 1.0
