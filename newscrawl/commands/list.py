"""``scrapy list``: every spider, and for each configured site its language and listing sources.

    $ scrapy list
    bbc           en  catalogues 2, feeds 2, list APIs 0, sitemaps 0 + robots.txt
    demo          -   catalogues 4, feeds 3, list APIs 0, sitemaps 0 + robots.txt, served from site/
    discover
    $ scrapy list --names        # one name per line, as Scrapy's own command prints them
    $ scrapy list --details | grep sitemaps    # the details also into a pipe

Output that is not a terminal (a pipe, a file) gets the names only, as with ``--names``:
Scrapyd's ``listspiders.json`` and ``schedule.json`` read ``scrapy list`` as one spider name a line.
A coded spider that is not a configured site is listed by name only.
"""

from __future__ import annotations

import sys

from scrapy.commands.list import Command as ScrapyListCommand
from scrapy.spiderloader import get_spider_loader

from ..sites import SiteConfig
from .stdout import pipe_safe


def describe(site: SiteConfig) -> str:
    """A site's language and listing sources on one line."""
    sitemaps = f"sitemaps {len(site.sitemaps)}" + (" + robots.txt" if site.robots_sitemaps else "")
    parts = [f"catalogues {len(site.catalogues)}", f"feeds {len(site.feeds)}",
             f"list APIs {len(site.list_apis)}", sitemaps]
    if site.serve is not None:
        parts.append(f"served from {site.serve.name}/")
    if site.since is not None:
        parts.append(f"since {site.since.isoformat()}")
    if site.max_age_days:
        parts.append(f"max age {site.max_age_days} days")
    return f"{site.language or '-':<3} {', '.join(parts)}"


class Command(ScrapyListCommand):
    def short_desc(self) -> str:
        return "List the spiders: each site's language and its catalogues, feeds, list APIs and sitemaps"

    def add_options(self, parser) -> None:
        super().add_options(parser)
        parser.add_argument("--names", action="store_true", help="print the spider names only, one a line")
        parser.add_argument("--details", action="store_true",
                            help="each site's language and sources also when the output is not a terminal")

    @pipe_safe
    def run(self, args: list[str], opts) -> None:
        loader = get_spider_loader(self.settings)
        names = sorted(loader.list())
        if opts.names or not (opts.details or sys.stdout.isatty()):
            print("\n".join(names))
            return
        width = max(map(len, names), default=0)
        for name in names:
            site = getattr(loader.load(name), "site", None)
            print(f"{name:<{width}}  {describe(site)}" if isinstance(site, SiteConfig) else name)
