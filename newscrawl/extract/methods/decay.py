"""Information decay — Chen, Chen, Wu (2012), *Web page body extraction based on
information-decay amplitude* (Chen et al. 2012).

§2.1: the tag tree is cleaned of script, style, select, option, iframe, textarea,
object and input subtrees and of comments (done once for every method by
:func:`.dom.remove_noise`); nodes without text count for nothing below.

§2.2 Algorithm 1 ``FindMT``: from the root, step into the child with the longest
non-link text (``MaxClearText``) while the step keeps most of it; the topic subtree
is the node where ``Range = (Clen − Mlen) / Clen`` first exceeds ``T`` (0.34, §3).
A node with a single child is passed through.  Text nodes are children too, so a
node whose text sits directly in it (``<br>``-separated paragraphs) decays fully
when stepping down and is returned.  The printed pseudo-code says ``return MT`` at
that point; the prose (definition (3) and cases (1)/(2)) defines the topic subtree
as the node *before* the sudden decay — the one that still holds all paragraphs —
and that is what is returned here.

§2.3 Algorithm 2 ``CleanTree``: every *link node* of the topic subtree whose link
density ``LinksLength / TextLength`` exceeds ``DLmax`` (0.65, after reference [7]) is
removed with its subtree; the remaining text is the body.  Definition 1 makes a link
node one that holds ``<a>`` elements, so an ``<a>`` (or other inline element) with
at most one link inside a sentence is part of that sentence, not a link node.
"""

from __future__ import annotations

from lxml import html

from ..body import Body
from ..dom import BLOCK_TAGS
from ..page import Page

T = 0.34
DL_MAX = 0.65


def find_mt(node: html.HtmlElement, lengths, t: float = T) -> html.HtmlElement:
    """Algorithm 1 ``FindMT``, iterative. ``lengths[el] = (text, link text)``."""

    def clear(el: html.HtmlElement) -> int:
        text, links = lengths.get(el, (0, 0))
        return text - links

    while True:
        children = [c for c in node if lengths.get(c, (0, 0))[0] > 0]
        text_children = _direct_text_nodes(node)
        if len(children) + text_children == 1 and children:
            node = children[0]
            continue
        if not children:
            return node
        clen = clear(node)
        mt = max(children, key=clear)
        mlen = clear(mt)
        if clen <= 0 or (clen - mlen) / clen > t:
            return node
        node = mt


def _direct_text_nodes(node: html.HtmlElement) -> int:
    count = 1 if node.text and node.text.strip() else 0
    return count + sum(1 for c in node if c.tail and c.tail.strip())


def is_link_node(node: html.HtmlElement) -> bool:
    """Definition 1: a block, or an inline element holding more than one ``<a>``."""
    if node.tag in BLOCK_TAGS:
        return True
    anchors = 0
    for _ in node.iterdescendants("a"):
        anchors += 1
        if anchors > 1:
            return True
    return False


def clean_tree(root: html.HtmlElement, lengths, dl_max: float = DL_MAX) -> set[html.HtmlElement]:
    """Algorithm 2 ``CleanTree``: the nodes to remove (text-less, or link nodes above ``dl_max``)."""
    removed: set[html.HtmlElement] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        text, links = lengths.get(node, (0, 0))
        if text == 0 or (links / text > dl_max and is_link_node(node)):
            removed.add(node)
            continue
        stack.extend(node)
    return removed


def extract_body(page: Page, T: float = T, dl_max: float = DL_MAX, **_ignored) -> Body:  # noqa: N803
    """Chen et al. (2012) end to end: FindMT from ``<body>``, then CleanTree on the topic subtree."""
    lengths = page.lengths
    topic = find_mt(page.body, lengths, T)
    return Body(method="decay", root=topic, skip=clean_tree(topic, lengths, dl_max))
