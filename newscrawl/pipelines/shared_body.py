"""A failed extraction is not a duplicate: one body shared by pages with different titles.

When a site's pages defeat extraction the same way (the "body" comes out as the copyright
footer, a cookie notice, a stylesheet), every page of the site gets the same text.  The
content dedup (:mod:`newscrawl.dedup`) would take the second and later ones for copies of
the first and drop them as ``duplicate_content``: distinct articles lost, and the first
one's garbage exported.  Much of that shows on the page itself
(:func:`newscrawl.extract.body_check.not_the_article`: boilerplate not about the title);
what does not shows when the body comes again under another title.

:class:`SharedBodies` remembers, per site and for this run, each extracted body's
fingerprint (the MinHash of :mod:`newscrawl.dedup` at its :data:`~newscrawl.dedup.SIMILARITY`;
the exact text for bodies too short to fingerprint) with the page's URL and the titles it
came with, and tells :func:`~.extraction.extract_fields` of a :class:`Clash`: the body
extracted before under other titles.  The body is

- a copy under a new headline (a story republished, a partner's copy) when it is related to one
  of its titles (:func:`~newscrawl.extract.body_check.unrelated`): the content dedup decides
  (``duplicate_content``);
- a failed extraction when it is related to none of them, or came under :data:`MANY_TITLES`
  other titles already: the page is extracted again from its raw bytes, without the site's
  template library and with the other body methods (:data:`RETRY_METHODS`), and the first body
  that passes (and, in place of a shared body, is about the page's title: not another variant of
  a wall's notice) is kept (``newscrawl/extract/shared_body_recovered``); else the page is dropped as
  ``extraction_failed/shared_body`` with a warning naming the page the body was first extracted
  from (whose exported text is suspect too), counted (``newscrawl/extract/shared_body_unrecovered``)
  and toward ``NEWSCRAWL_MAX_ERROR_RATE``.

The drop's detail names the page the body was first extracted from (:func:`clash_detail`,
:func:`first_page`): exported earlier in the run, its text is the shared body too, and the
seen-URL extension takes the export back (:meth:`newscrawl.state.seen_urls.SeenUrls.item_dropped`).

A site's pages go to one extraction worker (:mod:`.pool`), so the check sees all of them.
Memory is bounded: the last :data:`WINDOW` bodies of a site are remembered.
``NEWSCRAWL_SHARED_BODY_CHECK = False`` switches these checks off.
"""

from __future__ import annotations

import hashlib
from collections import deque
from dataclasses import dataclass, field
from typing import NamedTuple

from ..dedup import ContentIndex, fingerprint, to_bytes
from ..extract import dom

RETRY_METHODS = ("cevc", "decay")  # tried after the crawl's own method without the template
WINDOW = 500  # bodies remembered per site (~1 MB of fingerprints)
MANY_TITLES = 2  # other titles of one body from which it is a failed extraction, related or not


def _title_key(title: str | None) -> str:
    return dom.normalize_space(title or "").casefold()


@dataclass
class _Site:
    index: ContentIndex = field(default_factory=ContentIndex)
    exact: dict[str, str] = field(default_factory=dict)  # digest of a short body -> key
    titles: dict[str, tuple[str, set[str]]] = field(default_factory=dict)  # key -> (first url, title keys)
    order: deque = field(default_factory=deque)  # keys, oldest first
    hashes: dict[str, bytes] = field(default_factory=dict)  # key -> stored fingerprint


@dataclass
class Body:
    """One extracted body as the check sees it: its fingerprint (``None``: too short to have one)."""

    text: str
    minhash: object | None
    digest: str

    @classmethod
    def of(cls, text: str) -> Body:
        minhash = fingerprint(text)
        normal = dom.normalize_space(text)
        return cls(text, minhash, hashlib.blake2b(normal.encode("utf-8"), digest_size=16).hexdigest())

    @property
    def stored(self) -> bytes:
        """The fingerprint in the form the crawl process's dedup takes (``b""``: none)."""
        return to_bytes(self.minhash) if self.minhash is not None else b""


class Clash(NamedTuple):
    """A body extracted before from ``url``, under ``count`` other titles (``titles``, normalised)."""

    url: str
    count: int
    titles: frozenset[str]


_DETAIL_START = "the body of "


def clash_detail(clash: Clash) -> str:
    """The detail of a drop for ``clash``: ``the body of URL [and of N other page(s)] with other titles``."""
    others = f" and of {clash.count - 1} other page(s)" if clash.count > 1 else ""
    return f"{_DETAIL_START}{clash.url}{others} with other titles"


def first_page(detail: str) -> str | None:
    """The URL :func:`clash_detail` names in ``detail`` (the page the body was first extracted from)."""
    if not detail.startswith(_DETAIL_START):
        return None
    url = detail[len(_DETAIL_START):].split(" ", 1)[0]
    return url or None


class SharedBodies:
    """Per site, the bodies extracted in this run (see the module docstring)."""

    def __init__(self, window: int = WINDOW):
        self.window = window
        self._sites: dict[str, _Site] = {}

    def _key(self, site: str, body: Body) -> str | None:
        state = self._sites.get(site)
        if state is None or not body.text.strip():
            return None
        return state.index.match(body.minhash) if body.minhash is not None else state.exact.get(body.digest)

    def clash(self, site: str, body: Body, title: str | None) -> Clash | None:
        """The :class:`Clash` when ``body`` was extracted before in ``site`` under other titles,
        none of them ``title``; None when it is new, or repeats its title too (a copy)."""
        key = self._key(site, body)
        if key is None:
            return None
        url, titles = self._sites[site].titles[key]
        return None if _title_key(title) in titles else Clash(url, len(titles), frozenset(titles))

    def add(self, site: str, url: str, body: Body, title: str | None) -> None:
        """Remember ``body`` as extracted from ``url`` with ``title`` (one more title of a body
        already known)."""
        if not body.text.strip():
            return
        known = self._key(site, body)
        if known is not None:
            self._sites[site].titles[known][1].add(_title_key(title))
            return
        state = self._sites.setdefault(site, _Site())
        key = url
        if key in state.titles:
            return
        state.titles[key] = (url, {_title_key(title)})
        state.order.append(key)
        if body.minhash is not None:
            state.index.add(key, body.minhash)
            state.hashes[key] = body.stored
        else:
            state.exact.setdefault(body.digest, key)
        if len(state.order) > self.window:
            self._forget_oldest(state)

    def _forget_oldest(self, state: _Site) -> None:
        """Keep the newest half of the window (the LSH index cannot delete: it is rebuilt)."""
        while len(state.order) > self.window // 2:
            key = state.order.popleft()
            state.titles.pop(key, None)
            state.hashes.pop(key, None)
        state.exact = {d: k for d, k in state.exact.items() if k in state.titles}
        state.index = ContentIndex(list(state.hashes.items()))


def shared_bodies(settings) -> SharedBodies | None:
    """The run's check, or None with ``NEWSCRAWL_SHARED_BODY_CHECK = False``."""
    return SharedBodies() if settings.getbool("NEWSCRAWL_SHARED_BODY_CHECK", True) else None
