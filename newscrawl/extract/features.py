"""Per-element statistics shared by the learned methods (Kazennikov and Soloviev and Yan and Wang (2020)).

:func:`element_stats` walks a page's ``<body>`` once and sums, bottom-up, what both
papers count per element: text and link-text length, words, sentences, character
classes, ``<a>`` and ``<img>`` counts.  :func:`tokens_per_owner` gives the word tokens
of each text node (one token per Han character, as :func:`.metrics.tokenize`), which
the training code aligns with ground-truth text and the classifier compares with the
words of a feed entry.  No Scrapy imports; no model code.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from lxml import html

from . import dom
from .tokens import tokenize

try:  # the character counts compiled (newscrawl/extract/_speedups.pyx); _count_chars otherwise
    from ._speedups import char_counts
except ImportError:  # not built, or NEWSCRAWL_PURE_PYTHON=1
    char_counts = None

SENTENCE_END = re.compile(r"[.!?。！？]+(?:\s|$)|[。！？]")


@dataclass
class Stats:
    """Sums over an element's subtree (``own_*``: its direct text nodes only)."""

    text: int = 0  # non-space characters
    link_text: int = 0
    words: int = 0
    sentences: int = 0
    letters: int = 0
    digits: int = 0
    punct: int = 0
    spaces: int = 0
    links: int = 0  # <a> elements
    images: int = 0  # <img> elements
    blocks: int = 0  # descendant block elements (div, p, ...)

    def add(self, other: Stats) -> None:
        # Spelled out: called once per element and text node, a getattr/setattr loop was 3x slower.
        self.text += other.text
        self.link_text += other.link_text
        self.words += other.words
        self.sentences += other.sentences
        self.letters += other.letters
        self.digits += other.digits
        self.punct += other.punct
        self.spaces += other.spaces
        self.links += other.links
        self.images += other.images
        self.blocks += other.blocks


def _text_stats(text: str, in_link: bool) -> Stats:
    s = Stats()
    if char_counts is not None:  # the same counts in C (tests/test_speedups.py)
        s.spaces, s.letters, s.digits, s.punct = char_counts(text)
        s.text = len(text) - s.spaces
    else:
        _count_chars(s, text)
    if in_link:
        s.link_text = s.text
    s.words = len(tokenize(text))
    s.sentences = len(SENTENCE_END.findall(text))
    return s


def _count_chars(s: Stats, text: str) -> None:
    for ch in text:
        if ch.isspace():
            s.spaces += 1
            continue
        s.text += 1
        if ch.isalpha():
            s.letters += 1
        elif ch.isdigit():
            s.digits += 1
        elif unicodedata.category(ch).startswith("P"):
            s.punct += 1


def element_stats(body: html.HtmlElement) -> dict[html.HtmlElement, Stats]:
    """:class:`Stats` of every element under ``body`` (pre-order keys), one pass plus one sum."""
    in_anchor = dom.anchor_flags(body)
    stats = {el: Stats() for el in in_anchor}
    for owner, text in dom.iter_text_nodes(body):
        if text.strip():
            stats[owner].add(_text_stats(text, in_anchor[owner]))
    for el in stats:
        tag = el.tag if isinstance(el.tag, str) else ""
        if tag == "a":
            stats[el].links += 1
        elif tag == "img":
            stats[el].images += 1
    for el in reversed(list(stats)):
        parent = el.getparent()
        if el is not body and parent is not None and parent in stats:
            stats[parent].add(stats[el])
            if isinstance(el.tag, str) and el.tag in dom.BLOCK_TAGS:
                stats[parent].blocks += 1
    return stats


def tokens_per_owner(body: html.HtmlElement) -> list[tuple[html.HtmlElement, list[str]]]:
    """``(owner, tokens)`` for every non-blank text node under ``body``, in document order."""
    return [(owner, tokenize(text)) for owner, text in dom.iter_text_nodes(body) if text.strip()]


def subtree_sums(body: html.HtmlElement, own: dict[html.HtmlElement, float]) -> dict[html.HtmlElement, float]:
    """Sum per-element values up the tree (``own`` keyed by element; missing = 0)."""
    order = [el for el in body.iter()]
    total = {el: float(own.get(el, 0.0)) for el in order}
    for el in reversed(order):
        parent = el.getparent()
        if el is not body and parent is not None and parent in total:
            total[parent] += total[el]
    return total
