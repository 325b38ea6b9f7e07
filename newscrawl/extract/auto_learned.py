"""``auto+learned`` — experimental: the rule-based ``auto`` body, then seed 002's second
stage inside it.

``auto`` chooses the content block and prunes it by its rules; the node classifier
then scores the block's descendants and removes those it rejects with a margin
at least as firmly as it accepts its own best body node (score < −score(best),
seed 002's stage-2 rule in :mod:`.classifier`), outermost first — the related-story insets, share bars and
advertisement slots the rules missed.  Paragraph and heading elements are left to
``auto`` (:data:`KEEP_TAGS`): measured out of fold, the classifier's verdict on single
paragraphs costs more recall than it gains precision.  Title, date and author are
those of ``auto`` (this wrapper changes only the body).  The lead decides whether this
enters ``auto``; README / the training report give the measurements.
"""

from __future__ import annotations

from typing import Any

from . import auto
from .body import Body
from .classifier import STAGE_TWO_MARGIN, candidate_nodes, stage_one
from .hints import strip_furniture
from .page import Page

KEEP_TAGS = frozenset({"p", "h1", "h2", "h3", "h4", "h5", "h6", "span"})


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
    """``auto``'s body with the classifier's rejected descendants left out."""
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


def extract_body(page: Page, model: Any = None, **params) -> Body:
    from .models import load_classifier

    model = model or load_classifier()
    body = auto.extract_body(page, **params)
    result = combine(page, body, model.fields["body"])
    result.method = "auto+learned"
    return result
