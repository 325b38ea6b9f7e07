"""``auto+learned`` — the rule-based ``auto`` body, then seed 002's classifier as a veto
on the body's *edge* lines.

``auto`` chooses the content block and prunes it by its rules.  What its rules miss
sits mostly at the block's edges: a share bar or a "current location" trail above the
first paragraph, a source line, an editor's note or a "read next" label below the
last.  :func:`peel_edges` maps each rendered line of ``auto``'s body to the candidate
node that renders exactly that line (or to the smallest candidate holding it, when the
line is at least half of that node's text) and scores it with the node classifier.
From each end, lines are removed while the classifier rejects them beyond the linear
SVM's margin (decision value < :data:`VETO_MARGIN` = −1, the hinge loss's own
confidence boundary), at most :data:`EDGE_LINES` per end and at most
:data:`MAX_SHARE` of the body's characters in all — the veto trims furniture and
never replaces the rules' choice of body (a one-paragraph body scored as a non-body
node stays whole).  The first line the classifier does not confidently reject, or
cannot map to a node, stops the peeling on that side.

Measured out of fold (site-grouped 5-fold, :func:`.training.group_folds`: each page's
classifier never saw its site), Zyte body F1 rule-based ``auto`` → with the veto: aeb
0.968 → 0.972, fundus 0.951 → 0.953, zh-news 0.951 → 0.952, gne-zh 0.973 → 0.978,
newspaper4k 0.945 → 0.950 (144 pages better, 10 worse); on sets the shipped model was not
trained on, the trafilatura set's snippet F1 0.899 → 0.903 and goose3's prefix 0.431 → 0.451.
It stays opt-in (``method="auto+learned"``, ``NEWSCRAWL_METHOD=auto+learned``): it costs
~7.5 ms a page (+45 % over ``auto``) and scikit-learn plus the model (~135 MB a process), and
in the crawl benchmark it took the full/no-extraction ratio from ~0.7 to 0.49 and one
extraction worker's peak RSS from 192 to 327 MB (docs/performance.md).  Pruning with
the classifier *inside* the block (:func:`combine`, ``mode="prune"``, the previous
experiment) tied on aeb and fell on gne-zh (0.977 → 0.930); letting the classifier
choose between ``auto``'s best block and a close runner-up changed one page in 528 (a
runner-up within half the best gain is rare) and that one for the worse.
Title, date and author are those of ``auto`` (this wrapper changes only the body).
"""

from __future__ import annotations

import logging
from typing import Any

from . import auto, dom
from .body import Body
from .classifier import CANDIDATE_TAGS, STAGE_TWO_MARGIN, candidate_nodes, nodes_for, stage_one
from .hints import strip_furniture
from .page import Page

logger = logging.getLogger(__name__)

KEEP_TAGS = frozenset({"p", "h1", "h2", "h3", "h4", "h5", "h6", "span"})
VETO_MARGIN = -1.0
EDGE_LINES = 3
MAX_SHARE = 0.1
CONTAINED_SHARE = 0.5


def _key(text: str) -> str:
    """Comparison key of a line or a node's text: all white space removed (``node_text``
    joins inline children with spaces that the rendered line does not have)."""
    return "".join(text.split())


def edge_elements(lines: list[str], block, edge_lines: int = EDGE_LINES) -> dict[int, Any]:
    """The candidate element that renders each of the first and last ``edge_lines`` lines:
    the deepest candidate under ``block`` whose text is the line, else the smallest one
    whose text holds it when the line is at least :data:`CONTAINED_SHARE` of that text.
    Lines no candidate renders are left out."""
    by_key: dict[str, tuple[int, Any]] = {}
    for el in block.iter(*CANDIDATE_TAGS):
        key = _key(dom.node_text(el))
        if not key:
            continue
        depth = sum(1 for _ in el.iterancestors())
        if key not in by_key or depth > by_key[key][0]:
            by_key[key] = (depth, el)
    n = len(lines)
    wanted = sorted({*range(min(edge_lines, n)), *range(max(0, n - edge_lines), n)})
    found: dict[int, Any] = {}
    for i in wanted:
        key = _key(lines[i])
        if not key:
            continue
        if key in by_key:
            found[i] = by_key[key][1]
            continue
        holder = min((t for t in by_key if key in t), key=len, default=None)
        if holder and len(key) >= CONTAINED_SHARE * len(holder):
            found[i] = by_key[holder][1]
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
    """``auto``'s body without the edge lines the classifier confidently rejects."""
    lines = body.text_paragraphs()
    if body.root is None or not lines:
        return body
    at = edge_elements(lines, body.root, limits.get("edge_lines", EDGE_LINES))
    nodes = nodes_for(page, dict.fromkeys(at.values()), field_model.groups)
    if not nodes:
        return body
    score_of = dict(zip((n.element for n in nodes), field_model.scores(nodes), strict=True))
    scores = [float(score_of[at[i]]) if at.get(i) in score_of else None for i in range(len(lines))]
    start, end = edge_cut([len(line) for line in lines], scores, **limits)
    if (start, end) == (0, len(lines)):
        return body
    return Body(method=body.method, root=body.root, skip=body.skip, keep=body.keep,
                paragraphs=lines[start:end])


def learned_skip(block, nodes, scores, tau: float, keep_tags=KEEP_TAGS, already=()) -> set:
    """Descendants of ``block`` the classifier rejects (score < ``tau``), outermost only."""
    score_of = {n.element: s for n, s in zip(nodes, scores, strict=False)}
    skip: set = set()
    already = set(already)
    for el in block.iterdescendants():
        s = score_of.get(el)
        if s is None or s >= tau or el.tag in keep_tags:
            continue
        if any(anc in skip or anc in already for anc in el.iterancestors()):
            continue
        skip.add(el)
    return skip


def combine(page: Page, body: Body, field_model: Any, keep_tags=KEEP_TAGS) -> Body:
    """``auto``'s body with the classifier's rejected descendants left out (seed 002's
    stage-2 rule inside ``auto``'s block: score < −score(best)); the earlier experiment,
    kept as ``mode="prune"`` for comparison."""
    if body.root is None:
        return body
    nodes = candidate_nodes(page, field_model.groups)
    if not nodes:
        return body
    scores = field_model.scores(nodes)
    tau = -STAGE_TWO_MARGIN * max(scores[stage_one(nodes, scores)], 0.0)
    extra = learned_skip(body.root, nodes, scores, tau, keep_tags, already=body.skip)
    if not extra:
        return body
    declared = auto.json_ld_article_body(page)
    combined = Body(method="auto+learned", root=body.root, skip=set(body.skip) | extra)
    combined.paragraphs = strip_furniture(combined.text_paragraphs())
    if declared and len(combined.text) < auto.JSON_LD_SHORTFALL * len(declared):
        return body
    return combined


def extract_body(page: Page, model: Any = None, mode: str = "edges", **params) -> Body:
    """``auto``'s body refined by the shipped classifier (``model`` overrides it):
    ``mode="edges"`` (:func:`peel_edges`, the default) or ``"prune"`` (:func:`combine`)."""
    from .models import load_classifier

    model = model or load_classifier()
    body = auto.extract_body(page, **params)
    if mode == "prune":
        result = combine(page, body, model.fields["body"])
    elif mode == "edges":
        result = peel_edges(page, body, model.fields["body"])
    else:
        raise ValueError(f"mode must be 'edges' or 'prune', not {mode!r}")
    result.method = "auto+learned"
    return result
