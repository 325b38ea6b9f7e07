"""A site's title decoration, learned from the pages of the site a crawl fetches.

Sites wrap every headline in the same parts: ``Headline | Section | Channel | Site``,
``Headline--Channel``, ``Headline_Section_Site``.  A part of ``<title>`` (or of
``og:title``) that recurs on :data:`MIN_PAGES` distinct pages of one site is not a
headline: headlines are what differs from page to page.  This is the title-side
counterpart of Yan and Wang's (2020) per-site template library (leaves repeating across
a site's pages are noise, §3.1), and it feeds He's (2019) rule: the learned parts are
cut off ``<title>`` before it serves as the reference of the LCS similarity (formula 2),
and they count as the site's names when the title's parts are weighed
(:func:`newscrawl.extract.fields.title.title_headline`).

:class:`SiteDecoration` is plain data (no Scrapy): the crawl keeps one per site in its
state store (``newscrawl.pipelines.templates``), ``scrapy evaluate --per-site`` one per
site of a set.
"""

from __future__ import annotations

import json
from typing import Any

from ..page import Page
from .title import _fold, _title_parts

MIN_PAGES = 3  # distinct pages a title part must be seen on before it counts as decoration
MAX_PARTS = 2_000  # parts kept per site; the rarest (headlines, seen once) go first
MAX_PART_CHARS = 120  # longer parts are headlines, never counted
LEAD_SHARE = 0.5  # share of the site's pages a leading part must be seen on
LEAD = "^"  # marks a title's leading part in the counts

DERIVED_KEY = "title_decoration"  # where a page carries its site's learned decoration


def title_parts(text: str | None) -> set[str]:
    """The folded parts of a title, less ones too long to be decoration; a title of one part
    counts as a whole (a site titling every page with its name).  The first of several parts
    is marked with :data:`LEAD`: a headline's own kicker leads a title ("Topic - Headline"
    on a running story), so a leading part must recur on most of the site's pages."""
    if not text:
        return set()
    parts = [_fold(text[a:b]) for a, b, _ in _title_parts(text)] or [_fold(text)]
    if len(parts) > 1:
        parts[0] = LEAD + parts[0]
    return {p for p in parts if p.strip(LEAD) and len(p) <= MAX_PART_CHARS}


class SiteDecoration:
    """The title parts one site's pages share, counted per distinct page."""

    def __init__(self, counts: dict[str, int] | None = None, pages: int = 0, min_pages: int = MIN_PAGES):
        self.counts: dict[str, int] = dict(counts or {})
        self.pages = pages
        self.min_pages = min_pages
        self.changed = False

    def learn(self, page: Page) -> None:
        """Count ``page``'s ``<title>`` and ``og:title`` parts (each once per page)."""
        parts = title_parts(page.title_tag) | title_parts(page.meta("og:title"))
        if not parts:
            return
        self.pages += 1
        for part in parts:
            self.counts[part] = self.counts.get(part, 0) + 1
        self.changed = True
        if len(self.counts) > MAX_PARTS:
            self._bound()

    def _bound(self) -> None:
        """Drop the rarest parts, oldest first, down to three quarters of the bound."""
        keep = sorted(self.counts.items(), key=lambda item: -item[1])[: MAX_PARTS * 3 // 4]
        kept = {part for part, _ in keep}
        self.counts = {part: count for part, count in self.counts.items() if part in kept}

    def decoration(self) -> set[str]:
        """The folded parts seen on at least ``min_pages`` pages; leading parts also on at least
        :data:`LEAD_SHARE` of them."""
        learned = set()
        for part, count in self.counts.items():
            if count < self.min_pages:
                continue
            if not part.startswith(LEAD):
                learned.add(part)
            elif count >= LEAD_SHARE * self.pages:
                learned.add(part[len(LEAD):])
        return learned

    def apply(self, page: Page) -> set[str]:
        """Give ``page`` its site's decoration for the title rules; returns it."""
        learned = self.decoration()
        if learned:
            page.derived[DERIVED_KEY] = learned
        return learned

    def merge(self, other: SiteDecoration) -> None:
        """Add ``other``'s counts (another worker's pages) to these."""
        for part, count in other.counts.items():
            self.counts[part] = self.counts.get(part, 0) + count
        self.pages += other.pages
        if len(self.counts) > MAX_PARTS:
            self._bound()

    def to_json(self) -> dict[str, Any]:
        return {"pages": self.pages, "counts": self.counts}

    def dumps(self) -> str:
        return json.dumps(self.to_json(), ensure_ascii=False)

    @classmethod
    def loads(cls, raw: str | bytes | None, min_pages: int = MIN_PAGES) -> SiteDecoration:
        """A decoration from :meth:`dumps`; an unreadable one starts empty."""
        try:
            data = json.loads(raw) if raw else {}
            counts = {str(k): int(v) for k, v in dict(data.get("counts", {})).items()}
            return cls(counts, int(data.get("pages", 0)), min_pages)
        except (ValueError, TypeError, AttributeError):
            return cls(min_pages=min_pages)


# --- persistence ------------------------------------------------------------------------------

class DecorationStore:
    """Per-site title decorations in a table of the template library's SQLite file
    (``templates.sqlite3``), so they are kept, printed and reset with it."""

    def __init__(self, path):
        import sqlite3
        from pathlib import Path

        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS title_decoration (site TEXT PRIMARY KEY, data TEXT)")
        self._sites: dict[str, SiteDecoration] = {}

    def site(self, name: str) -> SiteDecoration:
        """The site's decoration, loaded once and then kept in memory."""
        found = self._sites.get(name)
        if found is None:
            row = self._db.execute("SELECT data FROM title_decoration WHERE site = ?", (name,)).fetchone()
            found = self._sites[name] = SiteDecoration.loads(row[0] if row else None)
        return found

    def save(self, name: str) -> None:
        found = self._sites.get(name)
        if found is None or not found.changed:
            return
        self._db.execute("INSERT OR REPLACE INTO title_decoration VALUES (?, ?)", (name, found.dumps()))
        found.changed = False

    def close(self) -> None:
        self._db.close()
