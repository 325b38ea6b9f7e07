"""``template`` — Yan & Wang (2020), *A web page cleaning method based on template and
SVM* (Yan and Wang 2020).

**Template library (§4).**  Per site, the leaf tags of each page are counted in a
cache: a leaf joins an entry with the same tag name and near-identical text (edit
distance ≤ min(len)/8; texts of length ≤ 8 must be equal), else starts one.  After
``n1`` pages (N1 = 10) the entries seen at least ``n2`` times (N2 = 3) become
template entries — the site's common noise (navigation, copyright, bylines of the
layout) — and the cache is emptied for the next batch.  A leaf counts once per page
(a "Share" link repeated on one page is not three pages' evidence).  Matching never
compares all pairs: entries are bucketed by tag and text length (only lengths within
±1/8 can match) and each bucket is searched with ``rapidfuzz.process``.  Each site's
template is bounded (:data:`MAX_ENTRIES`, least recently matched dropped first), and
so is the cache (one batch of pages).  :class:`SiteTemplates` is the in-memory part;
:class:`TemplateStore` persists it in SQLite beside the seen-URL store.

**Block SVM (§5–§7).**  Blocks are ``body``, ``section`` and ``div`` elements; a
block's own content excludes nested blocks.  Features with add-one smoothing:
R1 = innerLen/(outerLen+1), R2 = innerLinkLen/(outerLinkLen+1),
R3 = innerLinkNum/(outerLinkNum+1), R4 = innerPicNum/(outerPicNum+1),
R5 = innerLinkLen/(innerLen+1).  An RBF-kernel SVM (scikit-learn) trained on balanced
classes with C and γ chosen by 10-fold cross-validation (:mod:`.training`) keeps the
blocks classified main text.  Extraction: remove template leaves, then keep the own
content of the blocks the SVM accepts.
"""

from __future__ import annotations

import json
from bisect import bisect_left, bisect_right, insort
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from lxml import etree, html
from rapidfuzz import process
from rapidfuzz.distance import Levenshtein

from .. import dom
from ..body import Body
from ..page import BODY_CLASSES, MAIN_H1, TEXT_LENGTHS, Page

N1 = 10
N2 = 3
MAX_ENTRIES = 2000
MAX_LEAF_CHARS = 2000  # longer leaves are article paragraphs, never layout
BLOCK_TAGS = frozenset({"body", "section", "div"})
LABEL_MAX_TOKENS = 4  # "Tags:", "Share this:", "标签：" left behind by template removal


def _max_distance(a: int, b: int) -> int:
    """Largest edit distance at which texts of lengths ``a`` and ``b`` still match."""
    shorter = min(a, b)
    return 0 if shorter <= 8 else shorter // 8


def iter_leaves(root: html.HtmlElement) -> Iterator[tuple[html.HtmlElement, str]]:
    """``(element, text)`` for leaf elements (no element children) with visible text, in
    document order (``root`` included).

    Template removal takes out *blocks* of common noise, never words from a sentence: an
    inline leaf (a link, ``<strong>``, ``<span>``) inside running text is part of that text,
    not a leaf of the layout (:func:`in_running_text`), and nothing inside ``<pre>`` is."""
    running: dict[html.HtmlElement, bool] = {}  # nearest block -> holds running text
    for el in _LEAVES(root):
        if el.tag in _NOT_LEAVES:
            continue
        # A leaf's text is its own, unless comments inside it split it (then their tails count too).
        text = dom.normalize_space(el.text_content() if len(el) else el.text or "")
        if text and len(text) <= MAX_LEAF_CHARS and not in_running_text(el, running):
            yield el, text


_LEAVES = etree.XPath("descendant-or-self::*[not(*)]")  # one C-level pass instead of a child scan per element
_NOT_LEAVES = frozenset({"html", "head", "title", "meta", "link"})
# Phrasing elements: they sit inside a line of text rather than make a block of their own.
INLINE_TAGS = frozenset(
    "a abbr b bdi bdo big cite code data del dfn em font i ins kbd label mark q s samp small span "
    "strike strong sub sup time tt u var".split()
)
PRE_TAGS = frozenset({"pre", "code", "samp", "kbd"})
RUNNING_TEXT_READ = 200  # characters of a block's bare text read at most: far more than any label


def in_running_text(leaf: html.HtmlElement, cache: dict[html.HtmlElement, bool] | None = None) -> bool:
    """Is ``leaf`` an inline part of running text, so not a template leaf?

    True inside ``<pre>``/``<code>`` (a ``|`` of a code sample), and for an inline leaf whose
    nearest block ancestor holds more than :data:`LABEL_MAX_TOKENS` word tokens of its own
    text outside links and leaves (``a divided <a>US</a> Supreme Court``, ``<strong>摘要：</strong>``
    before the lead).  A menu item (``<li><a>Home</a></li>``), a row of links and a label with
    its links (``Tags: <a>..</a>, <a>..</a>``) stay leaves.  ``cache`` keeps the answer per block."""
    if leaf.tag not in INLINE_TAGS:
        return False
    block = leaf.getparent()
    while block is not None and block.tag in INLINE_TAGS:
        if block.tag in PRE_TAGS:
            return True
        block = block.getparent()
    if block is None:
        return False
    if block.tag == "pre":
        return True
    found = cache.get(block) if cache is not None else None
    if found is None:
        found = _has_running_text(block)
        if cache is not None:
            cache[block] = found
    return found


def _has_running_text(block: html.HtmlElement) -> bool:
    """Does ``block`` hold more than :data:`LABEL_MAX_TOKENS` tokens of bare text: its own text and
    tails, and those of its inline descendants that are neither links nor leaves (nested blocks are
    blocks of their own)?"""
    from ..tokens import tokenize

    chunks = [block.text or ""]
    solid = dom.non_space_len(chunks[0])
    stack = list(block)
    while stack and solid <= RUNNING_TEXT_READ:
        el = stack.pop()
        chunks.append(el.tail or "")
        solid += dom.non_space_len(el.tail)
        if isinstance(el.tag, str) and el.tag in INLINE_TAGS and el.tag != "a" and len(el):
            chunks.append(el.text or "")
            solid += dom.non_space_len(el.text)
            stack.extend(el)
    return len(tokenize(" ".join(chunks))) > LABEL_MAX_TOKENS


class LeafIndex:
    """Leaf entries ``(tag, text) → count``, searchable by near-identical text."""

    def __init__(self):
        self.counts: dict[tuple[str, str], int] = {}
        self._by_len: dict[tuple[str, int], list[str]] = {}
        self._lengths: dict[str, list[int]] = {}  # per tag, the text lengths held, sorted

    def __len__(self) -> int:
        return len(self.counts)

    def add_entry(self, tag: str, text: str, count: int = 1) -> None:
        key = (tag, text)
        if key not in self.counts:
            same_length = self._by_len.setdefault((tag, len(text)), [])
            if not same_length:
                insort(self._lengths.setdefault(tag, []), len(text))
            same_length.append(text)
            self.counts[key] = 0
        self.counts[key] += count

    def remove(self, tag: str, text: str) -> None:
        if self.counts.pop((tag, text), None) is not None:
            same_length = self._by_len[(tag, len(text))]
            same_length.remove(text)
            if not same_length:
                self._lengths[tag].remove(len(text))

    def find(self, tag: str, text: str) -> str | None:
        """The stored text of ``tag`` matching ``text`` (exact first, then near-identical)."""
        if (tag, text) in self.counts:
            return text
        n = len(text)
        if n <= 8:
            return None
        lo, hi = -(-8 * n // 9), 9 * n // 8
        lengths = self._lengths.get(tag, [])
        held = lengths[bisect_left(lengths, lo):bisect_right(lengths, hi)]
        choices = [t for length in held for t in self._by_len[(tag, length)]]
        if not choices:
            return None
        for match, distance, _ in process.extract(
            text, choices, scorer=Levenshtein.distance, score_cutoff=n // 8, limit=5
        ):
            if distance <= _max_distance(n, len(match)):
                return match
        return None


def drop_orphaned_labels(removed_chars: dict[html.HtmlElement, int]) -> int:
    """Drop the elements that template removal left holding only a label.

    ``<div>Tags: <a>Hardware</a>, <a>Open source</a></div>`` loses its two template
    links and would still say "Tags: ,".  An element (never ``body``/``html``) whose
    remaining text has at most :data:`LABEL_MAX_TOKENS` word tokens (one per Han
    character) and is shorter than the template text just removed from it was a label
    for that text and goes too; the check climbs to the parent of a dropped element.
    ``removed_chars`` maps each parent of a removed leaf to the characters removed.
    Returns the number of elements dropped."""
    from ..tokens import tokenize

    dropped = 0
    pending = dict(removed_chars)
    while pending:
        el, removed = pending.popitem()
        parent = el.getparent()
        if parent is None or el.tag in ("body", "html"):
            continue
        left = _text_shorter_than(el, removed)
        if left is None or len(tokenize(left)) > LABEL_MAX_TOKENS:
            continue
        el.drop_tree()
        dropped += 1
        pending[parent] = pending.get(parent, 0) + removed + len(left)
    return dropped


def _text_shorter_than(el: html.HtmlElement, limit: int) -> str | None:
    """``el``'s text, white space collapsed, when it is shorter than ``limit``; else None,
    reading no further than needed (the parent of a removed leaf can hold a whole page)."""
    chunks: list[str] = []
    solid = 0
    for chunk in el.itertext():
        solid += dom.non_space_len(chunk)
        if solid >= limit:
            return None
        chunks.append(chunk)
    text = dom.normalize_space("".join(chunks))
    return text if len(text) < limit else None


@dataclass
class SiteTemplates:
    """One site's template library and the batch being counted (§4 steps 1–4)."""

    n1: int = N1
    n2: int = N2
    max_entries: int = MAX_ENTRIES
    template: LeafIndex = field(default_factory=LeafIndex)
    cache: LeafIndex = field(default_factory=LeafIndex)
    pages_in_batch: int = 0
    last_hit: dict[tuple[str, str], int] = field(default_factory=dict)
    clock: int = 0

    def learn(self, page_root: html.HtmlElement, leaves: list | None = None) -> int:
        """Count one page's leaves (``leaves``: :func:`iter_leaves` of its body, when the caller
        has them); at the end of a batch promote frequent ones.  Returns how many entries this
        call added to the template."""
        seen: set[tuple[str, str]] = set()
        for el, text in leaves if leaves is not None else iter_leaves(dom.body_of(page_root)):
            match = self.cache.find(el.tag, text)
            key = (el.tag, match if match is not None else text)
            if key in seen:
                continue
            seen.add(key)
            self.cache.add_entry(*key)
        self.pages_in_batch += 1
        if self.pages_in_batch < self.n1:
            return 0
        added = 0
        for (tag, text), count in self.cache.counts.items():
            if count >= self.n2 and self.template.find(tag, text) is None:
                self.template.add_entry(tag, text, count)
                self.last_hit[(tag, text)] = self.clock
                added += 1
        self.cache = LeafIndex()
        self.pages_in_batch = 0
        self._bound()
        return added

    def _bound(self) -> None:
        excess = len(self.template) - self.max_entries
        if excess > 0:
            oldest = sorted(self.template.counts, key=lambda k: self.last_hit.get(k, 0))[:excess]
            for key in oldest:
                self.template.remove(*key)
                self.last_hit.pop(key, None)

    def noise_leaves(self, page_root: html.HtmlElement, leaves: list | None = None) -> list[html.HtmlElement]:
        """The page's leaves that match the template (§7 step 2)."""
        found = []
        self.clock += 1
        for el, text in leaves if leaves is not None else iter_leaves(dom.body_of(page_root)):
            match = self.template.find(el.tag, text)
            if match is not None:
                found.append(el)
                self.last_hit[(el.tag, match)] = self.clock
        return found

    def clean(self, page: Page, leaves: list[html.HtmlElement] | None = None) -> int:
        """Remove template leaves (``leaves``: found by :meth:`noise_leaves` beforehand) from
        ``page``'s tree in place (before any method runs).  Returns the number removed."""
        doomed = self.noise_leaves(page.root) if leaves is None else leaves
        removed_chars: dict[html.HtmlElement, int] = {}
        for el in doomed:
            parent = el.getparent()
            if parent is not None:
                chars = len(dom.normalize_space(el.text_content()))
                removed_chars[parent] = removed_chars.get(parent, 0) + chars
                el.drop_tree()  # keeps the tail text
        drop_orphaned_labels(removed_chars)
        for name in ("body", "lengths"):  # cached views of the tree are stale now
            page.__dict__.pop(name, None)
        for key in (TEXT_LENGTHS, BODY_CLASSES, MAIN_H1):  # and what a body method or the title read of it
            page.derived.pop(key, None)
        return len(doomed)

    def to_json(self) -> dict[str, Any]:
        return {
            "n1": self.n1,
            "n2": self.n2,
            "pages_in_batch": self.pages_in_batch,
            "cache": [[t, x, c] for (t, x), c in self.cache.counts.items()],
        }

    def entries(self) -> list[tuple[str, str, int]]:
        return sorted(((t, x, c) for (t, x), c in self.template.counts.items()), key=lambda e: (-e[2], e))


# --- block features and SVM -------------------------------------------------------------------


@dataclass
class Block:
    element: html.HtmlElement
    text: int = 0
    link_text: int = 0
    links: int = 0
    images: int = 0


def blocks_of(page: Page) -> list[Block]:
    """Every body/section/div block with its own (nested blocks excluded) counts."""
    body = page.body
    owner_block: dict[html.HtmlElement, Block] = {}
    blocks: list[Block] = []
    in_anchor = dom.anchor_flags(body)
    for el in in_anchor:  # pre-order: a parent's block is known before its children
        if el is body or (isinstance(el.tag, str) and el.tag in BLOCK_TAGS):
            block = Block(el)
            blocks.append(block)
            owner_block[el] = block
        else:
            parent = el.getparent()
            owner_block[el] = owner_block.get(parent, blocks[0] if blocks else Block(body))
        tag = el.tag if isinstance(el.tag, str) else ""
        if tag == "a":
            owner_block[el].links += 1
        elif tag == "img":
            owner_block[el].images += 1
    for owner, text in dom.iter_text_nodes(body):
        n = dom.non_space_len(text)
        if n:
            block = owner_block[owner]
            block.text += n
            if in_anchor[owner]:
                block.link_text += n
    return blocks


def block_features(blocks: list[Block]) -> np.ndarray:
    """R1–R5 of §5.2 (add-one smoothing) for each block."""
    outer_len = sum(b.text for b in blocks)
    outer_link_len = sum(b.link_text for b in blocks)
    outer_links = sum(b.links for b in blocks)
    outer_pics = sum(b.images for b in blocks)
    return np.array(
        [
            [
                b.text / (outer_len + 1),
                b.link_text / (outer_link_len + 1),
                b.links / (outer_links + 1),
                b.images / (outer_pics + 1),
                b.link_text / (b.text + 1),
            ]
            for b in blocks
        ],
        dtype=float,
    ).reshape(-1, 5)


def block_body(page: Page, blocks: list[Block], keep: np.ndarray, method: str = "template") -> Body:
    """The own content of the kept blocks, in document order."""
    nested = {b.element for b in blocks}
    paragraphs: list[str] = []
    kept = {b.element for b, k in zip(blocks, keep, strict=False) if k}
    for block in blocks:
        if block.element in kept and block.text:
            skip = {el for el in block.element.iterdescendants() if el in nested}
            paragraphs.extend(dom.render_paragraphs(block.element, skip))
    # Links: leave out the outermost rejected blocks that hold no kept block.
    skip = set()
    for b in blocks:
        el = b.element
        if el in kept or el is page.body or any(anc in skip for anc in el.iterancestors()):
            continue
        if not any(d in kept for d in el.iterdescendants()):
            skip.add(el)
    return Body(method=method, root=page.body, skip=skip, paragraphs=paragraphs)


def extract_body(
    page: Page,
    model: Any = None,
    templates: SiteTemplates | None = None,
    **_ignored,
) -> Body:
    """Yan and Wang (2020) §7: template leaves out (when the site has a library), then the block SVM."""
    from ..models import load_block_svm

    if templates is not None:
        templates.clean(page)
    model = model or load_block_svm()
    blocks = [b for b in blocks_of(page)]
    if not blocks:
        return Body(method="template", root=page.body)
    keep = model.predict(block_features(blocks)) == 1
    keep &= np.array([b.text > 0 for b in blocks])
    return block_body(page, blocks, keep)


def leaf_prf(
    page: Page, blocks: list[Block], keep: np.ndarray, is_gold_leaf: Iterable[bool], leaves: list
) -> tuple[int, int, int]:
    """§8.1: each leaf tag takes its block's class; returns (TP, FP, FN) over leaves."""
    owner: dict[html.HtmlElement, bool] = {}
    kept = {b.element: bool(k) for b, k in zip(blocks, keep, strict=False)}
    for el in page.body.iter():
        owner[el] = kept[el] if el in kept else owner.get(el.getparent(), False)
    tp = fp = fn = 0
    for el, gold in zip(leaves, is_gold_leaf, strict=False):
        predicted = owner.get(el, False)
        tp += predicted and gold
        fp += predicted and not gold
        fn += gold and not predicted
    return tp, fp, fn


def templates_from_json(data: dict[str, Any], entries: Iterable[tuple[str, str, int, int]]) -> SiteTemplates:
    site = SiteTemplates(n1=int(data.get("n1", N1)), n2=int(data.get("n2", N2)))
    site.pages_in_batch = int(data.get("pages_in_batch", 0))
    for tag, text, count in data.get("cache", []):
        site.cache.add_entry(tag, text, int(count))
    for tag, text, count, last_hit in entries:
        site.template.add_entry(tag, text, count)
        site.last_hit[(tag, text)] = last_hit
    return site


def dumps_state(site: SiteTemplates) -> str:
    return json.dumps(site.to_json(), ensure_ascii=False)


# --- persistence ------------------------------------------------------------------------------

TEMPLATE_DB = "templates.sqlite3"


class TemplateStore:
    """Per-site template libraries in one SQLite file (by default beside the seen-URL store).

    ``entries`` holds the learned template (tag, text, count, last hit); ``state``
    the batch being counted, so a restart neither loses the library nor the pages
    counted since the last batch ended.  :meth:`save` commits one site at a time.
    """

    def __init__(self, path, n1: int = N1, n2: int = N2, max_entries: int = MAX_ENTRIES):
        import sqlite3
        from pathlib import Path

        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.n1, self.n2, self.max_entries = n1, n2, max_entries
        self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS entries (site TEXT, tag TEXT, text TEXT, count INTEGER, "
            "last_hit INTEGER, PRIMARY KEY (site, tag, text))"
        )
        self._db.execute("CREATE TABLE IF NOT EXISTS state (site TEXT PRIMARY KEY, data TEXT)")
        self._sites: dict[str, SiteTemplates] = {}

    @classmethod
    def in_dir(cls, directory=None, **params) -> TemplateStore:
        from newscrawl.state.seen_store import state_dir

        return cls(state_dir(directory) / TEMPLATE_DB, **params)

    def site(self, name: str) -> SiteTemplates:
        """The site's library, loaded once and then kept in memory."""
        found = self._sites.get(name)
        if found is None:
            row = self._db.execute("SELECT data FROM state WHERE site = ?", (name,)).fetchone()
            rows = self._db.execute(
                "SELECT tag, text, count, last_hit FROM entries WHERE site = ?", (name,)
            ).fetchall()
            found = templates_from_json(json.loads(row[0]) if row else {}, rows)
            found.n1, found.n2, found.max_entries = self.n1, self.n2, self.max_entries
            found.clock = max((r[3] for r in rows), default=0)
            self._sites[name] = found
        return found

    def save(self, name: str) -> None:
        site = self._sites.get(name)
        if site is None:
            return
        with self._db:
            self._db.execute("BEGIN")
            self._db.execute("DELETE FROM entries WHERE site = ?", (name,))
            self._db.executemany(
                "INSERT INTO entries VALUES (?, ?, ?, ?, ?)",
                [(name, t, x, c, site.last_hit.get((t, x), 0)) for (t, x), c in site.template.counts.items()],
            )
            self._db.execute("INSERT OR REPLACE INTO state VALUES (?, ?)", (name, dumps_state(site)))

    def sites(self) -> list[str]:
        rows = self._db.execute("SELECT site FROM state UNION SELECT site FROM entries ORDER BY 1").fetchall()
        return [r[0] for r in rows]

    def close(self) -> None:
        self._db.close()
