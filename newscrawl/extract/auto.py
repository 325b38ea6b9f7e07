"""``auto`` — the default method: seed 000's valid characters and seed 001's link nodes,
combined and steered by structural hints, chosen by measurement (README, "Methods").

1. Every text node is *valid* (seed 000, Definition 1: outside ``<a>``, holds a stop
   word) or *noise*.  Valid characters inside elements whose markup says boilerplate
   (:mod:`.hints`: comments, sidebars, related lists, hidden elements) are re-counted
   as noise; inside body-like markup they weigh more.
2. The content block is the element that maximises ``valid − λ·noise`` over its
   subtree — a maximum-gain subtree rather than locateCB's single descent, so a body
   split across sibling blocks is kept whole while a longer comment thread next to
   the article is not taken for it.
3. Inside the block, seed 001's CleanTree removes link nodes (link density > DLmax),
   boilerplate-marked and hidden subtrees, and blocks whose own gain is negative;
   the heading that repeats the title is left out, since the body excludes it.
"""

from __future__ import annotations

import html as html_entities
import re
from functools import lru_cache

from lxml import html

from . import dom
from .body import Body
from .decay import DL_MAX, is_link_node
from .hints import STRONG, element_weight, is_hidden, never_body, strip_furniture
from .page import Page
from .stopwords import stopword_matcher
from .title import find_title, similarity

LAMBDA = 0.75
KEEP_SHARE = 0.5
JSON_LD_SHORTFALL = 0.5
# Below this many characters the page rendered no body: look for one in its scripts' data.
SCRIPT_BODY_BELOW = 200
HEADLINE_SIMILARITY = 0.8
MU = 0.5
MAX_WEIGHT = 1.5


class Gain:
    """Per-element valid and noise character counts with the structural weights applied."""

    def __init__(self, page: Page, cjk_mode: str = "substring", mu: float = 1.0):
        body = page.body
        holds_stopword = stopword_matcher(page.language, cjk_mode)
        tree = dom.TreeIndex(body)  # lists by pre-order position: one list access per element
        self.elements = tree.elements
        in_anchor = tree.in_anchor
        size = len(self.elements)
        own_valid, own_noise, own_links = [0] * size, [0] * size, [0] * size
        for i, text in tree.texts:
            n = dom.non_space_len(text)
            if not n:
                continue
            if in_anchor[i]:
                own_noise[i] += n
                own_links[i] += n
            elif holds_stopword(text):
                own_valid[i] += n
            else:
                own_noise[i] += mu * n
        raw_valid = tree.subtree_sums(own_valid)
        raw_links = tree.subtree_sums(own_links)
        total = raw_valid[0] or 1
        raw_noise = tree.subtree_sums(own_noise)
        teasers = teaser_items(self.elements, tree.by_element(in_anchor), tree.by_element(raw_valid),
                               tree.by_element(raw_noise), tree.by_element(raw_links), total)

        weight = [1.0] * size
        self.hidden: set[html.HtmlElement] = set()
        parent = tree.parent
        for i in range(1, size):
            el = self.elements[i]
            hidden = is_hidden(el)
            own = 0.0 if hidden or el in teasers else element_weight(el)
            # Whatever holds most of the page's text is the page, whatever its markup says
            # (a paywalled body styled display:none, a layout grid named "sidebar-grid"),
            # unless it names itself a consent dialog or a comment thread.
            if own == 0.0 and raw_valid[i] > KEEP_SHARE * total and not never_body(el):
                own, hidden = 1.0, False
            if hidden:
                self.hidden.add(el)
            if own >= STRONG:  # explicit body markup outranks any wrapper
                weight[i] = STRONG
            else:
                weight[i] = min(MAX_WEIGHT, weight[parent[i]] * own)

        valid = [v * w for v, w in zip(own_valid, weight, strict=True)]
        noise = [o + v * max(0.0, 1.0 - w) for o, v, w in zip(own_noise, own_valid, weight, strict=True)]
        self.weight: dict[html.HtmlElement, float] = tree.by_element(weight)
        self.valid = tree.by_element(tree.subtree_sums(valid))
        self.noise = tree.by_element(tree.subtree_sums(noise))
        self.links = tree.by_element(raw_links)
        self.body = body

    def score(self, el: html.HtmlElement, lam: float) -> float:
        return self.valid[el] - lam * self.noise[el]


TEASER_MIN_ITEMS = 3
# Paragraphs are never teasers; table rows and cells repeat because tables lay out pages.
NOT_TEASERS = frozenset({"p", "tr", "td", "th", "tbody"})


def _signature(el: html.HtmlElement) -> tuple:
    """Tag and class tokens, minus per-item tokens such as ``post-1806``."""
    return el.tag, _class_tokens(el.get("class") or "")


@lru_cache(maxsize=65536)
def _class_tokens(classes: str) -> tuple:
    return tuple(sorted(t for t in classes.split() if not any(ch.isdigit() for ch in t)))


def _leads_with_link(item: html.HtmlElement, in_anchor) -> bool:
    """Does ``item`` open with a headline link: a link first, standing on its own line?

    A link followed by the rest of its sentence (``<a>Name</a> scored twice``, also
    ``<strong><a>Name</a></strong> scored twice``) opens a line of prose, not a teaser.
    """
    for owner, text in dom.iter_text_nodes(item):
        if not text.strip():
            continue
        if not in_anchor.get(owner, False):
            return False
        anchor = owner if owner.tag == "a" else next(owner.iterancestors("a"), None)
        if anchor is None:
            return False
        node = anchor
        while len((node.tail or "").strip()) <= 2:
            node = node.getparent()
            if node is None or node is item or node.tag in dom.BLOCK_TAGS:
                return True
        return False
    return False


def teaser_items(elements, in_anchor, valid, noise, links, total_valid: float) -> set:
    """Items of teaser lists: ``TEASER_MIN_ITEMS`` or more siblings of one tag and class,
    most of them led by a link and carrying some link text — related-article and
    "more stories" lists, whose summaries would otherwise read as body text.
    Paragraphs are never teasers (a link that opens a paragraph is part of it), nor are
    table rows and cells, which repeat because tables lay out whole pages.
    """
    found: set = set()
    for parent in elements:
        if len(parent) < TEASER_MIN_ITEMS:
            continue
        groups: dict[tuple, list] = {}
        for child in parent:
            if (
                isinstance(child.tag, str)
                and child.tag not in NOT_TEASERS
                and valid[child] + noise[child] > 0
            ):
                groups.setdefault(_signature(child), []).append(child)
        for items in groups.values():
            if len(items) < TEASER_MIN_ITEMS:
                continue
            led = [it for it in items if links[it] and _leads_with_link(it, in_anchor)]
            # A list that holds most of the page's text is the article (a "10 things" post).
            if len(led) >= 0.6 * len(items) and sum(valid[it] for it in items) < 0.5 * total_valid:
                found.update(led)
    return found


def best_block(gain: Gain, lam: float = LAMBDA) -> html.HtmlElement:
    """The element whose subtree has the highest ``valid − λ·noise``."""
    best, best_score = gain.body, float("-inf")
    for el in gain.elements:
        if el in gain.hidden or gain.weight[el] == 0.0:
            continue
        s = gain.score(el, lam)
        if s > best_score:
            best, best_score = el, s
    return best


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
        a for a in block.iterdescendants("article") if a in gain.valid and gain.score(a, lam) > floor
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
    block_weight = gain.weight[block]
    stack = list(block)
    while stack:
        el = stack.pop()
        if not isinstance(el.tag, str):
            continue
        valid, noise = gain.valid.get(el, 0), gain.noise.get(el, 0)
        text_len = gain.valid.get(el, 0) + noise
        # A zero-weight wrapper goes unless explicit body markup inside it kept some value.
        # A link in a sentence stays whatever its class says (class="tag" on a keyword link).
        zero = gain.weight.get(el, 1.0) == 0.0 and block_weight > 0 and valid <= 0 and el.tag != "a"
        if el in gain.hidden or zero:
            skip.add(el)
            continue
        # An embedded post (a tweet in a <blockquote>) is link-dense yet quoted on purpose.
        if (
            text_len
            and gain.links.get(el, 0) / text_len > dl_max
            and is_link_node(el)
            and el.tag != "blockquote"
        ):
            skip.add(el)
            continue
        if (
            el.tag in dom.BLOCK_TAGS
            and valid - lam * noise < 0
            and valid < 40
            and (gain.links.get(el, 0) or prune_linkless)
        ):
            skip.add(el)
            continue
        if title and el.tag in dom.HEADING_TAGS and similarity(dom.node_text(el), title) >= 0.8:
            skip.add(el)
            continue
        stack.extend(el)
    return skip


def extract_body(
    page: Page,
    lam: float = LAMBDA,
    dl_max: float = DL_MAX,
    cjk_mode: str = "substring",
    prune_linkless: bool = False,
    mu: float = MU,
    drop_furniture: bool = True,
    **_ignored,
) -> Body:
    gain = Gain(page, cjk_mode, mu)
    block = best_block(gain, lam)
    title = find_title(page, precise=True)
    block = titled_article(block, gain, lam, title)
    body = Body(method="auto", root=block, skip=prune(block, gain, lam, dl_max, title, prune_linkless))
    if drop_furniture:
        titles = [t for t in (title, page.title_tag) if t]

        def is_headline(line: str) -> bool:
            return any(similarity(line, t) >= HEADLINE_SIMILARITY for t in titles)

        body.paragraphs = strip_furniture(body.text_paragraphs(), is_headline=is_headline)
    declared = json_ld_article_body(page)
    if declared and len(body.text) < JSON_LD_SHORTFALL * len(declared):
        # The page renders its body with JavaScript; its own metadata carries the text.
        body.paragraphs = [line for line in (dom.normalize_space(x) for x in declared.splitlines()) if line]
    if len(body.text) < SCRIPT_BODY_BELOW:
        # Rendered only in part or not at all: the script data must carry what was rendered.
        embedded = script_paragraphs(page.text)
        rendered = body.text_paragraphs()
        if sum(map(len, embedded)) > max(SCRIPT_BODY_BELOW, 2 * len(body.text)) and (
            not rendered or any(rendered[0] in line for line in embedded)
        ):
            body.paragraphs = embedded
    return body


# <p> elements inside script data, raw or JSON-escaped (``\u003cp class=\"x\"\u003e``).
_SCRIPT_P = re.compile(
    r"(?:<|\\u003c)p(?:\s[^<>]*?)?(?:>|\\u003e)(.*?)(?:<|\\u003c)\\?/p(?:>|\\u003e)",
    re.IGNORECASE | re.DOTALL,
)
_SCRIPT = re.compile(r"<script\b[^>]*>(.*?)</script>", re.IGNORECASE | re.DOTALL)
_SCRIPT_TAG = re.compile(r"(?:<|\\u003c)[^<>]*?(?:>|\\u003e)")
_JSON_ESCAPE = re.compile(r"\\(?:u([0-9a-fA-F]{4})|(.))")


def script_paragraphs(source: str) -> list[str]:
    """The paragraphs of article HTML that a page ships as script data (a Next.js payload,
    a JSON state blob) and renders with JavaScript, in order, each once."""
    seen: dict[str, None] = {}
    data = "\n".join(_SCRIPT.findall(source))
    for match in _SCRIPT_P.finditer(data):
        inner = _SCRIPT_TAG.sub("", match.group(1))
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
