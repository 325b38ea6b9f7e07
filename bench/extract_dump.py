"""Every dataset page's extraction as JSON lines, to diff two versions of the code: output identical?

Not a test.  For every directory of ``../shared/datasets`` with a ``truth.jsonl``, every page is
decoded as a Scrapy response would decode it and extracted with :func:`newscrawl.extract.extract`
(default method, whole record); one line per page: set, page id and ``Article.to_dict()``, keys
sorted.  Run it on two checkouts (each from its own root, ``PYTHONPATH=$PWD``) and ``cmp`` the files;
``NEWSCRAWL_PURE_PYTHON=1`` dumps the pure-Python path::

    python bench/extract_dump.py /tmp/after.jsonl
    NEWSCRAWL_PURE_PYTHON=1 python bench/extract_dump.py /tmp/after-pure.jsonl --sets aeb,fundus
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATASETS = ROOT.parent / "shared" / "datasets"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="JSON lines file to write")
    parser.add_argument("--sets", default="", help="comma-separated dataset names (default: all)")
    parser.add_argument("--reverse", action="store_true",
                        help="pages in reverse order (output must not depend on earlier pages)")
    args = parser.parse_args(argv)

    from newscrawl.evaluation.datasets import decode_like_scrapy, is_dataset, load_dataset
    from newscrawl.extract import ExtractionError, extract

    names = [s for s in args.sets.split(",") if s]
    names = names or sorted(p.name for p in DATASETS.iterdir() if is_dataset(p))
    rows = []
    for name in names:
        records = list(load_dataset(DATASETS / name))
        for record in reversed(records) if args.reverse else records:
            try:
                result = extract(decode_like_scrapy(record.html), url=record.url).to_dict()
            except ExtractionError as exc:
                result = {"error": str(exc)}
            line = json.dumps(result, sort_keys=True, default=str, ensure_ascii=False)
            rows.append((name, record.id, line))
    rows.sort()
    with args.out.open("w", encoding="utf-8") as out:
        for name, page_id, line in rows:
            out.write(f'{{"set": {json.dumps(name)}, "id": {json.dumps(page_id)}, "article": {line}}}\n')
    print(f"{len(rows)} pages -> {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
