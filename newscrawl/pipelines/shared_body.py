"""A failed extraction is not a duplicate: one body shared by pages with different titles.

When a site's pages defeat extraction the same way (the "body" comes out as the copyright
footer, a cookie notice, a stylesheet), every page of the site gets the same text.  The
content dedup (:mod:`newscrawl.dedup`) would take the second and later ones for copies of
the first and drop them as ``duplicate_content``: distinct articles lost, and the first
one's garbage exported.  A syndicated copy or a mirror repeats its *title* with its body;
pages with different titles sharing one body are a failed extraction.

:class:`SharedBodies` remembers, per site and for this run, each extracted body's
fingerprint (the MinHash of :mod:`newscrawl.dedup` at its :data:`~newscrawl.dedup.SIMILARITY`;
the exact text for bodies too short to fingerprint) with the page's URL and title.
:func:`~.extraction.extract_fields` asks it about every page; when a body was already
extracted from a page with another title, the page is extracted again from its raw bytes,
without the site's template library and with the other body methods
(:data:`RETRY_METHODS`), and the first distinct body is kept
(``newscrawl/extract/shared_body_recovered``).  When every try gives the shared body, the
page is dropped as ``extraction_failed/shared_body`` with a warning naming the page whose
body it repeats; the reason counts toward ``NEWSCRAWL_MAX_ERROR_RATE``.  The page the body
was first extracted from has already gone on: the warning says its text is suspect.

A site's pages go to one extraction worker (:mod:`.pool`), so the check sees all of them.
Memory is bounded: the last :data:`WINDOW` bodies of a site are remembered.
``NEWSCRAWL_SHARED_BODY_CHECK = False`` switches the check off.
"""

from __future__ import annotations

import hashlib
from collections import deque
from dataclasses import dataclass, field

from ..dedup import ContentIndex, fingerprint, to_bytes
from ..extract import dom

RETRY_METHODS = ("cevc", "decay")  # tried after the crawl's own method without the template
WINDOW = 2000  # bodies remembered per site


def _title_key(title: str | None) -> str:
    return dom.normalize_space(title or "").casefold()


@dataclass
class _Site:
    index: ContentIndex = field(default_factory=ContentIndex)
    exact: dict[str, str] = field(default_factory=dict)  # digest of a short body -> key
    titles: dict[str, tuple[str, str]] = field(default_factory=dict)  # key -> (url, title key)
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


class SharedBodies:
    """Per site, the bodies extracted in this run (see the module docstring)."""

    def __init__(self, window: int = WINDOW):
        self.window = window
        self._sites: dict[str, _Site] = {}

    def clash(self, site: str, body: Body, title: str | None) -> str | None:
        """The URL of an earlier page of ``site`` whose body is ``body`` but whose title is not
        ``title``; None when there is none (a new body, or a copy that repeats its title too)."""
        state = self._sites.get(site)
        if state is None or not body.text.strip():
            return None
        if body.minhash is not None:
            key = state.index.match(body.minhash)
        else:
            key = state.exact.get(body.digest)
        if key is None:
            return None
        url, earlier_title = state.titles[key]
        return url if earlier_title != _title_key(title) else None

    def add(self, site: str, url: str, body: Body, title: str | None) -> None:
        """Remember ``body`` as extracted from ``url`` with ``title``."""
        if not body.text.strip():
            return
        state = self._sites.setdefault(site, _Site())
        key = url
        if key in state.titles:
            return
        state.titles[key] = (url, _title_key(title))
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
