"""Shared DOM helpers: decoding, parsing, tree clean-up, text rendering and link statistics.

Every extraction method works on the tree :func:`parse_html` builds, once per page.
Methods never mutate it: they choose a root element and a set of subtrees to skip,
and :func:`render_paragraphs` turns that choice into text.  All traversals here are
iterative (``iterwalk``/``iter``), so deeply nested pages cannot exhaust the stack.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterable, Iterator
from functools import cached_property
from urllib.parse import urljoin, urlsplit

import numpy as np
from lxml import etree, html

from .encoding import decode_html as decode_html  # decoding lives in .encoding; its names stay here
from .encoding import detect_encoding, known_codec
from .errors import ExtractionError
from .streaming import place_streamed_segments

try:  # TreeIndex's walk and the paragraph rendering compiled (newscrawl/extract/_speedups.pyx)
    from ._speedups import element_count as compiled_element_count
    from ._speedups import render_paragraphs as compiled_render
    from ._speedups import strip_end_tags, text_nodes, tree_walk
except ImportError:  # the Python below
    compiled_render = compiled_element_count = strip_end_tags = text_nodes = tree_walk = None

_sniff_encoding = detect_encoding
_known_codec = known_codec

# Chen et al. (2012) §2.1 (2): subtrees dropped before any analysis, plus elements that never
# hold visible article text in today's HTML (noscript, template, svg, ...).
NOISE_TAGS = frozenset(
    "script style select option iframe textarea object input noscript template svg "
    "canvas button embed applet map".split()
)

# Elements whose boundaries end a paragraph when the tree is rendered as text.
BLOCK_TAGS = frozenset(
    "address article aside blockquote body center dd details dialog dir div dl dt "
    "fieldset figcaption figure footer form h1 h2 h3 h4 h5 h6 header hgroup hr html li "
    "main menu nav ol p pre section summary table tbody td tfoot th thead tr ul caption".split()
)
HEADING_TAGS = ("h1", "h2", "h3", "h4", "h5", "h6")

# XML declarations and other "<?...>" before the markup, closed, unclosed or lying about the
# encoding: the HTML tokenizer reads each as a bogus comment up to the next ">", and lxml
# refuses a str that starts with "<?xml ... encoding=" (its check is also quadratic).
_XML_DECL_RE = re.compile(r"\A[\s\ufeff]*+(?:<\?[^>]*+>?[\s\ufeff]*+)*+")
_END_HTML_BODY_RE = re.compile(r"</(?:html|body)\s*>", re.IGNORECASE)
_CONTROL_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
# "<style type="text/css" />" then the rules then "</style>": libxml2 ends the element at "/>" and
# reads the rules as page text; HTML parsers (browsers) ignore the "/" of a non-void element and
# read its raw text up to "</style>".  Only rules with no "<" before that end tag are taken back.
_SELF_CLOSED_STYLE_RE = re.compile(
    r"<(style\b(?:[^<>/]|/(?![\s]*+>))*+)/\s*+>([^<]*+</style\s*+>)", re.IGNORECASE
)
# Where a match of the pattern above can start.  Searched for alone it costs a seventh as much
# (the pattern's group after its "<" keeps the regex engine from skipping ahead to "<style").
_STYLE_OPEN_RE = re.compile(r"<style\b", re.IGNORECASE)
_SURROGATE_RE = re.compile("[\ud800-\udfff]")
# Zero-width characters: never visible.  ZWNJ and ZWJ also shape Persian, Indic and emoji text, so
# those two are dropped only where they join nothing (beside white space, at an end).
_INVISIBLE_RE = re.compile("[\u200b\u2060\ufeff]+")
_LOOSE_JOINER_RE = re.compile("(?<!\\S)[\u200c\u200d]+|[\u200c\u200d]+(?!\\S)")


def _holds_invisible(text: str) -> bool:
    """Whether either pattern above matches in ``text``.  Most text holds none of their five
    characters, and five substring scans cost far less than the look-around pattern tried at
    every position (x40 on 8,000 characters)."""
    if text.isascii() or not ("\u200b" in text or "\u200c" in text or "\u200d" in text
                              or "\u2060" in text or "\ufeff" in text):
        return False
    return _INVISIBLE_RE.search(text) is not None or _LOOSE_JOINER_RE.search(text) is not None


# Every element an HtmlElement, chosen in C: lxml.html's own lookup calls Python once per
# element proxy to pick per-tag classes (forms, inputs) newscrawl never uses (~20 % of parsing).
_ELEMENT_CLASSES = etree.ElementDefaultClassLookup(
    element=html.HtmlElement, comment=html.HtmlComment,
    pi=html.HtmlProcessingInstruction, entity=html.HtmlEntity,
)


def parse_html(text: str) -> html.HtmlElement:
    """Parse decoded HTML into an lxml tree (comments and PIs dropped; see :func:`remove_noise`).

    Any ``str`` parses: leading XML declarations are dropped (see ``_XML_DECL_RE``), and
    NULs, lone surrogates, and control characters in the first 4,096 characters make
    :func:`_clean_characters` clean the whole text first (libxml2 keeps later controls as text).
    """
    if text.find("\x00") >= 0 or _CONTROL_RE.search(text[:4096]):  # find: 2x faster than "in" on UCS-2 text
        text = _clean_characters(text)
    # libxml2 reads UTF-8: the text is handed over as UTF-8 bytes (with the encoding said, so no
    # <meta charset> can override it), which costs less than lxml's own conversion of a str,
    # and the one encode also finds lone surrogates.
    try:
        data = _markup(text)
    except UnicodeEncodeError:  # lone surrogates (only a caller's str can hold them)
        data = _markup(_clean_characters(text))
    if _blank(data):
        raise ExtractionError("empty", "no content")
    return _parse(data)


def _parse(data: bytes) -> html.HtmlElement:
    parser = etree.HTMLParser(remove_comments=True, remove_pis=True, collect_ids=False, huge_tree=True,
                              encoding="utf-8")
    parser.set_element_class_lookup(_ELEMENT_CLASSES)
    try:
        root = html.document_fromstring(data, parser=parser)
    except (etree.ParserError, ValueError) as exc:
        raise ExtractionError("unparseable", str(exc)) from exc
    if root is None:
        raise ExtractionError("unparseable", "no root element")
    for error in parser.error_log:
        # libxml2 stops at 2048 nested elements (also with huge_tree) and silently drops
        # the rest of the page; a truncated page must not pass for a whole one.
        if error.type_name == "ERR_RESOURCE_LIMIT":
            raise ExtractionError("too-deep", error.message)
    return root


# When the clean-up leaves fewer than this share of a page's elements, what it dropped may have
# been the page itself (see clean_tree).
NOISE_SHARE = 0.5


def clean_tree(root: html.HtmlElement, text: str, elements: int) -> html.HtmlElement:
    """:func:`remove_noise` on ``root`` (parsed from ``text``, ``elements`` elements), or the
    cleaned tree of ``text`` parsed again without the :data:`SWALLOWING_TAGS` elements that held
    the page; first, parts React streamed to the page's end are put in their places
    (:func:`.streaming.place_streamed_segments`).

    libxml2 leaves an element opened inside a ``<noscript>`` or a ``<button>`` open past the end
    tag (``<noscript><div></noscript>``, ``<button><div></button>``) and puts the rest of the page
    inside it, which the clean-up drops; a browser closes the button there, and reads a
    noscript's content as text.  Only a clean-up that leaves fewer than :data:`NOISE_SHARE` of
    the elements is looked into (icon sprites, inline SVG, and the pages swallowed), so other
    pages pay for one count in C.
    """
    place_streamed_segments(root, text)
    remove_noise(root)
    if element_count(root) >= NOISE_SHARE * elements:
        return root
    as_parsed = parse_html(text)
    swallowing = [tag for tag in SWALLOWING_TAGS if holds_the_page(as_parsed, tag)]
    if not swallowing:
        return root
    try:
        fresh = parse_html(cut_elements(text, swallowing))
    except ExtractionError:  # nothing but those elements
        return root
    place_streamed_segments(fresh, text)
    remove_noise(fresh)
    return fresh


# Noise elements libxml2 can leave open over the rest of the page (see clean_tree).
SWALLOWING_TAGS = ("noscript", "button")
# How many of a tag's elements, in document order, holds_the_page looks into.
SWALLOWING_CHECKED = 20
SWALLOWED_PAGE_SHARE = 0.5
SWALLOWED_MIN_CHARS = 200


def holds_the_page(root: html.HtmlElement, tag: str) -> bool:
    """Whether one of the page's first :data:`SWALLOWING_CHECKED` outermost ``tag`` elements
    holds at least :data:`SWALLOWED_PAGE_SHARE` of the text under ``<body>``."""
    body = body_of(root)
    outermost: set = set()
    for el in itertools.islice(body.iter(tag), SWALLOWING_CHECKED):
        if any(above in outermost for above in el.iterancestors(tag)):
            continue  # the text of a nested one is its outer one's: each text counted once
        outermost.add(el)
    largest = max((sum(map(non_space_len, el.itertext())) for el in outermost), default=0)
    if largest < SWALLOWED_MIN_CHARS:  # a tracking pixel, a "please enable JavaScript" line, an icon
        return False
    return largest >= SWALLOWED_PAGE_SHARE * sum(map(non_space_len, body.itertext()))


# An element's opening tag (not a longer name: <buttons>, <button-bar>) and its end tag.
_NOSCRIPT_OPEN = re.compile(r"<noscript(?=[\s/>])", re.IGNORECASE)
_NOSCRIPT_CLOSE = re.compile(r"</noscript\s*>", re.IGNORECASE)
_BUTTON_OPEN = re.compile(r"<button(?=[\s/>])", re.IGNORECASE)
_BUTTON_CLOSE = re.compile(r"</button\s*>", re.IGNORECASE)
_TAG_RES = {"noscript": (_NOSCRIPT_OPEN, _NOSCRIPT_CLOSE), "button": (_BUTTON_OPEN, _BUTTON_CLOSE)}


def _element_spans(text: str, tag: str) -> Iterator[tuple[int, int, int, int]]:
    """Each ``tag`` element of ``text`` as the HTML tokenizer reads a ``<noscript>`` with
    scripting on, or a ``<button>`` (no button holds another), from its opening to the first end
    tag after it, in linear time: (start, where its content starts or -1 when the opening tag
    has no ``>`` before the closing, where the content ends, end)."""
    opening_re, closing_re = _TAG_RES[tag]
    pos = 0
    while (opening := opening_re.search(text, pos)) is not None:
        closing = closing_re.search(text, opening.end())
        if closing is None:  # no later opening can be closed either
            return
        tag_end = text.find(">", opening.end(), closing.start())
        yield opening.start(), (tag_end + 1 if tag_end >= 0 else -1), closing.start(), closing.end()
        pos = closing.end()


def noscript_contents(text: str) -> list[str]:
    """The contents of ``text``'s ``<noscript>`` elements as :func:`cut_elements` cuts them."""
    return [text[content:close] for _, content, close, _ in _element_spans(text, "noscript") if content >= 0]


def cut_elements(text: str, tags: Iterable[str] = ("noscript",)) -> str:
    """``text`` without its ``tags`` elements (:func:`_element_spans`), cut one tag after another."""
    for tag in tags:
        kept = []
        pos = 0
        for start, _, _, end in _element_spans(text, tag):
            kept.append(text[pos:start])
            pos = end
        kept.append(text[pos:])
        text = "".join(kept)
    return text


def _markup(text: str) -> bytes:
    """``text`` as UTF-8 without leading XML declarations, with a self-closed ``<style/>`` reopened
    over the rules that follow it, and with no ``</html>`` or ``</body>`` tag (UnicodeEncodeError
    on a lone surrogate)."""
    text = text[_XML_DECL_RE.match(text).end():]  # a slice, not sub(): no copy when nothing leads
    if _self_closed_style(text):
        text = _SELF_CLOSED_STYLE_RE.sub(r"<\1>\2", text)
    # libxml2 drops everything after a stray </html> and puts what follows </body> outside
    # <body>; HTML5 parsers (browsers) ignore both end tags, and so does newscrawl.
    if strip_end_tags is not None:  # the same tags found in the bytes by C (tests/test_speedups.py)
        return strip_end_tags(text.encode("utf-8"))
    return _END_HTML_BODY_RE.sub("", text).encode("utf-8")


def _self_closed_style(text: str) -> bool:
    """Whether ``_SELF_CLOSED_STYLE_RE`` matches in ``text``: every match starts at a ``<style``
    opening, and only those few positions are tried."""
    match = _SELF_CLOSED_STYLE_RE.match
    return any(match(text, opening.start()) for opening in _STYLE_OPEN_RE.finditer(text))


def _blank(data: bytes) -> bool:
    """Whether the UTF-8 ``data`` holds nothing but white space (``str.isspace``)."""
    stripped = data.strip()  # ASCII white space
    if not stripped:
        return True
    if stripped[0] < 0x80 and stripped[0] not in b"\x1c\x1d\x1e\x1f":  # separators str.strip() drops
        return False
    return not stripped.decode("utf-8").strip()


def _clean_characters(text: str) -> str:
    """``text`` without C0 controls (tab, newline and CR stay) and with lone surrogates as U+FFFD.

    libxml2 keeps controls as text, and ends the document at a lone surrogate (lxml hands
    it on as invalid UTF-8), silently dropping the rest; a surrogate pair is joined.
    Raises ``binary`` when what is left is mostly U+FFFD.
    """
    text = _CONTROL_RE.sub("", text)
    if _SURROGATE_RE.search(text):
        text = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    if text.count("\ufffd") > len(text) // 3:
        raise ExtractionError("binary", "mostly undecodable bytes")
    return text


def element_count(root: html.HtmlElement) -> int:
    """The number of elements in a parsed document, counted in C either way: no Python object per
    element (the compiled walk, else XPath's ``count``, which builds a node set first)."""
    if compiled_element_count is not None:
        return compiled_element_count(root)
    return int(root.xpath("count(//*)"))


def remove_noise(root: html.HtmlElement) -> None:
    """Chen et al. (2012) §2.1 clean-up: drop script/style/select/... subtrees, keeping their tails;
    then comments and, as no reader sees them inline, bare ruby readings (:func:`drop_bare_ruby_readings`).
    A checklist's boxes leave their sign before their lines (:func:`mark_checklist_boxes`).

    ``strip_elements`` works in C (``drop_tree`` is Python, per element).  It leaves a kept
    tail as a text node of its own next to its neighbour: lxml's ``.text``, ``.tail``,
    ``itertext`` and serialisation join them as ``drop_tree`` did, XPath's ``text()`` would
    not.  (Same serialised tree as ``drop_tree`` on all 1,635 dataset pages.)
    """
    mark_checklist_boxes(root)
    etree.strip_elements(root, *NOISE_TAGS, with_tail=False)  # not root itself, as before
    for el in list(root.iter(etree.Comment, etree.ProcessingInstruction, etree.Entity)):
        if el.getparent() is not None:
            el.drop_tree()
    drop_bare_ruby_readings(root)
    drop_heading_permalinks(root)


# The sign a checklist's box leaves before its line, unticked and ticked.
CHECKBOX_SIGNS = {False: "\u2610", True: "\u2611"}  # ☐ ☑
MIN_CHECKLIST_BOXES = 2  # boxes under one parent; a lone box is a form's "I agree"
_NOT_IN_CHECKLIST = frozenset("form label li button".split())  # a form's field, a task list's item
_CHECKLIST_LINE_END = BLOCK_TAGS | {"br", "input", "label"}


def mark_checklist_boxes(root: html.HtmlElement) -> None:
    """Give each box of a checklist written line by line (``<input type=checkbox> Tent<br>``) its
    sign (:data:`CHECKBOX_SIGNS`) before its line's text, as a bullet stands before a list item:
    the box itself is dropped with the other form fields, and the rendering makes a run of signed
    lines a list (:func:`.render.blocks._marked_lists`).  Boxes in a form, a label or a list item
    (a task list, already a list), without text after them on their line (a menu's toggle), or
    alone under their parent are left as they are."""
    boxes: dict[html.HtmlElement, list[html.HtmlElement]] = {}
    for box in root.iter("input"):
        if ((box.get("type") or "").strip().lower() == "checkbox" and box.get("hidden") is None
                and _text_after_on_line(box)
                and not any(a.tag in _NOT_IN_CHECKLIST for a in box.iterancestors())):
            boxes.setdefault(box.getparent(), []).append(box)
    for siblings in boxes.values():
        if len(siblings) >= MIN_CHECKLIST_BOXES:
            for box in siblings:
                box.tail = f"{CHECKBOX_SIGNS[box.get('checked') is not None]} {(box.tail or '').lstrip()}"


def _text_after_on_line(box: html.HtmlElement) -> bool:
    if (box.tail or "").strip():
        return True
    following = box.getnext()
    return (following is not None and isinstance(following.tag, str)
            and following.tag not in _CHECKLIST_LINE_END and bool(following.text_content().strip()))


# What a heading's link to itself shows (Markdown renderers, docs generators, WordPress plugins).
PERMALINK_SIGNS = frozenset("#¶§🔗⚓")


def drop_heading_permalinks(root: html.HtmlElement) -> None:
    """Drop the link a heading holds to its own anchor, shown as a sign (``<h2><a href="#why">#</a>
    Why</h2>``) or as the anchor itself (``<a href="#section3">#section3</a>``): it is no part of
    the heading's text (wcxb: 63 headings read "#Why" so)."""
    found = [a for heading in root.iter(*HEADING_TAGS) for a in heading.iter("a")
             if (href := a.get("href") or "").startswith("#")
             and ((shown := a.text_content().strip()) in PERMALINK_SIGNS or shown == href)]
    for a in found:
        a.drop_tree()


def drop_bare_ruby_readings(root: html.HtmlElement) -> None:
    """Drop the ``<rt>`` readings of ``<ruby>`` annotations that give no ``<rp>`` parentheses.

    Furigana over every word of a text for learners (``<ruby>子<rt>こ</rt></ruby>ども``) would
    read ``子こども`` as plain text.  A ruby with ``<rp>`` says how its author wants it read
    inline, ``尹錫悦（ユンソンニョル）``, and is kept as it renders without ruby support.
    """
    bare = [rt for rt in root.iter("rt") if (ruby := rt.getparent()) is not None and ruby.find("rp") is None]
    for rt in bare:
        rt.drop_tree()


def body_of(root: html.HtmlElement) -> html.HtmlElement:
    body = root.find("body")
    return body if body is not None else root


def host_of(url: str | None) -> str | None:
    """The host of ``url`` without a leading ``www.`` (None when it has none).

    The host, not the registrable domain: a blog on ``blog.resy.com`` linking a restaurant's
    heading to ``resy.com`` names the restaurant (with registrable domains, wcxb subheading recall
    fell 0.875 -> 0.867)."""
    try:
        host = urlsplit(url).hostname if url else None
    except ValueError:
        return None
    return host.removeprefix("www.") if host else None


def off_site_heading(el: html.HtmlElement, page_host: str | None) -> bool:
    """A heading whose links all lead off the page's site: it names what its section is about
    (a brand, a product, a venue), where a heading linked within the site is a teaser of
    another of the site's pages."""
    if page_host is None or el.tag not in HEADING_TAGS:
        return False
    hosts = [host_of(a.get("href")) for a in el.iter("a")]
    return bool(hosts) and all(h is not None and h != page_host for h in hosts)


# A list's items hold this many characters on average (not counting white space) to be a list of
# references or products rather than share buttons ("Facebook", "WhatsApp").
OFF_SITE_ITEM_CHARS = 20
OFF_SITE_WRAPPED_ITEMS = 3  # items of a list judged through its wrapper (see off_site_list)
_UNVOUCHED = re.compile(r"nofollow|sponsored", re.IGNORECASE)


def off_site_list(el: html.HtmlElement, page_host: str | None) -> bool:
    """A list whose links lead mostly off the page's site, and are followed, with items longer
    than a button's label: an article's references, sources or resources.  A list linked
    within the site is navigation or teasers of the site's own pages; links marked
    ``rel="nofollow"`` or ``"sponsored"`` are ones the site does not vouch for (shopping and
    affiliate boxes, user links).  A wrapper holding the list alone is the list
    (Asciidoctor writes each list in ``<div class="ulist">``) when the list has
    :data:`OFF_SITE_WRAPPED_ITEMS` items or more: a box around two links is a "read more" box."""
    if page_host is None:
        return False
    inner = _only_child_list(el)
    if inner is None:
        return False
    items = list(inner.iterchildren("li"))
    if len(items) < (2 if inner is el else OFF_SITE_WRAPPED_ITEMS):
        return False
    el = inner
    links = [a for a in el.iter("a") if a.get("href")]
    off = 0
    for a in links:
        host = host_of(a.get("href"))
        if host is not None and host != page_host and not _UNVOUCHED.search(a.get("rel") or ""):
            off += 1
    if not links or 2 * off < len(links):
        return False
    return sum(non_space_len(li.text_content()) for li in items) >= OFF_SITE_ITEM_CHARS * len(items)


def _only_child_list(el: html.HtmlElement) -> html.HtmlElement | None:
    """``el`` when it is a list, else the list it wraps with nothing else beside it, else None."""
    while el.tag not in ("ul", "ol"):
        if len(el) != 1 or not isinstance(el[0].tag, str):
            return None
        if (el.text or "").strip() or (el[0].tail or "").strip():
            return None
        el = el[0]
    return el


def normalize_space(text: str | None) -> str:
    """White space runs collapsed to one space, ends stripped.  ``str.split()`` splits on
    exactly what ``\\s`` matches (checked over every code point) and is 5x faster than a regex."""
    return " ".join(text.split()) if text else ""


def drop_invisible(text: str | None) -> str | None:
    """``text`` without zero-width characters (U+200B, U+2060, U+FEFF; U+200C/U+200D where they join
    nothing), and without the lines and line-end spaces that held nothing else.  Text without
    them comes back as it is."""
    if not text or not _holds_invisible(text):
        return text
    text = _LOOSE_JOINER_RE.sub("", _INVISIBLE_RE.sub("", text))
    return "\n".join(line.strip() for line in text.split("\n") if line.strip())


def drop_invisible_chars(text: str | None) -> str | None:
    """``text`` without the zero-width characters :func:`drop_invisible` removes, its lines as they
    are (for the Markdown and HTML renderings of a body whose ``text`` went through it)."""
    if not text or not _holds_invisible(text):
        return text
    return _LOOSE_JOINER_RE.sub("", _INVISIBLE_RE.sub("", text))


def non_space_len(text: str | None) -> int:
    """Length without white space (Wang et al.'s (2020) ``getNonSpaceLength``)."""
    if not text:
        return 0
    # str.split() splits on exactly the characters str.isspace() accepts; this runs in C.
    return sum(map(len, text.split()))


def node_text(el: html.HtmlElement) -> str:
    """All text under ``el``, white space collapsed."""
    return normalize_space(" ".join(el.itertext()))


def iter_text_nodes(
    root: html.HtmlElement, skip: Iterable[html.HtmlElement] = ()
) -> Iterator[tuple[html.HtmlElement, str]]:
    """Yield ``(owner, text)`` for every text node under ``root``, in document order.

    The owner is the element the text node is a child of: ``el.text`` belongs to
    ``el``, ``child.tail`` belongs to ``child``'s parent.  The root's own tail is
    outside ``root`` and is not yielded.  Text inside a ``skip`` subtree is left out
    (its tail is not inside it and is yielded).
    """
    skip = skip if isinstance(skip, set | frozenset) else set(skip)
    if text_nodes is not None:  # the same walk in C (tests/test_speedups.py)
        yield from text_nodes(root, skip)
        return
    walker = etree.iterwalk(root, events=("start", "end"))
    for ev, el in walker:
        if ev == "start":
            if skip and el in skip:
                walker.skip_subtree()
                continue
            if el.text:
                yield el, el.text
        elif el is not root and el.tail:
            parent = el.getparent()
            if parent is not None:
                yield parent, el.tail


def anchor_flags(root: html.HtmlElement) -> dict[html.HtmlElement, bool]:
    """Map every element under ``root`` to whether it is an ``<a>`` or has one above it."""
    above = any(a.tag == "a" for a in root.iterancestors())
    flags: dict[html.HtmlElement, bool] = dict.fromkeys(root.iter(), above)  # pre-order
    if not above:
        for a in root.iter("a"):
            if not flags[a]:  # not already inside an outer <a>
                flags.update(dict.fromkeys(a.iter(), True))
    return flags


class TreeIndex:
    """The elements under ``root`` as parallel lists, for the bottom-up counts every method makes.

    ``elements`` is in pre-order (``root`` first); ``parent[i]`` is the index of element
    ``i``'s parent (-1 for ``root``); ``in_anchor[i]`` says whether element ``i`` is an
    ``<a>`` or inside one; ``texts`` lists every text node as ``(owner index, text)``, the
    owner as in :func:`iter_text_nodes` (not in document order).  Lists indexed by position
    instead of dicts keyed by element: the counts cost a list access per element, and lxml
    creates no proxy objects after the first walk.

    In pre-order a subtree is a contiguous range: element ``i``'s subtree is
    ``elements[i:end[i]]``, so subtree totals are differences of prefix sums (numpy, in C).
    """

    def __init__(self, root: html.HtmlElement):
        self.root = root
        walked = tree_walk(root) if tree_walk is not None else None
        if walked is not None:  # the same lists in one C walk (tests/test_speedups.py)
            self.elements, self.parent, self.end, in_anchor = walked
            self.index = dict(zip(self.elements, range(len(self.elements)), strict=True))
            if any(a.tag == "a" for a in root.iterancestors()):
                in_anchor = [True] * len(self.elements)
            self.in_anchor: list[bool] = in_anchor
            return
        self.elements: list[html.HtmlElement] = list(root.iter())  # pre-order
        self.index = index = dict(zip(self.elements, range(len(self.elements)), strict=True))
        self.parent = [index.get(el.getparent(), -1) for el in self.elements]  # root's is outside: -1
        self.parent[0] = -1  # (the root's parent is never in the index; spelled out for clarity)
        self.end = _subtree_ends(self.parent)
        self.in_anchor = self._anchor_flags()

    @cached_property
    def ends(self) -> list[int]:
        """:attr:`end` as a list, for element-by-element reads in Python."""
        return self.end.tolist()

    @cached_property
    def texts(self) -> list[tuple[int, str]]:
        texts: list[tuple[int, str]] = []
        parent = self.parent
        for i, el in enumerate(self.elements):
            if el.text:
                texts.append((i, el.text))
            p = parent[i]
            if p >= 0 and el.tail:
                texts.append((p, el.tail))
        return texts

    def _anchor_flags(self) -> list[bool]:
        """As :func:`anchor_flags`: every ``<a>`` marks its whole subtree (a contiguous range)."""
        size = len(self.elements)
        if any(a.tag == "a" for a in self.root.iterancestors()):
            return [True] * size
        starts = [self.index[a] for a in self.root.iter("a")]  # tag filter in C
        if not starts:
            return [False] * size
        marks = np.zeros(size + 1, dtype=np.int64)
        np.add.at(marks, starts, 1)
        np.add.at(marks, self.end[starts], -1)
        return (np.cumsum(marks[:size]) > 0).tolist()

    def subtree_totals(self, own: np.ndarray) -> np.ndarray:
        """Each element's value plus all its descendants', for every row of ``own`` (last axis:
        elements).  Sums of integers, or of multiples of a power of two, are exact; other floats
        may differ from :meth:`subtree_sums` in the last bit (another order of addition)."""
        own = np.asarray(own)
        prefix = np.zeros(own.shape[:-1] + (own.shape[-1] + 1,), dtype=own.dtype)
        np.cumsum(own, axis=-1, out=prefix[..., 1:])
        return prefix[..., self.end] - prefix[..., :-1]

    def subtree_sums(self, own: list) -> list:
        """Each element's value plus all its descendants' (``own`` is not changed)."""
        sums = list(own)
        parent = self.parent
        for i in range(len(sums) - 1, 0, -1):  # reversed pre-order: descendants before ancestors
            sums[parent[i]] += sums[i]
        return sums

    def by_element(self, values: list) -> dict:
        return dict(zip(self.elements, values, strict=True))


def _subtree_ends(parent: list[int]) -> np.ndarray:
    """``end[i]``: one past the last pre-order index of element ``i``'s subtree.

    An element's last descendant is its last child's last descendant; pointer jumping
    follows those chains in log(depth) vectorised steps.
    """
    size = len(parent)
    last = np.arange(size)
    if size > 1:
        np.maximum.at(last, np.asarray(parent[1:]), np.arange(1, size))  # each element's last child
        while True:
            jumped = last[last]
            if np.array_equal(jumped, last):
                break
            last = jumped
    return last + 1


def text_and_link_lengths(root: html.HtmlElement) -> dict[html.HtmlElement, tuple[int, int]]:
    """Bottom-up ``(text length, link text length)`` for every element (non-space characters)."""
    tree = TreeIndex(root)
    elements, parent, in_anchor = tree.elements, tree.parent, tree.in_anchor
    own = np.zeros((2, len(elements)), dtype=np.int64)  # text, link text
    text, links = own
    for i, el in enumerate(elements):  # TreeIndex.texts' text nodes, read in the same pass
        t = el.text
        if t and (n := non_space_len(t)):
            text[i] += n
            if in_anchor[i]:
                links[i] += n
        p = parent[i]
        t = el.tail
        if p >= 0 and t and (n := non_space_len(t)):
            text[p] += n
            if in_anchor[p]:
                links[p] += n
    sums = tree.subtree_totals(own).tolist()  # integers: exact
    return dict(zip(elements, zip(*sums, strict=True), strict=True))


TextFilter = Callable[[html.HtmlElement, str], bool]


def render_paragraphs(
    root: html.HtmlElement,
    skip: Iterable[html.HtmlElement] = (),
    keep: TextFilter | None = None,
) -> list[str]:
    """Render ``root`` as paragraphs, one per block element or ``<br>`` run, skipping subtrees.

    With ``keep``, a paragraph is kept only when at least one of its text nodes
    passes ``keep(owner, text)`` (owner as in :func:`iter_text_nodes`).
    Returns the non-empty paragraphs with white space collapsed.
    """
    if keep is None and compiled_render is not None:  # the same walk in C (tests/test_speedups.py)
        return compiled_render(root, skip, BLOCK_TAGS)
    skip_set = set(skip)
    paragraphs: list[str] = []
    current: list[str] = []
    valid = keep is None

    def add(owner: html.HtmlElement, text: str) -> None:
        nonlocal valid
        current.append(text)
        if not valid and keep(owner, text):
            valid = True

    def flush() -> None:
        nonlocal valid
        line = normalize_space("".join(current))
        if line and valid:
            paragraphs.append(line)
        current.clear()
        valid = keep is None

    walker = etree.iterwalk(root, events=("start", "end"))
    for ev, el in walker:
        tag = el.tag if isinstance(el.tag, str) else ""
        if ev == "start":
            if el in skip_set:
                walker.skip_subtree()
                continue
            if tag in BLOCK_TAGS or tag == "br":
                flush()
            if el.text:
                add(el, el.text)
        else:
            if tag in BLOCK_TAGS and el not in skip_set:
                flush()
            elif tag == "img":
                current.append(" ")
            if el is not root and el.tail:
                parent = el.getparent()
                add(parent if parent is not None else el, el.tail)
    flush()
    return paragraphs


def links_in(
    root: html.HtmlElement,
    base_url: str | None,
    skip: Iterable[html.HtmlElement] = (),
) -> list[tuple[str, str]]:
    """``(text, absolute URL)`` of http(s) links under ``root`` outside the skipped subtrees."""
    skipped = {a for el in skip for a in el.iter("a")}  # the links in or under a skipped subtree
    found: list[tuple[str, str]] = []
    seen: set[str] = set()
    for a in root.iter("a"):
        if a in skipped:
            continue
        href = (a.get("href") or "").strip()
        text = node_text(a)
        if not href or not text or href.startswith("#"):
            continue
        url = urljoin(base_url or "", href)
        if not url.startswith(("http://", "https://")) or url in seen:
            continue
        seen.add(url)
        found.append((text, url))
    return found


def document_base(root: html.HtmlElement, url: str | None) -> str | None:
    """The URL relative links resolve against: ``<base href>`` when present, else the page URL."""
    base = next((el for el in root.iter("base") if el.get("href") is not None), None)  # tag filter in C
    if base is not None:
        return urljoin(url or "", base.get("href"))
    return url


def meta_content(root: html.HtmlElement, *names: str) -> str | None:
    """First non-empty ``<meta>`` content whose name, property or itemprop is one of ``names``."""
    wanted = {n.lower() for n in names}
    for meta in root.iter("meta"):
        key = (meta.get("property") or meta.get("name") or meta.get("itemprop") or "").lower()
        if key in wanted:
            content = normalize_space(meta.get("content"))
            if content:
                return content
    return None


def meta_contents(root: html.HtmlElement) -> list[tuple[str, str]]:
    """``(lower-cased property, name or itemprop, content with white space collapsed)`` of every
    ``<meta>`` under ``root`` with non-empty content, in document order: what
    :func:`first_meta` searches, read once for the several look-ups of one page."""
    found = []
    for meta in root.iter("meta"):
        content = normalize_space(meta.get("content"))
        if content:
            found.append(((meta.get("property") or meta.get("name") or meta.get("itemprop") or "").lower(),
                          content))
    return found


def first_meta(metas: list[tuple[str, str]], *names: str) -> str | None:
    """:func:`meta_content` over the pairs :func:`meta_contents` read."""
    wanted = {n.lower() for n in names}
    return next((content for key, content in metas if key in wanted), None)
