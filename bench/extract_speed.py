"""Extraction speed: pages per second of CPU time, one process, the same decoded pages for everyone.

Not a test (timings depend on the machine).  For every dataset (default: aeb and zh-news
under ``../shared/datasets``) the pages are read and decoded once (as a Scrapy response
would decode them), then each extractor runs over all of them, ``--repeat`` times; the
figure is the median pass::

    python bench/extract_speed.py                      # the table
    python bench/extract_speed.py --repeat 5 --json out.json
    python bench/extract_speed.py --score              # also auto's body F1 (Zyte) on the same run

Rows:

- ``floor`` — lxml parse plus ``text_content()``: the least any extractor can cost;
- ``page`` — :meth:`newscrawl.extract.Page.from_html` alone (decode, parse, clean, JSON-LD);
- ``cevc``, ``decay``, ``auto`` — :func:`newscrawl.extract.extract` end to end (title, body,
  date, author, links, language) with that body method;
- ``cevc:body``, ``decay:body``, ``auto:body`` — the parse plus that body method alone (its
  text and links; cevc and auto include the language detection they need for stop words);
- ``trafilatura`` (``bare_extraction`` with metadata, the evaluation's options) and
  ``readability`` (readability-lxml ``summary()``), when installed.

Columns: pages/s of CPU time (``time.process_time``), ms per page, the time per page as
a multiple of the floor's, and pages/s relative to trafilatura's.
"""

from __future__ import annotations

import argparse
import gc
import json
import logging
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from newscrawl.extract import Page, extract_page  # noqa: E402
from newscrawl.extract.datasets import decode_like_scrapy, load_dataset  # noqa: E402

DEFAULT_DATASETS = [ROOT.parent / "shared" / "datasets" / name for name in ("aeb", "zh-news")]
METHODS = ("cevc", "decay", "auto")

Runner = Callable[[str, str | None], object]


def floor(text: str, url: str | None) -> object:
    from lxml import html

    return html.document_fromstring(text).text_content()


def page_only(text: str, url: str | None) -> object:
    return Page.from_html(text, url=url)


def library(method: str) -> Runner:
    def run(text: str, url: str | None) -> object:
        return extract_page(Page.from_html(text, url=url), method=method)

    return run


def body_only(method: str) -> Runner:
    """Parse plus the body method alone (its text and links): no title, date or author."""
    import importlib

    extract_body = importlib.import_module(f"newscrawl.extract.{method}").extract_body

    def run(text: str, url: str | None) -> object:
        page = Page.from_html(text, url=url)
        body = extract_body(page)
        return body.text, body.links(page.base_url)

    return run


def trafilatura_runner() -> Runner | None:
    try:
        import trafilatura
    except ImportError:
        return None
    logging.getLogger("trafilatura").setLevel(logging.CRITICAL)

    def run(text: str, url: str | None) -> object:
        return trafilatura.bare_extraction(text, url=url, with_metadata=True, include_comments=False,
                                           include_tables=True, include_formatting=False)

    return run


def readability_runner() -> Runner | None:
    try:
        from readability import Document
    except ImportError:
        return None
    logging.getLogger("readability").setLevel(logging.CRITICAL)

    def run(text: str, url: str | None) -> object:
        return Document(text, url=url).summary(html_partial=True)

    return run


def runners() -> dict[str, Runner]:
    found: dict[str, Runner] = {"floor": floor, "page": page_only}
    found.update({m: library(m) for m in METHODS})
    found.update({f"{m}:body": body_only(m) for m in METHODS})
    for name, make in (("trafilatura", trafilatura_runner), ("readability", readability_runner)):
        runner = make()
        if runner is not None:
            found[name] = runner
    return found


def one_pass(run: Runner, pages: list[tuple[str, str | None]]) -> tuple[float, int]:
    """CPU seconds for one pass over ``pages`` and how many raised."""
    errors = 0
    gc.collect()
    started = time.process_time()
    for text, url in pages:
        try:
            run(text, url)
        except Exception:  # noqa: BLE001 - a failing page costs what it cost, and is counted
            errors += 1
    return time.process_time() - started, errors


def measure(pages, chosen: dict[str, Runner], repeat: int) -> dict[str, dict]:
    """Median CPU seconds per extractor.  Passes are interleaved (every extractor once per
    round) so that a slow spell of the machine does not fall on one extractor only."""
    for run in chosen.values():  # warm-up: imports, models, word lists, caches
        for text, url in pages[:3]:
            try:
                run(text, url)
            except Exception:  # noqa: BLE001
                pass
    times: dict[str, list[float]] = {name: [] for name in chosen}
    errors: dict[str, int] = {}
    for _ in range(repeat):
        for name, run in chosen.items():
            seconds, errors[name] = one_pass(run, pages)
            times[name].append(seconds)
    out = {}
    for name, values in times.items():
        median = statistics.median(values)
        out[name] = {"cpu_seconds": median, "passes": values, "pages": len(pages),
                     "pages_per_second": len(pages) / median if median else None, "errors": errors[name]}
    return out


def auto_accuracy(dataset: Path, records) -> float:
    """auto's body F1 (Zyte shingles) on these records: the accuracy bar checked in the same run."""
    from newscrawl.extract import extract, metrics

    counts = []
    for record in records:
        if not record.has("text"):
            continue
        try:
            text = extract(record.html, url=record.url, method="auto").text
        except Exception:  # noqa: BLE001
            text = ""
        han = (record.lang or "").lower().startswith("zh")
        counts.append(metrics.shingle_counts(record.get("text"), text, han_chars=han))
    return metrics.aggregate_shingles(counts).f1


def table(name: str, results: dict[str, dict]) -> str:
    base = results.get("trafilatura", {}).get("pages_per_second")
    floor_ms = 1000 * results["floor"]["cpu_seconds"] / results["floor"]["pages"]
    lines = [f"== {name} ({results['floor']['pages']} pages)",
             f"{'extractor':<12} {'pages/s':>8} {'ms/page':>8} {'x floor':>8} {'vs trafilatura':>15} "
             f"{'errors':>6}",
             "-" * 62]
    for extractor, r in results.items():
        ms = 1000 * r["cpu_seconds"] / r["pages"]
        ratio = f"{r['pages_per_second'] / base:.2f}x" if base else "n/a"
        lines.append(f"{extractor:<12} {r['pages_per_second']:>8.1f} {ms:>8.2f} {ms / floor_ms:>8.2f} "
                     f"{ratio:>15} {r['errors']:>6}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("datasets", nargs="*", type=Path, default=DEFAULT_DATASETS)
    parser.add_argument("--repeat", type=int, default=3, help="passes per extractor (median reported)")
    parser.add_argument("--only", help="comma-separated extractors (default: all available)")
    parser.add_argument("--limit", type=int, help="pages per dataset")
    parser.add_argument("--score", action="store_true", help="also auto's body F1 on each dataset")
    parser.add_argument("--json", type=Path, help="write the figures here")
    args = parser.parse_args(argv)

    available = runners()
    chosen = available
    if args.only:
        names = ["floor", *[n.strip() for n in args.only.split(",") if n.strip() and n.strip() != "floor"]]
        unknown = [n for n in names if n not in available]
        if unknown:
            parser.error(f"unknown or unavailable extractor(s): {', '.join(unknown)}")
        chosen = {n: available[n] for n in names}
    report = {}
    for dataset in args.datasets:
        if not dataset.is_dir():
            print(f"skipping {dataset}: not present", file=sys.stderr)
            continue
        records = list(load_dataset(dataset, limit=args.limit))
        pages = [(decode_like_scrapy(r.html), r.url) for r in records]
        results = measure(pages, chosen, args.repeat)
        if args.score:
            results["auto"]["body_zyte_f1"] = auto_accuracy(dataset, records)
        report[dataset.name] = results
        print(table(dataset.name, results))
        if args.score:
            print(f"auto body F1 (Zyte) on {dataset.name}: {results['auto']['body_zyte_f1']:.3f}")
        print()
    if args.json:
        args.json.write_text(json.dumps(report, indent=2), encoding="utf-8")
    return 0 if report else 1


if __name__ == "__main__":
    sys.exit(main())
