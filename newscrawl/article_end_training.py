"""Training data and fitting of the article-end model (:mod:`newscrawl.extract.methods.article_end`),
shared by ``bench/train_article_end.py`` (which writes the shipped model) and ``scrapy evaluate``'s
out-of-fold rows (:mod:`newscrawl.evaluation.out_of_fold`, a model per fold).  No Scrapy imports.

A candidate heading of a page's ``auto`` body (extracted without the cut) is labelled *ended*
when the truth's text holds under :data:`ENDED_COVERAGE` of the 3-word shingles from the heading
to the body's end.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np

from .evaluation.datasets import Record
from .evaluation.metrics import shingles
from .evaluation.sites import site_key
from .extract import Page
from .extract.errors import ExtractionError
from .extract.methods import article_end, auto_learned

ENDED_COVERAGE = 0.1
SEED = 20261204
FOREST = {"n_estimators": 100, "min_samples_leaf": 5, "max_features": 0.5}


def _word_triples(text: str, han: bool) -> Counter:
    """The 3-word shingles of ``text`` (none for a text of fewer than three words)."""
    return Counter({s: n for s, n in shingles(text, 3, han).items() if len(s) == 3})


def labelled_page(record: Record, dataset: str) -> dict[str, Any] | None:
    """The page's body lines and candidate headings, each ``(line, feature row, ended)``; None for
    a page without a body truth or one that cannot be parsed."""
    if not record.has("text"):
        return None
    han = (record.lang or "").lower().startswith("zh")
    try:
        body = auto_learned.extract_body(Page.from_html(record.html, url=record.url), article_end=False)
    except ExtractionError:
        return None
    truth = _word_triples(record.get("text"), han)
    lines = body.text_paragraphs()
    rows = []
    for line, row, _heading in article_end.heading_rows(body):
        rest = _word_triples("\n".join(lines[line:]), han)
        coverage = sum(n for s, n in rest.items() if s in truth) / rest.total() if rest else 1.0
        rows.append((line, row, coverage < ENDED_COVERAGE))
    return {"set": dataset, "id": record.id, "site": site_key(record) or f"{dataset}:{record.id}", "han": han,
            "truth": record.get("text"), "lines": lines, "rows": rows}


def fit(pages: list[dict[str, Any]]):
    """A random forest fitted on every candidate heading of ``pages``."""
    from sklearn.ensemble import RandomForestClassifier

    X = np.array([row for page in pages for _line, row, _ended in page["rows"]], dtype=np.float64)
    y = np.array([ended for page in pages for _line, _row, ended in page["rows"]])
    if len(set(y.tolist())) < 2:
        raise ValueError("the article-end model needs headings of both kinds")
    return RandomForestClassifier(**FOREST, random_state=SEED, n_jobs=2).fit(X, y)


def as_model(forest, threshold: float) -> dict[str, Any]:
    """The fitted ``forest`` as the plain model :func:`.article_end.cut` reads."""
    from .extract.forest import flatten

    return {"forest": flatten(forest), "ended_class": list(forest.classes_).index(True),
            "threshold": threshold, "features": list(article_end.FEATURES)}
