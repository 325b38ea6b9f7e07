"""The seen-URL store: which article URLs a site has already exported, across runs.

A URL is added only after its item has been written to the feed (see
:class:`newscrawl.state.seen_urls.SeenUrls`), so a crash never marks an article that was not
exported.  Keys are canonical URLs (:func:`canonical_url`), per site.

:class:`SeenStore` is the small interface the crawl needs; :class:`SqliteSeenStore` is
the default implementation (one SQLite file in WAL mode, so a reader such as a report
script never blocks the crawl); :class:`newscrawl.state.redis_seen.RedisSeenStore` is the
distributed one.  No Scrapy imports here.

Pages fetched but never exported are remembered too, with their reason, date and cause class
(:meth:`SqliteSeenStore.add_unexported`, table ``unexported``): ``lasting`` (no text: a video
page; a page-type reject; or a failure that came again while the site was healthy), ``degraded``
(the site's own failure: a wall, a shared or boilerplate body, or any reject of a run in which
the site's extraction failed) or ``recheck`` (``scrapy recheck``).  How the crawl uses them is
:class:`newscrawl.state.seen_urls.SeenUrls`' business; table ``sites`` keeps each site's
``degraded`` mark (the last run that judged it found its extraction failing).  A store written
before these tables and columns existed gets them when it is opened (its rows are ``lasting``,
the only kind older versions kept); its ``seen`` rows are untouched.  Table ``live`` keeps, for each
exported live blog, the keys of the entries exported and until when the page counts as live.

Also here, for the start checks of :class:`newscrawl.run.guard.RunGuard`:
:func:`check_sqlite` (readable, writable and passing ``PRAGMA quick_check``) and
:func:`move_aside` (a corrupt store is kept for inspection, not deleted).
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Protocol

from w3lib.url import canonicalize_url

from newscrawl.dedup import url_key

DEFAULT_STATE_DIR = ".newscrawl"


DB_NAME = "seen.sqlite3"



def canonical_url(url: str) -> str:
    """The store key for ``url``: :func:`newscrawl.dedup.url_key` (sorted query, no fragment,
    normalised escapes, no tracking parameters, one key for http/https, ``www.``/``m.``/``amp.``
    hosts and AMP variants)."""
    return url_key(url)



def legacy_url_key(url: str) -> str:
    """The key stores written before :func:`canonical_url` dropped tracking parameters and
    AMP/mobile variants used (still looked up, so their URLs stay known)."""
    return canonicalize_url(url, keep_fragments=False)


LASTING, DEGRADED, RECHECK = "lasting", "degraded", "recheck"  # cause classes of an unexported page

KEYS_VERSION = 1  # PRAGMA user_version of a store whose keys are all canonical_url's current form


FINGERPRINTS_PER_SITE = 100_000  # content fingerprints kept per site; the oldest are pruned



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

    # Optional (a store without them fetches unexported pages again on every run):
    # add_unexported(site, urls, reason, cause), unexported(site, url) -> (reason, ISO time, cause)
    # | None, recheck(site) -> int, degraded(site) -> ISO time | None, set_degraded(site, bool);
    # live(site, url) -> (ISO time, entry keys) | None, set_live(site, urls, ISO time, entry keys)
    # (a store without them never fetches an exported live blog again).

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
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS fingerprints (id INTEGER PRIMARY KEY AUTOINCREMENT, "
            "site TEXT NOT NULL, url TEXT NOT NULL, minhash BLOB NOT NULL)"
        )
        self._db.execute("CREATE INDEX IF NOT EXISTS fingerprints_site ON fingerprints (site, id)")
        # Added after the first stores were written: created here in those too (a migration that
        # only adds a table), and ignored by older versions of newscrawl reading a newer store.
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS unexported (site TEXT NOT NULL, url TEXT NOT NULL, "
            "reason TEXT NOT NULL, fetched_at TEXT NOT NULL, PRIMARY KEY (site, url)) WITHOUT ROWID"
        )
        columns = {row[1] for row in self._db.execute("PRAGMA table_info(unexported)")}
        if "cause" not in columns:  # the rows of a store from before cause classes are all lasting
            self._db.execute(f"ALTER TABLE unexported ADD COLUMN cause TEXT NOT NULL DEFAULT '{LASTING}'")
        self._db.execute("CREATE TABLE IF NOT EXISTS sites (site TEXT PRIMARY KEY, degraded_at TEXT)")
        self._db.execute("CREATE TABLE IF NOT EXISTS live (site TEXT NOT NULL, url TEXT NOT NULL, live_until "
                         "TEXT NOT NULL, entries TEXT NOT NULL, PRIMARY KEY (site, url)) WITHOUT ROWID")
        if self._db.execute("PRAGMA user_version").fetchone()[0] < KEYS_VERSION:
            self._rekey()

    def _rekey(self) -> None:
        """Add the current key (:func:`canonical_url`) of every URL an older version recorded
        under its older key, once (``PRAGMA user_version`` notes it); the old rows stay."""
        with self._db:
            self._db.execute("BEGIN IMMEDIATE")
            rows = self._db.execute("SELECT site, url, exported_at FROM seen").fetchall()
            rekeyed = [(site, key, stamp) for site, url, stamp in rows if (key := canonical_url(url)) != url]
            self._db.executemany("INSERT OR IGNORE INTO seen (site, url, exported_at) VALUES (?, ?, ?)",
                                 rekeyed)
            self._db.execute(f"PRAGMA user_version = {KEYS_VERSION}")

    @classmethod
    def in_dir(cls, directory: str | os.PathLike | None = None) -> SqliteSeenStore:
        """The store under :func:`state_dir`."""
        return cls(state_dir(directory) / DB_NAME)

    def contains(self, site: str, url: str) -> bool:
        keys = {canonical_url(url), legacy_url_key(url)}  # a store from before the new keys
        marks = ", ".join("?" * len(keys))
        row = self._db.execute(f"SELECT 1 FROM seen WHERE site = ? AND url IN ({marks})", (site, *keys))
        return row.fetchone() is not None

    def fingerprints(self, site: str) -> list[tuple[str, bytes]]:
        """``(url, MinHash bytes)`` of the site's exported bodies, oldest first."""
        return self._db.execute("SELECT url, minhash FROM fingerprints WHERE site = ? ORDER BY id",
                                (site,)).fetchall()

    def add_fingerprint(self, site: str, url: str, minhash: bytes,
                        keep: int = FINGERPRINTS_PER_SITE) -> None:
        """Record an exported body's fingerprint; keep the site's newest ``keep``."""
        with self._db:
            self._db.execute("BEGIN")
            self._db.execute("INSERT INTO fingerprints (site, url, minhash) VALUES (?, ?, ?)",
                             (site, canonical_url(url), minhash))
            self._db.execute("DELETE FROM fingerprints WHERE site = ? AND id <= (SELECT id FROM fingerprints "
                             "WHERE site = ? ORDER BY id DESC LIMIT 1 OFFSET ?)", (site, site, keep))

    def add(self, site: str, urls: Iterable[str]) -> None:
        stamp = datetime.now(UTC).isoformat()
        rows = [(site, canonical_url(u), stamp) for u in dict.fromkeys(urls) if u]
        with self._db:  # one transaction
            self._db.execute("BEGIN")
            self._db.executemany("INSERT OR IGNORE INTO seen (site, url, exported_at) VALUES (?, ?, ?)", rows)

    def forget(self, site: str, urls: Iterable[str]) -> None:
        """Take back the export record of ``urls`` (a text that proved not to be the article)."""
        keys = [(site, canonical_url(u)) for u in dict.fromkeys(urls) if u]
        with self._db:
            self._db.execute("BEGIN")
            self._db.executemany("DELETE FROM seen WHERE site = ? AND url = ?", keys)

    def add_unexported(self, site: str, urls: Iterable[str], reason: str, cause: str = LASTING) -> None:
        """Record ``urls`` as fetched and not exported for ``reason`` (now; replaces an older record)."""
        stamp = datetime.now(UTC).isoformat()
        rows = [(site, canonical_url(u), reason, stamp, cause) for u in dict.fromkeys(urls) if u]
        with self._db:
            self._db.execute("BEGIN")
            self._db.executemany("INSERT OR REPLACE INTO unexported (site, url, reason, fetched_at, cause) "
                                 "VALUES (?, ?, ?, ?, ?)", rows)

    def unexported(self, site: str, url: str) -> tuple[str, str, str] | None:
        """``(reason, ISO time, cause)`` of the last fetch of ``url`` that exported nothing, or None."""
        row = self._db.execute("SELECT reason, fetched_at, cause FROM unexported WHERE site = ? AND url = ?",
                               (site, canonical_url(url))).fetchone()
        return (row[0], row[1], row[2]) if row else None

    def recheck(self, site: str) -> int:
        """Mark every remembered rejection of ``site`` for a fetch on its next run; returns how many."""
        with self._db:
            self._db.execute("BEGIN")
            marked = self._db.execute("UPDATE unexported SET cause = ? WHERE site = ?", (RECHECK, site))
            return marked.rowcount

    def degraded(self, site: str) -> str | None:
        """When the last run that judged ``site`` found its extraction failing (ISO time), or None."""
        row = self._db.execute("SELECT degraded_at FROM sites WHERE site = ?", (site,)).fetchone()
        return row[0] if row else None

    def set_degraded(self, site: str, degraded: bool) -> None:
        """Mark ``site``'s extraction as failing (since now, unless marked already) or as healthy."""
        with self._db:
            self._db.execute("BEGIN")
            if not degraded:
                self._db.execute("DELETE FROM sites WHERE site = ?", (site,))
            elif self._db.execute("SELECT 1 FROM sites WHERE site = ? AND degraded_at IS NOT NULL",
                                  (site,)).fetchone() is None:
                self._db.execute("INSERT OR REPLACE INTO sites (site, degraded_at) VALUES (?, ?)",
                                 (site, datetime.now(UTC).isoformat()))

    def live(self, site: str, url: str) -> tuple[str, list[str]] | None:
        """``(live until, ISO time; the keys of the entries exported)`` of a live page, or None."""
        row = self._db.execute("SELECT live_until, entries FROM live WHERE site = ? AND url = ?",
                               (site, canonical_url(url))).fetchone()
        return (row[0], json.loads(row[1])) if row else None

    def set_live(self, site: str, urls: Iterable[str], until: str, entries: list[str]) -> None:
        """Record a live page's exported entries (their keys) and until when it is live."""
        rows = [(site, canonical_url(u), until, json.dumps(entries)) for u in dict.fromkeys(urls) if u]
        with self._db:
            self._db.execute("BEGIN")
            self._db.executemany("INSERT OR REPLACE INTO live (site, url, live_until, entries) "
                                 "VALUES (?, ?, ?, ?)", rows)

    def count_unexported(self, site: str | None = None) -> int:
        if site is None:
            return self._db.execute("SELECT COUNT(*) FROM unexported").fetchone()[0]
        return self._db.execute("SELECT COUNT(*) FROM unexported WHERE site = ?", (site,)).fetchone()[0]

    def count(self, site: str | None = None) -> int:
        if site is None:
            return self._db.execute("SELECT COUNT(*) FROM seen").fetchone()[0]
        return self._db.execute("SELECT COUNT(*) FROM seen WHERE site = ?", (site,)).fetchone()[0]

    def close(self) -> None:
        self._db.close()



class CorruptStore(Exception):
    """A SQLite state file that fails ``PRAGMA quick_check`` or is not a database at all."""



def check_sqlite(path: str | os.PathLike) -> None:
    """Check the SQLite file at ``path`` before a crawl relies on it; an absent file passes.

    Raises :class:`CorruptStore` when it is not a database or ``PRAGMA quick_check``
    (https://sqlite.org/pragma.html#pragma_quick_check) reports damage, and
    ``sqlite3.OperationalError`` when it cannot be read or written (read-only file
    system, full disk, no permission).  The write check commits a transaction that
    rewrites ``user_version`` with its own value, so nothing changes.
    """
    path = Path(path)
    if not path.exists():
        return
    db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=rw", uri=True, isolation_level=None)
    try:
        rows = db.execute("PRAGMA quick_check").fetchall()
        if rows != [("ok",)]:
            raise CorruptStore("; ".join(str(r[0]) for r in rows[:3]))
        db.execute("BEGIN IMMEDIATE")
        version = db.execute("PRAGMA user_version").fetchone()[0]
        db.execute(f"PRAGMA user_version = {int(version)}")
        db.execute("COMMIT")
    except sqlite3.OperationalError:
        raise
    except sqlite3.DatabaseError as exc:  # SQLITE_CORRUPT, SQLITE_NOTADB
        raise CorruptStore(str(exc)) from None
    finally:
        db.close()



def move_aside(path: str | os.PathLike) -> Path:
    """Rename a damaged SQLite file (and its WAL) to ``<name>.corrupt-<UTC time>``; returns the new path."""
    path = Path(path)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    target = path.with_name(f"{path.name}.corrupt-{stamp}")
    path.replace(target)
    wal = path.with_name(path.name + "-wal")
    if wal.exists():
        wal.replace(target.with_name(target.name + "-wal"))
    path.with_name(path.name + "-shm").unlink(missing_ok=True)  # rebuilt from the WAL by SQLite
    return target

