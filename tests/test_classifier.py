"""Kazennikov and Soloviev node classifier: features by group, training on labelled pages, two-stage
extraction removing a related-story inset, and skops models that refuse foreign types."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from newscrawl.evaluation.datasets import Record
from newscrawl.extract import Page, models
from newscrawl.extract.methods import classifier
from newscrawl.extract.methods.classifier import ClassifierModel, candidate_nodes, choose_body, extract_body
from newscrawl.training import fit_field, gold_tokens_per_element, prepare_page

VOCAB = (
    "council river budget harbour storm school bridge festival court farmers rail vote mayor "
    "report minister hospital market weather police union museum library election project"
).split()


def sentence(seed: str, n: int = 14) -> str:
    digest = hashlib.sha256(seed.encode()).digest()
    return " ".join(VOCAB[b % len(VOCAB)] for b in digest[:n]).capitalize() + "."


def article(i: int) -> tuple[str, str]:
    """A page with navigation, a body holding a related-story inset, and a footer; and its truth."""
    paragraphs = [" ".join(sentence(f"{i}-{k}-{j}") for j in range(4)) for k in range(5)]
    related = " ".join(sentence(f"rel-{i}-{j}", 6) for j in range(2))
    html = (
        f"<html><head><title>Story {i}</title></head><body>"
        f"<div class='nav-bar'><ul>{''.join(f'<li><a href=/s{k}>Section {k}</a></li>' for k in range(6))}</ul></div>"
        f"<div class='story-body'><p>{paragraphs[0]}</p><p>{paragraphs[1]}</p>"
        f"<div class='inset-related'><a href='/r{i}'>{related}</a></div>"
        f"<p>{paragraphs[2]}</p><p>{paragraphs[3]}</p><p>{paragraphs[4]}</p></div>"
        f"<div class='site-footer'><span>Contact</span> <a href='/about'>About us and the team</a></div>"
        "</body></html>"
    )
    return html, "\n".join(paragraphs)


def records(n: int, offset: int = 0) -> list[Record]:
    out = []
    for i in range(offset, offset + n):
        html, text = article(i)
        out.append(Record(id=str(i), html=html.encode(), truth={"url": f"http://s{i % 3}.test/{i}", "text": text}))
    return out


@pytest.fixture(scope="module")
def body_model():
    pages = [prepare_page(r, "synthetic") for r in records(40)]
    return fit_field(pages, "body")


def test_alignment_labels_body_paragraphs_and_not_navigation():
    html, text = article(1)
    page = Page.from_html(html)
    total, gold = gold_tokens_per_element(page, text)
    story = page.body.find_class("story-body")[0]
    nav = page.body.find_class("nav-bar")[0]
    inset = page.body.find_class("inset-related")[0]
    assert gold[nav] == 0 and gold[inset] == 0
    assert gold[story] / total[story] > 0.8


def test_features_carry_the_five_groups_and_can_be_restricted():
    page = Page.from_html(article(2)[0])
    nodes = candidate_nodes(page)
    assert {f[0] for f in nodes[0].features} == {"1", "2", "3", "4", "5"}
    story = next(n for n in nodes if n.element.get("class") == "story-body")
    assert "3cls=story-body" in story.features
    assert any(f.startswith("4ng=") for f in story.features)  # class n-grams
    assert any(f.startswith("5feedin=") for f in story.features)  # <title> stands in for the feed
    only = candidate_nodes(page, groups=(1, 2))
    assert {f[0] for n in only for f in n.features} == {"1", "2"}


def test_two_stage_removes_the_inset_that_one_stage_keeps(body_model, monkeypatch):
    # Margin 0 is the paper's literal rule (drop every descendant scored negative); the
    # shipped margin is measured on the datasets (classifier.STAGE_TWO_MARGIN).
    monkeypatch.setattr(classifier, "STAGE_TWO_MARGIN", 0.0)
    html, _ = article(99)  # not in the training pages
    page = Page.from_html(html)
    nodes = candidate_nodes(page, body_model.groups)
    scores = body_model.scores(nodes)
    chosen, _ = choose_body(nodes, scores, two_stage=False)
    assert chosen.element.get("class") == "story-body"
    model = ClassifierModel(fields={"body": body_model})
    two = extract_body(page, model=model, two_stage=True).text
    one = extract_body(page, model=model, two_stage=False).text
    related = sentence("rel-99-0", 6)
    assert related in one and related not in two
    assert sentence("99-4-3") in two and "Section 3" not in two


def test_model_round_trip_and_tampered_file_refused(tmp_path, body_model):
    path = tmp_path / "classifier.skops"
    models.dump(classifier.classifier_to_data(ClassifierModel(fields={"body": body_model})), path)
    loaded = classifier.classifier_from_data(models.load(path))
    nodes = candidate_nodes(Page.from_html(article(5)[0]))
    assert np.allclose(loaded.fields["body"].scores(nodes), body_model.scores(nodes))

    from sklearn.tree import DecisionTreeClassifier

    bad = tmp_path / "bad.skops"
    models.dump({"body": {"svm": DecisionTreeClassifier(), "groups": [1], "n_features": 8}}, bad)
    with pytest.raises(models.UntrustedModelError, match="DecisionTreeClassifier"):
        models.load(bad)
