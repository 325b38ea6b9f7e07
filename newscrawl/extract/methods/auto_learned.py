"""``auto`` — the rule-based body of :mod:`.auto`, then Kazennikov and Soloviev's node classifier as a
veto on the body's *edge* lines: the default method.

:mod:`.auto` chooses the content block and prunes it by its rules.  What its rules miss
sits mostly at the block's edges: a share bar or a "current location" trail above the
first paragraph, a source line, an editor's note or a "read next" label below the
last.  :func:`peel_edges` maps each of the first and last rendered lines to the
candidate node that renders it (:func:`edge_elements`) and scores that node with the
body field of the node classifier (:mod:`.classifier`, the paper's linear SVM over
hashed features, evaluated as plain weights by :class:`.classifier.LinearFieldModel`).
From each end, lines are removed while the classifier rejects them beyond the linear
SVM's margin (decision value < :data:`VETO_MARGIN` = −1, the hinge loss's own
confidence boundary), at most :data:`EDGE_LINES` per end and at most
:data:`MAX_SHARE` of the body's characters in all — the veto trims furniture and
never replaces the rules' choice of body (a one-paragraph body scored as a non-body
node stays whole).  The first line the classifier does not confidently reject, or
cannot map to a node, stops the peeling on that side.

Measured out of fold (site-grouped 5-fold, :func:`.training.group_folds`: each page's
classifier never saw its site), Zyte body F1 rules only (``auto-rules``) → with the
veto (``bench/veto_oof.py``): aeb 0.971 → 0.973, fundus 0.957 → 0.958, zh-news 0.956 →
0.956, newspaper4k 0.967 → 0.971; on the sets it never trained on, daniel-ru 0.875 → 0.877,
daniel-zh 0.945 → 0.946, dragnet-train level, gne-zh 0.978 → 0.977 (six pages change).
Titles and dates are those of the rules (this step changes only the body).  Tried and
dropped: pruning with the classifier *inside* the block (Kazennikov and Soloviev's stage 2
within ``auto``'s block) tied on aeb and fell on gne-zh (0.977 → 0.930); letting the
classifier choose between ``auto``'s best block and a
close runner-up changed one page in 528, for the worse.

After the veto, :func:`.article_end.cut` ends the body where the article ends: a section of the
page's own below the article (a call to action, an author's box), under a heading of its own and
too long for three lines, goes by a second learned model (``data/models/article-end.npz``).

Without the shipped weights (``data/models/classifier-linear.npz``, written by
``scrapy train``) the body is the rules' alone and a warning says so once.
"""

from __future__ import annotations

import bisect
import logging
from functools import cache
from typing import Any

from .. import dom
from ..body import Body
from ..fields.title import voted_headline
from ..page import Page
from . import article_end as ending
from . import auto
from .classifier import CANDIDATE_TAGS, load_linear, nodes_for

logger = logging.getLogger(__name__)

VETO_MARGIN = -1.0
EDGE_LINES = 3
MAX_SHARE = 0.1
CONTAINED_SHARE = 0.5


def _key(text: str) -> str:
    """Comparison key of a line or a node's text: all white space removed (``node_text``
    joins inline children with spaces that the rendered line does not have)."""
    return "".join(text.split())


def _rendered_text(block, skip) -> tuple[str, list[int], list[Any]]:
    """The white-space-free text of ``block`` outside the ``skip`` subtrees, in document
    order, with the offset where each text node starts and the element that owns it."""
    pieces: list[str] = []
    starts: list[int] = []
    owners: list[Any] = []
    offset = 0
    for owner, text in dom.iter_text_nodes(block, skip):
        key = _key(text)
        if key:
            pieces.append(key)
            starts.append(offset)
            owners.append(owner)
            offset += len(key)
    return "".join(pieces), starts, owners


def _common_ancestor(elements: list[Any]) -> Any:
    """The deepest element that holds all ``elements`` (which share an ancestor)."""
    chain = [elements[0], *elements[0].iterancestors()]
    position = {el: i for i, el in enumerate(chain)}
    deepest = 0
    for el in elements[1:]:
        up = next(up for up in (el, *el.iterancestors()) if up in position)
        deepest = max(deepest, position[up])
    return chain[deepest]


def edge_elements(lines: list[str], block, skip=frozenset(), head: int = EDGE_LINES,
                  tail: int = EDGE_LINES) -> dict[int, Any]:
    """The candidate element that renders each of the first ``head`` and last ``tail`` lines.

    Each line is found in the block's rendered text (first lines from the start, last
    lines from the end); the text nodes it spans have a common ancestor, and the nearest
    candidate at or above it renders the line when its text *is* the line, or holds it
    when the line is at least :data:`CONTAINED_SHARE` of its text.  Lines not found, or
    only a small part of their node, are left out.  One walk over the block's text nodes
    and a few ancestors per line: the cost is the block's size, not its depth × size.
    """
    n = len(lines)
    text, starts, owners = _rendered_text(block, skip)
    first = list(range(min(head, n)))
    last = [i for i in range(n - 1, max(0, n - tail) - 1, -1) if i not in first]
    found: dict[int, Any] = {}
    spans: dict[int, tuple[int, int]] = {}
    cursor = 0
    for i in first:
        key = _key(lines[i])
        at = text.find(key, cursor) if key else -1
        if at >= 0:
            spans[i] = (at, at + len(key))
            cursor = at + len(key)
    limit = len(text)
    for i in last:
        key = _key(lines[i])
        at = text.rfind(key, cursor, limit) if key else -1
        if at >= 0:
            spans[i] = (at, at + len(key))
            limit = at
    for i, (begin, end) in spans.items():
        spanned = owners[bisect.bisect_right(starts, begin) - 1 : bisect.bisect_left(starts, end)]
        holder = _common_ancestor(spanned)
        while holder is not block and holder.tag not in CANDIDATE_TAGS:
            holder = holder.getparent()
        if holder.tag not in CANDIDATE_TAGS:
            continue
        holder_key = _key(dom.node_text(holder))
        if holder_key and end - begin >= CONTAINED_SHARE * len(holder_key):
            found[i] = holder
    return found


def edge_cut(
    lengths: list[int],
    scores: list[float | None],
    margin: float = VETO_MARGIN,
    edge_lines: int = EDGE_LINES,
    max_share: float = MAX_SHARE,
) -> tuple[int, int]:
    """``(start, end)``: the lines to keep after peeling confidently rejected lines from both
    ends (see the module docstring for the three limits)."""
    budget = max_share * sum(lengths)
    start, end = 0, len(lengths)

    def vetoed(i: int) -> bool:
        return scores[i] is not None and scores[i] < margin and lengths[i] <= budget

    while start < end and start < edge_lines and vetoed(start):
        budget -= lengths[start]
        start += 1
    while end > start and len(lengths) - end < edge_lines and vetoed(end - 1):
        budget -= lengths[end - 1]
        end -= 1
    return start, end


def peel_edges(page: Page, body: Body, field_model: Any, **limits) -> Body:
    """``body`` without the edge lines ``field_model`` confidently rejects (its ``scores``
    gives the decision values of candidate nodes)."""
    lines = body.text_paragraphs()
    if body.root is None or not lines:
        return body
    lengths = [len(line) for line in lines]
    # Only the lines the cut could reach from each end, were every line rejected, need a score.
    rejected = [float("-inf")] * len(lines)
    head = edge_cut(lengths, rejected, **limits)[0]
    tail = edge_cut(lengths[::-1], rejected, **limits)[0]
    if not head and not tail:
        return body
    at = edge_elements(lines, body.root, body.skip, head, tail)
    nodes = nodes_for(page, dict.fromkeys(at.values()), field_model.groups)
    if not nodes:
        return body
    score_of = dict(zip((n.element for n in nodes), field_model.scores(nodes), strict=True))
    scores = [float(score_of[at[i]]) if at.get(i) in score_of else None for i in range(len(lines))]
    start, end = edge_cut(lengths, scores, **limits)
    if (start, end) == (0, len(lines)):
        return body
    return Body(method=body.method, root=body.root, skip=body.skip, keep=body.keep,
                paragraphs=lines[start:end])


@cache
def _shipped_body_model() -> Any:
    """The shipped body field model, or None (warned once) when there is none."""
    try:
        return load_linear()["body"]
    except (FileNotFoundError, KeyError, ValueError) as exc:
        logger.warning("auto: no classifier weights (%s); bodies are the rules' alone", exc)
        return None


def extract_body(page: Page, model: Any = None, article_end: bool = True, article_end_model: Any = None,
                 **params) -> Body:
    """The rules' body (:func:`.auto.extract_body`) with its edges peeled by ``model``
    (a field model; by default the shipped body weights), then ended where the article ends
    (:func:`.article_end.cut` with ``article_end_model``, by default the shipped one;
    ``article_end=False`` leaves its trailing sections)."""
    lead = params.pop("lead", True)
    body = auto.extract_body(page, lead=False, **params)
    if body.method == "embedded":  # built from page data: no page nodes for the model to weigh
        return body
    model = model if model is not None else _shipped_body_model()
    if model is not None:
        body = peel_edges(page, body, model)
    if article_end:
        body = ending.cut(body, article_end_model)
    # The lead, outside the block, has no node among the block's edges: added after the veto.
    return auto.with_lead(body, page, voted_headline(page)) if lead else body
