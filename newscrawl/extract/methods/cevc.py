"""CEVC — Wang, Fang, Yu, Ma (2020), *A Content Extraction Method for Web News and Blogs* (Wang et al. 2020).

§2.1 Definition 1: a character is *valid* when its text node has no ``<a>`` ancestor
and holds at least one stop word (:mod:`.stopwords`).  Algorithm 1 ``countVC``
accumulates the number of valid (non-space) characters bottom-up, so every node
carries ``amountVC``.  §2.2 Algorithm 2 ``locateCB`` starts at ``<body>`` and
descends into the child with the most valid characters until
``maxVC / totalVC < α`` (α = 0.5, §3.3); when no child holds any, it returns the
parent.  As in the DOM the paper works on, text nodes are children too: when the
richest child is a text node, its element is the content block.

Output: the content block's text without its noise — the paragraphs of the block
that hold valid characters (link lists, bylines and captions without a stop word
are dropped; link text inside a valid paragraph stays part of the sentence).
"""

from __future__ import annotations

from lxml import html

from .. import dom
from ..body import Body
from ..page import Page
from ..stopwords import stopword_matcher

ALPHA = 0.5
_TEXT = None  # marks a text-node child in locateCB


def count_vc(page: Page, lang: str | None, cjk_mode: str = "substring"):
    """Algorithm 1 ``countVC``: valid characters per element and per direct text node.

    Returns ``(amount, own)``: ``amount[el]`` is the element's ``amountVC``;
    ``own[el]`` lists the valid-character counts of its direct text nodes.
    """
    holds_stopword = stopword_matcher(lang, cjk_mode)
    tree = dom.TreeIndex(page.body)
    own_lists: list[list[int]] = [[] for _ in tree.elements]
    for i, text in tree.texts:
        if tree.in_anchor[i]:
            continue
        n = dom.non_space_len(text)
        if n and holds_stopword(text):
            own_lists[i].append(n)
    amount = tree.by_element(tree.subtree_sums([sum(counts) for counts in own_lists]))
    own = tree.by_element(own_lists)
    in_anchor = tree.by_element(tree.in_anchor)
    return amount, own, in_anchor, holds_stopword


def locate_cb(node: html.HtmlElement, amount, own, alpha: float = ALPHA) -> html.HtmlElement:
    """Algorithm 2 ``locateCB``, iterative."""
    while True:
        max_node, max_vc, total_vc = None, 0, 0
        for child in node:
            vc = amount.get(child, 0)
            total_vc += vc
            if vc > max_vc:
                max_vc, max_node = vc, child
        for vc in own.get(node, ()):
            total_vc += vc
            if vc > max_vc:
                max_vc, max_node = vc, _TEXT
        if max_vc == 0:
            parent = node.getparent()
            return parent if parent is not None else node
        if max_vc / total_vc < alpha or max_node is _TEXT:
            return node
        node = max_node


def extract_body(page: Page, alpha: float = ALPHA, cjk_mode: str = "substring", **_ignored) -> Body:
    """Wang et al. (2020) end to end: countVC, locateCB from ``<body>``, the block's valid paragraphs."""
    amount, own, in_anchor, holds_stopword = count_vc(page, page.language, cjk_mode)
    block = locate_cb(page.body, amount, own, alpha)

    def valid(owner: html.HtmlElement, text: str) -> bool:
        return not in_anchor.get(owner, False) and bool(text.strip()) and holds_stopword(text)

    return Body(method="cevc", root=block, keep=valid)
