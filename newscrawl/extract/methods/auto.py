"""``auto`` — the default method: Wang et al.'s (2020) valid characters and Chen et al.'s (2012) link nodes,
combined and steered by structural hints, chosen by measurement (README, "Methods").

1. Every text node is *valid* (Wang et al. 2020, Definition 1: outside ``<a>``, holds a stop
   word) or *noise*.  Valid characters inside elements whose markup says boilerplate
   (:mod:`.hints`: comments, sidebars, related lists, hidden elements) are re-counted
   as noise; inside body-like markup they weigh more.
2. The content block is the element that maximises ``valid − λ·noise`` over its
   subtree — a maximum-gain subtree rather than locateCB's single descent, so a body
   split across sibling blocks is kept whole while a longer comment thread next to
   the article is not taken for it.
3. Inside the block, Chen et al.'s (2012) CleanTree removes link nodes (link density > DLmax),
   boilerplate-marked and hidden subtrees, and blocks whose own gain is negative;
   the heading that repeats the title is left out, since the body excludes it.
"""

from __future__ import annotations

import html as html_entities
import re
from functools import lru_cache
from itertools import pairwise

import numpy as np
from lxml import etree, html

from .. import dom
from ..body import Body
from ..fields.title import similarity, voted_headline
from ..hints import (
    MARKUPS,
    MAX_CACHED_MARKUPS,
    NEGATIVE_TAGS,
    STRONG,
    element_weight,
    is_hidden,
    never_body,
    page_region,
    strip_furniture,
    weigh_markup,
    without_second_copy,
)
from ..page import BODY_CLASSES, TEXT_LENGTHS, Page
from ..stopwords import stopword_matcher
from . import embedded as page_data
from .classifier import BODY_CHARS
from .decay import DL_MAX, is_link_node

try:  # Gain's per-element pass compiled (newscrawl/extract/_speedups.pyx); the same loop below otherwise
    from .._speedups import gain_pass, led_items, markup_weights, teaser_groups
except ImportError:  # not built, or NEWSCRAWL_PURE_PYTHON=1
    gain_pass = led_items = markup_weights = teaser_groups = None

LAMBDA = 0.75
KEEP_SHARE = 0.5
JSON_LD_SHORTFALL = 0.5
# Below this many characters the page rendered little or no body: look for it in the page's
# script data, its noscripts, then the content-marked element around the block.
SCRIPT_BODY_BELOW = 200
HEADLINE_SIMILARITY = 0.8
MU = 0.5
MAX_WEIGHT = 1.5
_RANK = re.compile(r"#?(\d{1,3})[.):]?\s")  # a ranking's number: "2. ", "#2 ", "2) "
RANKED_MIN_ENTRIES = 3
ENTRY_MIN_SIBLINGS, ENTRY_MIN_PROSE = 3, 300
_WORDED = re.compile(r"[^\W\d_]")  # a letter of any script
# The attributes hints.markup_key reads; an element with none of them weighs as its bare tag.
MARKUP_ATTRIBUTES = frozenset({"class", "id", "role", "itemprop", "hidden", "aria-hidden", "style"})


class Gain:
    """Per-element valid and noise character counts with the structural weights applied.

    By :class:`~.dom.TreeIndex` position (``index`` maps an element to it): ``valids``,
    ``noises`` and ``link_lengths`` are subtree totals, ``weights`` the markup weights;
    ``hidden`` holds the hidden elements, ``entry_names`` the headings of a ranking's entries
    (:func:`ranked_entries`), which :func:`prune` keeps though they are links.
    """

    def __init__(self, page: Page, cjk_mode: str = "substring", mu: float = 1.0):
        body = page.body
        holds_stopword = stopword_matcher(page.language, cjk_mode)
        tree = dom.TreeIndex(body)  # lists by pre-order position: one list access per element
        self.elements = elements = tree.elements
        in_anchor = tree.in_anchor
        size = len(elements)
        parent = tree.parent
        if gain_pass is not None:  # the same pass in C: same arrays (tests/test_speedups.py)
            own, own_weight, classes, hidden, text_at, tail_at, chars = gain_pass(
                elements, parent, in_anchor, MARKUPS, weigh_markup, holds_stopword, mu)
        else:
            # One pass reads what Gain needs of each element: its text and tail when not just white
            # space (most are indentation), and its attributes once, as a dict (most elements have
            # some; one items() call costs less than the eight get() calls the hints would make).
            texts: list[tuple[int, str]] = []
            own_weight = [1.0] * size
            classes: list[str | None] = [None] * size
            hidden: set[int] = set()
            markups = MARKUPS
            text_at, tail_at = [False] * size, [False] * size  # more than white space?
            text = elements[0].text
            if text and not text.isspace():
                texts.append((0, text))
                text_at[0] = True
            for i in range(1, size):
                el = elements[i]
                text = el.text
                if text and not text.isspace():
                    texts.append((i, text))
                    text_at[i] = True
                text = el.tail
                if text and not text.isspace():
                    texts.append((parent[i], text))
                    tail_at[i] = True
                items = el.items()
                if not items:
                    key = el.tag
                elif len(items) == 1:  # most elements: one attribute, most often a class
                    name, value = items[0]
                    if name == "class":
                        classes[i] = value
                        key = (el.tag, value, None, None, None, False, None, None)
                    elif name in MARKUP_ATTRIBUTES:
                        attributes = {name: value}
                        get = attributes.get
                        key = (el.tag, None, get("id"), get("role"), get("itemprop"), "hidden" in attributes,
                               get("aria-hidden"), get("style"))
                    else:  # an href, a src: weighs as no attribute at all
                        key = el.tag
                else:  # hints.markup_key, inline
                    attributes = dict(items)
                    get = attributes.get
                    classes[i] = cls = get("class")
                    key = (el.tag, cls, get("id"), get("role"), get("itemprop"), "hidden" in attributes,
                           get("aria-hidden"), get("style"))
                found = markups.get(key)
                weight, is_hidden = found if found is not None else weigh_markup(key)
                if is_hidden:
                    hidden.add(i)
                    weight = 0.0
                own_weight[i] = weight

            own_valid, own_noise, own_links = [0] * size, [0] * size, [0] * size
            non_space_len = dom.non_space_len
            chars = 0
            for i, text in texts:
                n = non_space_len(text)
                chars += n
                if in_anchor[i]:
                    own_noise[i] += n
                    own_links[i] += n
                elif holds_stopword(text):
                    own_valid[i] += n
                else:
                    own_noise[i] += mu * n
            own = np.array((own_valid, own_noise, own_links), dtype=np.float64)
        page.derived.setdefault(BODY_CLASSES, classes)
        page.derived.setdefault(BODY_CHARS, chars)  # every text node under <body>: the veto's 1share
        raw_valid, raw_noise, raw_links = tree.subtree_totals(own)
        if mu > 0:  # every element's text and link text length, for Page.lengths (exact: integers)
            text = np.rint(raw_valid + raw_links + (raw_noise - raw_links) / mu).astype(np.int64)
            page.derived.setdefault(TEXT_LENGTHS, (elements, text, raw_links.astype(np.int64)))
        total = float(raw_valid[0]) or 1

        host = dom.host_of(page.url)
        teasers = teaser_items(tree, classes, text_at, tail_at, raw_valid, raw_noise, raw_links, total)
        ranked = ranked_entries(teasers, elements, parent)
        # An entry's name stays though it is a link (prune): without it, its text names nothing.
        self.entry_names = {_entry_heading(elements[i]) for i in ranked}
        teasers -= section_headings(teasers, elements, parent, host) | ranked
        for i in teasers:
            own_weight[i] = 0.0
        for i in marked_entries(elements, parent, own_weight, hidden, classes, raw_valid):
            own_weight[i] = 1.0
        # Whatever holds most of the page's text is the page, whatever its markup says
        # (a paywalled body styled display:none, a layout grid named "sidebar-grid"),
        # unless it names itself a consent dialog or a comment thread.
        keep = KEEP_SHARE * total
        for i in np.flatnonzero(raw_valid > keep).tolist():
            if (
                i
                and own_weight[i] == 0.0
                and not never_body(elements[i])
                and not marked_body_elsewhere(i, tree.end, own_weight, raw_valid)
            ):
                own_weight[i] = 1.0
                hidden.discard(i)
        for i in prose_in_marked_body(tree, own_weight, hidden, raw_valid, raw_noise, raw_links):
            own_weight[i] = 1.0
        self.hidden: set[html.HtmlElement] = {elements[i] for i in hidden}

        weight = _weights(own_weight, parent)
        w = np.array(weight)
        if float(own[0] @ w) < MARKUP_LEFT_SHARE * total:
            # The markup calls nearly all of the page's prose boilerplate, though it sits in a
            # block marked as content (a page builder's "widget" panels in <main>, a
            # "nav-section" around the story): inside content, that markup is not believed where
            # it holds some prose.
            kept = teasers | hidden
            in_content = [False] * size
            for i in range(1, size):
                p = parent[i]
                if not (in_content[p] or own_weight[i] > 1.0) or page_region(elements[i]):
                    continue  # outside content, or a sidebar inside it
                in_content[i] = True
                if own_weight[i] == 0.0 and in_content[p] and raw_valid[i] >= LIFTED_PROSE and i not in kept \
                        and not never_body(elements[i]):
                    own_weight[i] = 1.0
            weight = _weights(own_weight, parent)
            w = np.array(weight)
        # Valid text under boilerplate markup counts as noise, so that a container holding a
        # sidebar loses to the article beside it; not so for a large prose block inside it.
        recounted = own[0] * np.maximum(0.0, 1.0 - w)
        embedded = embedded_blocks(tree, elements, w, own_weight, raw_valid + raw_noise, raw_links)
        if embedded is not None:
            recounted[embedded] = 0.0
        valid, noise = tree.subtree_totals(np.array((own[0] * w, own[1] + recounted)))
        self._weight, self._valid, self._noise = w, valid, noise
        self._hidden = np.zeros(size, dtype=bool)
        # Elements whose own markup says article body, by position (:func:`lone_marked_body`).
        self._marked = np.flatnonzero(np.asarray(own_weight) >= STRONG)
        self._end = tree.end
        self._hidden[list(hidden)] = True
        # By position; the element-keyed dicts below are built only when asked for.
        self.index = tree.index
        self.weights: list[float] = weight
        self.valids: list[float] = valid.tolist()
        self.noises: list[float] = noise.tolist()
        self.link_lengths: list[int] = raw_links.astype(np.int64).tolist()
        self.body = body
        self.host = host

    def score(self, el: html.HtmlElement, lam: float) -> float:
        i = self.index[el]
        return self.valids[i] - lam * self.noises[i]


# When the markup weights leave less than this share of the page's valid text, the boilerplate
# markup inside content-marked blocks is not used (see Gain).
MARKUP_LEFT_SHARE = 0.05
# ... and then only for boilerplate-marked blocks holding this many characters of prose.
LIFTED_PROSE = 40


def _weights(own_weight: list[float], parent: list[int]) -> list[float]:
    """Each element's markup weight: its own times its parent's, capped at :data:`MAX_WEIGHT`;
    explicit body markup (:data:`~.hints.STRONG`) outranks any wrapper."""
    if markup_weights is not None:  # the same loop in C (tests/test_speedups.py)
        return markup_weights(own_weight, parent, STRONG, MAX_WEIGHT)
    weight = [1.0] * len(own_weight)
    for i in range(1, len(own_weight)):
        own_i = own_weight[i]
        if own_i >= STRONG:
            weight[i] = STRONG
        else:
            w = weight[parent[i]] * own_i
            weight[i] = w if w < MAX_WEIGHT else MAX_WEIGHT
    return weight


# A boilerplate-marked block of at least this many characters, nearly without links, inside
# explicit body markup: a slideshow or promo box that CleanTree drops from the body.
EMBEDDED_BLOCK_CHARS = 500
EMBEDDED_BLOCK_LINKS = 0.1


def embedded_blocks(tree: dom.TreeIndex, elements, weight: np.ndarray, own_weight: list[float],
                    chars: np.ndarray, links: np.ndarray) -> np.ndarray | None:
    """A mask of the elements inside large boilerplate-marked prose blocks (a captioned
    slideshow, a promo box) that sit inside explicit body markup, or None when there are none.

    Their valid text would count as noise against every container holding them, and the
    article body around such a block would lose to one of its own paragraphs; CleanTree drops
    the block from the body anyway.  Comment threads (:func:`~.hints.never_body`) and link
    lists still count against the body.  Positions as in :class:`~.dom.TreeIndex`; ``chars``
    and ``links`` hold subtree totals.
    """
    parent, end = tree.parent, tree.end
    roots = [
        i for i in np.flatnonzero((chars >= EMBEDDED_BLOCK_CHARS) & (weight == 0.0)).tolist()
        if i and weight[parent[i]] > 0.0
        and links[i] <= EMBEDDED_BLOCK_LINKS * chars[i] and not never_body(elements[i])
        and _in_marked_body(i, parent, own_weight)
    ]
    if not roots:
        return None
    depth = np.zeros(len(elements) + 1, dtype=np.int64)
    np.add.at(depth, roots, 1)
    np.add.at(depth, end[roots], -1)
    return np.cumsum(depth[:-1]) > 0


def _in_marked_body(i: int, parent: list[int], own_weight: list[float]) -> bool:
    """Has element ``i`` an ancestor whose own markup says article body (:data:`~.hints.STRONG`)?"""
    i = parent[i]
    while i >= 0:
        if own_weight[i] >= STRONG:
            return True
        i = parent[i]
    return False


# An element marked as the article body, outside a boilerplate-marked one and holding this share
# of the latter's valid text, is the article, however short: a blog post beside a wordy sidebar.
MARKED_BODY_SHARE = 0.15


def marked_body_elsewhere(i: int, ends: np.ndarray, own_weight: list[float], valid: np.ndarray) -> bool:
    """Is there, neither inside element ``i`` nor around it, an element whose own markup says
    article body (:data:`~.hints.STRONG`: ``entry-content``, ``itemprop=articleBody``) holding
    at least :data:`MARKED_BODY_SHARE` of ``i``'s valid text?

    Then ``i``, marked as boilerplate, holds most of the page's text because the article is
    short (a footer of blogroll descriptions, a sidebar of site blurbs), not because the
    markup is wrong.  Positions as in :class:`~.dom.TreeIndex`; ``valid`` holds subtree totals.
    """
    positions = np.arange(len(own_weight))
    disjoint = (positions >= ends[i]) | (ends <= i)  # neither inside ``i`` nor holding it
    marked = disjoint & (np.asarray(own_weight) >= STRONG)
    return bool(np.any(valid[marked] >= MARKED_BODY_SHARE * valid[i]))


# Inside explicit body markup, a few boilerplate-marked blocks holding this share of its valid
# text, with links in at most this share of their text, are the body mislabelled.
MISLABELLED_SHARE = 0.5
# ... when the explicit body markup holds this share of the page's valid text (not a marked figure).
MISLABELLED_BODY_SHARE = 0.35
MISLABELLED_MAX_BLOCKS = 5
MISLABELLED_LINKS = 0.1


def prose_in_marked_body(tree: dom.TreeIndex, own_weight: list[float], hidden: set[int],
                         valid: np.ndarray, noise: np.ndarray, links: np.ndarray) -> list[int]:
    """The outermost boilerplate-marked elements inside the page's one element whose own markup
    says article body (:data:`~.hints.STRONG`), or a marked element inside it, holding
    :data:`MISLABELLED_BODY_SHARE` of the page's valid text, when they hold most of its valid
    text: at most
    :data:`MISLABELLED_MAX_BLOCKS` of them, not hidden, not a comment thread or a dialog,
    nearly without links.

    A photo story whose text is the one photo's caption, a post whose paragraphs sit in
    a ``<span class="byline">`` left open: the article is the marked body, and its
    boilerplate markup would leave it empty.  Fifty captions are a gallery, and a box of
    several paragraphs (more than :data:`MISLABELLED_MAX_BLOCKS` text blocks in all) a
    slideshow or a promo box, not a story.
    Positions as in :class:`~.dom.TreeIndex`; ``valid``/``noise``/``links`` hold subtree totals.
    """
    end = tree.end
    marked = np.flatnonzero(np.asarray(own_weight) >= STRONG)
    if not len(marked) or np.any(marked >= end[marked[0]]):  # none, or several marked bodies side by side
        return []
    for m in marked.tolist():
        if m not in hidden and valid[m] >= MISLABELLED_BODY_SHARE * valid[0]:  # not a marked figure or box
            zeros = _mislabelled(m, tree, own_weight, hidden, valid, noise, links)
            if zeros:
                return zeros
    return []


def _mislabelled(m: int, tree: dom.TreeIndex, own_weight: list[float], hidden: set[int],
                 valid: np.ndarray, noise: np.ndarray, links: np.ndarray) -> list[int]:
    """:func:`prose_in_marked_body` for the marked element ``m``."""
    end, elements = tree.end, tree.elements
    zeros: list[int] = []
    j, stop = m + 1, int(end[m])
    while j < stop and len(zeros) <= MISLABELLED_MAX_BLOCKS:
        if own_weight[j] == 0.0:
            if valid[j] > 0:
                zeros.append(j)
            j = int(end[j])
        else:
            j += 1
    if not zeros or len(zeros) > MISLABELLED_MAX_BLOCKS:
        return []
    if sum(valid[z] for z in zeros) < MISLABELLED_SHARE * valid[m]:
        return []
    if any(
        z in hidden or never_body(elements[z]) or links[z] > MISLABELLED_LINKS * (valid[z] + noise[z])
        for z in zeros
    ):
        return []
    inside = [j for z in zeros for j in range(z, int(end[z])) if valid[j] > 0]
    if sum(1 for j in inside if elements[j].tag in dom.BLOCK_TAGS) > MISLABELLED_MAX_BLOCKS:
        return []  # a slideshow of captioned pictures, a promo box
    return zeros


TEASER_MIN_ITEMS = 3
# Headlines and their summaries may hold more of the page's text than a short article beside
# them, but not this much: then the list is the article.
SUMMARIES_SHARE = 0.75
# Paragraphs are never teasers; table rows and cells repeat because tables lay out pages.
NOT_TEASERS = frozenset({"p", "tr", "td", "th", "tbody"})


@lru_cache(maxsize=MAX_CACHED_MARKUPS)
def _class_tokens(classes: str) -> tuple:
    """Class tokens, minus per-item tokens such as ``post-1806``."""
    return tuple(sorted(t for t in classes.split() if not any(map(str.isdigit, t))))


def _leads_with_link(item: int, tree: dom.TreeIndex, text_at: list, tail_at: list) -> bool:
    """Does element ``item`` (a :class:`~.dom.TreeIndex` position) open with a headline link:
    a link first, standing on its own line?

    A link followed by the rest of its sentence (``<a>Name</a> scored twice``, also
    ``<strong><a>Name</a></strong> scored twice``) opens a line of prose, not a teaser.
    ``text_at[i]``/``tail_at[i]`` say whether element ``i``'s text/tail is more than white space.
    Text without a letter, a time stamp or a bullet before the link
    (``<dt><span>10:17</span> <a>headline</a></dt>``), is passed over.
    """
    # The owner of the first text node that holds a letter, in document order (as
    # dom.iter_text_nodes yields them; the item's own tail is outside it): pre-order
    # positions, with a stack of the open elements whose tails come when their subtrees end.
    end, parent, elements = tree.ends, tree.parent, tree.elements
    worded = _WORDED.search
    stop = end[item]
    owner = item if text_at[item] and worded(elements[item].text) else -1
    j = item + 1
    open_elements: list[int] = []
    while owner < 0:
        while open_elements and end[open_elements[-1]] <= j:  # innermost first
            k = open_elements.pop()
            if tail_at[k] and worded(elements[k].tail):
                owner = parent[k]
                break
        if owner >= 0 or j >= stop:
            break
        if text_at[j] and worded(elements[j].text):
            owner = j
            break
        open_elements.append(j)
        j += 1
    if owner < 0 or not tree.in_anchor[owner]:
        return False
    first = tree.elements[owner]
    anchor = first if first.tag == "a" else next(first.iterancestors("a"), None)
    if anchor is None:
        return False
    node = anchor
    top = tree.elements[item]
    while len((node.tail or "").strip()) <= 2:
        node = node.getparent()
        if node is None or node is top or node.tag in dom.BLOCK_TAGS:
            return True
    return False


def section_headings(items: set[int], elements, parent: list[int], host: str | None) -> set[int]:
    """The teaser ``items`` (positions) that head sections of a post: led by a heading linked off
    the site (``<h3>2. <a>Brand</a></h3>``, also in a list item, as :func:`prune` reads such a
    heading) and set among more paragraphs than there are such items in their parent.

    A buying guide or a ranking names each entry in a heading linked to the brand's own site, its
    paragraphs between one heading and the next; a blogroll of posts on other blogs is linked
    off the site too, but its items stand together, a summary each at most.
    """
    led: dict[int, list[int]] = {}
    for i in items:
        if _led_by_off_site_heading(elements[i], host):
            led.setdefault(parent[i], []).append(i)
    return {i for p, group in led.items()
            if sum(1 for child in elements[p].iterchildren("p")) > len(group) for i in group}


def ranked_entries(items: set[int], elements, parent: list[int]) -> set[int]:
    """The teaser ``items`` (positions) that are the entries of a ranking: siblings whose headings
    count, in page order, one by one up or down (``1. Harvard``, ``2. Stanford``, …), three or more.

    A listicle numbers its entries; a list of other articles does not, and a "most read" box
    numbers them outside its headings (a counter or a number beside the link).
    """
    by_parent: dict[int, list[int]] = {}
    for i in items:
        by_parent.setdefault(parent[i], []).append(i)
    ranked: set[int] = set()
    for group in by_parent.values():
        if len(group) < RANKED_MIN_ENTRIES:
            continue
        numbers = [n for n in map(_heading_number, (elements[i] for i in sorted(group))) if n is not None]
        numbers = [n for k, n in enumerate(numbers) if not k or n != numbers[k - 1]]  # a number per entry
        steps = {b - a for a, b in pairwise(numbers)}
        if len(numbers) >= RANKED_MIN_ENTRIES and (steps == {1} or steps == {-1}):
            ranked.update(group)
    return ranked


def marked_entries(elements, parent: list[int], own_weight: list[float], hidden: set[int],
                   classes: list, raw_valid: np.ndarray) -> list[int]:
    """Positions of an article's entries that markup calls boilerplate: ``ENTRY_MIN_SIBLINGS`` or
    more siblings of one tag and class, each a heading and ``ENTRY_MIN_PROSE`` characters of prose
    (a movers guide's ``<div class="mover-profile">``: a company each, its review under its name).

    An author's profile or a sidebar box stands alone, an ``<aside>`` is a box whatever its class,
    and a comment thread is never body.
    """
    groups: dict[tuple, list[int]] = {}
    for i in np.flatnonzero(raw_valid >= ENTRY_MIN_PROSE).tolist():
        el = elements[i]
        if i and own_weight[i] == 0.0 and i not in hidden and classes[i] and el.tag not in NEGATIVE_TAGS:
            groups.setdefault((parent[i], el.tag, classes[i]), []).append(i)
    return [i for group in groups.values() if len(group) >= ENTRY_MIN_SIBLINGS
            and not never_body(elements[group[0]])
            and all(next(elements[i].iter(*dom.HEADING_TAGS), None) is not None for i in group)
            for i in group]


def _entry_heading(item: html.HtmlElement) -> html.HtmlElement | None:
    """``item`` itself when a heading, else its first heading."""
    return item if item.tag in dom.HEADING_TAGS else next(item.iter(*dom.HEADING_TAGS), None)


def _heading_number(item: html.HtmlElement) -> int | None:
    """The number opening ``item``'s first heading (``<h3>2. Name</h3>``), or None."""
    heading = _entry_heading(item)
    if heading is None:
        return None
    text = heading.text_content().lstrip()
    found = _RANK.match(text)
    if found is None or not text[found.end():].strip():  # a number alone names no entry
        return None
    return int(found.group(1))


def _led_by_off_site_heading(item: html.HtmlElement, host: str | None) -> bool:
    """Is ``item``'s first link in a heading linked off the site (``<h2><a>Brand</a></h2>``, also
    inside a list item): a heading that names its section's subject, not a teaser?"""
    if item.tag in dom.HEADING_TAGS:
        return dom.off_site_heading(item, host)
    anchor = next(item.iter("a"), None)
    if anchor is None:
        return False
    for el in anchor.iterancestors():
        if el is item:
            return False
        if el.tag in dom.HEADING_TAGS:
            return dom.off_site_heading(el, host)
    return False


def teaser_items(
    tree: dom.TreeIndex, classes, text_at, tail_at, valid, noise, links, total_valid: float
) -> set[int]:
    """Items of teaser lists: ``TEASER_MIN_ITEMS`` or more siblings of one tag and class,
    most of them led by a link and carrying some link text — related-article and
    "more stories" lists, whose summaries would otherwise read as body text.
    Paragraphs are never teasers (a link that opens a paragraph is part of it), nor are
    table rows and cells, which repeat because tables lay out whole pages.

    Works on :class:`~.dom.TreeIndex` positions: ``classes[i]`` is element ``i``'s class
    attribute, ``text_at``/``tail_at`` as in :func:`_leads_with_link`, ``valid``/``noise``/``links``
    its subtree totals (arrays); returns positions.
    """
    elements, parent = tree.elements, tree.parent
    size = len(elements)
    if size < 2:
        return set()
    parents = np.asarray(parent)
    children = np.bincount(parents[1:], minlength=size)
    candidate = (children[parents] >= TEASER_MIN_ITEMS) & (valid + noise > 0)
    candidate[0] = False  # the root's parent is outside the tree
    if teaser_groups is not None:  # the same loops in C (tests/test_speedups.py)
        groups = teaser_groups(elements, parent, np.flatnonzero(candidate).tolist(), classes, _class_tokens,
                               NOT_TEASERS)
        ends, in_anchor, worded = tree.ends, tree.in_anchor, _WORDED.search

        def led_of(items: list[int], links_of: list) -> list[int]:
            return led_items(items, links_of, elements, parent, ends, in_anchor, text_at, tail_at, worded,
                             dom.BLOCK_TAGS)
    else:
        groups = {}
        for i in np.flatnonzero(candidate).tolist():
            tag = elements[i].tag
            if isinstance(tag, str) and tag not in NOT_TEASERS:
                groups.setdefault((parent[i], tag, _class_tokens(classes[i] or "")), []).append(i)

        def led_of(items: list[int], links_of: list) -> list[int]:
            return [it for it in items if links_of[it] and _leads_with_link(it, tree, text_at, tail_at)]
    found: set[int] = set()
    valid_of, links_of = None, None
    for items in groups.values():
        if len(items) < TEASER_MIN_ITEMS:
            continue
        if valid_of is None:
            valid_of, links_of = valid.tolist(), links.tolist()
        led = led_of(items, links_of)
        if len(led) < 0.6 * len(items):
            continue
        # A list that holds most of the page's text is the article (a "10 things" post).
        listed = sum(valid_of[it] for it in items)
        if listed >= 0.5 * total_valid:
            continue
        found.update(led)
        summaries = _summaries(led, tree, elements, links_of)
        if listed + sum(valid_of[it] for it in summaries) < SUMMARIES_SHARE * total_valid:
            found.update(summaries)
    return found


def _summaries(led: list[int], tree: dom.TreeIndex, elements, links_of: list) -> list[int]:
    """The summaries of headline items kept in sibling elements: the element right after each
    item, when at least :data:`TEASER_MIN_ITEMS` items have one, all of one block tag that is
    neither the items' nor a paragraph's, without links (``<dt><a>headline</a></dt><dd>summary</dd>``).
    Block items only, and no headings: a linked subhead and the section under it are the article's,
    and a heading after an item opens the next section.
    Positions as in :func:`teaser_items`."""
    end, parent = tree.end, tree.parent
    size = len(elements)
    after = [int(end[it]) for it in led]
    after = [j for it, j in zip(led, after, strict=True) if j < size and parent[j] == parent[it]]
    if len(after) < TEASER_MIN_ITEMS or any(links_of[j] for j in after):
        return []
    tags = {elements[j].tag for j in after}
    item_tag = elements[led[0]].tag
    if (
        len(tags) != 1
        or tags & {item_tag, "p"}
        or not tags <= dom.BLOCK_TAGS
        or item_tag not in dom.BLOCK_TAGS
        or item_tag in dom.HEADING_TAGS
        or tags & set(dom.HEADING_TAGS)
    ):
        return []
    return after


# What a heading's container holds beyond it (a date line, a byline) before it is more than a header,
# and more than any headline holds (weighted characters).
HEADED_TEXT = 100
HEADLINE_MAX = 400


def best_block(gain: Gain, lam: float = LAMBDA) -> html.HtmlElement:
    """The element whose subtree has the highest ``valid − λ·noise`` (the first, in document
    order); for a heading, or a header holding little but one, the nearest element around it
    holding :data:`HEADED_TEXT` more outside links (none: the heading itself, so that a page of
    a headline and links alone, a tag page or a consent interstitial, has no body).

    A headline is never the body on its own: on a post of short lines without stop words (a
    list of cameras and films, a recipe's quantities) the headline can gain the most.
    """
    candidates = np.flatnonzero(~gain._hidden & (gain._weight != 0.0))
    if not len(candidates):
        return gain.body
    scores = gain._valid[candidates] - lam * gain._noise[candidates]
    block = gain.elements[int(candidates[int(np.argmax(scores))])]
    index, valids, noises = gain.index, gain.valids, gain.noises
    i = index[block]
    if valids[i] + noises[i] > HEADLINE_MAX + HEADED_TEXT:  # more than any headline holds
        return block
    heading = next(block.iter(*dom.HEADING_TAGS), None)
    if heading is None or heading not in gain.index:
        return block
    links = gain.link_lengths
    h = index[heading]
    floor = valids[h] + noises[h] - links[h] + HEADED_TEXT
    if valids[i] + noises[i] - links[i] > floor:
        return block
    for el in block.iterancestors():  # text outside links: a page of links alone has no body
        j = index.get(el)
        if j is None:
            return block
        if valids[j] + noises[j] - links[j] > floor:
            return el
    return block


# A paragraph is the body only when its siblings are not mostly paragraphs worth as much.
SIBLING_PARAGRAPHS = 3
SIBLING_PARAGRAPHS_GAIN = 2.0


def paragraphs_parent(block: html.HtmlElement, gain: Gain, lam: float) -> html.HtmlElement:
    """The parent of ``block`` when ``block`` is one ``<p>`` among sibling paragraphs that
    together gain :data:`SIBLING_PARAGRAPHS_GAIN` times as much; else ``block``.

    A body of paragraphs set directly in a container that also holds a comment thread or a
    sidebar longer than the article: the container's own gain is negative, and the longest
    paragraph wins.  CleanTree then drops the boilerplate children from the container.
    """
    parent = block.getparent()
    if not _paragraph_like(block) or parent is None or parent not in gain.index:
        return block
    index, valids, noises, hidden = gain.index, gain.valids, gain.noises, gain.hidden
    gains = [
        valids[index[p]] - lam * noises[index[p]]
        for p in parent.iterchildren()
        if _paragraph_like(p) and p not in hidden and gain.weights[index[p]] > 0
    ]
    positive = [g for g in gains if g > 0]
    enough = sum(positive) >= SIBLING_PARAGRAPHS_GAIN * gain.score(block, lam)
    return parent if len(positive) >= SIBLING_PARAGRAPHS and enough else block


def _paragraph_like(el: html.HtmlElement) -> bool:
    """A ``<p>``, or a wrapper of one ``<p>`` alone (component frameworks wrap each paragraph)."""
    if el.tag == "p":
        return True
    if len(el) != 1 or not isinstance(el.tag, str) or (el.text and not el.text.isspace()):
        return False
    child = el[0]
    return child.tag == "p" and not (child.tail and not child.tail.isspace())


# Explicit body markup around the chosen block, holding this many times its valid text with
# links in at most this share of its text, is the body: what made it lose is data.
MARKED_BODY_GROWTH = 2.0
MARKED_BODY_LINKS = 0.2


def marked_body_around(block: html.HtmlElement, gain: Gain) -> html.HtmlElement:
    """The nearest element around ``block`` whose own markup says article body
    (:data:`~.hints.STRONG`: ``entry-content``, ``itemprop=articleBody``) when it holds
    :data:`MARKED_BODY_GROWTH` times ``block``'s valid text and few links; else ``block``.

    A results table, a price list, a schedule of names and numbers has few stop words:
    it reads as noise, and the marked body holding it loses to its own heading or first
    paragraph.  Its links are few, unlike a related-articles box; boilerplate inside the
    marked body is left to CleanTree.
    """
    index, valids, noises, links = gain.index, gain.valids, gain.noises, gain.link_lengths
    i = index.get(block)
    if i is None:
        return block
    floor = MARKED_BODY_GROWTH * max(valids[i], 1.0)
    for el in block.iterancestors():
        if el is gain.body:
            break
        j = index.get(el)
        if j is None or el in gain.hidden or gain.weights[j] < STRONG or element_weight(el) < STRONG:
            continue
        if valids[j] >= floor and links[j] <= MARKED_BODY_LINKS * (valids[j] + noises[j]):
            return el
        break
    return block


# The page's one explicit article body, outside the chosen block, gaining at least this share of
# what the block gains, is the article: a short post beside a wordier sidebar.
LONE_MARKED_SHARE = 0.15


def lone_marked_body(block: html.HtmlElement, gain: Gain, lam: float) -> html.HtmlElement:
    """The page's one element marked as the article body (:data:`~.hints.STRONG`:
    ``entry-content``, ``post-body``, ``itemprop=articleBody``; with the marked elements inside
    it), when ``block`` lies outside it and it gains at least :data:`LONE_MARKED_SHARE` of what
    ``block`` gains; else ``block``.

    A short blog post loses to a sidebar of blurbs or a profile text with more stop words;
    its markup names it the post.  A page with several marked bodies (a blog's front page,
    teasers marked like posts) is left to the gains.
    """
    marked, end = gain._marked, gain._end
    if not len(marked):
        return block
    outer = int(marked[0])
    if np.any(marked >= end[outer]):  # a second marked body beside the first
        return block
    el = gain.elements[outer]
    i = gain.index.get(block)
    if i is None or outer <= i < end[outer] or i <= outer < end[i] or gain._hidden[outer]:
        return block  # the block is the marked body, inside it or around it
    score = gain._valid[outer] - lam * gain._noise[outer]
    if score <= 0 or score < LONE_MARKED_SHARE * gain.score(block, lam):
        return block
    return el


# A body under SCRIPT_BODY_BELOW characters may be a fragment of a short post: the nearest element
# around it marked as content, holding this many times its text once pruned, is the post.
SHORT_BODY_GROWTH = 1.2


def marked_container(block: html.HtmlElement, gain: Gain) -> html.HtmlElement | None:
    """The nearest element around ``block`` whose own markup says content (``<article>``,
    ``<main>``, ``post``, ``entry-content``: a weight above neutral), if any below ``<body>``.

    ``auto`` widens a body under :data:`SCRIPT_BODY_BELOW` characters to it when it holds
    :data:`SHORT_BODY_GROWTH` times the text once pruned: a short post of short lines (a
    dialogue, a list of course names, podcast show notes) has few stop words, so one
    paragraph outgains the rest and the others fall below :func:`paragraphs_parent`'s bar.
    Only the nearest marked element is asked: higher up, sidebars and teasers join in.
    """
    for el in block.iterancestors():
        if el is gain.body:
            return None
        if el in gain.index and el not in gain.hidden and element_weight(el) > 1.0:
            return el
    return None


# A content-marked element holding this share of the page's valid text, where the chosen block holds
# under HELD_BLOCK_SHARE of it, is the article (see :func:`marked_body_holding_page`).
HELD_PAGE_SHARE = 0.8
HELD_BLOCK_SHARE = 0.3


def marked_body_holding_page(block: html.HtmlElement, gain: Gain) -> html.HtmlElement:
    """The nearest element around ``block`` whose own markup says content (``<article>``,
    ``post``, ``region-content``: a weight above neutral) when it holds :data:`HELD_PAGE_SHARE`
    of the page's valid text and ``block`` under :data:`HELD_BLOCK_SHARE` of it; else ``block``.
    A block whose own markup names it the article body (:data:`~.hints.STRONG`:
    ``entry-content``) is kept: what surrounds it is the page's frame.

    A ranking or directory article ("the best movers in New York") is half links to the
    site's own profile pages: its noise outweighs its prose, and one list or paragraph inside
    it wins.  When the element the markup names the article holds nearly all of the page's
    prose, there is no sidebar for it to lose to; :func:`prune` then drops the link lists.
    """
    i = gain.index.get(block)
    total = gain.valids[0]
    if i is None or total <= 0 or element_weight(block) >= STRONG:
        return block
    for el in block.iterancestors():
        if el is gain.body:
            return block
        j = gain.index.get(el)
        if j is None or el in gain.hidden or element_weight(el) <= 1.0:
            continue
        valid = gain.valids[j]
        if valid >= HELD_PAGE_SHARE * total and gain.valids[i] < HELD_BLOCK_SHARE * valid:
            return el
    return block


SIBLING_ARTICLE_SHARE = 0.2


def titled_article(block: html.HtmlElement, gain: Gain, lam: float, title: str | None) -> html.HtmlElement:
    """The ``<article>`` headed by the page's title, when ``block`` holds several.

    Pages that load the next story below the current one (infinite scroll) put two or
    more ``<article>`` elements in one container, and the next story may be the longer.
    """
    if not title:
        return block
    floor = SIBLING_ARTICLE_SHARE * gain.score(block, lam)
    articles = [
        a for a in block.iterdescendants("article") if a in gain.index and gain.score(a, lam) > floor
    ]
    outer = [a for a in articles if not any(b in articles for b in a.iterancestors("article"))]
    if len(outer) < 2:
        return block
    for article in outer:
        heading = next(article.iter(*dom.HEADING_TAGS), None)
        if heading is not None and similarity(dom.node_text(heading), title) >= HEADLINE_SIMILARITY:
            return article
    return block


def prune(
    block: html.HtmlElement, gain: Gain, lam: float, dl_max: float, title: str | None, prune_linkless: bool
) -> set:
    """The subtrees of ``block`` to leave out of the body."""
    skip = set()
    index, weights, valids, noises = gain.index, gain.weights, gain.valids, gain.noises
    link_lengths = gain.link_lengths
    block_weight = weights[index[block]]

    def link_block(el: html.HtmlElement) -> bool:
        """Is ``el`` links rather than text: link-dense, or worth less than its noise?"""
        i = index[el]
        valid, noise, links = valids[i], noises[i], link_lengths[i]
        text_len = valid + noise
        if el.tag == "blockquote" or dom.off_site_heading(el, gain.host) or el in gain.entry_names:
            return False  # an embedded post (a tweet in a <blockquote>) is link-dense yet quoted on purpose
        if text_len and links / text_len > dl_max and is_link_node(el):
            return True
        return (el.tag in dom.BLOCK_TAGS and valid - lam * noise < 0 and valid < 40
                and bool(links or prune_linkless))

    holes: set = set()  # linked items between unlinked items of their list
    stack = list(block)
    while stack:
        el = stack.pop()
        if not isinstance(el.tag, str):
            continue
        i = index[el]  # every element under <body> has a position
        # A zero-weight wrapper goes unless explicit body markup inside it kept some value.
        # A link in a sentence stays whatever its class says (class="tag" on a keyword link),
        # but not one without a letter (a comment counter's "12" before a paragraph).
        zero = (
            weights[i] == 0.0 and block_weight > 0 and valids[i] <= 0
            and (el.tag != "a" or not _WORDED.search(dom.node_text(el)))
        )
        if el in gain.hidden or zero:
            skip.add(el)
            continue
        # References, sources, resources: link-dense, yet the article's own list.
        if dom.off_site_list(el, gain.host):
            skip.update(d for d in el.iterdescendants() if d in gain.hidden)
            continue
        if el not in holes and link_block(el):
            skip.add(el)
            continue
        if title and el.tag in dom.HEADING_TAGS and similarity(dom.node_text(el), title) >= 0.8:
            skip.add(el)
            continue
        if el.tag in ("ul", "ol"):
            holes.update(list_holes(el, lambda item: link_lengths[index[item]] == 0))
        stack.extend(el)
    return skip


def list_holes(lst: html.HtmlElement, unlinked) -> list[html.HtmlElement]:
    """The items of a list that stand between two ``unlinked`` items of it: a checklist's linked
    items (``<li><a>Tent stakes</a></li>`` between ``<li>Rainfly</li>`` and ``<li>Ground
    sheet</li>``) are part of it, however link-dense.  Linked items at a list's end are judged
    alone (a call to action, a source below notes), and so are those of a list with fewer than
    two unlinked items (related stories, a byline in a list of facts)."""
    items = list(lst.iterchildren("li"))
    plain = [k for k, item in enumerate(items) if unlinked(item)]
    if len(plain) < 2:
        return []
    return items[plain[0] + 1:plain[-1]]


# Markup that names an article's lead, standfirst or excerpt ("a-lead", "article-intro",
# "entry-excerpt", "chapo", "texto-bajada"); not "leading-snug" (a line height).
LEAD_MARKUP = re.compile(
    r"(?:^|[-_ ])(?:lead|standfirst|intro(?:duction)?|excerpt|abstract|chapo|chapeau|dek|deck|epigraph|"
    r"bajada|entradilla|sumario|sub-?headline|subtitle)(?:$|[-_ ])", re.IGNORECASE
)
LEAD_MIN_CHARS, LEAD_MAX_CHARS = 40, 800
LEAD_LINKS = 0.3
LEAD_LEVELS, LEAD_SIBLINGS = 5, 3


def _names_lead(cls: str | None, ident: str | None) -> bool:
    """Does a class or id name a lead (:data:`LEAD_MARKUP`)?"""
    return bool(cls and _lead_word(cls)) or bool(ident and _lead_word(ident))


@lru_cache(maxsize=8192)  # class lists repeat through a page and across a site's pages
def _lead_word(value: str) -> bool:
    return LEAD_MARKUP.search(value) is not None


def _innermost(marked: list[html.HtmlElement], top: html.HtmlElement) -> list[html.HtmlElement]:
    """The elements of ``marked`` (all under ``top``) holding no other one, in one climb of each
    ancestor chain (a list scan per descendant would be quadratic on a page of nested leads)."""
    chosen, climbed, outer = set(marked), set(), set()
    for x in marked:
        for above in x.iterancestors():
            if above in climbed:
                break  # climbed before, from there up
            climbed.add(above)
            if above in chosen:
                outer.add(above)
            if above is top:
                break
    return [x for x in marked if x not in outer]


def _lead_in(el: html.HtmlElement, page: Page, title: str | None) -> str | None:
    """The text of the one innermost lead-marked element in ``el`` (itself included) when it reads as
    prose: :data:`LEAD_MIN_CHARS`-:data:`LEAD_MAX_CHARS` characters, a stop word, few links,
    not in a figure.  Several leads are teasers of other articles, and none is returned.

    An article's ``<header>`` (the one holding an ``<h1>``) that marks no lead is read the same
    way with its paragraphs as the candidates: sites whose class names are generated
    (``sc-fashhx``) set the standfirst there, beside the headline, as its one paragraph."""
    marked = [x for x in el.iter() if isinstance(x.tag, str) and _names_lead(x.get("class"), x.get("id"))]
    if not marked and el.tag == "header" and next(el.iter("h1"), None) is not None:
        marked = list(el.iter("p"))
    inner = _innermost(marked, el)
    texts = [(x, dom.normalize_space(dom.node_text(x))) for x in inner]
    texts = [(x, t) for x, t in texts if len(t) >= LEAD_MIN_CHARS]
    if len(texts) != 1:
        return None
    cand, text = texts[0]
    if len(text) > LEAD_MAX_CHARS or is_hidden(cand):
        return None
    chain = [cand, *cand.iterancestors()]
    chain = chain[: chain.index(el) + 1] if el in chain else chain[:1]
    if any(a.tag in ("figure", "figcaption") or (a.tag != "header" and not element_weight(a)) for a in chain):
        return None  # a lead picture's caption, a lead inside boilerplate (the article header is not)
    links = sum(len(dom.normalize_space(dom.node_text(a))) for a in cand.iter("a"))
    if links > LEAD_LINKS * len(text) or not stopword_matcher(page.language)(text):
        return None
    if title and similarity(text, title) >= HEADLINE_SIMILARITY:
        return None
    return text


def lead_before(block: html.HtmlElement, page: Page, title: str | None) -> str | None:
    """The article's lead (standfirst) set just before ``block``, outside it: in one of the
    :data:`LEAD_SIBLINGS` elements before the block or before one of its :data:`LEAD_LEVELS`
    nearest ancestors, marked as a lead (:data:`LEAD_MARKUP`) or the one paragraph of an
    article header, reading as prose (:func:`_lead_in`).

    News and magazine pages set the lead in the article header, beside the headline, and the
    body in its own container after it; the max-gain block is that container, often nested
    in four or five wrappers below the element the header sits beside.

    On by default (``params={"lead": False}`` leaves it out): a reader takes the standfirst for
    part of the article, as the trafilatura set and fundus do.  Measured: trafilatura set
    snippet F1 0.9136 -> 0.9157, fundus 0.9582 -> 0.9588; aeb 0.9733 -> 0.9729 (its truth
    leaves standfirsts and deks out), daniel-ru 0.8763 -> 0.8758.

    Kept in ``page.derived`` by block and title: the body asks (:func:`with_lead`), then the rich
    record's lead (:func:`..fields.lead.find_lead`), mostly with the same block and title.
    """
    found = page.derived.setdefault("lead_before", {})
    key = (block, title)
    if key not in found:
        found[key] = _lead_before(block, page, title)
    return found[key]


def _lead_before(block: html.HtmlElement, page: Page, title: str | None) -> str | None:
    node = block
    for _ in range(LEAD_LEVELS):
        if node is None or node is page.body:
            return None
        sibling = node.getprevious()
        for _ in range(LEAD_SIBLINGS):
            if sibling is None:
                break
            if isinstance(sibling.tag, str):
                found = _lead_in(sibling, page, title)
                if found:
                    return found
            sibling = sibling.getprevious()
        node = node.getparent()
    return None


def with_lead(body: Body, page: Page, title: str | None) -> Body:
    """``body`` opened by the lead that :func:`lead_before` finds before its block, unless
    its first lines restate it."""
    if body.root is None:
        return body
    lead = lead_before(body.root, page, title)
    lines = body.text_paragraphs()
    if lead and lines and not any(_restates(lead, line) for line in lines[:3]):
        body.paragraphs = [lead, *lines]
    return body


LEAD_OVERLAP = 0.5


def _restates(lead: str, line: str) -> bool:
    """Does the body's ``line`` hold the lead, or repeat :data:`LEAD_OVERLAP` of its longer
    words (a summary the first paragraph restates)?  Unspaced scripts compare whole lines."""
    if lead in line or line in lead:
        return True
    words = _content_words(lead)
    return len(words & _content_words(line)) >= LEAD_OVERLAP * len(words)


def _content_words(text: str) -> set[str]:
    """The words of four letters or more (a rough cut of stop words in any spaced script)."""
    return {w for w in text.lower().split() if len(w) >= 4}


def extract_body(
    page: Page,
    lam: float = LAMBDA,
    dl_max: float = DL_MAX,
    cjk_mode: str = "substring",
    prune_linkless: bool = False,
    mu: float = MU,
    drop_furniture: bool = True,
    lead: bool = True,
    **_ignored,
) -> Body:
    gain = Gain(page, cjk_mode, mu)
    block = paragraphs_parent(best_block(gain, lam), gain, lam)
    block = lone_marked_body(marked_body_around(block, gain), gain, lam)
    block = marked_body_holding_page(block, gain)
    title = voted_headline(page)
    block = titled_article(block, gain, lam, title)
    titles = [t for t in (title, page.title_tag) if t]

    def is_headline(line: str) -> bool:
        return any(similarity(line, t) >= HEADLINE_SIMILARITY for t in titles)

    def body_at(root: html.HtmlElement) -> Body:
        pruned = Body(method="auto", root=root, skip=prune(root, gain, lam, dl_max, title, prune_linkless))
        if drop_furniture:
            pruned.paragraphs = without_second_copy(
                strip_furniture(pruned.text_paragraphs(), is_headline=is_headline))
        return pruned

    body = body_at(block)
    declared = json_ld_article_body(page)
    if declared and len(body.text) < JSON_LD_SHORTFALL * len(declared):
        # The block holds part of the declared text: the DOM element around it that holds all of
        # it (with its headings and images), else the page renders it with JavaScript.
        covering = page_data.covering_element(block, declared)
        wider = body_at(covering) if covering is not None else None
        if wider is not None and page_data.covers(wider.text, declared):
            body = wider
        elif covering is not None and page_data.covers(
                "\n".join(lines := page_data.declared_lines(covering, declared)), declared):
            body = Body(method="auto", root=covering, paragraphs=lines)
        else:
            return page_data.extract_body(page)
    shown = len(body.text)
    if shown < SCRIPT_BODY_BELOW:
        # The article as page data (a Next.js, Nuxt, state store or Arc blob), with its structure.
        data = page_data.extract_body(page)
        if len(data.text) > max(SCRIPT_BODY_BELOW, 2 * shown):
            return data
        # Rendered only in part or not at all: the script data must carry what was rendered.
        embedded = script_paragraphs(page.text)
        rendered = body.text_paragraphs()
        if sum(map(len, embedded)) > max(SCRIPT_BODY_BELOW, 2 * shown) and (
            not rendered or any(rendered[0] in line for line in embedded)
        ):
            body.paragraphs = embedded
            return body
        shown_without_scripts = noscript_paragraphs(page)
        if sum(map(len, shown_without_scripts)) > max(SCRIPT_BODY_BELOW, 2 * shown):
            body.paragraphs = shown_without_scripts
            return body
        container = marked_container(block, gain)
        if container is not None and len((wider := body_at(container)).text) > SHORT_BODY_GROWTH * shown:
            body = wider
    return with_lead(body, page, title) if lead else body


def noscript_paragraphs(page: Page) -> list[str]:
    """The prose a page shows only to readers without scripts (a template that renders the post
    with JavaScript and ships it in a ``<noscript>``): the paragraphs holding a stop word of the
    largest ``<noscript>`` element, which the clean-up has dropped from the tree."""
    contents = [c for c in dom.noscript_contents(page.text) if len(c) >= SCRIPT_BODY_BELOW]
    if not contents:
        return []
    try:
        fragment = html.fragment_fromstring(max(contents, key=len), create_parent="div")
    except (etree.ParserError, ValueError):
        return []
    dom.remove_noise(fragment)
    holds_stopword = stopword_matcher(page.language)
    return [line for line in dom.render_paragraphs(fragment) if holds_stopword(line)]


# Script elements, the <p> elements inside script data, raw or JSON-escaped
# (``\u003cp class=\"x\"\u003e``), and the tags inside those.  Each is "an opening, then
# everything up to the first closing".  As lazy regexes (``<script\b[^>]*>(.*?)</script>``)
# they would look for the closing again from every opening when there is none: quadratic
# time on "<script>" * n.  The scans below find the same spans in linear time; the openings,
# closings and tag ends they look for are these patterns.
_SCRIPT_OPEN = re.compile(r"<script\b", re.IGNORECASE)
_SCRIPT_CLOSE = re.compile(r"</script>", re.IGNORECASE)
_P_OPEN = re.compile(r"(?:<|\\u003c)p", re.IGNORECASE)
_P_CLOSE = re.compile(r"(?:<|\\u003c)\\?/p(?:>|\\u003e)", re.IGNORECASE)
_P_TAG_END = re.compile(r">|\\u003e", re.IGNORECASE)
_P_TAG_STOP = re.compile(r"[<>]|\\u003e", re.IGNORECASE)  # ends an attribute list, or spoils it
_SPACE = re.compile(r"\s")
_TAG_OPEN = re.compile(r"<|\\u003c")
_TAG_STOP = re.compile(r"[<>]|\\u003e")
_JSON_ESCAPE = re.compile(r"\\(?:u([0-9a-fA-F]{4})|(.))")


def script_bodies(source: str) -> list[str]:
    r"""The contents of the page's ``<script>`` elements, in linear time: what
    ``re.findall(r"<script\b[^>]*>(.*?)</script>", source, re.I | re.S)`` gives."""
    bodies = []
    pos = 0
    while (opening := _SCRIPT_OPEN.search(source, pos)) is not None:
        tag_end = source.find(">", opening.end())
        closing = _SCRIPT_CLOSE.search(source, tag_end + 1) if tag_end >= 0 else None
        if closing is None:  # no later opening can be closed either
            break
        bodies.append(source[tag_end + 1:closing.start()])
        pos = closing.end()
    return bodies


def script_p_contents(data: str) -> list[str]:
    r"""The contents of ``<p>`` elements in script data, raw or JSON-escaped, in linear time:
    group 1 of each match of ``(?:<|\\u003c)p(?:\s[^<>]*?)?(?:>|\\u003e)(.*?)(?:<|\\u003c)\\?/p(?:>|\\u003e)``
    (``re.I | re.S``) in ``data``."""
    contents = []
    pos = 0
    while (opening := _P_OPEN.search(data, pos)) is not None:
        after = opening.end()
        if _SPACE.match(data, after):  # attributes, up to the first tag end
            stop = _P_TAG_STOP.search(data, after + 1)
            if stop is None:  # no tag end anywhere after: no later opening can end either
                break
            if stop.group() == "<":  # every opening before the "<" fails the same way
                pos = stop.start()
                continue
            tag_end = stop.end()
        elif (bare := _P_TAG_END.match(data, after)) is not None:
            tag_end = bare.end()
        else:  # "<pre", "<param": not a paragraph
            pos = opening.start() + 1
            continue
        closing = _P_CLOSE.search(data, tag_end)
        if closing is None:  # no later opening can be closed either
            break
        contents.append(data[tag_end:closing.start()])
        pos = closing.end()
    return contents


def strip_script_tags(text: str) -> str:
    r"""``text`` without its tags, raw or JSON-escaped, in linear time: what
    ``re.sub(r"(?:<|\\u003c)[^<>]*?(?:>|\\u003e)", "", text)`` gives."""
    kept = []
    pos = 0
    while (opening := _TAG_OPEN.search(text, pos)) is not None:
        stop = _TAG_STOP.search(text, opening.end())
        if stop is None:  # no tag end anywhere after: nothing more to remove
            break
        if stop.group() == "<":  # every opening before the "<" is no tag
            kept.append(text[pos:stop.start()])
            pos = stop.start()
            continue
        kept.append(text[pos:opening.start()])
        pos = stop.end()
    kept.append(text[pos:])
    return "".join(kept)


def script_paragraphs(source: str) -> list[str]:
    """The paragraphs of article HTML that a page ships as script data (a Next.js payload,
    a JSON state blob) and renders with JavaScript, in order, each once."""
    seen: dict[str, None] = {}
    data = "\n".join(script_bodies(source))
    for content in script_p_contents(data):
        inner = strip_script_tags(content)
        inner = _JSON_ESCAPE.sub(lambda m: chr(int(m.group(1), 16)) if m.group(1) else m.group(2), inner)
        line = dom.normalize_space(html_entities.unescape(inner))
        if line and line not in seen:
            seen[line] = None
    return list(seen)


def json_ld_article_body(page: Page) -> str | None:
    """The longest JSON-LD ``articleBody`` of the page, when it has one of some length."""
    bodies = [o["articleBody"] for o in page.json_ld if isinstance(o.get("articleBody"), str)]
    best = max(bodies, key=len, default="")
    return best if len(best) >= 200 else None
