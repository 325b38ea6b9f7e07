"""One JSON text a site in a table of the SQLite state file (``templates.sqlite3``): what a crawl
learned of a site (its article-URL shapes, whether its pages need a browser), read at the start
of a run and written back at its end.  No Scrapy imports."""

from __future__ import annotations

import sqlite3
from pathlib import Path


def read_blob(path: Path, table: str, site: str) -> str | None:
    """The text kept for ``site`` in ``table`` of ``path``; None when there is none (no file, no
    table, no row)."""
    if not path.is_file():
        return None
    db = sqlite3.connect(path)
    try:
        if not db.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (table,)).fetchone():
            return None
        row = db.execute(f"SELECT data FROM {_name(table)} WHERE site = ?", (site,)).fetchone()
    finally:
        db.close()
    return row[0] if row else None


def write_blob(path: Path, table: str, site: str, data: str) -> None:
    """Keep ``data`` for ``site`` in ``table`` of ``path`` (file and table made when missing)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path)
    try:
        with db:
            db.execute(f"CREATE TABLE IF NOT EXISTS {_name(table)} (site TEXT PRIMARY KEY, data TEXT)")
            db.execute(f"INSERT OR REPLACE INTO {_name(table)} VALUES (?, ?)", (site, data))
    finally:
        db.close()


def _name(table: str) -> str:
    if not table.isidentifier():
        raise ValueError(f"not a table name: {table!r}")
    return table
