"""``scrapy crawlall``: every configured site in one process, one feed file per site.

    scrapy crawlall                              # all sites -> out/<site>.jsonl (appended)
    scrapy crawlall --language zh                # only Chinese sites
    scrapy crawlall --sites bbc,lenta -O 'out/%(name)s.csv'

Feeds use Scrapy's URI parameters: ``%(name)s`` is the spider (site) name, so one
``-o``/``-O`` template gives one file per site.  Locally served sites (the ``demo``)
run only when named in ``--sites``.  ``-a`` arguments go to every spider.

The run ends with one summary line per site (listed, exported, failed listing pages, drops
by reason) and exits with status 1 when any site failed (see :mod:`newscrawl.commands.outcome`).
"""

from __future__ import annotations

import logging

from scrapy.commands import BaseRunSpiderCommand
from scrapy.exceptions import UsageError

from newscrawl.items import ArticleItem

from .outcome import max_error_rate, outcome_of, overwritten_feeds, quiet_refusal, report

logger = logging.getLogger("newscrawl.crawl")


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

    def selected_sites(self, opts) -> list[str]:
        sites = self.crawler_process.spider_loader.sites
        if opts.sites:
            names = [n.strip() for n in opts.sites.split(",") if n.strip()]
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
        crawlers, held = [], {}
        for name in self.selected_sites(opts):
            crawler = self._create_crawler(name)
            held[name] = overwritten_feeds(self.settings, name)
            self.crawler_process.crawl(crawler, **opts.spargs).add_done_callback(quiet_refusal)
            crawlers.append(crawler)
        self.crawler_process.start()
        outcomes = [outcome_of(crawler) for crawler in crawlers]
        for outcome in outcomes:
            report(outcome, held.get(outcome.site))
        failed = [o.site for o in outcomes if not o.ok]
        if failed:
            logger.error("crawlall: %d of %d site(s) failed: %s", len(failed), len(outcomes),
                         ", ".join(failed))
        if failed or self.crawler_process.bootstrap_failed:
            self.exitcode = 1
