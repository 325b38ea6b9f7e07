"""``scrapy evaluate``: score the extraction methods on datasets with ground truth.

A thin Scrapy layer over :mod:`newscrawl.extract.evaluation` (which also runs as
``python -m newscrawl.extract.evaluation``) and :mod:`newscrawl.quality_gate`.
"""

from __future__ import annotations

import argparse
from typing import Any, ClassVar

from scrapy.commands import ScrapyCommand
from scrapy.exceptions import UsageError

from newscrawl.extract import evaluation


class Command(ScrapyCommand):
    requires_project = False
    requires_crawler_process = False
    default_settings: ClassVar[dict[str, Any]] = {"LOG_LEVEL": "WARNING"}

    def syntax(self) -> str:
        return (
            "DATASET_DIR... [--method auto,cevc,decay] [--baseline trafilatura,readability] "
            "[--sweep alpha|T --plot out.png] [--limit N] [--json out.json] [--check-floors FLOORS]"
        )

    def short_desc(self) -> str:
        return "Score extraction methods on datasets with ground truth"

    def long_desc(self) -> str:
        return (
            "Run the extraction methods (and optional baselines) over each dataset directory "
            "(truth.jsonl + pages/<id>.html.gz) and print one table per dataset: body P/R/F1 as the "
            "Zyte benchmark computes it and as seed 000's LCS, title exact accuracy and seed 003 "
            "character F1, day-level date accuracy, author F1, snippet and prefix scores where the "
            "truth has them, pages per CPU second and errors.  --check-floors exits 1 when a figure "
            "is below its floor."
        )

    def add_options(self, parser: argparse.ArgumentParser) -> None:
        super().add_options(parser)
        evaluation.add_arguments(parser, positional=False)

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        unknown = [a for a in args if a.startswith("-")]
        if unknown:
            raise UsageError(f"unknown option(s): {' '.join(unknown)}")
        if not args:
            raise UsageError("give at least one dataset directory")
        opts.datasets = args
        try:
            self.exitcode = evaluation.run_cli(opts)
        except ValueError as exc:  # bad dataset path, floors file, parameter
            raise UsageError(str(exc), print_help=False) from exc
