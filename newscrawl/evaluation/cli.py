"""The evaluation command line, shared by ``scrapy evaluate`` and ``python -m newscrawl.evaluation.cli``
(no Scrapy imports): the options, the run (:mod:`.runner`, :mod:`.out_of_fold`,
:mod:`.quality_gate`), the tables it prints.

    python -m newscrawl.evaluation.cli ../shared/datasets/aeb --method auto,cevc --limit 50
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections.abc import Callable
from pathlib import Path

from . import metrics
from .runner import (
    SWEEPS,
    Result,
    check_plotting,
    discover_datasets,
    format_markdown,
    format_table,
    in_sample_note,
    parse_params,
    plot_sweep,
    run_all,
    split_list,
    sweep,
)


def add_arguments(parser: argparse.ArgumentParser, positional: bool = True) -> None:
    """The evaluation options, for this module's ``main`` and the ``scrapy evaluate`` command.

    ``positional=False`` leaves the dataset directories to the caller (Scrapy passes them as ``args``).
    """
    if positional:
        parser.add_argument("datasets", nargs="*", metavar="DATASET_DIR", help="dataset directories")
    parser.add_argument("--method", help="comma-separated library methods: auto,cevc,decay (default auto)")
    parser.add_argument("--baseline", default="", help="comma-separated baselines: trafilatura,readability")
    parser.add_argument("--param", action="append", default=[], help="method parameter KEY=VALUE")
    parser.add_argument("--limit", type=int, help="only the first N pages of each dataset")
    parser.add_argument(
        "--sweep", choices=sorted(SWEEPS), help="alpha: cevc over 0.1..0.9; T: decay over .2..5"
    )
    parser.add_argument("--plot", metavar="PNG",
                        help="with --sweep: write the P/R/F1 curves here (pip install 'newscrawl[plot]')")
    parser.add_argument("--json", metavar="FILE", help="write the results, with per-page scores, as JSON")
    parser.add_argument(
        "--markdown", metavar="FILE",
        help="write one markdown table per field (body F1, title exact, date day, author F1): "
        "rows are datasets, columns methods and baselines; in-sample figures are marked",
    )  # fmt: skip
    parser.add_argument("--worst", type=int, default=0, metavar="N", help="list the N lowest body-F1 pages")
    parser.add_argument("--check-floors", metavar="FLOORS_JSON", help="exit 1 if a figure is below its floor")
    parser.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None, help="tqdm bar")
    parser.add_argument(
        "--out-of-fold", action=argparse.BooleanOptionalAction, default=True,
        help="beside a learned method's in-sample figure (a set its shipped model was trained on), "
        "the same method with models refitted on site-grouped folds that never saw the page's site",
    )  # fmt: skip
    parser.add_argument(
        "--site-half", choices=("A", "B"),
        help="only the pages of one half of the sites (split by a hash of the registered domain)",
    )  # fmt: skip


def run_cli(args: argparse.Namespace, echo: Callable[[str], None] = print) -> int:
    """Run what ``args`` ask for, print the tables, and return the exit code."""
    from . import quality_gate

    if not args.datasets:
        raise ValueError("give at least one dataset directory")
    if args.plot:
        check_plotting()  # before any work
    datasets, skipped = discover_datasets(args.datasets)  # a wrong path fails before any work
    for path, reason in skipped:
        echo(f"skipped {path}: {reason}")
    if not datasets:
        raise ValueError(f"no dataset among {', '.join(map(str, args.datasets))}")
    args.datasets = datasets
    floors = quality_gate.load_floors(args.check_floors) if args.check_floors else None
    params = parse_params(args.param)
    if args.sweep:
        results = sweep(
            args.datasets, args.sweep, limit=args.limit, progress=args.progress, base_params=params
        )
    else:
        methods = split_list(args.method) or ([floors.method] if floors else ["auto"])
        results = run_all(
            args.datasets,
            methods,
            split_list(args.baseline),
            params=params,
            limit=args.limit,
            progress=args.progress,
            site_half=args.site_half,
        )
    if not args.sweep and getattr(args, "out_of_fold", False):
        from .out_of_fold import out_of_fold

        for oof in out_of_fold([r for rs in results.values() for r in rs], args.datasets, args.limit):
            results[oof.dataset].append(oof)
    for dataset_results in results.values():
        echo(format_table(dataset_results))
        for result in dataset_results:
            note = in_sample_note(result.method, result.dataset)
            if note:
                echo(f"  {note}")
            if result.errors:
                echo(f"  {result.method} errors: {dict(result.error_reasons())}")
            if args.worst:
                echo(worst_pages(result, args.worst))
        echo("")
    if args.markdown:
        Path(args.markdown).write_text(format_markdown(results), encoding="utf-8")
        echo(f"markdown tables written to {args.markdown}")
    if args.json:
        payload = [r.to_dict(with_pages=True) for rs in results.values() for r in rs]
        Path(args.json).write_text(json.dumps(payload, indent=1, ensure_ascii=False, default=str))
    if args.plot:
        if not args.sweep:
            raise ValueError("--plot needs --sweep")
        plot_sweep(results, args.sweep, args.plot)
        echo(f"plot written to {args.plot}")
    if floors is not None:
        failures = quality_gate.check(floors, results)
        for line in quality_gate.report(floors, results, failures):
            echo(line)
        return 1 if failures else 0
    return 0


def worst_pages(result: Result, n: int) -> str:
    """The ``n`` pages with the lowest per-page Zyte body F1 (for tuning)."""
    scored = [(metrics.aggregate_shingles([p.zyte]).f1, p.id) for p in result.pages if p.zyte is not None]
    scored.sort()
    return "\n".join(f"  {result.method} worst {f1:.3f} {page_id}" for f1, page_id in scored[:n])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_arguments(parser)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    try:
        return run_cli(args)
    except ValueError as exc:  # DatasetError included
        parser.error(str(exc))


if __name__ == "__main__":
    sys.exit(main())
