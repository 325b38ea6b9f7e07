"""The article's lead (standfirst, dek, summary paragraph), where the page has one.

Generic signs, in order: the lead the body method found set before the body's block
(:func:`..methods.auto.lead_before`: marked as a lead or the one paragraph of the article
header); the body's first lines held by an element whose class or id names a lead
(:data:`LEAD_NAMES`: ``lead``, ``standfirst``, ``summary``, ``teaser``, ``intro``..., also in
camelCase, ``elementLead``, ``leadIn``), one line or several (a summary list); the first prose
line after a headline the body's block holds (:func:`after_headline`); one of its first lines that
the page's own meta description restates, when it is set apart from the paragraph after it
(:func:`set_apart`); a first line set apart in bold or as a sentence-long heading (a dek written as
``<h2>``; not the headline, not a box title over a list) or an opening ``<p>`` in a class of its own
(:func:`styled_opening`); the element outside the body marked as a standfirst
(:func:`header_lead`) or showing the description; else the standfirst by position, under the
headline and before the body (:func:`headline_lead`).

A standfirst the page shows above the body's block, before it or under the headline, is part of
the article as a reader sees it (:func:`placed_lead`): :func:`with_standfirst` puts it first among
the body's lines, for ``text`` and its renderings.
"""

from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache
from itertools import islice

from .. import dom
from ..body import Body
from ..hints import is_hidden
from ..page import Page
from ..render.blocks import HEADING_DEK_CHARS
from ..stopwords import stopword_matcher
from ..tokens import tokenize
from .title import similarity

FIRST_LINES = 3  # body lines looked at for a lead
MARKUP_LEVELS = 3  # paragraphs of a lead-marked element searched for the lead
RUN_LINES = 6  # body lines a lead-marked run of lines may reach
LEAD_COVER = 0.8  # share of a lead-marked element's text its lead lines cover at least
DESCRIPTION_OVERLAP = 0.6  # token F1 between a line and the description that makes it the lead
MIN_LEAD_CHARS = 40  # a shorter description is a label, not a standfirst
MAX_LEAD_CHARS = 800  # non-space characters of a standfirst at most
MAX_HEADER_LEADS = 6  # lead-marked elements before the body beyond which they are teasers
LENGTH_SLACK = 0.3  # an element shown as the description differs in length by at most this share
SHOWN_OVERLAP = 0.8  # token F1 between the element's text and the description
LEAD_LINK_SHARE = 0.3
_NOT_LEADS = frozenset({"body", "html", "title", "a", "li", "td", "th", "figcaption", "h1", "option"})
HEADLINE_SIMILARITY = 0.8  # He (2019) similarity at which a line is the headline
HEADER_MIN_CHARS = 30  # a standfirst under the headline named so or ending a sentence may be this short
HEADER_SCAN = 400  # elements read after the headline while looking for its standfirst
HEADER_LINES = 5  # body lines after a headline in the body looked at for its standfirst
# Share of the lead's words one of the body's first lines repeats that makes it a restatement (the
# body method's own rule, ``methods.auto._restates``, counts half of the longer words).
RESTATED_SHARE = 0.5
HOLDER_SLACK_CHARS = 2000  # body text read past the lead's lines while looking for their elements
_BOLD = frozenset({"strong", "b"})
_DEK_HEADINGS = frozenset({"h2", "h3", "h4", "h5", "h6"})
# Subtrees under the headline that hold no standfirst: pictures, their captions, menus, lists, forms.
_NOT_HEADER_LEADS = frozenset({"figure", "figcaption", "picture", "nav", "aside", "ul", "ol", "form",
                               "button", "a", "time", "address", "table", "script", "style", "noscript",
                               "template"})
_CAPTION = re.compile(r"(?i:caption|credit)")  # around a picture's caption: none of it is a standfirst
_BYLINE = re.compile(r"(?i:byline|author|dateline)")  # the byline itself, not its wrapper
_SENTENCE_ENDS = ".!?\u2026\u3002\uff01\uff1f"
_CLOSING = "\"'\u201d\u2019\u00bb)"
# Class or id words naming a lead: after a separator in any case, or a capitalised camelCase part.
_WORDS = ("lead|standfirst|intro(?:duction)?|excerpt|abstract|summary|synopsis|strapline|teaser|dek|deck|"
          "chapo|chapeau|bajada|entradilla|sumario|vorspann|einleitung|preface|preamble|ingress|"
          "sub-?headline|sub-?title")
_HEADER_WORDS = ("standfirst|excerpt|abstract|summary|synopsis|strapline|dek|chapo|chapeau|bajada|entradilla|"
                 "sumario|vorspann|einleitung|preamble|ingress|sub-?title")
HEADER_LEAD_NAMES = re.compile(
    rf"(?:(?:^|[-_ ])(?i:{_HEADER_WORDS})|(?<=[a-z])(?:Standfirst|Excerpt|Summary|Synopsis|Dek))"
    r"(?:$|[-_ 0-9]|(?=[A-Z]))"
)
LEAD_NAMES = re.compile(
    rf"(?:(?:^|[-_ ])(?i:{_WORDS})|(?<=[a-z])(?:Lead|Standfirst|Intro|Excerpt|Summary|Synopsis|Teaser|Dek))"
    r"(?:$|[-_ 0-9]|(?=[A-Z]))"
)


def _overlap(a: str, b: str) -> float:
    return _token_f1(Counter(tokenize(a)), Counter(tokenize(b)))


def _token_f1(ta: Counter, tb: Counter) -> float:
    """Token F1 of two token counts (``Counter.__and__`` builds a third counter: slower)."""
    common = sum(min(n, tb[token]) for token, n in ta.items() if token in tb)
    if not common:
        return 0.0
    p, r = common / sum(ta.values()), common / sum(tb.values())
    return 2 * p * r / (p + r)


def find_lead(page: Page, body: Body, title: str | None, description: str | None) -> str | None:
    return placed_lead(page, body, title, description)[0]


def placed_lead(page: Page, body: Body, title: str | None,
                description: str | None) -> tuple[str | None, bool]:
    """The lead, and whether the page shows it as the article's opening: set just before the
    body's block or under the headline, above the block (not a marked or restated element
    elsewhere on the page, which a reader need not take for part of the article)."""
    if body.root is None:
        return None, False
    from ..methods.auto import lead_before

    try:
        found = lead_before(body.root, page, title)
    except (ValueError, RecursionError):
        found = None
    if found:
        return found, True
    every = body.text_paragraphs()
    lines = every[:FIRST_LINES]
    if not lines:
        return None, False
    found = marked_lead(body, every) or after_headline(body, every, title)
    if found:
        return found, False
    restated = description_line(lines, description) if description else None
    line = restated or lines[0]
    held, after = _holders(body, line, every[:FIRST_LINES + 1])
    if held is not None and set_apart(held, after):
        if restated:
            return restated, False
        if after is not None and len(line) >= MIN_LEAD_CHARS and not _is_headline(line, title) and (
                (held.tag in _BOLD or held.tag in _DEK_HEADINGS and len(line) >= HEADING_DEK_CHARS)
                and after.tag != "li" or styled_opening(held, after, line, lines)):
            return line, False  # a bold line or heading over a list is the title of a box (key points)
    under = headline_lead(page, body, title)
    if restated:
        # The description restates the body's opening, written like the paragraph after it: the
        # opening is no lead; a standfirst under the headline the description restates better is.
        if under and _overlap(under, description) > _overlap(restated, description):
            return under, True
        return None, False
    found = header_lead(page, body) or (shown_description(page, description) if description else None)
    if under is None or found and found != under:
        return found, False
    # The one paragraph under the headline that the description restates opens the article; of
    # two, neither does. Position alone also finds taglines, bylines and unmarked captions there
    # (dragnet: 11 of 13 such lines are not body text).
    restates = description is not None and _overlap(under, description) >= DESCRIPTION_OVERLAP
    return under, restates and len(list(islice(_header_paragraphs(page, body, title), 2))) == 1


def with_standfirst(lines: list[str], lead: str | None) -> list[str]:
    """``lines`` with ``lead``'s lines put first when none of them is in the body and none of the
    body's first lines restates it (a standfirst shown above the body's block,
    :func:`placed_lead`), else ``lines`` as they are."""
    if not lead:
        return lines
    text = _squeezed("".join(lines))
    lead_lines = [line for line in lead.split("\n") if line.strip()]
    if any(_squeezed(line) in text for line in lead_lines):
        return lines
    words = Counter(tokenize(lead))
    if words and any(sum((words & Counter(tokenize(line))).values()) >= RESTATED_SHARE * sum(words.values())
                     for line in lines[:FIRST_LINES]):
        return lines  # the opening restates it (news agencies repeat the lead in the first paragraph)
    return [*lead_lines, *lines]


def after_headline(body: Body, lines: list[str], title: str | None) -> str | None:
    """When the body's block opens with the article header (the headline among its first
    lines), the first line of prose after the headline, past the byline and date lines, when it
    is set apart from the paragraph after it (:func:`set_apart`): the standfirst in the header."""
    start = next((i for i, line in enumerate(lines[:FIRST_LINES]) if _is_headline(line, title)), None)
    if start is None:
        return None
    for i in range(start + 1, min(start + 1 + HEADER_LINES, len(lines) - 1)):
        line = lines[i]
        if len(line) < MIN_LEAD_CHARS:
            continue  # the byline, the date, a kicker
        if len(lines[i + 1]) < MIN_LEAD_CHARS:
            return None
        held, after = _holders(body, line, lines)
        return line if held is not None and after is not None and set_apart(held, after) else None
    return None


def _is_headline(line: str, title: str | None) -> bool:
    """Whether ``line`` is the headline, alone or after its kicker (``Premiere in X - <headline>``)."""
    return bool(title) and (title in line or similarity(line, title) >= HEADLINE_SIMILARITY)


def _ends_sentence(text: str) -> bool:
    return text.rstrip(_CLOSING)[-1:] in _SENTENCE_ENDS


def styled_opening(held, after, line: str, lines: list[str]) -> bool:
    """Whether the body's opening ``line`` is a standfirst set in a paragraph style of its own:
    held by a ``<p>`` whose class the paragraph after it, a ``<p>`` too and as long as a line of
    prose, does not share (``<p class="font-medium">`` or ``<p class="css-1485smx">`` before the
    body's ``<p>``s: the class is a style, its name often generated, so only the difference counts)."""
    if held.tag != "p" or after.tag != "p" or not held.get("class"):
        return False
    i = lines.index(line)
    following = lines[i + 1] if i + 1 < len(lines) else ""
    return len(following) >= MIN_LEAD_CHARS


def headline_lead(page: Page, body: Body, title: str | None) -> str | None:
    """The standfirst set under the headline, outside the body's block: the first paragraph (or a
    heading written as a sentence, a dek in ``<h2>``) after the ``<h1>`` that shows ``title`` and
    before the body, that reads as prose (:data:`MIN_LEAD_CHARS`-:data:`MAX_LEAD_CHARS`
    characters, or :data:`HEADER_MIN_CHARS` for a sentence or a text named a lead; a stop word,
    few links), not a picture's caption or credit,
    a byline, a menu or a list.

    Position is the evidence, not names: sites whose class names are generated (``css-1485smx``,
    ``sc-e17c7982-2``) or plain (``<p>``, ``<h3>``) set the standfirst there as well as those
    that name it (``strapline``, ``post__excerpt``)."""
    return next(_header_paragraphs(page, body, title), None)


def _header_paragraphs(page: Page, body: Body, title: str | None):
    """The paragraphs :func:`headline_lead` would take, in page order."""
    if not title:
        return
    headline = next((h for h in page.body.iter("h1")
                     if _is_headline(dom.normalize_space(dom.node_text(h)), title)), None)
    if headline is None or headline is body.root or body.root in set(headline.iterancestors()):
        return
    passed, seen = set(headline.iter()), 0
    matcher, started = None, False
    for el in page.body.iter():
        if el is headline:
            started = True
            continue
        if not started or el in passed or not isinstance(el.tag, str):
            continue
        if el is body.root:
            return
        seen += 1
        if seen > HEADER_SCAN:
            return
        if el.tag in _NOT_HEADER_LEADS or _CAPTION.search(el.get("class") or "") or is_hidden(el):
            passed.update(el.iter())
            continue
        if el.tag != "p" and el.tag not in _DEK_HEADINGS or _BYLINE.search(el.get("class") or ""):
            continue
        text = dom.normalize_space(dom.node_text(el))
        if len(text) < MIN_LEAD_CHARS and not (len(text) >= HEADER_MIN_CHARS and (
                _ends_sentence(text) or _names_lead(el))):
            continue  # the byline, the date, a kicker
        if len(text) > MAX_LEAD_CHARS:
            return
        if el.tag != "p" and not (len(text) >= HEADING_DEK_CHARS and _ends_sentence(text)):
            continue  # a second headline, a section title
        links = sum(len(dom.normalize_space(dom.node_text(a))) for a in el.iter("a"))
        if links > LEAD_LINK_SHARE * len(text) or _is_headline(text, title):
            continue
        matcher = matcher or stopword_matcher(page.language)
        if matcher(text):
            yield text


def header_lead(page: Page, body: Body) -> str | None:
    """The one element before the body, outside it, whose class or id names a standfirst
    (:data:`HEADER_LEAD_NAMES`: ``excerpt``, ``strapline``, ``synopsis``, ``standfirst``...; not
    ``teaser``, which lists of other articles use) and that reads as prose: the lead a page sets
    in the article header, beside the headline.  Several such texts are teasers: none is taken."""
    above = set(body.root.iterancestors())
    found: list = []
    for el in page.body.iter():
        if el is body.root:
            break
        cls, ident = el.get("class"), el.get("id")
        if not (cls and _header_lead_word(cls) or ident and _header_lead_word(ident)) or \
                el in above or el.tag in _NOT_LEADS or not isinstance(el.tag, str):
            continue
        length = len(_squeezed_upto(el, MAX_LEAD_CHARS))
        if not MIN_LEAD_CHARS <= length <= MAX_LEAD_CHARS:
            continue
        links = sum(len(_squeezed_upto(a, length)) for a in el.iter("a"))
        if links <= LEAD_LINK_SHARE * length:
            found.append(el)
            if len(found) > MAX_HEADER_LEADS:
                return None  # a list of teasers
    inner = [el for el in found if not any(el in other.iterancestors() for other in found)]
    texts = {dom.normalize_space(dom.node_text(el)) for el in inner}
    return texts.pop() if len(texts) == 1 else None


def marked_lead(body: Body, lines: list[str]) -> str | None:
    """The body's first line, or a run of its first :data:`RUN_LINES` lines (a summary list, a
    standfirst of several paragraphs), held by an element whose class or id names a lead
    (:data:`LEAD_NAMES`) and that holds little else (:data:`LEAD_COVER` of its text: not a
    ``summary`` class on the whole story), or by one of the first paragraphs of such an element."""
    first = lines[:min(RUN_LINES, len(lines) - 1)]  # a lead leaves text after it
    keys = [_squeezed(line) for line in first]
    for el in body.root.iter():
        if not isinstance(el.tag, str) or el in body.skip or not _names_lead(el):
            continue
        whole = _squeezed(dom.node_text(el))
        for start in range(min(FIRST_LINES, len(first))):
            covered, end = 0, start
            while end < len(first) and keys[end] and whole.startswith(keys[end], covered):
                covered += len(keys[end])
                end += 1
            joined = "\n".join(first[start:end])
            if end > start and len(joined) >= MIN_LEAD_CHARS and covered >= LEAD_COVER * len(whole):
                return joined
        for inner in islice(el.iter("p"), MARKUP_LEVELS):  # a lead-marked wrapper around the lead's paragraph
            key = _squeezed(dom.node_text(inner))
            if key in keys[:FIRST_LINES] and len(key) >= LEAD_COVER * len(whole):
                return first[keys.index(key)]
    return None


def _names_header_lead(el) -> bool:
    cls, ident = el.get("class"), el.get("id")
    return bool(cls and _header_lead_word(cls) or ident and _header_lead_word(ident))


@lru_cache(maxsize=8192)
def _header_lead_word(value: str) -> bool:
    return HEADER_LEAD_NAMES.search(value) is not None


def _names_lead(el) -> bool:
    cls, ident = el.get("class"), el.get("id")
    return bool(cls and _lead_word(cls) or ident and _lead_word(ident))


@lru_cache(maxsize=8192)  # class lists repeat through a page and across a site's pages
def _lead_word(value: str) -> bool:
    return LEAD_NAMES.search(value) is not None


def description_line(lines: list[str], description: str) -> str | None:
    """One of the body's first ``lines`` that the meta description restates."""
    for line in lines:
        if len(line) >= MIN_LEAD_CHARS and _overlap(line, description) >= DESCRIPTION_OVERLAP:
            return line
    return None


def _holders(body: Body, line: str, lines: list[str]) -> tuple:
    """The innermost elements of the body holding ``line`` and the line after it (None: not one
    element's text)."""
    i = lines.index(line)
    following = lines[i + 1] if i + 1 < len(lines) else None
    budget = sum(map(len, lines[: i + 2])) + HOLDER_SLACK_CHARS
    if following is None:
        return _holder(body, [line], budget)[0], None
    held, after = _holder(body, [line, following], budget)
    return held, after


def _holder(body: Body, lines: list[str], budget: int) -> list:
    """For each of ``lines``, the innermost element whose text is that line: an ancestor of the
    first text node that starts it, among the body's text within ``budget`` characters of its
    start (the lead is one of its first lines), its ancestors' text read only up to the line's
    length.  One walk of the text for all the lines."""
    keys = [_squeezed(line) for line in lines]
    found: list = [None] * len(keys)
    looking = list(range(len(keys)))
    seen = 0
    for owner, text in dom.iter_text_nodes(body.root, body.skip):
        piece = _squeezed(text)
        if not piece:
            continue
        for k in looking:
            key = keys[k]
            if not key.startswith(piece):
                continue
            node = owner
            while node is not None:
                held = _squeezed_upto(node, len(key))
                if held == key:
                    found[k] = node
                    break
                if len(held) > len(key) or node is body.root:
                    break
                node = node.getparent()
        looking = [k for k in looking if found[k] is None]
        if not looking:
            break
        seen += len(piece)
        if seen > budget:
            break
    return found


def _squeezed_upto(el, limit: int) -> str:
    """``el``'s text without white space, read until it is longer than ``limit``."""
    parts, size = [], 0
    for text in el.itertext():
        piece = _squeezed(text)
        parts.append(piece)
        size += len(piece)
        if size > limit:
            break
    return "".join(parts)


def set_apart(held, after) -> bool:
    """Whether the element ``held`` holding a line is set apart from the one holding the next line:
    another tag or class (``<p class="intro">`` before ``<p>``s, a ``<strong>`` paragraph, an
    ``<h2>`` dek), or no paragraph after it.  A first paragraph written like the others is the
    article's opening, not a standfirst, even when the description restates it (CMSs fill the
    description from the first paragraph: on fundus 31 of the 93 lines the description restated
    were no lead, and 28 of those were written like the next paragraph)."""
    return after is None or _style(held) != _style(after)


_DIGITS = str.maketrans("", "", "0123456789")


def _style(el) -> tuple:
    """An element's tag and class, the class without digits: ``par1`` and ``par2`` number the
    paragraphs of one style."""
    return el.tag, (el.get("class") or "").translate(_DIGITS).strip()


def _squeezed(text: str) -> str:
    return "".join(text.split())


def shown_description(page: Page, description: str) -> str | None:
    """The visible text of the first element whose text the meta description restates: a
    standfirst the page shows outside the body's block (in the article header, a teaser box).

    Only elements of about the description's length are read (:attr:`.Page.lengths`, which the
    body methods computed already), so the search costs one pass over a dict."""
    target = dom.non_space_len(description)
    if target < MIN_LEAD_CHARS:
        return None
    low, high = target * (1 - LENGTH_SLACK), target * (1 + LENGTH_SLACK)
    wanted = None
    for el, (length, links) in page.lengths.items():
        if low <= length <= high and links <= LEAD_LINK_SHARE * length and el.tag not in _NOT_LEADS:
            text = dom.normalize_space(dom.node_text(el))
            if wanted is None:
                wanted = Counter(tokenize(description))
            if _token_f1(Counter(tokenize(text)), wanted) >= SHOWN_OVERLAP:
                return text
    return None
