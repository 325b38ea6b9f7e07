"""``scrapy crawl SITE``: Scrapy's own command, plus an exit status that says whether the crawl worked.

Overrides the built-in ``crawl`` (``COMMANDS_MODULE``); options and arguments are Scrapy's.
After the run it logs one summary line for the site and exits with status 1 when the crawl
failed (:mod:`newscrawl.commands.outcome` lists the checks), 0 otherwise.  A run that found
nothing new says so in one line and leaves an earlier run's feed file as it was
(``FEED_STORE_EMPTY = False``).
"""

from __future__ import annotations

from scrapy.commands.crawl import Command as ScrapyCrawl
from scrapy.exceptions import UsageError

from ..items import BODY_RENDERINGS
from ..run.logfile import rotate_log_file
from .outcome import max_error_rate, outcome_of, overwritten_feeds, quiet_refusal, report


def leave_out_renderings(settings) -> None:
    """Drop the columns of the body renderings the user turned off (NEWSCRAWL_EXPORT_MARKDOWN,
    NEWSCRAWL_EXPORT_HTML) from ``FEED_EXPORT_FIELDS``, before the feeds open."""
    omit = {name for name, setting in BODY_RENDERINGS.items() if not settings.getbool(setting, True)}
    fields = settings.getlist("FEED_EXPORT_FIELDS")
    if omit and fields:
        settings.set("FEED_EXPORT_FIELDS", [f for f in fields if f not in omit],
                     priority=settings.getpriority("FEED_EXPORT_FIELDS") or "project")


class Command(ScrapyCrawl):
    def short_desc(self) -> str:
        return "Run a site's crawl; exit status 1 when it failed"

    def process_options(self, args, opts) -> None:
        super().process_options(args, opts)
        rotate_log_file(self.settings)  # before Scrapy opens LOG_FILE itself

    def run(self, args, opts) -> None:
        if len(args) != 1:
            super().run(args, opts)  # raises Scrapy's usage error
            return
        max_error_rate(self.settings)  # a bad value is a usage error now, not after the crawl
        leave_out_renderings(self.settings)
        try:
            crawler = self._create_crawler(args[0])
        except KeyError:
            raise UsageError(f"no site or spider named {args[0]!r}; `scrapy list` shows them",
                             print_help=False) from None
        check_arguments = getattr(crawler.spidercls, "check_arguments", None)  # -a values, before starting
        if check_arguments is not None:
            try:
                check_arguments(**opts.spargs)
                getattr(crawler.spidercls, "check_settings", lambda settings: None)(self.settings)
            except ValueError as exc:
                raise UsageError(f"{crawler.spidercls.name}: {exc}", print_help=False) from None
        held = overwritten_feeds(self.settings, crawler.spidercls.name)
        self.crawler_process.crawl(crawler, **opts.spargs).add_done_callback(quiet_refusal)
        self.crawler_process.start()
        if self.crawler_process.bootstrap_failed:
            self.exitcode = 1
            return
        outcome = outcome_of(crawler)
        report(outcome, held)
        if not outcome.ok:
            self.exitcode = 1
