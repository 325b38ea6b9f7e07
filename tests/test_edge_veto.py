"""``auto``'s learned step: the node classifier as a veto on the edge lines of the rules' body,
scored with plain weights (:class:`LinearFieldModel`) that match scikit-learn's."""

from __future__ import annotations

import numpy as np
import pytest

from newscrawl.extract import Page, extract, models
from newscrawl.extract.body import Body
from newscrawl.extract.dom import node_text
from newscrawl.extract.methods import auto, auto_learned, classifier
from newscrawl.extract.methods.auto_learned import EDGE_LINES, edge_cut, edge_elements, peel_edges
from newscrawl.extract.methods.classifier import (
    GROUPS,
    ClassifierModel,
    FieldModel,
    LinearFieldModel,
    candidate_nodes,
    feature_column,
    hasher,
    nodes_for,
)

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


def test_edge_elements_finds_the_element_that_renders_each_edge_line():
    page = _page(
        "<article><div class='lead'><p>Opening <b>words</b> <span class='ad'>AD</span> here.</p></div>"
        f"<p>{PARAGRAPH}</p><div class='end'>Filed by <a href='/d'>the desk</a></div></article>"
    )
    article = page.root.find(".//article")
    ad = article.find(".//span")
    lines = Body("auto", article, skip={ad}).text_paragraphs()
    assert lines[0] == "Opening words here."  # the skipped subtree is not in the line
    at = edge_elements(lines, article, {ad})
    assert at[0].tag == "p" and at[0].getparent().get("class") == "lead"  # deepest, not the wrapper
    assert at[2].get("class") == "end"  # a line over inline children maps to their block
    assert at[1].tag == "p" and node_text(at[1]) == PARAGRAPH


def test_edge_elements_leaves_out_a_line_that_is_a_small_part_of_its_node():
    page = _page(f"<article><div>Short head<br>{PARAGRAPH} {PARAGRAPH}</div></article>")
    article = page.root.find(".//article")
    lines = Body("auto", article).text_paragraphs()
    at = edge_elements(lines, article)
    assert lines[0] == "Short head" and 0 not in at  # far less than half of the <div>'s text
    assert at[1].tag == "div"  # the long line is most of it


def _fitted_field_model() -> FieldModel:
    from sklearn.linear_model import SGDClassifier

    page = _page(
        f"<article class='story'><h1>Harbour</h1><p>{PARAGRAPH}</p><p>Más texto, 中文 ({PARAGRAPH})</p>"
        "<div class='share'><a href='/s'>Share this</a> story</div></article>"
    )
    nodes = candidate_nodes(page)
    labels = [int("Share" not in node_text(n.element)) for n in nodes]
    svm = SGDClassifier(loss="hinge", random_state=0).fit(hasher().transform(n.features for n in nodes), labels)
    return FieldModel(svm=svm), nodes


def test_feature_column_is_feature_hasher_s_column():
    features = ["1len=3", "3cls=article", "4ng=文章", "4cxp=a|b", "x" * 300]
    matrix = hasher().transform([[f] for f in features]).tocsr()
    assert [feature_column(f) for f in features] == [int(matrix[i].indices[0]) for i in range(len(features))]


def test_linear_weights_score_as_scikit_learn_does_and_survive_a_round_trip(tmp_path):
    field_model, nodes = _fitted_field_model()
    expected = field_model.scores(nodes)
    assert np.allclose(LinearFieldModel.from_field_model(field_model).scores(nodes), expected)
    classifier.dump_linear(ClassifierModel(fields={"body": field_model}), tmp_path / models.LINEAR_FILE)
    loaded = classifier.load_linear(tmp_path)["body"]
    assert loaded.groups == GROUPS and np.allclose(loaded.scores(nodes), expected)


def test_the_shipped_weights_match_the_shipped_classifier():
    try:
        linear = classifier.load_linear()["body"]
        shipped = classifier.load_classifier().fields["body"]
    except FileNotFoundError as exc:
        pytest.skip(f"no shipped classifier: {exc}")
    page = _page(f"<article class='story'><h1>Harbour</h1><p>{PARAGRAPH}</p><ul><li>{PARAGRAPH}</li></ul></article>")
    nodes = candidate_nodes(page)
    assert np.allclose(linear.scores(nodes), shipped.scores(nodes))


def test_the_shipped_model_runs_through_extract():
    try:
        classifier.load_linear()
    except FileNotFoundError as exc:
        pytest.skip(f"no shipped classifier weights: {exc}")
    html = (
        "<html><head><title>Harbour stays open</title></head><body><article><h1>Harbour stays open</h1>"
        + "".join(f"<p>{PARAGRAPH} ({i})</p>" for i in range(6))
        + "</article><aside><a href='/1'>More news</a></aside></body></html>"
    )
    article = extract(html, "https://example.org/a")
    assert article.method == "auto"
    assert article.text.count("The council met") == 6


_FILED_BY = (
    "<html><head><title>Harbour</title></head><body><article>"
    + "".join(f"<p>{PARAGRAPH} ({i})</p>" for i in range(4))
    + "<div>Filed by the harbour desk</div></article></body></html>"
)


def test_auto_is_the_rules_plus_the_veto_with_the_rules_title(monkeypatch):
    monkeypatch.setattr(auto_learned, "_shipped_body_model", lambda: MarkedRejects("harbour desk"))
    vetoed = extract(_FILED_BY, "https://example.org/a")
    rules = extract(_FILED_BY, "https://example.org/a", method="auto-rules")
    assert vetoed.method == "auto" and "harbour desk" not in vetoed.text
    assert rules.method == "auto-rules" and "harbour desk" in rules.text and vetoed.title == rules.title


def test_auto_without_weights_is_the_rules_body_and_says_so(monkeypatch, caplog):
    def missing(directory=None):
        raise FileNotFoundError("no classifier-linear.npz")

    monkeypatch.setattr(auto_learned, "load_linear", missing)
    auto_learned._shipped_body_model.cache_clear()
    try:
        with caplog.at_level("WARNING", logger="newscrawl.extract.methods.auto_learned"):
            article = extract(_FILED_BY, "https://example.org/a")
    finally:
        auto_learned._shipped_body_model.cache_clear()
    assert article.text == extract(_FILED_BY, "https://example.org/a", method="auto-rules").text
    assert "no classifier weights" in caplog.text


def test_remembered_columns_score_as_the_hash_does_and_stay_bounded(monkeypatch):
    field_model, nodes = _fitted_field_model()
    linear = LinearFieldModel.from_field_model(field_model)
    hashed = [linear.weights.take([feature_column(f) for f in n.features]).sum() + linear.intercept for n in nodes]
    assert linear.scores(nodes).tolist() == hashed  # first pass fills the cache
    assert linear.scores(nodes).tolist() == hashed  # second pass reads it
    monkeypatch.setattr(classifier, "MAX_CACHED_COLUMNS", 5)
    linear.scores(nodes)
    assert len(linear._columns) <= 5 + max(len(n.features) for n in nodes)


def test_the_veto_s_page_length_is_the_count_the_rules_leave_and_the_body_s_text():
    page = _page(f"<article><p>{PARAGRAPH}</p><p> Two\u00a0words </p></article><footer>Contact us</footer>")
    expected = len("".join(page.body.xpath("string()").split()))
    assert classifier.body_text_length(_page("<p>Three short words</p>")) == len("HomeThreeshortwords")
    auto.Gain(page)
    assert page.derived[classifier.BODY_CHARS] == expected == classifier.body_text_length(page)
