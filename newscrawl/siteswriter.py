"""Writing the sites file (``scrapy addsite --write``): a new ``[sites.<name>]`` table added with a
TOML writer (tomlkit, which keeps the user's comments and layout), the result validated by
loading it as every crawl does (:func:`newscrawl.sites.load_sites`) before it replaces the
file atomically (a temporary file beside it, then ``os.replace``), the previous file kept as
``<file>.bak``.  Whatever the discovered values hold (control characters, quotes, newlines),
the file left behind is one that loads.  No Scrapy imports.
"""

from __future__ import annotations

import os
import shutil
import tomllib
from pathlib import Path

import tomlkit

from .sites import SiteConfigError, load_sites, parse_sites

BACKUP_SUFFIX = ".bak"


def entry_text(name: str, table: dict) -> str:
    """``table`` as a TOML ``[sites.<name>]`` entry, checked to read back as the same table and
    validated as :func:`newscrawl.sites.load_sites` would (raises :class:`SiteConfigError`)."""
    document = tomlkit.document()
    document["sites"] = _sites_table({name: table})
    text = tomlkit.dumps(document)
    _check(text, name, table, "the discovered entry")
    return text


def add_site(path: Path, name: str, table: dict) -> Path | None:
    """Add ``[sites.<name>]`` to the sites file at ``path`` (created when missing); returns the
    backup of the previous file, if there was one.  Raises :class:`SiteConfigError` (the file
    left as it was) when the file already has ``name`` or the result would not load."""
    path = Path(path).resolve()  # a symbolic link: write the file it names
    old = path.read_text(encoding="utf-8") if path.exists() else ""
    try:
        document = tomlkit.parse(old)
    except tomlkit.exceptions.TOMLKitError as exc:
        raise SiteConfigError(f"{path}: not valid TOML: {exc}") from None
    sites = document.get("sites")
    if sites is None:
        sites = _sites_table({})
        document["sites"] = sites
    if name in sites:
        raise SiteConfigError(f"{path} already has a site {name!r}")
    sites[name] = _site_table(table)
    text = tomlkit.dumps(document)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with temporary.open("w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        loaded = load_sites(temporary)  # the file every later crawl will read, beside the original
        if name not in loaded:
            raise SiteConfigError(f"{path}: the new site {name!r} did not read back")
        backup = None
        if path.exists():
            backup = path.with_name(path.name + BACKUP_SUFFIX)
            shutil.copy2(path, backup)
            shutil.copymode(path, temporary)
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)
    return backup


def _check(text: str, name: str, table: dict, source: str) -> None:
    try:
        read = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SiteConfigError(f"{source}: would not be valid TOML: {exc}") from None
    if read.get("sites", {}).get(name) != table:
        raise SiteConfigError(f"{source}: does not read back as written")
    parse_sites(read, source=source)


def _sites_table(tables: dict) -> tomlkit.items.Table:
    sites = tomlkit.table(is_super_table=True)
    for name, table in tables.items():
        sites[name] = _site_table(table)
    return sites


def _site_table(table: dict) -> tomlkit.items.Table:
    out = tomlkit.table()
    for key, value in table.items():
        if isinstance(value, list) and len(value) > 1:
            array = tomlkit.array()
            array.extend(value)
            array.multiline(True)
            value = array
        elif key == "article_pattern" and _literal_ok(value):
            value = tomlkit.string(value, literal=True)  # the regex as written, no doubled backslashes
        out[key] = value
    return out


def _literal_ok(value: str) -> bool:
    """Can ``value`` be a TOML literal string (no ``'``, no control character but tab)?"""
    return "'" not in value and not any((ord(c) < 32 and c != "\t") or ord(c) == 127 for c in value)
