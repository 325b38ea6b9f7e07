"""What the learned edge veto adds to the rules out of fold: ``auto-rules`` against ``auto``.

``auto`` is ``auto-rules`` with the body classifier's veto on the body's edge lines.  The
shipped classifier was trained on the body sets themselves (``BODY_SETS`` in
:mod:`newscrawl.training`), so ``scrapy evaluate`` on those sets is in-sample.  Here every
page is extracted with a classifier fitted on the other folds only, the folds grouped by site
(the same folds and SVM as ``scrapy train``'s cross-validation), so no page's site was seen::

    python bench/veto_oof.py                    # the body sets, 5 folds
    python bench/veto_oof.py --sets aeb --folds 3 --limit 60

Prints body F1 (Zyte) per set for both methods, and how many pages the veto changed.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from newscrawl.evaluation.datasets import load_dataset  # noqa: E402
from newscrawl.evaluation.runner import Prediction, score_page, summarize  # noqa: E402
from newscrawl.extract import Page, extract_page  # noqa: E402
from newscrawl.extract.methods.classifier import LinearFieldModel  # noqa: E402
from newscrawl.training import BODY_SETS, fit_field, group_folds, prepare_page  # noqa: E402

DATASETS_DIR = ROOT.parent / "shared" / "datasets"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets-dir", type=Path, default=DATASETS_DIR)
    parser.add_argument("--sets", default=",".join(BODY_SETS))
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--limit", type=int, help="pages per set")
    args = parser.parse_args()

    records, pages = [], []
    for name in args.sets.split(","):
        for record in load_dataset(args.datasets_dir / name, args.limit):
            data = prepare_page(record, name)
            if data is None or data.body_labels is None:
                continue
            data.compact()  # keeps the hashed features, frees the strings and the bytes
            records.append(record)
            pages.append(data)

    texts: dict[str, list[str]] = {"auto-rules": [""] * len(pages), "auto": [""] * len(pages)}
    for fold in group_folds(pages, args.folds):
        held = set(fold)
        model = LinearFieldModel.from_field_model(
            fit_field([p for i, p in enumerate(pages) if i not in held], "body"))
        for i in fold:
            page = Page.from_html(records[i].html, url=records[i].url)
            texts["auto-rules"][i] = extract_page(page, method="auto-rules").text
            page = Page.from_html(records[i].html, url=records[i].url)
            texts["auto"][i] = extract_page(page, method="auto", params={"model": model}).text

    print(f"{args.folds}-fold out-of-fold body F1 (Zyte), folds grouped by site")
    print("| set | pages | auto-rules | auto | pages the veto changed |\n|---|---|---|---|---|")
    for name in args.sets.split(","):
        idx = [i for i, p in enumerate(pages) if p.dataset == name]
        figures = {
            method: summarize([score_page(records[i], Prediction(texts[method][i])) for i in idx])
            for method in texts
        }
        changed = sum(texts["auto"][i] != texts["auto-rules"][i] for i in idx)
        print(f"| {name} | {len(idx)} | {figures['auto-rules']['body_zyte_f1']:.4f} "
              f"| {figures['auto']['body_zyte_f1']:.4f} | {changed} |")


if __name__ == "__main__":
    main()
