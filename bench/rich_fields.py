"""The rich record's figures per set and per site half, from predictions kept on disk.

Not a test.  Two steps, so the code that extracts and the scorer can come from different
trees (``PYTHONPATH`` picks the extracting tree; the scorer is this tree's)::

    python bench/rich_fields.py dump OUT_DIR [--method auto|trafilatura] [--sets fundus,wcxb,...]
    python bench/rich_fields.py score DIR [DIR ...] [--sets ...]

``dump`` writes one JSON line a page (``OUT_DIR/<set>.jsonl``: body text, title, Markdown,
images, top image) for every page of each set under ``../shared/datasets``.  ``score`` reads
each DIR's predictions and prints, per set and for the set's site halves A and B
(:func:`newscrawl.evaluation.sites.in_half`), the body F1, the Markdown's body F1, subheading
recall/precision, list-item recall/precision, image recall/precision, caption F1 and top
image, with :func:`newscrawl.evaluation.runner.score_page`.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / ".." / "shared" / "datasets"
SETS = "fundus,wcxb,newspaper4k,goose3"
FIGURES = (("body", ("body_zyte_f1",)), ("md", ("md_zyte_f1",)),
           ("subhead R/P", ("subheadings_r", "subheadings_p")),
           ("list R/P", ("list_items_r", "list_items_p")), ("image R/P", ("images_r", "images_p")),
           ("caption", ("caption_f1",)), ("top", ("top_image",)))


def dump(out: Path, method: str, sets: list[str], root: Path) -> None:
    from newscrawl.evaluation import runner
    from newscrawl.evaluation.datasets import load_dataset

    extractor = (runner.library_extractor(method) if method in ("auto", "auto-rules", "cevc", "decay")
                 else runner.baseline_extractor(method))
    out.mkdir(parents=True, exist_ok=True)
    for name in sets:
        with open(out / f"{name}.jsonl", "w", encoding="utf-8") as fh:
            for record in load_dataset(root / name):
                try:
                    p = extractor(record)
                except Exception as exc:  # an error is an empty prediction
                    print(f"{name}/{record.id}: {exc!r}", file=sys.stderr)
                    p = runner.Prediction()
                row = {"id": record.id, "text": p.text, "title": p.title, "markdown": p.markdown,
                       "images": p.images, "image": None if p.image is ... else p.image}
                fh.write(json.dumps(row, ensure_ascii=False, default=str) + "\n")
        print(f"{out}/{name}.jsonl", file=sys.stderr)


def score(dirs: list[Path], sets: list[str], root: Path) -> None:
    from newscrawl.evaluation import runner
    from newscrawl.evaluation.datasets import load_dataset
    from newscrawl.evaluation.sites import in_half

    for name in sets:
        records = {r.id: r for r in load_dataset(root / name)}
        print(f"== {name} ({len(records)} pages)")
        print("run".ljust(28) + "half " + "".join(label.ljust(14) for label, _ in FIGURES))
        for directory in dirs:
            path = directory / f"{name}.jsonl"
            if not path.exists():
                continue
            scored = []
            for line in open(path, encoding="utf-8"):
                row = json.loads(line)
                record = records[row["id"]]
                prediction = runner.Prediction(row["text"] or "", row["title"], markdown=row["markdown"],
                                               images=row["images"], image=row["image"])
                scored.append((record, runner.score_page(record, prediction)))
            for half in ("all", "A", "B"):
                pages = [s for r, s in scored if half == "all" or in_half(r, half)]
                fig = runner.summarize(pages)
                cells = ["/".join("-" if fig.get(k) is None else f"{fig[k]:.3f}" for k in keys)
                         for _, keys in FIGURES]
                row = "".join(c.ljust(14) for c in cells)
                print(str(directory.name)[:27].ljust(28) + half.ljust(5) + row)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    d = sub.add_parser("dump")
    d.add_argument("out", type=Path)
    d.add_argument("--method", default="auto")
    s = sub.add_parser("score")
    s.add_argument("dirs", type=Path, nargs="+")
    for p in (d, s):
        p.add_argument("--sets", default=SETS)
        p.add_argument("--root", type=Path, default=ROOT)
    args = parser.parse_args()
    logging.disable(logging.WARNING)
    sets = args.sets.split(",")
    if args.command == "dump":
        dump(args.out, args.method, sets, args.root)
    else:
        score(args.dirs, sets, args.root)


if __name__ == "__main__":
    main()
