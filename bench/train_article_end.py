"""Train the article-end model (``data/models/article-end.npz``) and report it out of fold.

For every page of the sets with a full body truth, the ``auto`` body is extracted without the
cut, and each candidate heading near its end (:func:`newscrawl.extract.methods.article_end.heading_rows`)
is labelled *ended* when the truth's text holds under :data:`ENDED_COVERAGE` of the 3-word
shingles of what follows it (the heading included).

- trained on (permissive licences): ``wcxb``, ``fundus``, ``aeb``, ``zh-news``, ``newspaper4k``;
- evaluated only: ``dragnet-train``, ``daniel-ru``, ``daniel-zh`` (GPL/AGPL: never trained on).

Folds are grouped by site (:func:`newscrawl.evaluation.sites.site_key`), so no site is in both
the training and the test fold.  The threshold on P(ended) is the highest whose pooled
out-of-fold body F1 (Zyte shingles, as ``scrapy evaluate``) of the trained sets is within
:data:`F1_TOLERANCE` of the best threshold's.  The model is then fitted on every trained heading
and written with its manifest (``article-end.json``: data, licences, threshold, figures in sample
and out of fold).

    python bench/train_article_end.py [--datasets ../shared/datasets] [--out data/models] [--dry-run]

Reproducible: fixed seed, the datasets' file order.  Costs about two minutes.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from newscrawl.article_end_training import ENDED_COVERAGE, FOREST, SEED, as_model, fit, labelled_page  # noqa: E402
from newscrawl.evaluation import metrics  # noqa: E402
from newscrawl.evaluation.datasets import load_dataset  # noqa: E402
from newscrawl.evaluation.sites import in_half  # noqa: E402
from newscrawl.extract.methods import article_end  # noqa: E402

DATASETS = ROOT.parent / "shared" / "datasets"
TRAIN_SETS = ("wcxb", "fundus", "aeb", "zh-news", "newspaper4k")
EVAL_SETS = ("dragnet-train", "daniel-ru", "daniel-zh")
LICENCES = {"wcxb": "CC-BY-4.0 (WCXB, Foley 2026)", "fundus": "MIT", "aeb": "MIT", "zh-news": "MIT",
            "newspaper4k": "MIT"}
# The out-of-fold F1 is nearly flat across thresholds: of those within this of the best, the
# highest (the fewest cuts; a lost line of the article costs a reader more than a kept notice).
F1_TOLERANCE = 0.0002
THRESHOLDS = [round(float(t), 2) for t in np.arange(0.40, 0.96, 0.05)]


def read_pages(datasets: Path) -> list[dict]:
    """Each page with a body truth: its set, site, site half, truth, lines and candidate headings."""
    pages = []
    for name in (*TRAIN_SETS, *EVAL_SETS):
        folder = datasets / name
        if not (folder / "truth.jsonl").is_file():
            continue
        for rec in load_dataset(folder):
            page = labelled_page(rec, name)
            if page is not None:
                pages.append(dict(page, half="A" if in_half(rec, "A") else "B"))
    return pages


def body_f1(pages: list[dict], cut_at: dict[int, int]) -> dict[str, float]:
    """Pooled Zyte body P/R/F1 of ``pages`` with page ``i``'s lines cut at ``cut_at[i]``."""
    counts = [metrics.shingle_counts(p["truth"], "\n".join(p["lines"][:cut_at.get(i, len(p["lines"]))]),
                                     han_chars=p["han"]) for i, p in enumerate(pages)]
    prf = metrics.aggregate_shingles(counts)
    return {"p": round(prf.precision, 5), "r": round(prf.recall, 5), "f1": round(prf.f1, 5)}


def first_cuts(pages: list[dict], proba: list[list[float]], threshold: float) -> dict[int, int]:
    """Page index -> the line of its first heading with P(ended) above ``threshold``."""
    cuts = {}
    for i, page_proba in enumerate(proba):
        for (line, _row, _label), p in zip(pages[i]["rows"], page_proba, strict=True):
            if p > threshold:
                cuts[i] = line
                break
    return cuts


def per_set(pages: list[dict], cuts: dict[int, int]) -> dict[str, dict]:
    out = {}
    for name in dict.fromkeys(p["set"] for p in pages):
        index = [i for i, p in enumerate(pages) if p["set"] == name]
        chosen = [pages[i] for i in index]
        moved = {k: cuts[i] for k, i in enumerate(index) if i in cuts}
        out[name] = {"pages": len(chosen), "cut": len(moved),
                     "cut_where_ended": sum(any(line == c and label for line, _r, label in chosen[k]["rows"])
                                            for k, c in moved.items()),
                     "before": body_f1(chosen, {}), "after": body_f1(chosen, moved)}
    return out


def main(argv: list[str] | None = None) -> int:
    from sklearn.model_selection import GroupKFold

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--datasets", type=Path, default=DATASETS)
    parser.add_argument("--out", type=Path, default=ROOT / "data" / "models")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--dry-run", action="store_true", help="report only; write no model")
    parser.add_argument("--half", choices=("A", "B"),
                        help="train on this site half only (to measure the rich record on the other half)")
    args = parser.parse_args(argv)
    started = time.time()
    pages = read_pages(args.datasets)
    train = [p for p in pages if p["set"] in TRAIN_SETS and args.half in (None, p["half"])]
    held = [p for p in pages if p["set"] in EVAL_SETS]
    owner = [i for i, p in enumerate(train) for _ in p["rows"]]
    X = np.array([row for p in train for _l, row, _y in p["rows"]], dtype=np.float64)
    y = np.array([label for p in train for _l, _r, label in p["rows"]])
    groups = np.array([train[i]["site"] for i in owner])
    print(f"{len(train)} trained pages, {len(X)} candidate headings, {int(y.sum())} ended; "
          f"{len(held)} evaluation-only pages")

    oof = np.zeros(len(y))
    for rest, test in GroupKFold(n_splits=args.folds).split(X, y, groups):
        model = fit([train[i] for i in sorted({owner[r] for r in rest})])
        oof[test] = model.predict_proba(X[test])[:, list(model.classes_).index(True)]

    def per_page(values) -> list[list[float]]:
        out = [[] for _ in train]
        for i, v in zip(owner, values, strict=True):
            out[i].append(float(v))
        return out

    oof_pages = per_page(oof)
    scores = {t: body_f1(train, first_cuts(train, oof_pages, t))["f1"] for t in THRESHOLDS}
    best = max(scores.values())
    threshold = max(t for t in THRESHOLDS if scores[t] >= best - F1_TOLERANCE)
    print("out-of-fold pooled body F1 by threshold:", scores, "-> threshold", threshold)
    model = fit(train)
    ended = list(model.classes_).index(True)
    insample = per_page(model.predict_proba(X)[:, ended])
    held_proba = [[float(p) for p in model.predict_proba(np.array([r for _l, r, _y in h["rows"]]))[:, ended]]
                  if h["rows"] else [] for h in held]
    figures = {"out_of_fold": per_set(train, first_cuts(train, oof_pages, threshold)),
               "in_sample": per_set(train, first_cuts(train, insample, threshold)),
               "evaluated_only": per_set(held, first_cuts(held, held_proba, threshold))}
    for kind, rows in figures.items():
        print(f"\n{kind} (threshold {threshold}):")
        for name, f in rows.items():
            before, after = (f"{f[k]['p']:.4f}/{f[k]['r']:.4f}/{f[k]['f1']:.4f}" for k in ("before", "after"))
            print(f"  {name:14} pages {f['pages']:4} cut {f['cut']:3} ({f['cut_where_ended']} where the "
                  f"truth had ended)  body P/R/F1 {before} -> {after}")
    if args.dry_run:
        return 0
    from newscrawl.extract import models
    from newscrawl.extract.forest import predict_proba_rows

    plain = as_model(model, threshold)
    check = X[: min(len(X), 500)]
    assert np.allclose(predict_proba_rows(plain["forest"], check), model.predict_proba(check)), \
        "the flattened forest disagrees"
    models.dump_plain(plain, args.out / article_end.ARTICLE_END_FILE)
    import sklearn

    manifest = {
        "model": "random-forest", "parameters": FOREST, "threshold": threshold, "seed": SEED,
        "folds": args.folds, "site_half": args.half, "grouping": "site (newscrawl.evaluation.sites.site_key)",
        "label": f"the truth's text holds under {ENDED_COVERAGE:.0%} of the 3-word shingles from the heading",
        "max_share": article_end.MAX_SHARE, "trained_on": list(TRAIN_SETS), "evaluated_only": list(EVAL_SETS),
        "licences": LICENCES,
        "attribution": "WCXB: Web Content eXtraction Benchmark, Murrough Foley (2026), CC-BY-4.0",
        "headings": {"candidates": len(y), "ended": int(y.sum())},
        "pages": dict(Counter(p["set"] for p in pages)), "features": list(article_end.FEATURES),
        "oof_body_f1_by_threshold": {str(t): f for t, f in scores.items()}, "f1_tolerance": F1_TOLERANCE,
        **figures,
        "versions": {"python": sys.version.split()[0], "scikit-learn": sklearn.__version__,
                     "numpy": np.__version__},
        "seconds": round(time.time() - started),
    }
    (args.out / "article-end.json").write_text(json.dumps(manifest, indent=1) + "\n")
    print(f"written {args.out / article_end.ARTICLE_END_FILE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
