"""What ``render = "auto"`` learned about a site: do its pages need a browser?

Counted per site and per kind of page (``article``, ``listing``): pages whose plain fetch gave
the content (``plain``), app shells (``shell``), and rendered shells that then showed content
(``helped``) or did not (``unhelpful``).  The verdict:

- ``render`` — the browser helped on at least :data:`LEARN` pages and as often as plain fetches
  sufficed: pages of that kind are requested through the browser directly;
- ``plain`` — plain fetches suffice (at least :data:`LEARN` of them, under a quarter as many
  shells), or the browser never helped on :data:`LEARN` shells: nothing is rendered;
- ``unknown`` — otherwise: a shell is fetched plain, then rendered.

The counts are halved past :data:`WINDOW` pages, so a site that changes is learned again.
Kept in a table of ``templates.sqlite3`` in the state directory (beside the URL shapes),
saved when the spider closes, shown by ``scrapy templates SITE``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from .site_blobs import read_blob, write_blob

TABLE = "rendering"  # in the state file
KINDS = ("article", "listing")
COUNTS = ("plain", "shell", "helped", "unhelpful")
LEARN = {"article": 3, "listing": 1}  # pages before a verdict (a site has few listing pages)
WINDOW = 200


@dataclass
class SiteRendering:
    counts: dict[str, dict[str, int]] = field(
        default_factory=lambda: {kind: dict.fromkeys(COUNTS, 0) for kind in KINDS})
    changed: bool = False

    def add(self, kind: str, outcome: str) -> None:
        counts = self.counts[kind]
        counts[outcome] += 1
        if counts["plain"] + counts["shell"] > WINDOW:
            for name in COUNTS:
                counts[name] //= 2
        self.changed = True

    def verdict(self, kind: str) -> str:
        c, learn = self.counts[kind], LEARN[kind]
        if c["helped"] >= learn and c["helped"] >= c["plain"]:
            return "render"
        suffices = c["plain"] >= learn and 4 * c["shell"] < c["plain"]
        if suffices or (c["unhelpful"] >= learn and not c["helped"]):
            return "plain"
        return "unknown"

    def dumps(self) -> str:
        return json.dumps(self.counts, sort_keys=True)

    @classmethod
    def loads(cls, data: str | None) -> SiteRendering:
        learned = cls()
        try:
            stored = json.loads(data) if data else {}
        except ValueError:
            stored = {}
        for kind in KINDS:
            for name in COUNTS:
                value = (stored.get(kind) or {}).get(name, 0) if isinstance(stored, dict) else 0
                learned.counts[kind][name] = value if isinstance(value, int) and value >= 0 else 0
        return learned


def load(path: Path, site: str) -> SiteRendering:
    return SiteRendering.loads(read_blob(path, TABLE, site))


def save(path: Path, site: str, learned: SiteRendering) -> None:
    write_blob(path, TABLE, site, learned.dumps())
    learned.changed = False
