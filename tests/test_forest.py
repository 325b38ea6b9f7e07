"""A fitted forest as flat arrays (:mod:`newscrawl.extract.forest`) gives scikit-learn's probabilities,
one row at a time and several rows at once."""

from __future__ import annotations

import numpy as np
from sklearn.ensemble import RandomForestClassifier

from newscrawl.extract.forest import flatten, predict_proba, predict_proba_rows


def test_the_flat_forest_gives_scikit_learns_probabilities_row_by_row_and_at_once():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(300, 5))
    y = (X[:, 0] + 0.5 * X[:, 3] > 0.2) | (X[:, 1] > 1.5)
    model = RandomForestClassifier(n_estimators=25, min_samples_leaf=3, random_state=0).fit(X, y)
    forest = flatten(model)
    test = rng.normal(size=(40, 5))
    expected = model.predict_proba(test)
    assert np.allclose([predict_proba(forest, row) for row in test], expected)
    assert np.allclose(predict_proba_rows(forest, test), expected)
    assert predict_proba_rows(forest, test[:1]).shape == (1, 2)
    assert 0.05 < expected[:, 1].mean() < 0.95  # both classes are predicted: the comparison means something
