"""How many real pages the crawl's failed-extraction evidence (:mod:`newscrawl.extract.body_check`) flags.

Every page of every set of ``../shared/datasets`` with ``pages/`` is a real article page: its
body is extracted with ``auto`` (as ``scrapy evaluate --method auto`` does), then

- ``not_the_article``: the single-page rule that drops (or re-extracts) a page; the bar is 0;
- ``unrelated``: the weaker evidence used only when one body comes with two titles (both
  titles must be unrelated to it); printed as the share of single pages that meet it;
- the pages whose bodies are near-duplicates of another page's in the same set, with their
  titles' relation to the body: how the two-title rule would judge them.

    python bench/failed_body.py [--datasets ../shared/datasets] [--extracted FILE] [--show]

``--extracted FILE`` keeps the extracted titles and bodies in FILE (JSON lines) and reads them
from there on the next run.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from newscrawl.dedup import ContentIndex, fingerprint  # noqa: E402
from newscrawl.evaluation.datasets import is_dataset, load_dataset  # noqa: E402
from newscrawl.extract import Page, extract_page  # noqa: E402
from newscrawl.extract.body_check import (  # noqa: E402
    boilerplate_share,
    not_the_article,
    title_relation,
    unrelated,
)
from newscrawl.extract.errors import ExtractionError  # noqa: E402

DATASETS = ROOT.parent / "shared" / "datasets"
LISTING_SETS = ("catalogue-pages", "catalogue-labelled")


def extracted(datasets: Path, cache: Path | None) -> list[dict]:
    if cache is not None and cache.is_file():
        return [json.loads(line) for line in cache.open(encoding="utf-8")]
    rows = []
    for folder in sorted(datasets.iterdir()):
        if folder.name in LISTING_SETS or not is_dataset(folder) or not (folder / "pages").is_dir():
            continue
        for record in load_dataset(folder):
            try:
                article = extract_page(Page.from_html(record.html, url=record.url), method="auto")
            except ExtractionError:
                continue
            rows.append({"set": folder.name, "id": record.id, "title": article.title,
                         "text": article.text or "", "lang": article.language})
    if cache is not None:
        with cache.open("w", encoding="utf-8") as out:
            out.writelines(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", type=Path, default=DATASETS)
    parser.add_argument("--extracted", type=Path, default=None)
    parser.add_argument("--show", action="store_true", help="list the flagged pages")
    args = parser.parse_args()
    if not args.datasets.is_dir():
        print(f"{args.datasets}: no datasets", file=sys.stderr)
        return 2
    rows = [row for row in extracted(args.datasets, args.extracted) if row["text"].strip()]
    flagged = [row for row in rows if not_the_article(row["title"], row["text"], row["lang"])]
    weak = [row for row in rows if unrelated(row["title"], row["text"], row["lang"])]
    print(f"pages with a body: {len(rows)}")
    print(f"not_the_article (single page; bar 0): {len(flagged)}")
    print(f"unrelated to its own title (two-title rule needs both titles so): {len(weak)} "
          f"({len(weak) / max(1, len(rows)):.1%})")
    for row in flagged if args.show else []:
        print(f"  {row['set']}/{row['id']}: {row['title']!r} {row['text'][:100]!r}")
    print("same-set near-duplicate bodies (first | later: titles, relation of the body to each):")
    indexes: dict[str, ContentIndex] = {}
    for number, row in enumerate(rows):
        minhash = fingerprint(row["text"])
        if minhash is None:
            continue
        index = indexes.setdefault(row["set"], ContentIndex())
        match = index.match(minhash)
        if match is None:
            index.add(str(number), minhash)
            continue
        first = rows[int(match)]
        if (first["title"] or "").casefold() == (row["title"] or "").casefold():
            continue  # same title: a copy, never a clash
        relations = [title_relation(r["title"], row["text"], row["lang"]) for r in (first, row)]
        judged = "junk" if all(unrelated(r["title"], row["text"], row["lang"]) for r in (first, row)) \
            else "copy"
        print(f"  {row['set']}: {first['id'][:40]} | {row['id'][:40]}: {judged}, relations "
              f"{relations}, boilerplate {boilerplate_share(row['text']):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
