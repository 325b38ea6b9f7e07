"""Site configuration: which sites newscrawl crawls, read from one TOML file.

A site is a table under ``[sites.<name>]``; the name becomes the spider name::

    [sites.bbc]
    language = "en"
    domains = ["bbc.co.uk", "bbc.com"]
    catalogues = ["https://www.bbc.com/news"]
    feeds = ["https://feeds.bbci.co.uk/news/rss.xml"]
    article_pattern = '/news/(articles/[a-z0-9]+|[a-z_-]+-\\d{6,})$'
    politeness = { download_delay = 2.0 }

Keys (only ``domains`` and one of ``catalogues``/``feeds``/``list_apis`` are required):

- ``domains``: allowed domains (subdomains included), as Scrapy's ``allowed_domains``;
- ``catalogues``: listing pages whose article links the spider finds by itself;
- ``feeds``: RSS/Atom feed URLs;
- ``list_apis``: JSON endpoints a JavaScript-rendered list is built from;
- ``article_pattern``: a regular expression (``re.search``) an article URL matches;
  when present it decides which links are articles;
- ``language``: ISO 639-1 code of the site's main language;
- ``kind``: free label such as ``news`` or ``blog``;
- ``max_pages``: catalogue pages followed per start page (default 1 + pagination limit);
- ``politeness``: per-site overrides, keys in :data:`POLITENESS_SETTINGS`;
- ``serve``/``headers``: serve this directory (relative to the TOML file) on a local
  port and rewrite the placeholder host :data:`PLACEHOLDER_HOST` to it (the demo).

:func:`load_sites` validates everything at start and raises :class:`SiteConfigError`
naming the file, the site and the bad key.  No Scrapy imports here.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

DEFAULT_SITES_FILE = Path(__file__).resolve().parent.parent / "data" / "sites.toml"
PLACEHOLDER_HOST = "demo.invalid"

# politeness key -> (Scrapy setting, expected type)
POLITENESS_SETTINGS: dict[str, tuple[str, type | tuple[type, ...]]] = {
    "download_delay": ("DOWNLOAD_DELAY", (int, float)),
    "autothrottle": ("AUTOTHROTTLE_ENABLED", bool),
    "concurrency": ("CONCURRENT_REQUESTS_PER_DOMAIN", int),
    "delay_jitter": ("DOWNLOAD_DELAY_JITTER", (int, float)),
    "download_timeout": ("DOWNLOAD_TIMEOUT", (int, float)),
}
_NAME_RE = re.compile(r"^[a-z][a-z0-9_]*$")


class SiteConfigError(ValueError):
    """The sites file is invalid; the message names the file, site and key."""


@dataclass(frozen=True)
class SiteConfig:
    """One configured site (see the module docstring for the keys)."""

    name: str
    domains: tuple[str, ...]
    catalogues: tuple[str, ...] = ()
    feeds: tuple[str, ...] = ()
    list_apis: tuple[str, ...] = ()
    article_pattern: str | None = None
    language: str | None = None
    kind: str = "news"
    max_pages: int = 3
    politeness: dict[str, Any] = field(default_factory=dict)
    serve: Path | None = None
    headers: Path | None = None

    @property
    def scrapy_settings(self) -> dict[str, Any]:
        """The politeness overrides as Scrapy settings (spider priority)."""
        return {POLITENESS_SETTINGS[key][0]: value for key, value in self.politeness.items()}

    def with_host(self, netloc: str) -> SiteConfig:
        """This site with :data:`PLACEHOLDER_HOST` replaced by ``netloc`` (e.g. ``127.0.0.1:8123``)."""

        def swap(url: str) -> str:
            parts = urlsplit(url)
            if parts.hostname != PLACEHOLDER_HOST:
                return url
            return urlunsplit(parts._replace(netloc=netloc))

        host = netloc.split(":")[0]
        return replace(
            self,
            domains=tuple(host if d == PLACEHOLDER_HOST else d for d in self.domains),
            catalogues=tuple(map(swap, self.catalogues)),
            feeds=tuple(map(swap, self.feeds)),
            list_apis=tuple(map(swap, self.list_apis)),
        )


_KEYS: dict[str, type | tuple[type, ...]] = {
    "domains": list,
    "catalogues": list,
    "feeds": list,
    "list_apis": list,
    "article_pattern": str,
    "language": str,
    "kind": str,
    "max_pages": int,
    "politeness": dict,
    "serve": str,
    "headers": str,
}


def load_sites(path: str | Path | None = None) -> dict[str, SiteConfig]:
    """Read and validate the sites file (default ``data/sites.toml``); name → config, in file order."""
    path = Path(path) if path else DEFAULT_SITES_FILE
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise SiteConfigError(f"{path}: sites file not found") from exc
    except tomllib.TOMLDecodeError as exc:
        raise SiteConfigError(f"{path}: not valid TOML: {exc}") from exc
    return parse_sites(data, source=str(path), base_dir=path.parent)


def parse_sites(data: dict[str, Any], *, source: str = "<sites>", base_dir: Path | None = None) -> dict:
    """Validate an already parsed sites document (``{"sites": {name: table}}``)."""
    extra = set(data) - {"sites"}
    if extra:
        key = sorted(extra)[0]
        raise SiteConfigError(f"{source}: unknown top-level key {key!r} (expected [sites.<name>])")
    tables = data.get("sites")
    if not isinstance(tables, dict) or not tables:
        raise SiteConfigError(f"{source}: no [sites.<name>] tables")
    return {name: _parse_site(name, table, source, base_dir) for name, table in tables.items()}


def _parse_site(name: str, table: Any, source: str, base_dir: Path | None) -> SiteConfig:
    where = f"{source}: sites.{name}"
    if not _NAME_RE.match(name):
        raise SiteConfigError(f"{where}: site name must be lower-case letters, digits and '_'")
    if not isinstance(table, dict):
        raise SiteConfigError(f"{where}: must be a table")
    for key, value in table.items():
        if key not in _KEYS:
            raise SiteConfigError(f"{where}: unknown key {key!r} (allowed: {', '.join(sorted(_KEYS))})")
        if not isinstance(value, _KEYS[key]) or (isinstance(value, bool) and _KEYS[key] is int):
            raise SiteConfigError(f"{where}.{key}: expected {_type_name(_KEYS[key])}, got {value!r}")
    if "domains" not in table:
        raise SiteConfigError(f"{where}: missing required key 'domains'")
    domains = tuple(_strings(table["domains"], f"{where}.domains"))
    if not domains:
        raise SiteConfigError(f"{where}.domains: must list at least one domain")
    for domain in domains:
        if "/" in domain or ":" in domain or not domain.strip(".") or " " in domain:
            raise SiteConfigError(f"{where}.domains: {domain!r} is not a bare domain name")
    urls = {}
    for key in ("catalogues", "feeds", "list_apis"):
        urls[key] = tuple(_strings(table.get(key, []), f"{where}.{key}"))
        for url in urls[key]:
            _check_url(url, domains, f"{where}.{key}")
    if not any(urls.values()) and "serve" not in table:
        raise SiteConfigError(f"{where}: needs at least one of 'catalogues', 'feeds' or 'list_apis'")
    pattern = table.get("article_pattern")
    if pattern is not None:
        try:
            re.compile(pattern)
        except re.error as exc:
            raise SiteConfigError(f"{where}.article_pattern: invalid regular expression: {exc}") from exc
    max_pages = table.get("max_pages", 3)
    if max_pages < 1:
        raise SiteConfigError(f"{where}.max_pages: must be at least 1")
    politeness = dict(table.get("politeness", {}))
    for key, value in politeness.items():
        if key not in POLITENESS_SETTINGS:
            raise SiteConfigError(
                f"{where}.politeness: unknown key {key!r} (allowed: {', '.join(sorted(POLITENESS_SETTINGS))})"
            )
        expected = POLITENESS_SETTINGS[key][1]
        if not isinstance(value, expected) or (isinstance(value, bool) and expected is not bool):
            raise SiteConfigError(f"{where}.politeness.{key}: expected {_type_name(expected)}, got {value!r}")
        if not isinstance(value, bool) and value < 0:
            raise SiteConfigError(f"{where}.politeness.{key}: must not be negative")
    base = base_dir or Path.cwd()
    serve = _inside(base, table["serve"], f"{where}.serve") if "serve" in table else None
    headers = _inside(base, table["headers"], f"{where}.headers") if "headers" in table else None
    return SiteConfig(
        name=name,
        domains=domains,
        catalogues=urls["catalogues"],
        feeds=urls["feeds"],
        list_apis=urls["list_apis"],
        article_pattern=pattern,
        language=table.get("language"),
        kind=table.get("kind", "news"),
        max_pages=max_pages,
        politeness=politeness,
        serve=serve,
        headers=headers,
    )


def _inside(base: Path, relative: str, where: str) -> Path:
    """``relative`` under ``base`` (the sites file's directory); no absolute path, no escape via ``..``
    or a symbolic link, so a sites file can only point at files beside it."""
    if not relative.strip() or Path(relative).is_absolute():
        raise SiteConfigError(f"{where}: {relative!r} must be a path relative to the sites file")
    path = base / relative
    if not path.resolve().is_relative_to(base.resolve()):
        raise SiteConfigError(f"{where}: {relative!r} leaves the sites file's directory {base}")
    return path


def _strings(values: list, where: str) -> list[str]:
    for value in values:
        if not isinstance(value, str) or not value.strip():
            raise SiteConfigError(f"{where}: expected non-empty strings, got {value!r}")
    return [v.strip() for v in values]


def _check_url(url: str, domains: tuple[str, ...], where: str) -> None:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise SiteConfigError(f"{where}: {url!r} is not an http(s) URL")
    if not host_allowed(parts.hostname, domains):
        raise SiteConfigError(f"{where}: {url!r} is not on the site's domains {list(domains)}")


def host_allowed(host: str | None, domains: tuple[str, ...] | list[str]) -> bool:
    """True when ``host`` is one of ``domains`` or a subdomain of one (as Scrapy's offsite rule)."""
    if not host:
        return False
    host = host.lower().rstrip(".")
    return any(host == d or host.endswith("." + d) for d in (d.lower().lstrip(".") for d in domains))


def _type_name(expected: type | tuple[type, ...]) -> str:
    if isinstance(expected, tuple):
        return " or ".join(t.__name__ for t in expected)
    return {list: "array", dict: "table", str: "string", int: "integer", bool: "boolean"}.get(
        expected, expected.__name__
    )
