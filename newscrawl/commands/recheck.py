"""``scrapy recheck SITE``: fetch again, on the site's next run, the pages its earlier runs fetched
and did not export.

The crawl remembers such pages with their reason and cause class (:mod:`newscrawl.state.seen_urls`)
and does not fetch them again: a lasting one (no text, not an article) for
``NEWSCRAWL_RETRY_UNEXPORTED_DAYS``, a degraded one (the site's own failure) until the site is
healthy again.  After fixing something the crawl cannot see (a site's configuration, an extraction
setting), this marks every remembered rejection of SITE for a fetch on the next ``scrapy crawl
SITE``; one that fails again the same way is remembered again and is not a new failure.  It
changes the state only: nothing is fetched now.  Reads the seen-URL store of
``NEWSCRAWL_STATE_DIR`` (or ``--state-dir``), or with ``-s NEWSCRAWL_DISTRIBUTED=redis://...``
the one the workers share in Redis.
"""

from __future__ import annotations

import argparse
import sqlite3
from typing import Any, ClassVar

from scrapy.commands import ScrapyCommand
from scrapy.exceptions import UsageError

from newscrawl.sites import SiteConfigError, load_sites
from newscrawl.state.seen_store import DB_NAME, SqliteSeenStore, state_dir


class Command(ScrapyCommand):
    requires_project = False
    requires_crawler_process = False
    default_settings: ClassVar[dict[str, Any]] = {"LOG_LEVEL": "WARNING"}

    def syntax(self) -> str:
        return "SITE [--state-dir DIR]"

    def short_desc(self) -> str:
        return "Fetch again on a site's next run the pages earlier runs fetched and did not export"

    def add_options(self, parser: argparse.ArgumentParser) -> None:
        super().add_options(parser)
        parser.add_argument("--state-dir",
                            help="crawl state directory (default: NEWSCRAWL_STATE_DIR or .newscrawl)")

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        if len(args) != 1:
            raise UsageError("give one site", print_help=False)
        site = args[0]
        try:
            store, where = self._store(opts)
        except (OSError, sqlite3.Error) as exc:
            raise UsageError(f"cannot open the seen-URL store: {exc}", print_help=False) from None
        if site not in self._configured() and not _recorded(store, site):
            if store is not None:
                store.close()
            raise UsageError(f"unknown site {site!r}: not in the sites file, nothing recorded for it in "
                             f"{where}; see `scrapy list`", print_help=False)
        if store is None:
            print(f"{site}: no seen-URL store at {where}: nothing to recheck")
            return
        try:
            marked = store.recheck(site)
        except Exception as exc:  # noqa: BLE001 - an unreachable Redis, a locked or read-only file
            raise UsageError(f"cannot mark the rejections in {where}: {type(exc).__name__}: {exc}",
                             print_help=False) from None
        finally:
            store.close()
        print(f"{site}: {marked} remembered rejection(s) in {where} will be fetched again on the "
              "site's next run")

    def _configured(self) -> set[str]:
        """The sites of the sites file (``NEWSCRAWL_SITES``); none when it cannot be read."""
        try:
            return set(load_sites(self.settings.get("NEWSCRAWL_SITES")))
        except SiteConfigError:
            return set()

    def _store(self, opts: argparse.Namespace) -> tuple[Any, str]:
        """The store to mark, and where it is for messages (Redis: the prefix, never the URL)."""
        url = self.settings.get("NEWSCRAWL_DISTRIBUTED")
        if url:
            from newscrawl.distributed.options import _prefix, _retries
            from newscrawl.state.redis_client import UNREACHABLE, connect
            from newscrawl.state.redis_seen import RedisSeenStore

            try:
                client = connect(url, _retries(self.settings))
            except UNREACHABLE as exc:
                raise UsageError(f"Redis unreachable: {exc}", print_help=False) from None
            prefix = _prefix(self.settings)
            return RedisSeenStore(client, prefix), f"Redis ({prefix}:unexported:*)"
        path = state_dir(opts.state_dir or self.settings.get("NEWSCRAWL_STATE_DIR")) / DB_NAME
        if not path.is_file():
            return None, str(path)
        return SqliteSeenStore(path), str(path)


def _recorded(store: Any, site: str) -> bool:
    """Has ``store`` anything of ``site`` (an exported or a rejected page)?"""
    if store is None:
        return False
    unexported = getattr(store, "count_unexported", None)
    return bool(store.count(site) or (unexported is not None and unexported(site)))
