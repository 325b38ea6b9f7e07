"""``scrapy archive PATH… -o OUT_DIR``: articles from WARC archives as a Dask job (:mod:`newscrawl.archives`).

A thin layer: arguments and settings in, :func:`newscrawl.archives.job.run_job` run, progress on a
terminal, a summary at the end.  Exit status 0 when every file was processed, 1 when a file
failed (missing, unreadable, its worker lost) or another job is writing the output directory,
2 on a usage error.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Any, ClassVar

from scrapy.commands import ScrapyCommand
from scrapy.exceptions import UsageError

INSTALL_HINT = "scrapy archive needs Dask and pyarrow: pip install 'newscrawl[archive]'"


class Command(ScrapyCommand):
    requires_project = False
    requires_crawler_process = False
    default_settings: ClassVar[dict[str, Any]] = {"LOG_LEVEL": "WARNING"}

    def syntax(self) -> str:
        return "PATH... -o OUT_DIR [--workers N] [--scheduler ADDRESS] [--format parquet|jsonl] [--dedup]"

    def short_desc(self) -> str:
        return "Extract the articles of WARC archives (files, globs, file lists, URLs) as a Dask job"

    def long_desc(self) -> str:
        return ("Each input file becomes one output file in OUT_DIR (Parquet or JSON lines, the crawl's "
                "export fields plus page_type) beside a NAME.done marker; a re-run skips the files already "
                "done. "
                "See docs/archives.md.")

    def add_options(self, parser: argparse.ArgumentParser) -> None:
        super().add_options(parser)
        parser.add_argument("-o", "--output", metavar="OUT_DIR", help="directory for the outputs (required)")
        parser.add_argument("--workers", type=int, default=None,
                            help="worker processes of the local Dask cluster (default one per CPU)")
        parser.add_argument("--scheduler", metavar="ADDRESS",
                            help="a running Dask scheduler (tcp://host:8786) instead of a local cluster")
        parser.add_argument("--format", default="parquet", choices=("parquet", "jsonl"),
                            help="output format (default parquet)")
        parser.add_argument("--dedup", action="store_true",
                            help="then list repeated URLs and near-duplicate bodies in "
                                 "OUT_DIR/near-duplicates.jsonl")

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        if not args:
            raise UsageError("give the archives: PATH... (.warc.gz/.warc files, directories, globs, "
                             "file lists, URLs)")
        if not opts.output:
            raise UsageError("give the output directory: -o OUT_DIR")
        workers = opts.workers if opts.workers is not None else (os.cpu_count() or 1)
        if workers < 1:
            raise UsageError("--workers must be at least 1")
        try:
            import dask  # noqa: F401
            import distributed  # noqa: F401
            import fsspec  # noqa: F401
            import pyarrow  # noqa: F401
        except ImportError as exc:
            raise UsageError(f"{INSTALL_HINT} ({exc})", print_help=False) from None
        from newscrawl.archives.inputs import exists, expand
        from newscrawl.archives.job import OutputLocked, run_job
        from newscrawl.archives.mapper import MapOptions

        try:
            sources = expand(args)
        except ValueError as exc:
            raise UsageError(str(exc), print_help=False) from None
        if not sources or not any(exists(s) for s in sources):
            raise UsageError(f"no input file found: {', '.join(args)}", print_help=False)
        settings = self.settings
        options = MapOptions(method=settings.get("NEWSCRAWL_METHOD", "auto"),
                             time_budget=settings.getfloat("NEWSCRAWL_EXTRACT_TIMEOUT", 20.0),
                             min_text_chars=settings.getint("NEWSCRAWL_MIN_TEXT_CHARS", 1),
                             page_type_filter=settings.getbool("NEWSCRAWL_PAGE_TYPE_FILTER", True))
        progress = _Progress(len(sources)) if sys.stderr.isatty() else None
        max_bytes = settings.getint("DOWNLOAD_MAXSIZE", 16 * 1024 * 1024) or 2**62
        try:
            summary = run_job(sources, opts.output, fmt=opts.format, workers=workers,
                              scheduler=opts.scheduler, options=options, max_bytes=max_bytes,
                              on_file=progress.file_done if progress else None,
                              on_progress=progress.update if progress else None)
        except OutputLocked as exc:
            print(f"scrapy archive: {exc}", file=sys.stderr)
            self.exitcode = 1
            return
        if progress:
            progress.close()
        print_summary(summary, opts.output)
        if opts.dedup:
            from newscrawl.archives.dedup import DUPLICATES, write_near_duplicates

            started = time.perf_counter()
            rows, duplicates = write_near_duplicates(opts.output)
            print(f"near-duplicates: {duplicates:,} of {rows:,} rows repeat an earlier one "
                  f"({time.perf_counter() - started:.1f} s) -> {os.path.join(opts.output, DUPLICATES)}")
        if summary.files_failed:
            self.exitcode = 1


class _Progress:
    """One status line on a terminal: files done, records read, records a second."""

    def __init__(self, files: int):
        self.files = files
        self.done = 0
        self.started = time.monotonic()
        self.running: dict[str, int] = {}  # source -> records read so far, for files in progress
        self.finished_records = 0
        self._last = 0.0

    def update(self, event: dict) -> None:
        self.running[event["source"]] = event["records"]
        self.show()

    def file_done(self, result, summary) -> None:
        self.running.pop(result.source, None)
        self.finished_records = summary.records
        self.done = summary.files_done + len(summary.files_failed) + summary.files_skipped
        self.show(force=True)

    def show(self, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self._last < 0.5:
            return
        self._last = now
        records = self.finished_records + sum(self.running.values())
        rate = records / max(now - self.started, 1e-9)
        sys.stderr.write(f"\rfiles {self.done}/{self.files} done, {records:,} records, "
                         f"{rate:,.0f} records/s  ")
        sys.stderr.flush()

    def close(self) -> None:
        sys.stderr.write("\n")


def print_summary(summary, out_dir: str) -> None:
    """The end of a run, on standard output."""
    rate = summary.records / summary.seconds if summary.seconds else 0.0
    print(f"{summary.files} file(s): {summary.files_done} done, {summary.files_skipped} already done, "
          f"{len(summary.files_failed)} failed; {summary.records:,} records, {summary.articles:,} articles "
          f"in {summary.seconds:.1f} s ({rate:,.0f} records/s) -> {out_dir}")
    if summary.skips:
        print("skipped: " + ", ".join(f"{reason} {count:,}" for reason, count in summary.skips.most_common()))
    for source, offset, reason, detail in summary.damage[:20]:
        print(f"  {source} @ byte {offset}: {reason}: {detail}")
    if len(summary.damage) > 20:
        print(f"  ... and {len(summary.damage) - 20} more (each input's .done marker lists them)")
    for source, why in summary.files_repaired:
        print(f"done again: {source}: its output did not read back ({why})")
    for source, why in summary.files_failed:
        print(f"failed: {source}: {why}")
