"""``scrapy evaluate``: score the extraction methods on datasets with ground truth.

A thin Scrapy layer over :mod:`newscrawl.evaluation.cli` (which also runs as
``python -m newscrawl.evaluation.cli``) and :mod:`newscrawl.evaluation.quality_gate`.

``--ablation`` prints Kazennikov and Soloviev's feature-group ablation (Table 1) and one- vs two-stage
labelling (Table 2) from :func:`newscrawl.training.ablation`: trained on one
dataset and tested on another (``--train``/``--test``, names under ``--datasets-root``;
by default fundus→aeb and aeb→fundus).

``--leaf-tags`` (with ``--method template``) prints Yan and Wang's (2020) §8.1 leaf-tag precision
and recall of the template + block-SVM method, per dataset and per site, beside the SVM
alone, from :func:`newscrawl.evaluation.template_eval.evaluate_leaf_tags` (``--n1``/``--n2``
set the template batch; ``--n1 0`` makes each site's pages one batch; ``--leaf-model``
picks the site-grouped out-of-fold SVM or the shipped one).

``--per-site`` runs each site's pages of a set in order through the crawl's per-site learning
(template library, title decoration) and prints those figures beside the single-page ones, for
all sites and for two halves of them (:mod:`newscrawl.evaluation.per_site`).
"""

from __future__ import annotations

import argparse
from typing import Any, ClassVar

from scrapy.commands import ScrapyCommand
from scrapy.exceptions import UsageError

from newscrawl import training
from newscrawl.evaluation import cli, runner


class Command(ScrapyCommand):
    requires_project = False
    requires_crawler_process = False
    default_settings: ClassVar[dict[str, Any]] = {"LOG_LEVEL": "WARNING"}

    def syntax(self) -> str:
        return (
            "DATASET_DIR... [--method auto,cevc,decay] [--baseline trafilatura,readability] "
            "[--sweep alpha|T --plot out.png] [--limit N] [--json out.json] [--markdown out.md] "
            "[--check-floors FLOORS]\n"
            "       scrapy evaluate --ablation [--train DATASET --test DATASET] [--datasets-root DIR] "
            "[--limit N]\n"
            "       scrapy evaluate DATASET_DIR... --method template --leaf-tags [--n1 10] [--n2 3] "
            "[--leaf-model oof|shipped]"
        )

    def short_desc(self) -> str:
        return "Score extraction methods on datasets with ground truth"

    def long_desc(self) -> str:
        return (
            "Run the extraction methods (and optional baselines) over each dataset directory "
            "(truth.jsonl + pages/<id>.html.gz) and print one table per dataset: body P/R/F1 as the "
            "Zyte benchmark computes it and as Wang et al.'s (2020) LCS, title exact accuracy and He (2019) "
            "character F1, day-level date accuracy, author F1, snippet and prefix scores where the "
            "truth has them, pages per CPU second and errors.  Folders that are not datasets (no pages/ "
            "or truth.jsonl, or no scored field in the truth) are skipped with a one-line note, so "
            "DATASETS/* evaluates every set.  --markdown writes one table per field (body F1, title "
            "exact, date day, author F1; rows are datasets, columns methods and baselines, in-sample "
            "figures marked).  --check-floors exits 1 when a figure is below its floor."
        )

    def add_options(self, parser: argparse.ArgumentParser) -> None:
        super().add_options(parser)
        cli.add_arguments(parser, positional=False)
        group = parser.add_argument_group("Kazennikov and Soloviev ablation")
        group.add_argument("--ablation", action="store_true",
                           help="print the feature-group and one/two-stage ablation tables")
        group.add_argument("--datasets-root", default="../shared/datasets", help="where --train/--test live")
        group.add_argument("--train", help="training dataset name(s), comma-separated (with --test)")
        group.add_argument("--test", help="test dataset name(s), comma-separated (with --train)")
        parser.add_argument("--per-site", action="store_true",
                            help="also score each site's pages in order through the crawl's learning")
        group = parser.add_argument_group("Yan and Wang (2020) leaf-tag evaluation (§8.1)")
        group.add_argument("--leaf-tags", action="store_true",
                           help="leaf-tag P/R of the template + block-SVM method (with --method template)")
        group.add_argument("--n1", type=int, default=10, help="template batch size (0: a site's pages)")
        group.add_argument("--n2", type=int, default=3, help="pages of a batch a template leaf needs")
        group.add_argument("--leaf-model", choices=("oof", "shipped"), default="oof",
                           help="site-grouped out-of-fold block SVM (default) or the shipped model")

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        unknown = [a for a in args if a.startswith("-")]
        if unknown:
            raise UsageError(f"unknown option(s): {' '.join(unknown)}")
        if opts.ablation:
            self.run_ablation(args, opts)
            return
        if opts.train or opts.test:
            raise UsageError("--train/--test go with --ablation")
        if opts.leaf_tags:
            self.run_leaf_tags(args, opts)
            return
        if not args:
            raise UsageError("give at least one dataset directory")
        if opts.per_site:
            self.run_per_site(args, opts)
            return
        opts.datasets = args
        try:
            self.exitcode = cli.run_cli(opts)
        except ValueError as exc:  # bad dataset path, floors file, parameter
            raise UsageError(str(exc), print_help=False) from exc

    def run_per_site(self, args: list[str], opts: argparse.Namespace) -> None:
        from newscrawl.evaluation import per_site

        datasets, skipped = runner.discover_datasets(args)
        for path, reason in skipped:
            print(f"skipped {path}: {reason}")
        if not datasets:
            raise UsageError(f"no dataset among {', '.join(args)}", print_help=False)
        methods = runner.split_list(opts.method) or ["auto"]
        for dataset in datasets:
            for method in methods:
                print(per_site.format_per_site([per_site.evaluate_per_site(dataset, method, opts.limit)]))

    def run_ablation(self, args: list[str], opts: argparse.Namespace) -> None:
        if args:
            raise UsageError("--ablation takes dataset names (--train/--test), not directories")
        if bool(opts.train) != bool(opts.test):
            raise UsageError("give both --train and --test (or neither for the default splits)")
        split = lambda value: tuple(v for v in value.split(",") if v)  # noqa: E731
        splits = [(split(opts.train), split(opts.test))] if opts.train else [(("fundus",), ("aeb",)),
                                                                           (("aeb",), ("fundus",))]
        from pathlib import Path

        root = Path(opts.datasets_root)
        missing = [n for tr, te in splits for n in (*tr, *te) if not (root / n / "truth.jsonl").is_file()]
        if missing:
            raise UsageError(f"no dataset {', '.join(sorted(set(missing)))} under {root}", print_help=False)
        try:
            table1, table2 = training.ablation(root, splits, limit=opts.limit)
        except ValueError as exc:  # e.g. a training set without positive labels
            raise UsageError(str(exc), print_help=False) from exc
        print("Feature groups (Kazennikov and Soloviev Table 1, one-stage labelling):")
        print(training.format_rows(table1, "groups"))
        print()
        print("Labelling scheme (Kazennikov and Soloviev Table 2, all feature groups):")
        print(training.format_rows(table2, "scheme"))

    def run_leaf_tags(self, args: list[str], opts: argparse.Namespace) -> None:
        from newscrawl.evaluation import template_eval
        from newscrawl.evaluation.datasets import read_truth

        if (opts.method or "template") != "template":
            raise UsageError("--leaf-tags scores the template method only (--method template)")
        if not args:
            raise UsageError("give at least one dataset directory")
        if opts.n1 < 0 or opts.n2 < 1:
            raise UsageError("--n1 must be >= 0 and --n2 >= 1")
        try:
            for dataset in args:
                read_truth(dataset)  # a wrong path fails before any work
            results = template_eval.evaluate_leaf_tags(args, opts.n1, opts.n2, opts.leaf_model,
                                                       limit=opts.limit)
        except ValueError as exc:  # not a dataset, no body truth
            raise UsageError(str(exc), print_help=False) from exc
        print(template_eval.format_results(results, opts.n1, opts.n2))
