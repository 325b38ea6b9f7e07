"""``scrapy crawlall``: every configured site in one process, one feed file per site.

    scrapy crawlall                              # all sites -> out/<site>.jsonl (appended)
    scrapy crawlall --language zh                # only Chinese sites
    scrapy crawlall --sites bbc,lenta -O 'out/%(name)s.csv'

A site named twice in ``--sites`` runs once, in the order of its first mention.

Feeds use Scrapy's URI parameters: ``%(name)s`` is the spider (site) name, so one
``-o``/``-O`` template gives one file per site.  Locally served sites (the ``demo``)
run only when named in ``--sites``.  ``-a`` arguments go to every spider.

At most ``NEWSCRAWL_CONCURRENT_SITES`` sites crawl at once (default: twice the CPU cores;
a site spends most of its time waiting out its politeness delay); the next site starts when
one finishes.  Every site's pages go to one extraction pool for the whole process
(``NEWSCRAWL_EXTRACT_PROCESSES`` workers in all, :func:`newscrawl.pipelines.pool.shared_pool`),
so memory does not grow with the number of sites (``bench/crawlall_memory.py``).  After
Ctrl-C no further site starts; the sites not started are reported as not run.

The run ends with one summary line per site (listed, exported, failed listing pages, drops
by reason) and exits with status 1 when any site failed (see :mod:`newscrawl.commands.outcome`).
"""

from __future__ import annotations

import logging
import os
from collections import deque
from functools import partial

from scrapy.commands import BaseRunSpiderCommand
from scrapy.exceptions import UsageError

from newscrawl.items import ArticleItem
from newscrawl.pipelines import pool
from newscrawl.run.logfile import rotate_log_file

from .outcome import max_error_rate, outcome_of, overwritten_feeds, quiet_refusal, report

logger = logging.getLogger("newscrawl.crawl")


def concurrent_sites(settings) -> int:
    """``NEWSCRAWL_CONCURRENT_SITES``, else twice the CPU cores; a usage error unless at least 1."""
    raw = settings.get("NEWSCRAWL_CONCURRENT_SITES")
    if raw in (None, ""):
        return 2 * (os.cpu_count() or 1)
    try:
        value = int(raw)
    except (TypeError, ValueError):
        value = 0
    if value < 1:
        raise UsageError(f"NEWSCRAWL_CONCURRENT_SITES must be a whole number of at least 1, got {raw!r}",
                         print_help=False)
    return value


class Command(BaseRunSpiderCommand):
    requires_project = True

    def syntax(self) -> str:
        return "[--sites a,b | --language xx] [options]"

    def short_desc(self) -> str:
        return "Run every configured site (or a selection) in one process, one feed per site"

    def add_options(self, parser) -> None:
        super().add_options(parser)
        parser.add_argument("--sites", help="comma-separated site names (default: every live site)")
        parser.add_argument("--language", help="only sites of this language (ISO 639-1, e.g. zh, en, ru)")
        parser.add_argument("--output-dir", default="out",
                            help="directory of the default per-site feeds (when no -o/-O is given)")

    def process_options(self, args, opts) -> None:
        super().process_options(args, opts)
        feeds = self.settings.getdict("FEEDS")
        for uri in feeds:
            if "%(name)s" not in str(uri):
                raise UsageError(f"feed URI {uri!r} must contain %(name)s to give each site its own file",
                                 print_help=False)
        if not feeds:
            feeds = {f"{opts.output_dir}/%(name)s.jsonl": {"format": "jsonlines"}}
        for options in feeds.values():
            options.setdefault("item_classes", [ArticleItem])
        self.settings.set("FEEDS", feeds, priority="cmdline")
        rotate_log_file(self.settings)  # before Scrapy opens LOG_FILE itself

    def selected_sites(self, opts) -> list[str]:
        sites = self.crawler_process.spider_loader.sites
        if opts.sites:
            # A name given twice runs once, where it was first named.
            names = list(dict.fromkeys(n.strip() for n in opts.sites.split(",") if n.strip()))
            unknown = [n for n in names if n not in sites]
            if unknown:
                msg = f"unknown site(s): {', '.join(unknown)}; see `scrapy list`"
                raise UsageError(msg, print_help=False)
        else:
            names = [n for n, site in sites.items() if site.serve is None]
        if opts.language:
            names = [n for n in names if sites[n].language == opts.language]
        if not names:
            raise UsageError("no site matches the selection", print_help=False)
        return names

    def run(self, args, opts) -> None:
        if args:
            raise UsageError("crawlall takes no positional arguments; use --sites")
        max_error_rate(self.settings)  # a bad value is a usage error now, not after the crawl
        bound = concurrent_sites(self.settings)
        names = self.selected_sites(opts)
        self.pending, self.running, self.crawlers, self.held = deque(names), set(), {}, {}
        self.most_at_once, self.interrupted = 0, False
        logger.info("crawlall: %d site(s), at most %d at once (NEWSCRAWL_CONCURRENT_SITES)",
                    len(names), bound)
        with pool.held():  # one extraction pool for every site, closed after the last one
            self._launch(bound, opts.spargs)
            self.crawler_process.start()
        outcomes = [outcome_of(self.crawlers[name]) for name in names if name in self.crawlers]
        for outcome in outcomes:
            report(outcome, self.held.get(outcome.site))
        failed = [o.site for o in outcomes if not o.ok]
        skipped = [name for name in names if name not in self.crawlers]
        if skipped:
            logger.error("crawlall: interrupted: %d site(s) not run: %s", len(skipped), ", ".join(skipped))
        if failed:
            logger.error("crawlall: %d of %d site(s) failed: %s", len(failed), len(outcomes),
                         ", ".join(failed))
        if failed or skipped or self.crawler_process.bootstrap_failed:
            self.exitcode = 1

    def _launch(self, bound: int, spargs: dict) -> None:
        """Start pending sites while fewer than ``bound`` run (each one's end starts the next)."""
        while self.pending and len(self.running) < bound and not self.interrupted:
            name = self.pending.popleft()
            crawler = self._create_crawler(name)
            self.crawlers[name] = crawler
            self.held[name] = overwritten_feeds(self.settings, name)
            self.running.add(name)
            self.most_at_once = max(self.most_at_once, len(self.running))
            task = self.crawler_process.crawl(crawler, **spargs)
            task.add_done_callback(quiet_refusal)
            task.add_done_callback(partial(self._finished, name, bound, spargs))

    def _finished(self, name: str, bound: int, spargs: dict, task) -> None:
        self.running.discard(name)
        if self.crawlers[name].stats.get_value("finish_reason") == "shutdown":
            self.interrupted = True  # Ctrl-C: let the running sites finish, start no more
        self._launch(bound, spargs)
