"""``scrapy report``: the site-health report from the run history (docs/monitoring.md).

    scrapy report -o report.html                 # every site, the last 90 days
    scrapy report --sites bbc,lenta --days 30 --format json -o health.json
    scrapy report --check                        # exit 1 while any site has an active alarm

Without ``-o`` the report goes to stdout; with ``--check`` and no ``-o`` only the active alarms
are printed, one per line.  Exit status: 1 with ``--check`` while an alarm is active, 2 on a
usage error, 3 when the history could not be read (one line on stderr naming it and why), else
0.  The history is the one a crawl writes with the same settings (the state directory's
``health.sqlite3``, opened read-only, or Redis with ``NEWSCRAWL_DISTRIBUTED``); its damaged rows
are left out, counted in the report (``skipped_rows``) and on stderr.
"""

from __future__ import annotations

import sqlite3
import sys
from datetime import timedelta
from pathlib import Path
from urllib.parse import urlsplit

from redis.exceptions import RedisError
from scrapy.commands import ScrapyCommand
from scrapy.exceptions import UsageError

from newscrawl.state.seen_store import state_dir

from ..health import report as health_report
from ..health.alarms import Alarm, Thresholds
from ..health.history import DB_NAME, now_utc, open_history
from .stdout import pipe_safe

DEFAULT_DAYS = 90.0
EXIT_ALARM = 1  # --check: an alarm is active
EXIT_UNREADABLE = 3  # the history could not be read (2 is Scrapy's usage error)


class Unreadable(Exception):
    """The run history could not be read: the message names where and why."""


class Command(ScrapyCommand):
    requires_project = True
    default_settings = {"LOG_ENABLED": False}

    def syntax(self) -> str:
        return "[-o report.html] [--sites a,b] [--days N] [--format html|json] [--check]"

    def short_desc(self) -> str:
        return "Site-health report from the run history; --check exits 1 while an alarm is active"

    def add_options(self, parser) -> None:
        super().add_options(parser)
        parser.add_argument("-o", "--output", help="write the report to this file (default: stdout)")
        parser.add_argument("--sites", help="comma-separated site names (default: every recorded site)")
        parser.add_argument("--days", default=str(DEFAULT_DAYS), help=f"days of runs plotted (default "
                            f"{DEFAULT_DAYS:g}; alarms always use the whole baseline)")
        parser.add_argument("--format", default=None,
                            help="html or json (default: from -o's suffix, else html)")
        parser.add_argument("--check", action="store_true", help="exit status 1 while any alarm is active")

    @pipe_safe
    def run(self, args, opts) -> None:
        if args:
            raise UsageError("report takes no positional arguments")
        fmt = (opts.format or ("json" if (opts.output or "").endswith(".json") else "html")).lower()
        if fmt not in ("html", "json"):
            raise UsageError(f"--format must be html or json, got {opts.format!r}", print_help=False)
        try:
            days = float(opts.days)
        except ValueError:
            days = -1.0
        if not days > 0:
            raise UsageError(f"--days must be a positive number, got {opts.days!r}", print_help=False)
        try:
            thresholds = Thresholds.from_settings(self.settings)
        except (TypeError, ValueError) as exc:
            raise UsageError(f"a site-health threshold setting is not a number: {exc}",
                             print_help=False) from None
        now = now_utc()
        try:
            report = self._report(opts, since=now - timedelta(days=days), now=now, thresholds=thresholds,
                                  days=days, points=None if fmt == "json" else health_report.MAX_POINTS)
        except Unreadable as exc:
            print(f"health report: the run history could not be read: {exc}", file=sys.stderr)
            self.exitcode = EXIT_UNREADABLE
            return
        if report.get("skipped_rows"):
            print(f"health report: skipped {report['skipped_rows']} damaged run-history row(s)",
                  file=sys.stderr)
        ignored = thresholds.ignored_drops
        if opts.output:
            text = health_report.to_json(report) if fmt == "json" else health_report.to_html(report, ignored)
            Path(opts.output).write_text(text, encoding="utf-8")
        elif opts.check:
            for alarm in report["alarms"]:
                print(f"{alarm['site']}: {alarm['message']} [{alarm['signal']}] ({Alarm(**alarm).figures()})")
        else:
            sys.stdout.write(health_report.to_json(report) if fmt == "json"
                             else health_report.to_html(report, ignored))
        if opts.check and report["alarms"]:
            self.exitcode = EXIT_ALARM

    def _report(self, opts, **kwargs) -> dict:
        settings = self.settings
        names = [n.strip() for n in (opts.sites or "").split(",") if n.strip()] or None
        url = settings.get("NEWSCRAWL_DISTRIBUTED")
        path = state_dir(settings.get("NEWSCRAWL_STATE_DIR")) / DB_NAME
        where = f"Redis at {_host(url)}" if url else str(path)
        if not url and not path.exists() and not path.parent.is_file():
            if names:
                raise UsageError(f"no recorded run for site(s): {', '.join(names)} (no history yet)",
                                 print_help=False)
            return health_report.build({}, {}, now=kwargs["now"], thresholds=kwargs["thresholds"],
                                       days=kwargs["days"])
        if not url and path.is_dir():
            raise Unreadable(f"{path}: a directory, not a history file")
        try:
            store = open_history(settings, readonly=True)
            try:
                recorded = store.sites()
                unknown = [n for n in names or () if n not in recorded]
                if unknown:
                    raise UsageError(f"no recorded run for site(s): {', '.join(unknown)} "
                                     f"(recorded: {', '.join(recorded) or 'none'})", print_help=False)
                report = health_report.from_store(store, sites=names, **kwargs)
            finally:
                store.close()
        except (sqlite3.Error, OSError, RedisError) as exc:
            raise Unreadable(f"{where}: {str(exc).strip() or type(exc).__name__}") from None
        return report


def _host(url: str) -> str:
    """``host:port`` of a Redis URL (never its password)."""
    try:
        parts = urlsplit(url)
        return f"{parts.hostname}:{parts.port or 6379}" if parts.hostname else parts.path or url
    except ValueError:
        return "(unreadable URL)"
