"""How well :func:`newscrawl.extract.page_type` tells articles from other pages, on real pages.

Every set of ``../shared/datasets`` with ``pages/`` holds article pages (but ``catalogue-more/``
and ``wcxb-other/``, whose pages are of other kinds): the share of them *not* classed ``article``
must stay at most 0.5 % (all sets together).  ``catalogue-pages/``
and ``catalogue-labelled/`` hold real listing pages: every one must be classed not ``article``.
Also prints the CPU time of the classification per page, against the page's parse, measured
in the same run.  ``--out-of-fold`` adds the page-type model's figures per set and per kind
before (the rules), in sample and out of fold, folds grouped by domain
(:func:`train_page_type.out_of_fold_report`: it trains the forest on the folds, minutes).

    python bench/page_type_eval.py [--datasets ../shared/datasets] [--show-misses] [--out-of-fold]
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from newscrawl.evaluation.datasets import load_dataset  # noqa: E402
from newscrawl.extract import Page  # noqa: E402
from newscrawl.extract.errors import ExtractionError  # noqa: E402
from newscrawl.extract.page_signals import page_signals  # noqa: E402
from newscrawl.extract.page_type import page_type_of  # noqa: E402

DATASETS = ROOT.parent / "shared" / "datasets"
LISTING_SETS = ("catalogue-pages", "catalogue-labelled")
# Sets of pages that are not articles, whose own figures are not this bench's bar: catalogue-more's
# listing pages and wcxb-other's listing, collection, product, forum, documentation and service pages.
OTHER_SETS = ("catalogue-more", "wcxb-other")
ARTICLE_BAR = 0.005  # at most this share of article pages classed otherwise


@dataclass
class SetResult:
    name: str
    pages: int = 0
    kinds: Counter = field(default_factory=Counter)
    misses: list[tuple[str, str]] = field(default_factory=list)  # (page id, kind) classed wrongly
    parse_seconds: float = 0.0
    classify_seconds: float = 0.0


def _classify(result: SetResult, page_id: str, data: bytes, url: str | None, expect_article: bool) -> None:
    started = time.process_time()
    try:
        page = Page.from_html(data, url=url)
    except ExtractionError:
        return
    parsed = time.process_time()
    kind = page_type_of(page)
    result.parse_seconds += parsed - started
    result.classify_seconds += time.process_time() - parsed
    result.pages += 1
    result.kinds[kind] += 1
    if (kind == "article") != expect_article:
        result.misses.append((page_id, kind))


def article_sets(datasets: Path) -> list[Path]:
    return sorted(p for p in datasets.iterdir()
                  if (p / "pages").is_dir() and p.name not in LISTING_SETS + OTHER_SETS)


def evaluate_articles(folder: Path) -> SetResult:
    result = SetResult(folder.name)
    for record in load_dataset(folder):
        _classify(result, record.id, record.html, record.url, expect_article=True)
    return result


def listing_pages(datasets: Path) -> list[tuple[str, bytes, str | None]]:
    """(name, bytes, url) of every listing page in the two catalogue sets."""
    pages = []
    labelled = datasets / "catalogue-labelled"
    if (labelled / "truth.jsonl").is_file():
        for record in load_dataset(labelled):
            pages.append((f"catalogue-labelled/{record.id}", record.html, record.url))
    plain = datasets / "catalogue-pages"
    expected_urls = {"cnn_main_site.html": "https://edition.cnn.com/",
                     "wired_main_site.html": "https://www.wired.com/",
                     "yahoo_main_site.html": "https://uk.yahoo.com/"}
    for path in sorted(plain.rglob("*.html")) if plain.is_dir() else []:
        data = path.read_bytes()
        if path.suffix == ".gz":
            data = gzip.decompress(data)
        pages.append((f"catalogue-pages/{path.relative_to(plain)}", data, expected_urls.get(path.name)))
    return pages


def evaluate_listings(datasets: Path) -> SetResult:
    result = SetResult("listing pages")
    for name, data, url in listing_pages(datasets):
        _classify(result, name, data, url, expect_article=False)
    return result


def evaluate(datasets: Path = DATASETS) -> tuple[list[SetResult], SetResult]:
    """Per article set, and the listing pages."""
    return [evaluate_articles(folder) for folder in article_sets(datasets)], evaluate_listings(datasets)


def costs(datasets: Path, every: int) -> dict[str, float]:
    """CPU seconds per page of the parse, ``page_type``, the full extraction (method ``auto``),
    the body fingerprint and the canonical-URL lookup, on every ``every``-th article page."""
    from newscrawl.dedup import fingerprint, page_canonical
    from newscrawl.extract import extract_page

    spent = Counter()
    pages = 0
    for folder in article_sets(datasets):
        for n, record in enumerate(load_dataset(folder)):
            if n % every:
                continue
            try:
                started = time.process_time()
                page = Page.from_html(record.html, url=record.url)
                parsed = time.process_time()
                page_type_of(page)
                classified = time.process_time()
                page_canonical(page.root, record.url)
                canonical = time.process_time()
                article = extract_page(page)
                extracted = time.process_time()
                fingerprint(article.text or "")
                done = time.process_time()
            except ExtractionError:
                continue
            pages += 1
            spent.update({"parse": parsed - started, "page_type": classified - parsed,
                          "canonical": canonical - classified, "extraction": extracted - canonical,
                          "fingerprint": done - extracted})
    return {k: v / max(pages, 1) for k, v in spent.items()} | {"pages": pages}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", type=Path, default=DATASETS)
    parser.add_argument("--show-misses", action="store_true",
                        help="print the signals of the pages classed wrongly")
    parser.add_argument("--cost-sample", type=int, default=0, metavar="N",
                        help="also time the whole extraction on every N-th article page, for comparison")
    parser.add_argument("--out-of-fold", action="store_true",
                        help="also the model's figures out of fold (grouped by domain) beside in sample")
    args = parser.parse_args(argv)
    if args.out_of_fold:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from train_page_type import out_of_fold_report

        out_of_fold_report(args.datasets)
    sets, listings = evaluate(args.datasets)
    print(f"{'set':16} {'pages':>6} {'not article':>12} {'share':>7}  kinds of the misses")
    total = missed = 0
    parse = classify = 0.0
    for r in sets:
        total += r.pages
        missed += len(r.misses)
        parse += r.parse_seconds
        classify += r.classify_seconds
        kinds = Counter(kind for _, kind in r.misses)
        print(f"{r.name:16} {r.pages:6d} {len(r.misses):12d} {len(r.misses) / max(r.pages, 1):7.2%}  "
              f"{dict(kinds) or ''}")
    share = missed / max(total, 1)
    print(f"{'all article sets':16} {total:6d} {missed:12d} {share:7.2%}  (bar: at most {ARTICLE_BAR:.1%})")
    print(f"listing pages: {listings.pages - len(listings.misses)} of {listings.pages} classed not article "
          f"{dict(listings.kinds)}")
    print(f"CPU time of page_type per page: {1000 * classify / max(total, 1):.2f} ms, "
          f"{classify / max(parse, 1e-9):.1%} of the page's parse")
    if args.cost_sample:
        c = costs(args.datasets, args.cost_sample)
        whole = c["parse"] + c["page_type"] + c["canonical"] + c["extraction"] + c["fingerprint"]
        print(f"CPU per page on {c['pages']} pages: parse {1000 * c['parse']:.1f} ms, extraction "
              f"{1000 * c['extraction']:.1f} ms; page_type {1000 * c['page_type']:.2f} ms "
              f"({c['page_type'] / whole:.1%} of the whole), canonical {1000 * c['canonical']:.3f} ms, "
              f"fingerprint {1000 * c['fingerprint']:.2f} ms ({c['fingerprint'] / whole:.1%})")
    if args.show_misses:
        by_name = {p.name: p for p in args.datasets.iterdir()}
        for r in sets:
            truth = {rec.id: rec for rec in load_dataset(by_name[r.name])} if r.misses else {}
            for page_id, kind in r.misses:
                rec = truth[page_id]
                signals = page_signals(Page.from_html(rec.html, url=rec.url))
                shown = json.dumps(signals.__dict__, default=list)
                print(f"MISS {r.name}/{page_id} -> {kind}: {rec.url} {shown}")
        for name, data, url in listing_pages(args.datasets):
            signals = page_signals(Page.from_html(data, url=url))
            print(f"LISTING {name}: {json.dumps(signals.__dict__, default=list)}")
    ok = share <= ARTICLE_BAR and not listings.misses
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
