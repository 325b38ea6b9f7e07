"""The article's lead (standfirst, dek, summary paragraph), where the page has one.

Three generic signs, in order: the lead the body method found set before the body's block
(:func:`..methods.auto.lead_before`: marked as a lead or the one paragraph of the article
header); one of the body's first lines held by an element whose class or id names a lead
(``lead``, ``standfirst``, ``teaser``, ``intro``...); one of its first lines that the page's own
meta description restates (publishers reuse the standfirst as the description).
"""

from __future__ import annotations

from collections import Counter
from itertools import islice

from .. import dom
from ..body import Body
from ..page import Page
from ..tokens import tokenize

FIRST_LINES = 3  # body lines looked at for a lead
DESCRIPTION_OVERLAP = 0.6  # token F1 between a line and the description that makes it the lead
MARKUP_LEVELS = 3  # paragraphs of a lead-marked element searched for the lead
MIN_LEAD_CHARS = 40  # a shorter description is a label, not a standfirst
LENGTH_SLACK = 0.3  # an element shown as the description differs in length by at most this share
SHOWN_OVERLAP = 0.8  # token F1 between the element's text and the description
LEAD_LINK_SHARE = 0.3
_NOT_LEADS = frozenset({"body", "html", "title", "a", "li", "td", "th", "figcaption", "h1", "option"})


def _overlap(a: str, b: str) -> float:
    ta, tb = Counter(tokenize(a)), Counter(tokenize(b))
    common = sum((ta & tb).values())
    if not common:
        return 0.0
    p, r = common / sum(ta.values()), common / sum(tb.values())
    return 2 * p * r / (p + r)


def find_lead(page: Page, body: Body, title: str | None, description: str | None) -> str | None:
    if body.root is None:
        return None
    from ..methods.auto import _names_lead, lead_before

    try:
        found = lead_before(body.root, page, title)
    except (ValueError, RecursionError):
        found = None
    if found:
        return found
    lines = body.text_paragraphs()[:FIRST_LINES]
    if not lines:
        return None
    wanted = set(lines)
    for el in body.root.iter():
        if not isinstance(el.tag, str) or not _names_lead(el.get("class"), el.get("id")) or el in body.skip:
            continue
        text = dom.normalize_space(dom.node_text(el))
        if text in wanted:
            return text
        inner = next((x for x in islice(el.iter("p"), MARKUP_LEVELS) if dom.normalize_space(dom.node_text(x))
                      in wanted), None)  # a lead-marked wrapper around the lead's paragraph
        if inner is not None:
            return dom.normalize_space(dom.node_text(inner))
    if description:
        for line in lines:
            if len(line) >= 40 and _overlap(line, description) >= DESCRIPTION_OVERLAP:
                return line
        return shown_description(page, description)
    return None


def shown_description(page: Page, description: str) -> str | None:
    """The visible text of the first element whose text the meta description restates: a
    standfirst the page shows outside the body's block (in the article header, a teaser box).

    Only elements of about the description's length are read (:attr:`.Page.lengths`, which the
    body methods computed already), so the search costs one pass over a dict."""
    target = dom.non_space_len(description)
    if target < MIN_LEAD_CHARS:
        return None
    low, high = target * (1 - LENGTH_SLACK), target * (1 + LENGTH_SLACK)
    for el, (length, links) in page.lengths.items():
        if low <= length <= high and links <= LEAD_LINK_SHARE * length and el.tag not in _NOT_LEADS:
            text = dom.normalize_space(dom.node_text(el))
            if _overlap(text, description) >= SHOWN_OVERLAP:
                return text
    return None
