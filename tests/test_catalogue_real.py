"""Article links on real listing pages (``../shared/datasets/catalogue-labelled``): the bar.

The catalogue stage gets no site pattern, only the page's registrable domain, and must find
the links in the site's own article-URL form (see the set's SOURCE.md) at micro F1 >= 0.95
(bench/catalogue_eval.py prints the per-page figures).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import catalogue_eval  # noqa: E402

PAGES = catalogue_eval.load_pages()
needs_pages = pytest.mark.skipif(not PAGES, reason="../shared/datasets/catalogue-labelled is absent")


@pytest.fixture(scope="module")
def evaluated():
    """The catalogue stage on every labelled page, run once for the tests that read its scores."""
    return catalogue_eval.evaluate(PAGES)


@needs_pages
def test_micro_f1_meets_the_bar_without_the_site_pattern(evaluated):
    micro, rows = evaluated
    per_page = {page_id: round(score.f1, 3) for page_id, score in rows}
    assert micro.f1 >= catalogue_eval.F1_BAR, per_page


@needs_pages
def test_every_page_keeps_most_of_its_articles(evaluated):
    """No page may be given up for the pooled figure: recall at least 0.8 on each."""
    _, rows = evaluated
    assert all(score.recall >= 0.8 for _, score in rows), {i: round(s.recall, 3) for i, s in rows}


def test_score_counts():
    score = catalogue_eval.score_page({"a", "b", "x"}, {"a", "b", "c", "d"})
    assert (score.true_pos, score.false_pos, score.false_neg) == (2, 1, 2)
    assert score.precision == pytest.approx(2 / 3) and score.recall == pytest.approx(0.5)
    assert score.f1 == pytest.approx(2 * (2 / 3) * 0.5 / (2 / 3 + 0.5))
