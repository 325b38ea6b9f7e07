"""``scrapy templates [SITE]``: print the template library learned for a site (Yan and Wang 2020).

Without SITE, lists the sites that have a library.  Reads the SQLite file beside the
seen-URL store (``NEWSCRAWL_STATE_DIR`` or ``--state-dir``); the crawl writes it.  With
``-s NEWSCRAWL_DISTRIBUTED=redis://...`` it reads the library the workers share in Redis
(``NEWSCRAWL_REDIS_PREFIX``), without taking anything from it.
"""

from __future__ import annotations

import argparse
from typing import Any, ClassVar

from scrapy.commands import ScrapyCommand
from scrapy.exceptions import UsageError

from newscrawl.distributed.options import template_store
from newscrawl.extract.methods.template import TEMPLATE_DB, TemplateStore
from newscrawl.state.seen_store import state_dir

from .stdout import pipe_safe


class Command(ScrapyCommand):
    requires_project = False
    requires_crawler_process = False
    default_settings: ClassVar[dict[str, Any]] = {"LOG_LEVEL": "WARNING"}

    def syntax(self) -> str:
        return "[SITE] [--state-dir DIR] [--limit N]"

    def short_desc(self) -> str:
        return "Print the per-site template library (common noise) learned during crawls"

    def add_options(self, parser: argparse.ArgumentParser) -> None:
        super().add_options(parser)
        parser.add_argument("--state-dir", help="crawl state directory (default: .newscrawl)")
        parser.add_argument("--limit", type=int, default=100, help="print at most N entries")

    @pipe_safe
    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        if len(args) > 1:
            raise UsageError("give at most one site")
        path = state_dir(opts.state_dir) / TEMPLATE_DB
        try:
            store = template_store(self.settings, readonly=True)
        except Exception as exc:  # noqa: BLE001 - an unreachable or misconfigured Redis
            raise UsageError(f"no template library in Redis: {type(exc).__name__}: {exc}") from None
        if store is not None:
            path = f"Redis ({store.prefix}:template:*)"  # not the URL: it may hold a password
        elif not path.is_file():
            print(f"no template library at {path} (crawl first)")
            return
        else:
            store = TemplateStore(path)
        try:
            known = store.sites()
            if not args:
                if not known:
                    print(f"no site has a template library in {path} yet")
                for site in known:
                    print(f"{site}\t{len(store.site(site).template)} entries")
                return
            if args[0] not in known:
                print(f"no template library for {args[0]!r} in {path} (sites: {', '.join(known) or 'none'})")
                return
            site = store.site(args[0])
            entries = site.entries()
            print(f"{args[0]}: {len(entries)} template entries, {site.pages_in_batch}/{site.n1} pages "
                  f"in the current batch (N1={site.n1}, N2={site.n2})")
            for tag, text, count in entries[: opts.limit]:
                print(f"{count:5d}  <{tag}>  {text[:100]}")
            print_title_decoration(store, args[0], opts.limit)
            print_url_shapes(store, args[0], opts.limit)
            print_rendering(store, args[0])
        finally:
            store.close()


def print_title_decoration(store, site: str, limit: int) -> None:
    """The site's learned title decoration: the parts of its titles that are not headlines."""
    from newscrawl.extract.fields.title_decoration import LEAD, DecorationStore
    from newscrawl.state.redis_templates import RedisDecorationStore

    client = getattr(store, "client", None)
    titles = (RedisDecorationStore(client, store.prefix, readonly=True) if client is not None
              else DecorationStore(store.path))
    try:
        decoration = titles.site(site)
        learned = decoration.decoration()
        print(f"title decoration: {len(learned)} parts learned from {decoration.pages} pages "
              f"(a part counts once seen on {decoration.min_pages} pages)")
        shown = sorted(((c, p.removeprefix(LEAD)) for p, c in decoration.counts.items()
                        if p.removeprefix(LEAD) in learned), reverse=True)
        for count, part in shown[:limit]:
            print(f"{count:5d}  {part[:100]}")
    finally:
        titles.close()


def print_url_shapes(store, site: str, limit: int) -> None:
    """The URL shapes the site's fetched links taught (:mod:`newscrawl.discovery.url_shapes`)."""
    from newscrawl.spiders.url_shapes import load_redis, load_sqlite

    client = getattr(store, "client", None)
    shapes = load_redis(client, store.prefix, site) if client is not None else load_sqlite(store.path, site)
    learned = shapes.learned()
    fetched = sum(articles + others for articles, others, _ in shapes.counts.values())
    listed = sum(counts[2] for counts in shapes.counts.values())
    print(f"URL shapes: {len(learned)} learned from {fetched} fetched links and {listed} listed in feeds")
    for shape, articles, others, verdict in learned[:limit]:
        print(f"{articles:5d} articles {others:5d} others  {verdict:12s}  {shape[:100]}")


def print_rendering(store, site: str) -> None:
    """What ``render = "auto"`` learned about the site (:mod:`newscrawl.state.rendering`)."""
    from newscrawl.spiders.rendering import describe
    from newscrawl.state import rendering

    client = getattr(store, "client", None)
    learned = (rendering.load_redis(client, store.prefix, site) if client is not None
               else rendering.load(store.path, site))
    for line in describe(learned):
        print(line)
