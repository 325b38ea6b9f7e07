""":func:`infer_article_pattern`: a regular expression for a site's article URLs (no Scrapy imports).

Built from the URL templates (:func:`newscrawl.discovery.url_forms.url_template`) most of the found
article links share, checked to match every URL it came from and none of the section URLs,
and refused when it would nest quantifiers (:func:`nested_quantifier`: the pattern is run on
untrusted URLs, so it must stay linear-time).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from re import _constants as sre_constants
from re import _parser as sre_parse
from urllib.parse import urlsplit

from newscrawl.discovery import links
from newscrawl.discovery.url_forms import url_template

MAX_TEMPLATES = 3  # URL templates an inferred article pattern may join


_DIGIT_RE = re.compile(r"\d")  # a word with a digit (2024-05) changes: no literal in a pattern


_PLACEHOLDER_RE = {"D": r"\d{%s}", "S": r"[\w.~%%-]+", "I": r"[0-9A-Za-z]+", "w": r"[\w.~%%-]+"}


_MAX_LITERALS = 6  # a "w" position with at most this many words found becomes their alternation



def infer_article_pattern(article_urls: Iterable[str], section_urls: Iterable[str] = ()) -> str | None:
    """A regular expression (for ``re.search`` on the URL) matching the site's article URLs:
    the URL templates shared by at least :data:`newscrawl.discovery.links.TEMPLATE_SUPPORT` of
    ``article_urls`` that together cover most of them (at most :data:`MAX_TEMPLATES`).
    None when no template is shared, or when the pattern would match a section URL.

    The pattern is linear-time by construction: anchored at the start, one bounded
    character class or literal per path segment, no nested quantifiers
    (:func:`nested_quantifier` checks).
    """
    by_template: dict[str, list[str]] = {}
    for url in dict.fromkeys(article_urls):
        by_template.setdefault(url_template(url), []).append(url)
    ranked = sorted(by_template.items(), key=lambda item: -len(item[1]))
    total = sum(len(urls) for urls in by_template.values())
    chosen, covered = [], 0
    for template, urls in ranked[:MAX_TEMPLATES]:
        if len(urls) < links.TEMPLATE_SUPPORT or "?" in template or not template:
            break
        regex = _matching_regex(template, urls)
        if regex is None:
            continue  # its own URLs defeat it: not proposed
        chosen.append(regex)
        covered += len(urls)
        if covered >= 0.8 * total:
            break
    if not chosen:
        return None
    pattern = _anchored(chosen[0] if len(chosen) == 1 else "(?:" + "|".join(chosen) + ")")
    compiled = re.compile(pattern)
    if nested_quantifier(pattern) or any(compiled.search(url) for url in section_urls):
        return None
    return pattern



def _anchored(body: str) -> str:
    return r"^https?://[^/?#]+/" + body + r"/?(?:[?#]|$)"



def _matching_regex(template: str, urls: list[str]) -> str | None:
    """The regex of ``template`` that matches every one of ``urls``, the URLs it was inferred from:
    the tight one, else one whose id positions take any URL word (``content_100000`` is
    an ``I`` to the template but no ``[0-9A-Za-z]+``); None when neither does."""
    for wide in (False, True):
        regex = _template_regex(template, urls, wide)
        anchored = _anchored(regex)  # linear by construction, as infer_article_pattern's
        compiled = re.compile(anchored)
        if all(compiled.search(url) for url in urls):
            return regex
    return None



def _template_regex(template: str, urls: list[str], wide: bool = False) -> str:
    """One template as a regex; a ``w`` position keeps its words when few and without digits
    (``story|review``, not ``2024-05``, which next month's articles will not have);
    ``wide``, an id or slug position takes any run of URL word characters."""
    shapes = template.split("/")
    paths = [[s for s in urlsplit(url).path.split("/") if s] for url in urls]
    parts = []
    for i, shape in enumerate(shapes):
        stem, dot, ext = shape.partition(".")
        if stem.startswith("D"):
            regex = _PLACEHOLDER_RE["D"] % stem[1:]
        elif stem == "w":
            words = {p[i].rsplit(".", 1)[0] if dot else p[i] for p in paths if len(p) > i}
            if len(words) <= _MAX_LITERALS and all(words) and not any(map(_DIGIT_RE.search, words)):
                regex = "(?:" + "|".join(sorted(re.escape(w) for w in words)) + ")"
            else:
                regex = _PLACEHOLDER_RE["w"].replace("%%", "%")
        else:
            regex = _PLACEHOLDER_RE["w" if wide else stem].replace("%%", "%")
        parts.append(regex + (re.escape("." + ext) if dot else ""))
    return "/".join(parts)



def nested_quantifier(pattern: str) -> bool:
    """Does ``pattern`` repeat something that itself repeats (``(a+)+``, ``(?:\\w+\\.)*``)?  Such
    patterns can backtrack exponentially; a generated pattern must have none."""

    def walk(items, inside: bool) -> bool:
        for op, arg in items:
            if op in (sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT, sre_constants.POSSESSIVE_REPEAT):
                low, high, sub = arg
                if inside or walk(sub, high > 1 or high == sre_constants.MAXREPEAT):
                    return True
            elif op == sre_constants.SUBPATTERN:
                if walk(arg[-1], inside):
                    return True
            elif op == sre_constants.BRANCH:
                if any(walk(branch, inside) for branch in arg[1]):
                    return True
        return False

    return walk(sre_parse.parse(pattern), False)

