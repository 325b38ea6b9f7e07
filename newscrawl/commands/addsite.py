"""``scrapy addsite NAME URL [--write]``: a sites-file entry for a site, discovered from its home page.

Runs the discovery crawl (``scrapy crawl discover -a url=URL -a survey=1``: the home page, a
few section pages and the feeds it names or that answer on common paths, robots.txt; no
article is fetched) and prints a validated ``[sites.NAME]`` entry: domains, catalogues (the
home page and the sections that list articles), feeds, sitemaps, list endpoints, language and
an ``article_pattern`` inferred from the article URLs found.  Only what is on the home page's
origin (scheme, host, port) is written, as the discovery crawl only follows that (``--allow
DOMAINS`` allows more, as ``-a allow=`` does for ``scrapy crawl discover``).  Review it, then
keep it with ``--write``, which adds it to the sites file (``NEWSCRAWL_SITES``, default
``data/sites.toml``, or ``--sites FILE``) with a TOML writer that keeps the file's comments:
the result is loaded and validated before it replaces the file atomically, and the previous
file is kept as ``<file>.bak`` (:mod:`newscrawl.siteswriter`); a name the file already has is
refused.

    $ scrapy addsite example_news https://www.example.com/
    $ scrapy addsite example_news https://www.example.com/ --write
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, ClassVar

from scrapy.commands import ScrapyCommand
from scrapy.exceptions import UsageError

from newscrawl.discovery.survey import site_entry, site_table

from ..sites import DEFAULT_SITES_FILE, SiteConfigError, load_sites, origin_of, parse_sites
from ..siteswriter import add_site
from ..spiders.discover import DiscoverSpider


class Command(ScrapyCommand):
    requires_project = False
    default_settings: ClassVar[dict[str, Any]] = {"LOG_LEVEL": "WARNING"}

    def syntax(self) -> str:
        return "NAME URL [--write] [--sites FILE] [--allow DOMAINS]"

    def short_desc(self) -> str:
        return "Discover a site from its home page and print (or --write) its sites-file entry"

    def add_options(self, parser: argparse.ArgumentParser) -> None:
        super().add_options(parser)
        parser.add_argument("--write", action="store_true", help="add the entry to the sites file")
        parser.add_argument("--allow", metavar="DOMAINS", default="",
                            help="domains (host or host:port, comma-separated) allowed besides the origin")
        parser.add_argument("--sites", metavar="FILE", help="the sites file (default: NEWSCRAWL_SITES)")

    def process_options(self, args: list[str], opts: argparse.Namespace) -> None:
        super().process_options(args, opts)
        # discovery only: no article is fetched, nothing exported
        self.settings.set("ITEM_PIPELINES", {}, priority="cmdline")
        self.settings.set("FEEDS", {}, priority="cmdline")

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        if len(args) != 2:
            raise UsageError("give a site NAME and its home page URL")
        name, url = args
        if origin_of(url) is None:
            raise UsageError(f"URL must be an absolute http(s) URL, got {url!r}")
        sites_file = Path(opts.sites or self.settings.get("NEWSCRAWL_SITES") or DEFAULT_SITES_FILE)
        self._check_name(name, sites_file)
        try:
            DiscoverSpider.check_allow(url=url, allow=opts.allow)
        except ValueError as exc:
            raise UsageError(str(exc), print_help=False) from None
        crawler = self.crawler_process.create_crawler(DiscoverSpider)
        self.crawler_process.crawl(crawler, url=url, survey="1", allow=opts.allow)
        self.crawler_process.start()
        survey = getattr(crawler.spider, "survey", None)
        if survey is None:
            raise UsageError(f"discovery of {url} did not run")
        table = site_table(survey)
        try:
            entry = site_entry(name, table)
        except SiteConfigError as exc:
            print(f"error: no valid entry from what {url} shows: {exc}")
            self.exitcode = 1
            return
        print(entry, end="")
        if opts.write:
            try:
                backup = add_site(sites_file, name, table)
            except (SiteConfigError, OSError) as exc:
                print(f"error: {sites_file} left as it was: {exc}")
                self.exitcode = 1
                return
            print(f"# added to {sites_file}" + (f" (previous file kept as {backup})" if backup else ""))

    @staticmethod
    def _check_name(name: str, sites_file: Path) -> None:
        """A valid site name that the sites file does not have yet."""
        try:
            parse_sites({"sites": {name: {"domains": ["example.com"], "feeds": ["https://example.com/"]}}})
        except SiteConfigError as exc:
            raise UsageError(str(exc).split(": ", 1)[-1]) from None
        if sites_file.is_file():
            try:
                existing = load_sites(sites_file)
            except SiteConfigError as exc:
                raise UsageError(str(exc)) from None
            if name in existing:
                raise UsageError(f"{sites_file} already has a site {name!r}: choose another name")
