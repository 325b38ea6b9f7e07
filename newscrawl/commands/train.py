"""``scrapy train``: fit the learned extraction models (seeds 002 and 004) from the datasets.

A thin Scrapy layer over :func:`newscrawl.extract.training.run_training`: same data,
fixed seed, same models every run; prints the cross-validation scores and writes
``classifier.skops``, ``classifier-linear.npz`` (its linear weights as plain arrays, what
``auto`` scores with), ``block-svm.skops`` and ``manifest.json``.
"""

from __future__ import annotations

import argparse
from typing import Any, ClassVar

from scrapy.commands import ScrapyCommand
from scrapy.exceptions import UsageError

from newscrawl.extract import training
from newscrawl.extract.models import MODEL_DIR


class Command(ScrapyCommand):
    requires_project = False
    requires_crawler_process = False
    default_settings: ClassVar[dict[str, Any]] = {"LOG_LEVEL": "WARNING"}

    def syntax(self) -> str:
        return "[--datasets ../shared/datasets] [--out data/models/] [--body-sets aeb,...] [--limit N]"

    def short_desc(self) -> str:
        return "Train the learned extraction models (node classifier, block SVM)"

    def add_options(self, parser: argparse.ArgumentParser) -> None:
        super().add_options(parser)
        parser.add_argument("--datasets", default="../shared/datasets", help="datasets root directory")
        parser.add_argument("--out", default=str(MODEL_DIR), help="model directory to write")
        parser.add_argument("--body-sets", default=",".join(training.BODY_SETS), help="sets with body truth")
        parser.add_argument("--title-sets", default=",".join(training.TITLE_SETS), help="sets with titles")
        parser.add_argument("--limit", type=int, help="only the first N pages of each dataset")

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        if args:
            raise UsageError(f"unexpected arguments: {' '.join(args)}")
        split = lambda value: [v for v in value.split(",") if v]  # noqa: E731
        try:
            training.run_training(opts.datasets, opts.out, split(opts.body_sets), split(opts.title_sets),
                                  opts.limit)
        except ValueError as exc:
            raise UsageError(str(exc), print_help=False) from exc
