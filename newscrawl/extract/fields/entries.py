"""Live-blog entries: ``[{"time", "title", "text", "url"}]`` in page order.

Read from the page's JSON-LD ``LiveBlogPosting.liveBlogUpdate`` (its ``BlogPosting`` items:
``datePublished``, ``headline``, ``articleBody``, ``url``) when it lists updates, else from the
DOM: sibling blocks marked as live entries (a class whose words name a live post, such as
``live-post``, ``liveblog-entry``, ``lb-post``, ``live-update``, or a ``data-entry-id``), each with
a ``<time datetime>`` or a time line (``14:32``, read on the page's publication day); a block
without a time is not an entry (a news ticker, a carousel).  On a page that declares itself a
``LiveBlogPosting`` and has no such marks, repeated sibling blocks that each hold a
``<time datetime>`` are its entries.  Any other page has none.

``time`` is ISO 8601 with the offset the source gave (a time line takes the offset of the page's
date), or None.  :func:`entry_key` identifies an entry across runs; :func:`coverage_end` is the
page's declared ``coverageEndTime``.  No Scrapy imports.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from datetime import date, datetime, time
from html import unescape
from itertools import islice
from typing import Any
from urllib.parse import urljoin

from lxml import html

from .. import dom
from ..page import Page

MAX_ENTRIES = 1000  # entries kept per page (page order)
MAX_ENTRY_CHARS = 20_000  # characters of text kept per entry
MIN_ENTRIES = 2  # fewer marked blocks are not a live blog (a single "live" teaser)

_LIVE_WORDS = {"live", "liveblog", "lb", "ticker", "liveticker", "livefeed", "livestream"}
_ENTRY_WORDS = {"post", "entry", "item", "update", "event", "message", "card"}
_JOINED = {"livepost", "liveentry", "liveupdate", "liveitem", "lbpost", "lbitem", "tickeritem",
           "tickerentry"}
_ENTRY_ATTRS = ("data-entry-id", "data-update-id", "data-live-entry-id", "data-lb-id")
_CLASS_WORD = re.compile(r"[a-z0-9]+")
# A time of day in a short line ("14:32", "14.32", "14：32"), after an optional
# day ("2024-05-09 14:32", "2024年5月9日 14:32").
_TIME_LINE = re.compile(r"(?:(\d{4})[-/.年](\d{1,2})[-/.月](\d{1,2})日?[ \t\u3000]?)?"
                        r"(?<!\d)([01]?\d|2[0-3])[:：.]([0-5]\d)(?!\d)")
_MAX_TIME_LINE = 40  # characters of a line that is a time line
_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
_BLOCKS = ("p", "li", "blockquote", "pre")


def find_entries(page: Page, published: datetime | date | None = None) -> list[dict]:
    """The page's live-blog entries (empty on any other page).  ``published``: the page's date,
    the day and offset of entries that give only a time of day."""
    updates = _ld_updates(page)
    if updates:
        return updates[:MAX_ENTRIES]
    blocks = _marked_blocks(page.root) or (_timed_blocks(page.root) if _ld_live(page) else [])
    found = (entry for block in blocks if (entry := _dom_entry(block, page, published)) is not None)
    entries = list(islice(found, MAX_ENTRIES))
    return entries if len(entries) >= MIN_ENTRIES else []


def coverage_end(page: Page) -> datetime | None:
    """The declared end of the live coverage (JSON-LD ``coverageEndTime``), offset-aware, or None."""
    for obj in _ld_live(page):
        end = _parse_time(obj.get("coverageEndTime"))
        if end is not None and end.tzinfo is not None:
            return end
    return None


def entry_key(entry: dict) -> str:
    """An entry's identity across runs: its URL when it has its own (a fragment), else a hash of
    its time and title (its text's start when it has no title)."""
    url = entry.get("url") or ""
    if "#" in url:
        return url
    name = entry.get("title") or (entry.get("text") or "")[:200]
    return hashlib.sha1(f"{entry.get('time')}\n{name}".encode()).hexdigest()[:20]


def _ld_live(page: Page) -> list[dict]:
    return [o for o in page.json_ld if "LiveBlogPosting" in _types(o)]


def _types(obj: dict) -> set[str]:
    kind = obj.get("@type")
    if isinstance(kind, str):
        return {kind}
    return {k for k in kind if isinstance(k, str)} if isinstance(kind, list) else set()


def _ld_updates(page: Page) -> list[dict]:
    entries = []
    for live in _ld_live(page):
        updates = live.get("liveBlogUpdate")
        for update in updates if isinstance(updates, list) else [updates]:
            if not isinstance(update, dict):
                continue
            text = _ld_text(update.get("articleBody") or update.get("text") or update.get("description"))
            title = _ld_text(update.get("headline") or update.get("name"))
            if not text and not title:
                continue
            when = _parse_time(update.get("datePublished") or update.get("dateCreated"))
            url = update.get("url") if isinstance(update.get("url"), str) else None
            entries.append({"time": when.isoformat() if when else None, "title": title or None,
                            "text": text[:MAX_ENTRY_CHARS],
                            "url": urljoin(page.url or "", url) if url else None})
    return entries


def _ld_text(value: Any) -> str:
    if not isinstance(value, str):
        return ""
    value = unescape(value)  # CMSs escape the entry's text for HTML inside the JSON
    if "<" in value:  # some CMSs put the entry's HTML in articleBody
        try:
            fragment = html.fragment_fromstring(value, create_parent="div")
        except (ValueError, TypeError):
            fragment = None
        if fragment is not None:
            value = "\n".join(dom.node_text(p) for p in fragment.iter(*_BLOCKS)) or dom.node_text(fragment)
    return "\n".join(line.strip() for line in value.splitlines() if line.strip())


def _parse_time(value: Any) -> datetime | None:
    if not isinstance(value, str) or not 10 <= len(value.strip()) <= 40:
        return None
    try:
        return datetime.fromisoformat(value.strip())
    except ValueError:
        return None


def _is_marked(el: html.HtmlElement) -> bool:
    if any(el.get(a) for a in _ENTRY_ATTRS):
        return True
    for token in (el.get("class") or "").lower().split():
        words = _CLASS_WORD.findall(token.split("--")[0])  # BEM: "live-post--pinned" is a live-post
        if words and (words[-1] in _JOINED or (words[-1] in _ENTRY_WORDS and _LIVE_WORDS & set(words[:-1]))):
            return True
    return False


def _marked_blocks(root: html.HtmlElement) -> list[html.HtmlElement]:
    """The marked entries: the marked elements under the parent that holds most of them."""
    marked = [el for el in root.iter() if isinstance(el.tag, str) and _is_marked(el)]
    if not marked:
        return []
    parents = Counter(el.getparent() for el in marked)
    parent, count = parents.most_common(1)[0]
    if count < MIN_ENTRIES:
        return []
    return [el for el in marked if el.getparent() is parent]


def _timed_blocks(root: html.HtmlElement) -> list[html.HtmlElement]:
    """Sibling blocks each holding one ``<time datetime>``: the parent with most of them."""
    owners: Counter = Counter()
    tags: dict[html.HtmlElement, Counter] = {}  # each parent's children counted once, not per <time>
    for stamp in root.iter("time"):
        if not stamp.get("datetime"):
            continue
        child, parent = stamp, stamp.getparent()
        while parent is not None and parent.getparent() is not None:
            if parent not in tags:
                tags[parent] = Counter(c.tag for c in parent)
            if tags[parent][child.tag] >= MIN_ENTRIES:
                owners[(parent, child)] += 1
                break
            child, parent = parent, parent.getparent()
    per_parent: Counter = Counter()
    for (parent, _), n in owners.items():
        per_parent[parent] += n
    if not per_parent:
        return []
    parent, count = per_parent.most_common(1)[0]
    blocks = [child for (p, child) in owners if p is parent]
    return blocks if count >= MIN_ENTRIES and len(blocks) == count else []


def _dom_entry(block: html.HtmlElement, page: Page, published: datetime | date | None) -> dict | None:
    stamp = next((t for t in block.iter("time") if t.get("datetime")), None)
    when = _parse_time(stamp.get("datetime")) if stamp is not None else None
    heading = next(block.iter(*_HEADINGS), None)
    title = dom.node_text(heading) if heading is not None else None
    skip = {title, dom.node_text(stamp) if stamp is not None else None}
    if when is None:
        when, line = _time_line(block, published)
        skip.add(line)
    lines = list(dict.fromkeys(line for el in block.iterdescendants(*_BLOCKS) if (line := dom.node_text(el))))
    if not lines:  # text not in paragraphs: the block's lines
        lines = _block_lines(block)
    text = "\n".join(x for x in lines if x not in skip)[:MAX_ENTRY_CHARS]
    if when is None or (not text and not title):  # a block without a time is a teaser, a ticker
        return None
    anchor = block.get("id")
    url = urljoin(page.url, f"#{anchor}") if anchor and page.url else None
    return {"time": when.isoformat() if when else None, "title": title or None, "text": text, "url": url}


def _block_lines(block: html.HtmlElement) -> list[str]:
    """The text of ``block`` a line per block-level element (inline markup joined into its line)."""
    lines: dict[html.HtmlElement, list[str]] = {}
    for owner, text in dom.iter_text_nodes(block):
        while owner is not block and owner.tag not in dom.BLOCK_TAGS:
            owner = owner.getparent()
        lines.setdefault(owner, []).append(text)
    return [line for parts in lines.values() if (line := dom.normalize_space(" ".join(parts)))]


def _time_line(block: html.HtmlElement,
               published: datetime | date | None) -> tuple[datetime | None, str | None]:
    """The time a short leading line of ``block`` gives, on the page's day and offset; and the line."""
    tries = 3  # the time line comes first, or after a label or a heading
    for el in block.iter():
        if not isinstance(el.tag, str) or el.tag in _BLOCKS or len(el):
            continue
        line = dom.node_text(el)
        if not line or len(line) > _MAX_TIME_LINE:
            continue
        found = _TIME_LINE.search(line)
        if found is None:
            tries -= 1
            if tries == 0:
                return None, None
            continue
        year, month, day, hour, minute = found.groups()
        try:
            if year:
                on = date(int(year), int(month), int(day))
            elif published is not None:
                on = published.date() if isinstance(published, datetime) else published
            else:
                return None, line
            zone = published.tzinfo if isinstance(published, datetime) else None
            return datetime.combine(on, time(int(hour), int(minute)), tzinfo=zone), line
        except ValueError:
            return None, line
    return None, None
