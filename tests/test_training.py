"""Training-time caches must not change what is learned: per-page hashed features equal
hashing all nodes at once, block labels from cached gold counts equal fresh ones, and
:class:`Stats` sums every field."""

from __future__ import annotations

import dataclasses

import numpy as np
from test_classifier import records

from newscrawl.extract.features import Stats
from newscrawl.extract.training import block_samples, block_samples_of, design_matrix, fit_field, prepare_page


def test_stats_add_sums_every_field():
    names = [f.name for f in dataclasses.fields(Stats)]
    a = Stats(**{n: i + 1 for i, n in enumerate(names)})
    a.add(Stats(**{n: 10 * (i + 1) for i, n in enumerate(names)}))
    assert [getattr(a, n) for n in names] == [11 * (i + 1) for i in range(len(names))]


def test_cached_page_matrices_equal_hashing_all_nodes_at_once():
    pages = [prepare_page(r, "synthetic") for r in records(6)]
    for groups in ((1, 2, 3, 4, 5), (1, 3)):
        stacked = np.vstack([p.matrix("body", groups).toarray() for p in pages])
        assert np.array_equal(stacked, design_matrix((p.nodes for p in pages), groups).toarray())
    assert pages[0].matrix("body") is pages[0].matrix("body")  # hashed once
    assert design_matrix([[], []]).shape == (0, pages[0].matrix("body").shape[1])  # a page without nodes
    again = [prepare_page(r, "synthetic") for r in records(6)]  # fixed seed: the same model every run
    assert np.array_equal(fit_field(pages, "body").svm.coef_, fit_field(again, "body").svm.coef_)


def test_block_labels_from_cached_gold_counts_equal_fresh_ones():
    data = prepare_page(records(1)[0], "synthetic")
    assert data.gold_counts is not None
    _, X_cached, y_cached = block_samples(data)
    _, X_fresh, y_fresh = block_samples_of(data.page, data.record.get("text"))
    assert np.array_equal(X_cached, X_fresh) and np.array_equal(y_cached, y_fresh)
    assert y_cached.any() and not y_cached.all()
