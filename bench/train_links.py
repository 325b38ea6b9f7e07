"""Train the catalogue stage's article-link model (:mod:`newscrawl.discovery.link_model`) and score it.

Training data: ``catalogue-more`` of ``../shared/datasets`` only (permissive licences; 41 listing
pages of 24 sites).  ``catalogue-labelled`` is for evaluation only.  Every candidate anchor of a
page (a same-site http(s) link that is no file and not the site root) is one row of
:data:`~newscrawl.discovery.link_model.FEATURES`, labelled by whether its URL is in the page's
``article_urls``; a page's article links are the URLs whose best anchor reaches the threshold.

Scores are micro precision, recall and F1 of the article URLs of each set, as
``bench/catalogue_eval.py`` counts them:

- **before**: the hand-set points (``MIN_SCORE``) alone;
- **out of fold**: pages of both sets pooled and split into :data:`FOLDS` folds **grouped by site**
  (``site``, else the registrable domain: wired.com is in both sets and always in one fold); each
  fold is scored by a model trained on the ``catalogue-more`` pages of the other folds;
- **in-sample**: the model trained on all of ``catalogue-more``, scored on both sets.

The threshold is the one with the best out-of-fold F1 on ``catalogue-more`` among those with
precision of at least :data:`MIN_PRECISION`.  ``--write`` stores the model trained on all of
``catalogue-more`` in ``data/models/links.npz`` and its figures in ``links-manifest.json``.

    python bench/train_links.py [--datasets ../shared/datasets] [--write] [--compare]

``--compare`` also scores gradient boosting by the same grouped folds (it is not shipped unless it
wins clearly: a linear model is plain numbers and one matrix product a page).
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from bench.catalogue_eval import load_pages  # noqa: E402
from newscrawl.discovery import links  # noqa: E402
from newscrawl.discovery.link_model import FEATURES, LINKS_MANIFEST, LINKS_MODEL, logits  # noqa: E402
from newscrawl.discovery.survey import registrable_domain  # noqa: E402

DATASETS = ROOT.parent / "shared" / "datasets"
TRAIN_SET = "catalogue-more"
EVAL_SETS = ("catalogue-labelled", "catalogue-more")
FOLDS = 6
MIN_PRECISION = 0.95
C = 0.03  # strong regularisation: grouped CV scores C = 0.001 ... 1 and this one generalises best
SEED = 20261201


def load_set(datasets: Path, name: str) -> list[dict]:
    """The set's pages with ``html``, ``set`` and ``site``; [] when it is absent."""
    pages = load_pages(datasets, name)
    for page in pages:
        page["set"] = name
        page["site"] = page.get("site") or registrable_domain(page["url"])
    return pages


def page_rows(page: dict) -> tuple[list, np.ndarray]:
    """The page's scored anchors and their feature rows, as :func:`links.score_links` builds them."""
    root = links.parse(page["html"])
    domains = [registrable_domain(page["url"])]
    found = [(a, u, t) for a, u, t, problem in links._links(root, page["url"], domains) if problem is None]
    return links.page_links(found, {}, page["url"])


def prepare(pages: list[dict]) -> list[dict]:
    for page in pages:
        page["scored"], page["rows"] = page_rows(page)
        expected = set(page["article_urls"])
        page["labels"] = np.array([link.url in expected for link in page["scored"]], dtype=bool)
    return pages


def fit(pages: list[dict], kind: str = "logistic"):
    """A model trained on ``pages`` (every anchor a row; each site weighs as much as
    the square root of its rows, so one page of 700 links does not drown the others)."""
    rows = np.vstack([p["rows"] for p in pages])
    labels = np.concatenate([p["labels"] for p in pages])
    per_site: dict[str, int] = {}
    for p in pages:
        per_site[p["site"]] = per_site.get(p["site"], 0) + len(p["rows"])
    weights = np.concatenate([np.full(len(p["rows"]), max(per_site[p["site"]], 1) ** -0.5) for p in pages])
    if kind == "boosting":
        from sklearn.ensemble import HistGradientBoostingClassifier

        model = HistGradientBoostingClassifier(max_iter=200, learning_rate=0.05, max_leaf_nodes=15,
                                               random_state=SEED)
        model.fit(rows, labels, sample_weight=weights)
        return lambda x: model.decision_function(x) if len(x) else np.zeros(0)
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler

    scaler = StandardScaler().fit(rows)
    scale = np.where(scaler.scale_ > 0, scaler.scale_, 1.0)
    lr = LogisticRegression(C=C, max_iter=2000, class_weight="balanced")
    lr.fit((rows - scaler.mean_) / scale, labels, sample_weight=weights)
    data = {"features": list(FEATURES), "mean": scaler.mean_.tolist(), "scale": scale.tolist(),
            "coef": lr.coef_[0].tolist(), "intercept": float(lr.intercept_[0]), "threshold": 0.0}
    return data


def decide(model, rows: np.ndarray) -> np.ndarray:
    return model(rows) if callable(model) else logits(model, rows)


def page_found(page: dict, odds: np.ndarray, threshold: float) -> set[str]:
    return {link.url for link, o in zip(page["scored"], odds, strict=True)
            if o >= threshold and not links.menu_link(link)}


def micro(pages: list[dict], found: dict[str, set[str]]) -> dict:
    tp = fp = fn = 0
    for page in pages:
        expected, got = set(page["article_urls"]), found[page["id"]]
        tp, fp, fn = tp + len(got & expected), fp + len(got - expected), fn + len(expected - got)
    p = tp / (tp + fp) if tp + fp else 1.0
    r = tp / (tp + fn) if tp + fn else 1.0
    return {"pages": len(pages), "P": round(p, 4), "R": round(r, 4),
            "F1": round(2 * p * r / (p + r) if p + r else 0.0, 4)}


def figures(pages: list[dict], found: dict[str, set[str]]) -> dict:
    out = {name: micro([p for p in pages if p["set"] == name], found) for name in EVAL_SETS}
    out["pooled"] = micro(pages, found)
    return out


def out_of_fold(pages: list[dict], kind: str = "logistic") -> dict[str, np.ndarray]:
    """Each page's log-odds from a model that saw none of its site (grouped folds)."""
    from sklearn.model_selection import GroupKFold

    sites = np.array([p["site"] for p in pages])
    odds: dict[str, np.ndarray] = {}
    for train_idx, test_idx in GroupKFold(n_splits=FOLDS).split(np.zeros(len(pages)), groups=sites):
        training = [pages[i] for i in train_idx if pages[i]["set"] == TRAIN_SET]
        model = fit(training, kind)
        for i in test_idx:
            odds[pages[i]["id"]] = decide(model, pages[i]["rows"])
    return odds


def choose_threshold(pages: list[dict], odds: dict[str, np.ndarray]) -> float:
    """The threshold of the best out-of-fold F1 on the training set with precision >= MIN_PRECISION."""
    train = [p for p in pages if p["set"] == TRAIN_SET]
    best = (-1.0, 0.0)
    for threshold in np.arange(-3.0, 3.01, 0.1):
        score = micro(train, {p["id"]: page_found(p, odds[p["id"]], threshold) for p in train})
        if score["P"] >= MIN_PRECISION and score["F1"] > best[0]:
            best = (score["F1"], round(float(threshold), 2))
    return best[1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", type=Path, default=DATASETS)
    parser.add_argument("--write", action="store_true", help="store the model in data/models")
    parser.add_argument("--compare", action="store_true", help="also score gradient boosting")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    pages = prepare([p for name in EVAL_SETS for p in load_set(args.datasets, name)])
    if not any(p["set"] == TRAIN_SET for p in pages):
        print(f"no {TRAIN_SET} under {args.datasets}")
        return 1
    before = figures(pages, {p["id"]: {link.url for link in p["scored"] if link.points >= links.MIN_SCORE
                                               and not links.menu_link(link)}
                             for p in pages})
    oof = out_of_fold(pages)
    threshold = choose_threshold(pages, oof)
    oof_figures = figures(pages, {p["id"]: page_found(p, oof[p["id"]], threshold) for p in pages})
    model = fit([p for p in pages if p["set"] == TRAIN_SET])
    model["threshold"] = threshold
    in_sample = figures(pages, {p["id"]: page_found(p, logits(model, p["rows"]), threshold) for p in pages})
    report = {"before (hand-set points)": before, "out of fold": oof_figures, "in-sample": in_sample}
    if args.compare:
        boost = out_of_fold(pages, "boosting")
        boost_threshold = choose_threshold(pages, boost)
        report[f"gradient boosting, out of fold (threshold {boost_threshold})"] = figures(
            pages, {p["id"]: page_found(p, boost[p["id"]], boost_threshold) for p in pages})
    for name, sets in report.items():
        print(name)
        for set_name, score in sets.items():
            print(f"  {set_name:20} pages {score['pages']:3}  P {score['P']:.3f}  R {score['R']:.3f}  "
                  f"F1 {score['F1']:.3f}")
    print(f"threshold {threshold} (log-odds); weights:")
    for name, weight in sorted(zip(FEATURES, model["coef"], strict=True), key=lambda item: -abs(item[1])):
        print(f"  {name:20} {weight:+.3f}")
    if args.write:
        import sklearn

        from newscrawl.extract import models

        models.dump_plain(model, models.SHIPPED_MODEL_DIR / LINKS_MODEL)
        manifest = {
            "model": f"LogisticRegression(class_weight='balanced', C={C}) on standardised features",
            "training_set": TRAIN_SET, "training_pages": sum(p["set"] == TRAIN_SET for p in pages),
            "training_anchors": int(sum(len(p["rows"]) for p in pages if p["set"] == TRAIN_SET)),
            "licence": "catalogue-more: MIT and Apache-2.0 sources (its SOURCE.md)",
            "cv_protocol": f"{FOLDS} folds grouped by site over both sets; trained on catalogue-more only",
            "threshold": threshold, "min_precision": MIN_PRECISION, "scores": report,
            "features": list(FEATURES), "command": "python bench/train_links.py --write",
            "versions": {"python": platform.python_version(), "scikit-learn": sklearn.__version__,
                         "numpy": np.__version__},
        }
        # Its own manifest: manifest.json is rewritten whole by `scrapy train`.
        (models.SHIPPED_MODEL_DIR / LINKS_MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n")
        print(f"wrote {models.SHIPPED_MODEL_DIR / LINKS_MODEL} and {LINKS_MANIFEST}")
    print(f"{time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
