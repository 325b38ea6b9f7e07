"""A fitted scikit-learn tree ensemble as flat arrays, and its class probabilities for one row.

scikit-learn's ``predict_proba`` on one row costs a call per tree (milliseconds for a
forest); :func:`predict_proba` walks every tree at once, one numpy step per level, and gives
the same probabilities (the mean over the trees of the leaf's class shares).  The arrays are
plain ``numpy`` data, so the model file needs no estimator classes (:func:`.models.dump_plain`);
node indices are 32-bit and only leaves keep class shares (an inner node's are never read), which
halves the file.
"""

from __future__ import annotations

import numpy as np


def flatten(forest) -> dict[str, np.ndarray]:
    """The trees of a fitted ``RandomForestClassifier`` (or any ensemble of classification
    trees in ``estimators_``) as concatenated node arrays."""
    lefts, rights, features, thresholds, values, roots = [], [], [], [], [], []
    offset = 0
    for estimator in forest.estimators_:
        tree = estimator.tree_
        count = tree.node_count
        leaf = tree.children_left < 0
        lefts.append(np.where(leaf, np.arange(count), tree.children_left) + offset)
        rights.append(np.where(leaf, np.arange(count), tree.children_right) + offset)
        features.append(np.where(leaf, 0, tree.feature))
        thresholds.append(tree.threshold)
        value = tree.value[:, 0, :]
        shares = value / np.maximum(value.sum(axis=1, keepdims=True), 1e-12)
        values.append(np.where(leaf[:, None], shares, 0.0))
        roots.append(offset)
        offset += count
    depth = max(estimator.tree_.max_depth for estimator in forest.estimators_)
    return {"left": np.concatenate(lefts).astype(np.int32), "right": np.concatenate(rights).astype(np.int32),
            "feature": np.concatenate(features).astype(np.int32),
            "threshold": np.concatenate(thresholds).astype(np.float64),
            "value": np.concatenate(values).astype(np.float64), "roots": np.array(roots, dtype=np.int32),
            "depth": np.array([depth], dtype=np.int64)}


def predict_proba(forest: dict[str, np.ndarray], row) -> np.ndarray:
    """The class probabilities of one feature row (in the forest's ``classes_`` order)."""
    return predict_proba_rows(forest, [row])[0]


def predict_proba_rows(forest: dict[str, np.ndarray], rows) -> np.ndarray:
    """The class probabilities of several feature rows at once, one row of probabilities each:
    every tree of every row walked together, one numpy step per level."""
    x = np.asarray(rows, dtype=np.float32).astype(np.float64)  # as scikit-learn's trees compare
    node = np.broadcast_to(forest["roots"], (len(x), len(forest["roots"])))
    left, right, feature, threshold = forest["left"], forest["right"], forest["feature"], forest["threshold"]
    row = np.arange(len(x))[:, None]
    for _ in range(int(forest["depth"][0])):  # a leaf points to itself: extra steps stay put
        node = np.where(x[row, feature[node]] <= threshold[node], left[node], right[node])
    return forest["value"][node].mean(axis=1)
