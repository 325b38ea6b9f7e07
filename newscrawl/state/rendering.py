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
Kept in a table of ``templates.sqlite3`` in the state directory (beside the URL shapes), or in a
distributed crawl in the Redis hash ``<prefix>:rendering:<site>`` (``kind:outcome`` -> count),
to which each worker adds what its run counted (:func:`add_redis`, one Lua script, halving
included); saved when the spider closes, shown by ``scrapy templates SITE``.
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


def redis_key(prefix: str, site: str) -> str:
    return f"{prefix}:rendering:{site}"


def load_redis(client, prefix: str, site: str) -> SiteRendering:
    """What every worker of earlier runs (and of this one, saved since) learned about ``site``."""
    learned = SiteRendering()
    for name, value in client.hgetall(redis_key(prefix, site)).items():
        kind, _, outcome = (name.decode() if isinstance(name, bytes) else name).partition(":")
        if kind in learned.counts and outcome in COUNTS:
            learned.counts[kind][outcome] = max(0, int(value))
    return learned


_ADD = """
-- KEYS[1]: the site's hash.  ARGV: the window, then kind, outcome, count triples.  A kind whose
-- plain + shell pages pass the window has all its counts halved (as SiteRendering.add).
local touched = {}
for i = 2, #ARGV, 3 do
  redis.call('HINCRBY', KEYS[1], ARGV[i] .. ':' .. ARGV[i + 1], ARGV[i + 2])
  touched[ARGV[i]] = true
end
for kind in pairs(touched) do
  local seen = tonumber(redis.call('HGET', KEYS[1], kind .. ':plain') or '0')
             + tonumber(redis.call('HGET', KEYS[1], kind .. ':shell') or '0')
  if seen > tonumber(ARGV[1]) then
    local all = redis.call('HGETALL', KEYS[1])
    for j = 1, #all, 2 do
      if string.sub(all[j], 1, #kind + 1) == kind .. ':' then
        redis.call('HSET', KEYS[1], all[j], math.floor(tonumber(all[j + 1]) / 2))
      end
    end
  end
end
return 1
"""


def add_redis(client, prefix: str, site: str, added: dict[str, dict[str, int]]) -> None:
    """Add one run's counts (``{kind: {outcome: n}}``) to the site's shared counts, halving them
    past :data:`WINDOW` as :meth:`SiteRendering.add` does."""
    triples = [str(x) for kind, counts in added.items() for outcome, n in counts.items() if n
               for x in (kind, outcome, n)]
    if triples:
        client.register_script(_ADD)(keys=[redis_key(prefix, site)], args=[WINDOW, *triples])


def load(path: Path, site: str) -> SiteRendering:
    return SiteRendering.loads(read_blob(path, TABLE, site))


def save(path: Path, site: str, learned: SiteRendering) -> None:
    write_blob(path, TABLE, site, learned.dumps())
    learned.changed = False
