"""``scrapy train``: fit the learned extraction models (the node classifier of Kazennikov and
Soloviev; the block SVM of Yan and Wang 2020) from the datasets.

A thin Scrapy layer over :func:`newscrawl.training.run_training`: same data,
fixed seed, same models every run; prints the cross-validation scores and writes
``classifier.skops``, ``classifier-linear.npz`` (its linear weights as plain arrays, what
``auto`` scores with), ``block-svm.skops`` and ``manifest.json``.

It writes to a new directory (``--out``, default ``./models-<UTC time>/``), never into one that
holds models; only ``--replace-shipped`` (instead of ``--out``) writes over the shipped models, and
``NEWSCRAWL_MODEL_DIR=DIR`` makes extraction use another directory.  Only permissively
licensed sets are accepted unless ``--allow-copyleft`` (a private model, never shipped).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any, ClassVar

from scrapy.commands import ScrapyCommand
from scrapy.exceptions import UsageError

from newscrawl import training
from newscrawl.extract.models import MANIFEST_FILE, SHIPPED_MODEL_DIR


class Command(ScrapyCommand):
    requires_project = False
    requires_crawler_process = False
    default_settings: ClassVar[dict[str, Any]] = {"LOG_LEVEL": "WARNING"}

    def syntax(self) -> str:
        return ("[--datasets ../shared/datasets] [--out DIR | --replace-shipped] [--body-sets aeb,...] "
                "[--limit N] [--allow-copyleft]")

    def short_desc(self) -> str:
        return "Train the learned extraction models (node classifier, block SVM)"

    def add_options(self, parser: argparse.ArgumentParser) -> None:
        super().add_options(parser)
        parser.add_argument("--datasets", default="../shared/datasets", help="datasets root directory")
        parser.add_argument("--out", help="new model directory to write (default: ./models-<UTC time>)")
        parser.add_argument("--replace-shipped", action="store_true",
                            help=f"overwrite the shipped models in {SHIPPED_MODEL_DIR}")
        parser.add_argument("--allow-copyleft", action="store_true",
                            help="also train on GPL/AGPL sets (the model must not be shipped)")
        parser.add_argument("--body-sets", default=",".join(training.BODY_SETS), help="sets with body truth")
        parser.add_argument("--title-sets", default=",".join(training.TITLE_SETS), help="sets with titles")
        parser.add_argument("--limit", type=int, help="only the first N pages of each dataset")

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        if args:
            raise UsageError(f"unexpected arguments: {' '.join(args)}")
        split = lambda value: [v for v in value.split(",") if v]  # noqa: E731
        out = self.output_dir(opts)
        try:
            training.run_training(opts.datasets, out, split(opts.body_sets), split(opts.title_sets),
                                  opts.limit, allow_copyleft=opts.allow_copyleft)
        except ValueError as exc:
            raise UsageError(str(exc), print_help=False) from exc

    @staticmethod
    def output_dir(opts: argparse.Namespace) -> Path:
        """Where the models go: a new directory, or the shipped one when asked explicitly."""
        if opts.replace_shipped:
            if opts.out:
                raise UsageError("give --out or --replace-shipped, not both")
            if opts.allow_copyleft:
                raise UsageError("models trained on copyleft sets cannot replace the shipped models")
            return SHIPPED_MODEL_DIR
        out = Path(opts.out or f"models-{time.strftime('%Y%m%dT%H%M%SZ', time.gmtime())}")
        if (out / MANIFEST_FILE).exists() or out.resolve() == SHIPPED_MODEL_DIR.resolve():
            raise UsageError(f"{out} already holds models: choose a new --out (or --replace-shipped)",
                             print_help=False)
        return out
