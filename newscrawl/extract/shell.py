"""Is a page an app shell, whose article only a browser would show?

An app shell carries scripts, next to no visible text, and no article in its embedded data
(:mod:`newscrawl.extract.methods.embedded`): its script fetches the article and writes it
into the DOM.  The crawl renders such a page in a headless browser (docs/rendering.md); a
page whose embedded data holds the article is extracted from that data, without a browser.
"""

from __future__ import annotations

import re

from .methods.embedded import extract_body
from .page import Page

SHELL_MAX_CHARS = 200  # visible text below this many characters: no article is in the DOM
_SCRIPT = re.compile(r"<script\b", re.IGNORECASE)
_HIDDEN = frozenset({"script", "style", "noscript", "template", "svg", "head", "title"})


def visible_chars(page: Page) -> int:
    """Characters of text a reader sees in the page's body (scripts, styles and templates left
    out), counted up to :data:`SHELL_MAX_CHARS`."""
    body = page.body if page.body is not None else page.root
    count = 0
    for node in body.iter():
        if not isinstance(node.tag, str) or _hidden(node, body):
            continue
        if node.tag not in _HIDDEN:
            count += len((node.text or "").strip())
        if node is not body:
            count += len((node.tail or "").strip())
        if count >= SHELL_MAX_CHARS:
            break
    return count


def _hidden(node, body) -> bool:
    """Is ``node`` inside a script, style or template (below ``body``)?"""
    return any(isinstance(up.tag, str) and up.tag in _HIDDEN
               for up in node.iterancestors() if up is not body)


def has_scripts(page: Page) -> bool:
    """Does the page's source hold a script (the parsed tree has none: parsing drops them)?"""
    return _SCRIPT.search(page.text) is not None


def is_app_shell(page: Page) -> bool:
    """Scripts, under :data:`SHELL_MAX_CHARS` of visible text, and no article in the page's data."""
    if not has_scripts(page) or visible_chars(page) >= SHELL_MAX_CHARS:
        return False
    return not extract_body(page).text.strip()
