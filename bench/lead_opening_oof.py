"""Can a learned decision tell a plain opening paragraph that is the lead from one that is not?

On fundus, the expected summary is sometimes the article's first paragraph although no markup
sets it apart, and on more pages an opening written the same way is expected to be no summary.
The library's hand rules (:mod:`newscrawl.extract.fields.lead`) give no lead there.  This bench
fits small models (logistic regression, shallow trees) on the pages where the library gives no
lead, to decide "the opening is the lead", from generic features of the opening: its length,
its length against the next line's, sentences, how much the meta description restates it
(and whether verbatim), whether it ends a sentence, its holder's tag and class, whether it
shares a parent with the next line, a dateline.  Folds are grouped by site (the registered
domain), so no page's site is seen in training; the in-sample figure is printed beside it::

    python bench/lead_opening_oof.py
    python bench/lead_opening_oof.py --folds 3

Prints, per model, the lead F1 summed over these pages out of fold and in sample, against
giving no lead (the library's choice) and the oracle.  No model ships: out of fold none beats
giving no lead (see docs/accuracy.md, "The rich record").
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from newscrawl.evaluation.datasets import load_dataset  # noqa: E402
from newscrawl.evaluation.rich import token_f1  # noqa: E402
from newscrawl.evaluation.sites import site_key  # noqa: E402
from newscrawl.extract import Page, extract_page  # noqa: E402
from newscrawl.extract.fields import lead as leads  # noqa: E402
from newscrawl.extract.methods.auto import extract_body  # noqa: E402

DATASETS_DIR = ROOT.parent / "shared" / "datasets"
DATELINE = ("(reuters)", "(ap)", "(afp)", "(dpa)")


def features(body, opening: str, following: str, description: str | None) -> list[float]:
    held, after = leads._holders(body, opening, [opening, following])
    restated = leads._overlap(opening, description) if description else 0.0
    return [
        len(opening), len(opening) / max(1, len(following)), opening.count(". ") + 1.0, restated,
        float(bool(description)), float(bool(description) and description.strip() == opening.strip()),
        float(leads._ends_sentence(opening)), float(held is not None and held.tag == "p"),
        float(held is not None and bool(held.get("class"))),
        float(held is not None and after is not None and held.getparent() is after.getparent()),
        float(any(mark in opening[:80].lower() for mark in DATELINE)),
    ]


def rows(datasets_dir: Path) -> list[dict]:
    out = []
    for record in load_dataset(datasets_dir / "fundus"):
        if "summary" not in record.truth:
            continue
        article = extract_page(Page.from_html(record.html, url=record.url))
        if article.lead:
            continue
        page = Page.from_html(record.html, url=record.url)
        body = extract_body(page)
        lines = body.text_paragraphs()
        if len(lines) < 2:
            continue
        truth = " ".join(record.get("summary") or [])
        out.append({"site": site_key(record) or record.id, "opening_f1": token_f1(lines[0], truth),
                    "x": features(body, lines[0], lines[1], article.description), "empty": not truth})
    return out


def main() -> None:
    import numpy as np
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import GroupKFold
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.tree import DecisionTreeClassifier

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets-dir", type=Path, default=DATASETS_DIR)
    parser.add_argument("--folds", type=int, default=5)
    args = parser.parse_args()

    data = rows(args.datasets_dir)
    x = np.array([r["x"] for r in data])
    y = np.array([int(r["opening_f1"] >= 0.5) for r in data])
    sites = [r["site"] for r in data]

    def summed(taken) -> float:  # lead F1 over these pages: the opening where taken, else none
        return sum(r["opening_f1"] if t else float(r["empty"]) for r, t in zip(data, taken, strict=True))

    print(f"{len(data)} pages without a lead, {len(set(sites))} sites, "
          f"{int(y.sum())} whose summary is the opening")
    print(f"no lead (the library): {summed([0] * len(data)):.2f}   oracle: {summed(y):.2f}")
    models = {
        "logistic regression": lambda: make_pipeline(
            StandardScaler(), LogisticRegression(class_weight="balanced", max_iter=1000)),
        "tree, depth 2": lambda: DecisionTreeClassifier(max_depth=2, random_state=0),
        "tree, depth 3": lambda: DecisionTreeClassifier(max_depth=3, random_state=0),
    }
    for name, make in models.items():
        oof = np.zeros(len(y), dtype=int)
        for train, test in GroupKFold(n_splits=args.folds).split(x, y, sites):
            if y[train].any():
                oof[test] = make().fit(x[train], y[train]).predict(x[test])
        in_sample = make().fit(x, y).predict(x)
        print(f"{name}: out of fold (by site) {summed(oof):.2f} "
              f"({int(oof.sum())} taken, {int((oof & y).sum())} right); in sample {summed(in_sample):.2f} "
              f"({int(in_sample.sum())} taken, {int((in_sample & y).sum())} right)")


if __name__ == "__main__":
    main()
