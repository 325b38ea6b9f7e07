"""The seen-URL store: which article URLs a site has already exported, across runs.

A URL is added only after its item has been written to the feed (see
:class:`newscrawl.extensions.SeenUrls`), so a crash never marks an article that was not
exported.  Keys are canonical URLs (:func:`canonical_url`), per site.

:class:`SeenStore` is the small interface the crawl needs; :class:`SqliteSeenStore` is
the default implementation (one SQLite file in WAL mode, so a reader such as a report
script never blocks the crawl).  A Redis or database implementation for distributed
crawls only needs the same four methods.  No Scrapy imports here.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Protocol

from w3lib.url import canonicalize_url

DEFAULT_STATE_DIR = ".newscrawl"
DB_NAME = "seen.sqlite3"


def canonical_url(url: str) -> str:
    """The store key for ``url``: sorted query, no fragment, normalised escapes."""
    return canonicalize_url(url, keep_fragments=False)


def state_dir(configured: str | os.PathLike | None = None) -> Path:
    """Where crawl state lives: ``configured``, else ``$NEWSCRAWL_STATE_DIR``, else ``./.newscrawl``."""
    return Path(configured or os.environ.get("NEWSCRAWL_STATE_DIR") or DEFAULT_STATE_DIR)


class SeenStore(Protocol):
    """What the crawl needs from a seen-URL store."""

    def contains(self, site: str, url: str) -> bool:
        """Has ``url`` been exported for ``site``?"""

    def add(self, site: str, urls: Iterable[str]) -> None:
        """Record ``urls`` as exported for ``site`` (durably, before returning)."""

    def count(self, site: str | None = None) -> int:
        """How many URLs are recorded (for one site or all)."""

    def close(self) -> None:
        """Release resources."""


class SqliteSeenStore:
    """:class:`SeenStore` in one SQLite database (WAL mode, one commit per :meth:`add`)."""

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("PRAGMA busy_timeout=10000")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS seen (site TEXT NOT NULL, url TEXT NOT NULL, "
            "exported_at TEXT NOT NULL, PRIMARY KEY (site, url)) WITHOUT ROWID"
        )

    @classmethod
    def in_dir(cls, directory: str | os.PathLike | None = None) -> SqliteSeenStore:
        """The store under :func:`state_dir`."""
        return cls(state_dir(directory) / DB_NAME)

    def contains(self, site: str, url: str) -> bool:
        row = self._db.execute("SELECT 1 FROM seen WHERE site = ? AND url = ?", (site, canonical_url(url)))
        return row.fetchone() is not None

    def add(self, site: str, urls: Iterable[str]) -> None:
        stamp = datetime.now(UTC).isoformat()
        rows = [(site, canonical_url(u), stamp) for u in dict.fromkeys(urls) if u]
        with self._db:  # one transaction
            self._db.execute("BEGIN")
            self._db.executemany("INSERT OR IGNORE INTO seen (site, url, exported_at) VALUES (?, ?, ?)", rows)

    def count(self, site: str | None = None) -> int:
        if site is None:
            return self._db.execute("SELECT COUNT(*) FROM seen").fetchone()[0]
        return self._db.execute("SELECT COUNT(*) FROM seen WHERE site = ?", (site,)).fetchone()[0]

    def close(self) -> None:
        self._db.close()
