"""``auto+learned``: the node classifier as a veto on the edge lines of ``auto``'s body."""

from __future__ import annotations

import numpy as np
import pytest

from newscrawl.extract import Page, extract
from newscrawl.extract.auto_learned import EDGE_LINES, edge_cut, extract_body, peel_edges
from newscrawl.extract.body import Body
from newscrawl.extract.classifier import GROUPS, candidate_nodes, nodes_for
from newscrawl.extract.dom import node_text

PARAGRAPH = "The council met on Tuesday and agreed to keep the harbour open for the rest of the winter."


class MarkedRejects:
    """A stand-in field model: rejects (score −3) nodes whose text holds ``marker``, accepts the rest."""

    groups = GROUPS

    def __init__(self, marker: str = "Share this"):
        self.marker = marker
        self.scored: list = []

    def scores(self, nodes):
        self.scored.extend(nodes)
        return np.array([-3.0 if self.marker in node_text(n.element) else 2.0 for n in nodes])


def _page(inner: str) -> Page:
    html = f"<html><head><title>Harbour</title></head><body><nav><a href='/'>Home</a></nav>{inner}</body></html>"
    return Page.from_html(html, url="https://example.org/a")


def _body(page: Page) -> Body:
    return Body(method="auto", root=page.root.find(".//article"))


def test_edge_cut_peels_confident_rejects_from_both_ends_only():
    lengths = [10, 200, 200, 10, 200, 10]
    scores = [-3.0, 1.0, 1.0, -3.0, 1.0, -3.0]
    assert edge_cut(lengths, scores) == (1, 5)  # the rejected line in the middle stays


def test_edge_cut_stops_at_an_unmapped_or_unsure_line():
    lengths = [10, 10, 500]
    assert edge_cut(lengths, [None, -3.0, 1.0]) == (0, 3)
    assert edge_cut(lengths, [-0.5, -3.0, 1.0]) == (0, 3)  # inside the SVM margin: no veto


def test_edge_cut_never_takes_more_than_its_share_or_lines():
    assert edge_cut([100], [-5.0]) == (0, 1)  # a one-line body is never emptied
    assert edge_cut([60, 400], [-5.0, 1.0]) == (0, 2)  # over 10 % of the body: kept
    lengths = [1] * (EDGE_LINES + 2) + [1000]
    start, _ = edge_cut(lengths, [-5.0] * (EDGE_LINES + 2) + [1.0])
    assert start == EDGE_LINES


def test_nodes_for_gives_the_features_candidate_nodes_gives():
    page = _page(
        f"<article class='story'><h1>Harbour</h1><p>{PARAGRAPH}</p>"
        "<div class='share'><a href='/s'>Share this</a> story</div>"
        f"<ul><li>{PARAGRAPH}</li></ul></article>"
    )
    every = candidate_nodes(page)
    some = nodes_for(page, [n.element for n in every])
    assert [n.element for n in some] == [n.element for n in every]
    for mine, theirs in zip(some, every, strict=True):
        assert sorted(mine.features) == sorted(theirs.features)


def test_peel_edges_drops_a_rejected_trailing_line_and_keeps_the_rest():
    page = _page(
        f"<article><p>{PARAGRAPH}</p><p>{PARAGRAPH.replace('Tuesday', 'Monday')}</p>"
        f"<p>{PARAGRAPH.replace('winter', 'spring')}</p><div>Share this article</div></article>"
    )
    model = MarkedRejects()
    body = peel_edges(page, _body(page), model)
    assert "Share this" not in body.text
    assert body.text.count("The council met") == 3
    assert len(model.scored) <= 2 * EDGE_LINES  # only the edge lines' nodes are scored


def test_peel_edges_leaves_a_body_without_confident_rejects_alone():
    page = _page(f"<article><p>{PARAGRAPH}</p><p>Share this idea with {PARAGRAPH}</p><p>{PARAGRAPH}</p></article>")
    original = _body(page)
    body = peel_edges(page, original, MarkedRejects("nothing matches"))
    assert body is original
    one_line = _page(f"<article><p>Share this: {PARAGRAPH}</p></article>")
    assert peel_edges(one_line, _body(one_line), MarkedRejects()).text.startswith("Share this")


def test_extract_body_refuses_an_unknown_mode():
    page = _page(f"<article><p>{PARAGRAPH}</p></article>")
    with pytest.raises(ValueError, match="mode"):
        extract_body(page, model=object(), mode="guess")


def test_the_shipped_model_runs_through_extract():
    try:
        from newscrawl.extract.models import load_classifier

        load_classifier()
    except FileNotFoundError as exc:
        pytest.skip(f"no shipped classifier: {exc}")
    html = (
        "<html><head><title>Harbour stays open</title></head><body><article><h1>Harbour stays open</h1>"
        + "".join(f"<p>{PARAGRAPH} ({i})</p>" for i in range(6))
        + "</article><aside><a href='/1'>More news</a></aside></body></html>"
    )
    article = extract(html, "https://example.org/a", method="auto+learned")
    assert article.method == "auto+learned"
    assert article.text.count("The council met") == 6


def test_auto_learned_is_auto_plus_the_veto_with_auto_s_title(monkeypatch):
    from newscrawl.extract import models

    html = (
        "<html><head><title>Harbour</title></head><body><article>"
        + "".join(f"<p>{PARAGRAPH} ({i})</p>" for i in range(4))
        + "<div>Filed by the harbour desk</div></article></body></html>"
    )

    class Shipped:
        fields = {"body": MarkedRejects("harbour desk")}

    monkeypatch.setattr(models, "load_classifier", lambda: Shipped())
    vetoed = extract(html, "https://example.org/a", method="auto+learned")
    rules = extract(html, "https://example.org/a", method="auto")
    assert vetoed.method == "auto+learned" and "harbour desk" not in vetoed.text
    assert "harbour desk" in rules.text and vetoed.title == rules.title
