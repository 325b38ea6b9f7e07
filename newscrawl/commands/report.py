"""``scrapy report``: the site-health report from the run history (docs/monitoring.md).

    scrapy report -o report.html                 # every site, the last 90 days
    scrapy report --sites bbc,lenta --days 30 --format json -o health.json
    scrapy report --check                        # exit 1 while any site has an active alarm

Without ``-o`` the report goes to stdout; with ``--check`` and no ``-o`` only the active alarms
are printed, one per line.  Exit status: 1 with ``--check`` while an alarm is active, 2 on a
usage error, else 0.  The history is the one a crawl writes with the same settings (the state
directory's ``health.sqlite3``, or Redis with ``NEWSCRAWL_DISTRIBUTED``).
"""

from __future__ import annotations

import sys
from datetime import timedelta
from pathlib import Path

from scrapy.commands import ScrapyCommand
from scrapy.exceptions import UsageError

from newscrawl.state.seen_store import state_dir

from ..health import report as health_report
from ..health.alarms import Thresholds
from ..health.history import DB_NAME, now_utc, open_history

DEFAULT_DAYS = 90.0


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
        report = self._report(opts, since=now - timedelta(days=days), now=now, thresholds=thresholds,
                              days=days, points=None if fmt == "json" else health_report.MAX_POINTS)
        ignored = thresholds.ignored_drops
        if opts.output:
            text = health_report.to_json(report) if fmt == "json" else health_report.to_html(report, ignored)
            Path(opts.output).write_text(text, encoding="utf-8")
        elif opts.check:
            for alarm in report["alarms"]:
                print(f"{alarm['site']}: {alarm['message']} [{alarm['signal']}] "
                      f"(baseline {alarm['baseline']:g}, now {alarm['value']:g})")
        else:
            sys.stdout.write(health_report.to_json(report) if fmt == "json"
                             else health_report.to_html(report, ignored))
        if opts.check and report["alarms"]:
            self.exitcode = 1

    def _report(self, opts, **kwargs) -> dict:
        settings = self.settings
        names = [n.strip() for n in (opts.sites or "").split(",") if n.strip()] or None
        if not settings.get("NEWSCRAWL_DISTRIBUTED") and \
                not (state_dir(settings.get("NEWSCRAWL_STATE_DIR")) / DB_NAME).exists():
            if names:
                raise UsageError(f"no recorded run for site(s): {', '.join(names)} (no history yet)",
                                 print_help=False)
            return health_report.build({}, {}, now=kwargs["now"], thresholds=kwargs["thresholds"],
                                       days=kwargs["days"])
        store = open_history(settings)
        try:
            recorded = store.sites()
            unknown = [n for n in names or () if n not in recorded]
            if unknown:
                raise UsageError(f"no recorded run for site(s): {', '.join(unknown)} "
                                 f"(recorded: {', '.join(recorded) or 'none'})", print_help=False)
            return health_report.from_store(store, sites=names, **kwargs)
        finally:
            store.close()
