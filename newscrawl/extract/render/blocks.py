"""The body's blocks, walked as :func:`..dom.render_paragraphs` walks them, and aligned with
the final ``text`` lines.

Each paragraph that the plain-text walk would end (a block element's boundary or a ``<br>``)
becomes one :class:`Block` whose ``line`` is exactly that paragraph; its kind comes from the
elements open around it (``<h2>``, ``<li>`` in ``<ol>``, ``<blockquote>``, ``<pre>``). A data
table and a figure are one block each, covering the lines their cells and captions make.
Body methods then edit the lines (a lead put first, furniture lines dropped at the edges, a
body taken from JSON-LD): :func:`align` keeps the blocks whose lines ``text`` has, in order,
and renders any other line of ``text`` as a plain paragraph, so that the renderings hold
``text``'s lines, in its order, and nothing it lacks (paragraphs written as a list's items show
their bullet or number as the list's marker: :func:`_marked_lists`).  :mod:`.write` writes the
kept blocks out.
"""

from __future__ import annotations

import html as html_lib
import re
from bisect import bisect_left
from collections import defaultdict
from itertools import islice

from lxml import etree, html

from .. import dom
from ..fields import images as img_fields
from ..hints import descriptor
from ..tokens import HAN_RE as _HAN
from . import inline
from .urls import IMAGE_SCHEMES, safe_url
from .write import SHOWN, Block, Rendering, serialise, table_html, table_markdown

MAX_TABLE_ROWS = 200  # rows of one table rendered; the rest are counted in ``capped``
MAX_TABLE_COLUMNS = 30
MAX_TABLE_PICTURES = 10  # a table's first images looked at for an article picture
MAX_TABLE_CELL_CHARS = 400  # a table with a longer cell lays out a page, it holds no data
# Elements that make a table a layout grid rather than a data table.
_LAYOUT_TAGS = frozenset("table div section article ul ol h1 h2 h3 h4 h5 h6 blockquote figure pre form "
                         "header footer nav aside main".split())
_HEADINGS = {f"h{n}": n for n in range(1, 7)}
# A line in bold alone, written in Han characters, of at most this many characters is a subheading:
# Chinese pages mark sections so.  Elsewhere bold lines are mostly emphasis: on fundus (41
# countries) taking them as headings moved subheading recall/precision 0.921/0.837 -> 0.951/0.756.
BOLD_HEADING_MAX_CHARS = 30
LINKED_HEADING_SHARE = 0.5  # of a heading's characters in links: a teaser headline
# Paragraphs a CMS writes as a list's items, a bullet or a number before their text.
MIN_MARKED_ITEMS = 2
_BULLET = re.compile(r"[•▪◦●■►‣✓✔☐☑]\s+(?=\S)")  # ☐ ☑: a checklist's boxes (dom.mark_checklist_boxes)
_NUMBERED = re.compile(r"(\d{1,2})[.)]\s+(?=\S)")
# The class or id token of a call-to-action box (wp-block-cta, hs-cta-wrapper, cta-banner), not of
# what stands beside one ("above-cta", "has-cta").
_CALL_TO_ACTION_MARKUP = re.compile(
    r"(?:^|[-_\s])(?<!above-)(?<!below-)(?<!before-)(?<!after-)(?<!has-)(?<!with-)(?<!no-)cta(?:$|[-_\s])",
    re.IGNORECASE)
HEADING_DEK_CHARS = 60  # a heading this long before the body's first paragraph is a dek
# A subtree the body method left out still shows the article's pictures when it is a picture with
# its caption: this many images at most, a caption's length of text, links on at most this share of
# it (fundus: left-out subtrees so bounded hold 71 of the expected images and 19 others).
MAX_LEFT_OUT_PICTURES = 3
MAX_LEFT_OUT_CAPTION_CHARS = 500
LEFT_OUT_LINK_SHARE = 0.1
_SENTENCE_END = tuple(".!?。！？…:;,，；：")
_EMPHASIS = ("strong", "em")


# A list item holding a heading and at most this many characters more is that heading's item.
HEADED_ITEM_SLACK = 2


def _start(item: html.HtmlElement) -> int:
    """The number of the ``<li>`` ``item`` when it opens an ``<ol start="N">`` (a list the page
    goes on after an interruption), else 0: the writer counts."""
    parent = item.getparent()
    start = parent.get("start", "") if parent is not None and parent.tag == "ol" else ""
    if not start.isdecimal() or len(start) > 6 or next(parent.iterchildren("li"), None) is not item:
        return 0
    return int(start)


def _code(raw: str) -> str:
    """A ``<pre>``'s text as the page lays it out: its lines and their indentation kept, the
    blank lines around it and the spaces closing each line dropped (``text`` holds it with its white
    space collapsed, as a browser's reader view copies it)."""
    lines = [line.rstrip() for line in raw.replace("\xa0", " ").expandtabs(4).split("\n")]
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines)


class _Walker:
    def __init__(self, root, skip, base_url, page_url, fallbacks, holders=()):
        self.root, self.skip = root, set(skip)
        self.base_url, self.page_url, self.fallbacks = base_url, page_url, fallbacks or {}
        self.holders = holders or set()  # pictures only a script draws (img_fields.noscript_holders)
        # Figure-less blocks of a picture and its caption, walked as figures.
        self.captioned = {found for img in root.iter("img")
                          if (found := img_fields.captioned_block(img)) is not None}
        self.blocks: list[Block] = []
        self.stack: list[html.HtmlElement] = []  # open structural elements
        self.marks: list[tuple] = []  # inline marks open now: (element, mark, href, a link within the site)
        self.plain: list[str] = []
        self.tokens: list[tuple] = []
        self.marked = False  # whether ``tokens`` holds marks
        self.pending_images: list[dict] = []
        self.broken = False  # whether the paragraph being built follows a <br>
        self.bold = self.chars = self.linked = 0
        self.strong = self.linking = 0  # <strong>/<b>, <a href> to the page's site open now
        self.site = dom.host_of(page_url) if page_url else None

    # --- the paragraph being built ---------------------------------------------------------------
    def text(self, value: str) -> None:
        self.plain.append(value)
        self.tokens.append(("t", value))
        n = len(value.strip())
        self.chars += n
        if self.strong:
            self.bold += n
        if self.linking:
            self.linked += n

    def flush(self) -> None:
        if self.plain:
            raw = "".join(self.plain)
            line = dom.normalize_space(raw)
            if line:
                # Text alone renders as the line itself (the tokens' white space collapsed as in it)
                md, out = inline.render(self.tokens) if self.marked else inline.render_text(line)
                self.blocks.append(self._paragraph(line, md, out, raw))
            self.plain = []
        if self.pending_images:
            self.blocks.extend(_image_block(image) for image in self.pending_images)
            self.pending_images = []
        if self.tokens:
            self.tokens = [("o", m[1], m[2]) for m in self.marks] if self.marks else []
            self.marked = bool(self.marks)
        self.bold = self.chars = self.linked = 0

    def _paragraph(self, line: str, md: str, out: str, raw: str) -> Block:
        tags = [el.tag for el in self.stack]
        quote = tags.count("blockquote")
        heading = next((_HEADINGS[tag] for tag in reversed(tags) if tag in _HEADINGS), 0)
        lists = [tag for tag in tags if tag in ("ul", "ol")]
        if heading and lists and "li" in tags and self._heading_is_the_item(line):
            heading = 0  # a list's items set as headings (<li><h3>hemp</h3></li>) are its items
        if heading and self.linked >= LINKED_HEADING_SHARE * self.chars and not _NUMBERED.match(line):
            heading = 0  # a heading linked within the site is a teaser's headline: another article's,
            # not a ranking's numbered entry ("2. <a>Stanford GSB</a>", its own page linked)
        if heading and any(_CALL_TO_ACTION_MARKUP.search(descriptor(el)) for el in self.stack):
            heading = 0  # a call-to-action box's title ("Sign up and try it free"), not a section's
        if heading:  # a heading is bold already: its emphasis is dropped, its links kept
            if self.marked:
                md, out = inline.render([t for t in self.tokens if t[0] == "t" or t[1] not in _EMPHASIS])
            return Block("h", [line], md, out, level=max(2, heading), quote=quote)
        if "li" in tags and lists:
            item = next(el for el in reversed(self.stack) if el.tag == "li")
            return Block("li", [line], md, out, level=len(lists), ordered=lists[-1] == "ol", quote=quote,
                         item=item, broken=self.broken, number=_start(item))
        if "pre" in tags:
            code = _code(raw)
            return Block("pre", [line], code, html_lib.escape(code, quote=False), quote=quote,
                         item=next(el for el in reversed(self.stack) if el.tag == "pre"))
        if self.chars and self.bold >= self.chars and _bold_heading(line) and \
                not any(tag in ("td", "th", "a", "figcaption") for tag in tags):
            plain_md, plain_html = inline.render_text(line)
            return Block("h", [line], plain_md, plain_html, level=3, quote=quote)
        return Block("p", [line], md, out, quote=quote)

    def _heading_is_the_item(self, line: str) -> bool:
        """Whether the list item open now holds nothing but the heading ``line`` (an item set as a
        heading), not a section of its own under it (a numbered listicle's ``<li><h2>…</h2><p>``)."""
        item = next(el for el in reversed(self.stack) if el.tag == "li")
        return dom.non_space_len(item.text_content()) <= dom.non_space_len(line) + HEADED_ITEM_SLACK

    # --- the walk ------------------------------------------------------------------------------
    def walk(self) -> list[Block]:
        root, skip, stack, flush, text = self.root, self.skip, self.stack, self.flush, self.text
        block_tags, marks = dom.BLOCK_TAGS, inline.MARKS
        walker = etree.iterwalk(root, events=("start", "end"))
        for ev, el in walker:
            tag = el.tag
            if not isinstance(tag, str):
                tag = ""
            if ev == "start":
                if el in skip:
                    self._left_out_pictures(el)
                    walker.skip_subtree()
                    continue
                if tag == "table" and _data_table(el) and not self._pictured(el):
                    flush()
                    self.blocks.append(self._table(el))
                    walker.skip_subtree()
                    continue
                if (tag == "figure" or el in self.captioned) and (found := self._figure(el)) is not None:
                    flush()
                    self.blocks.append(found)
                    walker.skip_subtree()
                    continue
                if el in self.holders:
                    if (found := self._image(el)) is not None:
                        self.pending_images.append(found)
                    walker.skip_subtree()
                    continue
                block = tag in block_tags
                if (block or tag == "br") and (self.plain or self.tokens or self.pending_images):
                    flush()  # (nothing to flush otherwise: most boundaries follow another)
                if block or tag == "br":
                    self.broken = tag == "br"
                if tag in marks:
                    self._open(el, marks[tag])
                if block:
                    stack.append(el)
                if el.text:
                    text(el.text)
            else:
                if tag in block_tags and el not in skip:
                    if self.plain or self.tokens or self.pending_images:
                        flush()
                    self.broken = False
                elif tag == "img":
                    self.plain.append(" ")
                    self.tokens.append(("t", " "))
                    if el not in skip and (found := self._image(el)) is not None:
                        self.pending_images.append(found)
                if stack and stack[-1] is el:
                    stack.pop()
                if self.marks and self.marks[-1][0] is el:
                    _, mark, _, within_site = self.marks.pop()
                    self.tokens.append(("c", mark))
                    self.marked = True
                    if mark == "strong":
                        self.strong -= 1
                    elif within_site:
                        self.linking -= 1
                if el is not root and el.tail:
                    text(el.tail)
        flush()
        return self.blocks

    def _open(self, el, mark: str) -> None:
        href = None
        if mark == "a":
            href = safe_url(el.get("href"), self.base_url)
            if href is None:
                return
        within_site = mark == "a" and self._same_site(href)  # read once: the close reuses it
        self.marks.append((el, mark, href, within_site))
        self.tokens.append(("o", mark, href))
        self.marked = True
        if mark == "strong":
            self.strong += 1
        elif within_site:
            self.linking += 1

    def _same_site(self, href: str) -> bool:
        """Whether ``href`` leads to the page's own site (any link does when the page's address is
        unknown): a heading linked to another site names a thing (a brand, a product, a venue) the
        section is about, one linked within the site is a teaser of another of its pages."""
        return self.site is None or dom.host_of(href) == self.site

    def _pictured(self, table) -> bool:
        """Whether ``table`` shows an article picture: a grid of pictures and their captions, walked
        as blocks (the pictures listed, the captions lines) rather than rendered as data."""
        return any(self._image(img) is not None for img in islice(table.iter("img"), MAX_TABLE_PICTURES))

    def _pictures(self, el):
        """``el``'s ``<img>`` elements and the pictures only a script draws, in page order."""
        if not self.holders:
            return el.iter("img")
        return (d for d in el.iter() if d.tag == "img" or d in self.holders)

    def _image(self, img) -> dict | None:
        if img in self.holders:  # at the page's own copy for readers without scripts
            return describe_image(img, self.base_url, self.page_url, self.fallbacks, shown=True,
                                  source=self.fallbacks[img])
        return describe_image(img, self.base_url, self.page_url, self.fallbacks, shown=True)

    def _left_out_pictures(self, el) -> None:
        """The pictures of a subtree the body method left out of ``text`` (a figure whose caption
        is no body text, a picture wrapper with no text at all), listed where they stand: a
        subtree with at most :data:`MAX_LEFT_OUT_PICTURES` images, a caption's length of text and
        no links (teasers of other articles and link boxes have linked text)."""
        pictures = list(islice(self._pictures(el), MAX_LEFT_OUT_PICTURES + 1))
        if not pictures or len(pictures) > MAX_LEFT_OUT_PICTURES:
            return
        chars = 0
        for text in el.itertext():  # read up to the cap only: a left-out comment section is long
            chars += dom.non_space_len(text)
            if chars > MAX_LEFT_OUT_CAPTION_CHARS:
                return
        linked = sum(dom.non_space_len(dom.node_text(a)) for a in el.iter("a") if a.get("href"))
        if linked > LEFT_OUT_LINK_SHARE * chars:
            return
        self.pending_images.extend(found for img in pictures if (found := self._image(img)) is not None)

    def _figure(self, figure) -> Block | None:
        skip = self.skip
        found = [i for el in self._pictures(figure)
                 if not _skipped(el, figure, skip) and (i := self._image(el))]
        if not found:
            return None
        lines = dom.render_paragraphs(figure, self.skip)
        # Lines the page marks as the pictures' captions and credits, or only saying "Photo".
        marked = any(i[SHOWN] != (None, None) for i in found) or \
            all(img_fields.no_generic(line) is None for line in lines)
        return Block("figure", lines, images=found, captioned=marked)

    def _table(self, table) -> Block:
        """The table's block: its lines now (:func:`align` matches them), its cells rendered only
        when the block is kept (:func:`_serialise`): a page's tables are often furniture."""
        skip = self.skip
        return Block("table", dom.render_paragraphs(table, skip), finish=lambda: _table_parts(table, skip))


def _table_parts(table, skip: set) -> tuple[str, str, dict[str, int]]:
    """Markdown, HTML and the parts over a cap of the data table ``table`` minus ``skip``."""
    # The compiled render_paragraphs copies its skip set on each call: one cell's call would copy
    # every skipped element of the page.
    skip = skip.intersection(table.iter()) if skip else skip
    rows: list[list[tuple[str, bool]]] = []
    for tr in table.iter("tr"):
        if _skipped(tr, table, skip):
            continue
        cells = []
        for cell in tr:
            if cell.tag not in ("td", "th") or cell in skip:
                continue
            if len(cell):
                text = " ".join(dom.render_paragraphs(cell, skip))
            else:  # text alone (most cells): what render_paragraphs would make of it
                text = dom.normalize_space(cell.text)
            cells.append((text, cell.tag == "th"))
        if cells:
            rows.append(cells)
    capped = {}
    if len(rows) > MAX_TABLE_ROWS:
        capped["table_rows"] = len(rows) - MAX_TABLE_ROWS
        rows = rows[:MAX_TABLE_ROWS]
    width = max((len(r) for r in rows), default=0)
    if width > MAX_TABLE_COLUMNS:
        capped["table_columns"] = width - MAX_TABLE_COLUMNS
        width = MAX_TABLE_COLUMNS
    rows = [(r + [("", False)] * width)[:width] for r in rows]
    return table_markdown(rows), table_html(rows), capped


def _skipped(el, top, skip: set) -> bool:
    node = el
    while node is not None:
        if node in skip:
            return True
        if node is top:
            return False
        node = node.getparent()
    return False


def describe_image(img, base_url: str | None, page_url: str | None, fallbacks: dict | None,
                   shown: bool = False, source: str | None = None) -> dict | None:
    """``{url, caption, alt, credit}`` of an article picture (at ``source`` when given, else where
    :func:`..fields.images.image_source` finds it), or None for furniture or no usable URL; with
    ``shown``, also the caption and credit the page marks (rendered with it, not exported)."""
    url = img_fields.absolute(source or img_fields.image_source(img, fallbacks), base_url)
    url = safe_url(url, None, IMAGE_SCHEMES) if url else None
    if url is None or img_fields.is_furniture(img, url, page_url):
        return None
    caption, credit = img_fields.caption_and_credit(img)
    alt = dom.normalize_space(img.get("alt")) or None
    found = {"url": url, "caption": caption, "alt": alt, "credit": credit}
    if shown:
        found[SHOWN] = (caption, credit)
    if caption is None:
        # No caption shown: the picture's title, else its alt text, where CMSs put the caption they
        # do not show (fundus caption F1 0.439 -> 0.524; alt within <figure> only: 0.470).
        found["caption"] = img_fields.no_generic(dom.normalize_space(img.get("title")) or alt)
    return found


def _bold_heading(line: str) -> bool:
    return len(line) <= BOLD_HEADING_MAX_CHARS and not line.endswith(_SENTENCE_END) and \
        _HAN.search(line) is not None


def _data_table(table) -> bool:
    """A table of data (cells of inline text, two columns or more), not a layout grid."""
    layout = table.iter(*_LAYOUT_TAGS)
    next(layout)  # the table itself
    if next(layout, None) is not None:
        return False
    widest = 0
    for el in table.iter("tr", "td", "th"):
        if el.tag == "tr":
            widest = max(widest, sum(1 for c in el if c.tag in ("td", "th")))
        elif _longer_than(el, MAX_TABLE_CELL_CHARS):
            return False
    return widest >= 2


def _longer_than(el, chars: int) -> bool:
    """Whether the table cell ``el`` holds more than ``chars`` characters besides white space.
    Its text is serialised by libxml2 (the text ``itertext`` yields, ~10x faster on cells with
    markup); a cell holds no table (:func:`_data_table` checked that first), so each character
    of a table is read once."""
    text = el.text if not len(el) else etree.tostring(el, method="text", encoding=str, with_tail=False)
    return text is not None and len(text) > chars and dom.non_space_len(text) > chars


def _image_block(image: dict) -> Block:
    return Block("image", [], images=[image])


def align(blocks: list[Block], lines: list[str]) -> list[Block]:
    """The blocks whose lines are ``lines``' next ones, in order, with every line of ``lines``
    no block covers as a plain paragraph; images and figures between kept blocks kept."""
    starts: dict[str, list[int]] = defaultdict(list)
    for j, block in enumerate(blocks):
        if block.lines:
            starts[block.lines[0]].append(j)
    out: list[Block] = []
    matched = 0
    i = j = 0
    while i < len(lines):
        if j < len(blocks):
            block = blocks[j]
            n = len(block.lines)
            if block.kind in ("image", "figure") and (n == 0 or lines[i:i + n] != block.lines):
                if block.kind == "figure":
                    block = Block("figure", [], images=block.images, captioned=block.captioned)
                out.append(block)
                j += 1
                continue
            if n and lines[i:i + n] == block.lines:
                out.append(block)
                matched += 1
                i += n
                j += 1
                continue
        later = starts.get(lines[i], [])
        k = bisect_left(later, j + 1)  # block j itself did not match: each step moves i or j on
        if k < len(later):
            # The blocks before it are lines the method dropped; their pictures are kept, as
            # everywhere else (above the first kept line stands the lead picture: fundus top
            # image 0.752 -> 0.785, image recall 0.695 -> 0.708).
            out.extend(Block("image", [], images=b.images) for b in blocks[j + 1:later[k]]
                       if b.kind in ("image", "figure"))
            j = later[k]
            continue
        md, out_html = inline.render_text(lines[i])
        out.append(Block("p", [lines[i]], md, out_html))
        i += 1
    if not matched:
        return [b for b in out if b.kind == "p"]
    out.extend(Block("image", [], images=b.images) for b in blocks[j:] if b.kind in ("image", "figure"))
    return out


def render_body(root, skip, lines: list[str], base_url: str | None, page_url: str | None,
                fallbacks: dict | None = None, holders: set | None = None) -> Rendering:
    """Markdown, HTML, images and headings of the body ``root`` minus ``skip``, holding ``lines``
    (``fallbacks``, ``holders``: :func:`..fields.images.noscript_images` and ``noscript_holders``)."""
    built = _Walker(root, skip, base_url, page_url, fallbacks, holders).walk() if root is not None else []
    return serialise(_marked_lists(_empty_headings_demoted(_deks_demoted(align(built, lines)))))


def _marked_lists(blocks: list[Block]) -> list[Block]:
    """Paragraphs written as a list's items, rendered as the list's items, their markers left to
    the list (their lines in ``text`` keep them).

    Bullets (``• …<br>• …``): :data:`MIN_MARKED_ITEMS` or more in a row (wcxb list-item recall
    0.656 -> 0.664, both site halves, precision unchanged).  Numbers: :data:`MIN_MARKED_ITEMS` or
    more paragraphs counting up by one from 1, or from the item after an ``<ol>`` they follow (a
    list the editor went on writing by hand), with other blocks but headings allowed between
    them: a listicle's numbered entries, each followed by its explanation or picture, are the
    entries of one list (wcxb list-item recall 0.845 -> 0.851, both site halves).  Each numbered
    item keeps the page's number."""
    bullets: list[tuple[Block, int, int]] = []  # (paragraph, length of its marker, its number)
    numbered: list[tuple[Block, int, int]] = []
    ol_items: set[html.HtmlElement] = set()  # the <li>s of the <ol> just passed, at the outer level

    def close(run: list[tuple[Block, int, int]], ordered: bool) -> None:
        if len(run) >= MIN_MARKED_ITEMS:
            for item, cut, number in run:
                _as_item(item, cut, ordered, number)
        run.clear()

    for block in blocks:
        if block.kind in ("image", "figure") and not block.lines:
            continue  # a picture between items stays where it is
        found = _item_marker(block) if block.kind == "p" and not block.quote else None
        if found is None or found[1]:
            close(bullets, False)
        if found is None:
            if block.kind == "h":
                close(numbered, True)  # a section of its own: its numbers start another list
            if block.kind == "li" and block.ordered and block.level == 1:
                ol_items.add(block.item)
            elif block.kind == "li" and block.level > 1 and ol_items:
                pass  # a list nested in one of the <ol>'s items: the <ol> goes on after it
            else:
                ol_items.clear()
            continue
        cut, ordered, number = found
        if not ordered:
            bullets.append((block, cut, 0))
        elif numbered and number == numbered[-1][2] + 1 or not numbered and number in (1, len(ol_items) + 1):
            numbered.append((block, cut, number))
        else:
            close(numbered, True)
            if number == 1:
                numbered.append((block, cut, number))
        ol_items.clear()
    close(bullets, False)
    close(numbered, True)
    return blocks


def _item_marker(block: Block) -> tuple[int, bool, int] | None:
    """``(length of the marker, ordered, number)`` when the paragraph ``block`` starts with a
    bullet or a number as a list item does."""
    line = block.lines[0]
    if (bullet := _BULLET.match(line)) is not None:
        return bullet.end(), False, 0
    if (number := _NUMBERED.match(line)) is not None:
        return number.end(), True, int(number.group(1))
    return None


def _as_item(block: Block, cut: int, ordered: bool, number: int) -> None:
    """The paragraph ``block`` as a list item numbered ``number`` (0: a bullet's), its first ``cut``
    characters (the marker) left out."""
    marker = block.lines[0][:cut].rstrip()
    escaped = html_lib.escape(marker, quote=False)
    block.kind, block.level, block.ordered, block.number = "li", 1, ordered, number
    if block.md.startswith(marker) and block.html.startswith(escaped):
        block.md, block.html = block.md[len(marker):].lstrip(), block.html[len(escaped):].lstrip()
    else:  # the marker inside emphasis or a link: the item's text alone
        block.md, block.html = inline.render_text(block.lines[0][cut:])


def _deks_demoted(blocks: list[Block]) -> list[Block]:
    """A heading of :data:`HEADING_DEK_CHARS` or more before the body's first paragraph is the
    article's dek (standfirst) or its headline set again with a kicker, not a section's title:
    rendered as a paragraph (fundus subheading precision 0.837 -> 0.863, recall unchanged)."""
    for block in blocks:
        if block.kind == "h":
            if len(block.lines[0]) >= HEADING_DEK_CHARS:
                block.kind = "p"
        elif block.kind not in ("image", "figure"):
            break
    return blocks


def _empty_headings_demoted(blocks: list[Block]) -> list[Block]:
    """A heading with no text after it before the next heading of its level or above, or the
    end, heads nothing: a teaser box's or a video strip's title left in the body ("Weitere
    Videos"), rendered as a paragraph (fundus subheading precision: see docs/accuracy.md).  A
    heading shorter than :data:`HEADING_DEK_CHARS` followed by a deeper one that heads text heads
    a section of sections (``<h2>`` then ``<h3>``: subheading recall wcxb 0.795 -> 0.832, fundus
    0.898 -> 0.903); a longer one is a teaser's headline over its parts.  A heading over a picture
    (one without a caption) heads the picture, a product's or a gallery's section, unless it is the
    last or a heading of a higher level follows (subheading recall/precision fundus 0.903/0.879 ->
    0.913/0.880, wcxb 0.907/0.8478 -> 0.909/0.8479: 29 headings kept, 7 of 7 and 22 of 25 the
    truth's).  Read from the end, so that each heading's follower is already judged."""
    following = None  # the next block with text: kind, level, whether a heading demoted
    pictured = False  # a picture without a caption between this block and ``following``
    for block in reversed(blocks):
        if block.kind in ("image", "figure") and not block.lines:
            pictured = True
            continue
        here = (block.kind, block.level)
        if block.kind == "h":
            before_heading = following is not None and following[0] == "h"
            closed = following is None or before_heading and following[1] < block.level
            unheaded = before_heading and (following[1] == block.level or following[2]
                                           or len(block.lines[0]) >= HEADING_DEK_CHARS)
            if closed or unheaded and not pictured:
                block.kind = "p"
        following = (*here, block.kind == "p")
        pictured = False
    return blocks


