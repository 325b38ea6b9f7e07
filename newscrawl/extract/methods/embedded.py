"""``embedded`` — the article a page carries as data rather than as markup (docs/methods.md,
"Embedded data").

Single-page-app sites send a shell whose body a script fills from a JSON blob in the page:
Next.js' ``<script id="__NEXT_DATA__">``, Nuxt's ``window.__NUXT__=``, Redux-style
``window.__INITIAL_STATE__=`` / ``__PRELOADED_STATE__=``, Arc's ``Fusion.globalContent=``, or
the JSON-LD ``articleBody``.  The blobs are untrusted: each is located in linear time, refused
over :data:`MAX_BLOB_CHARS`, parsed with :mod:`json` (never evaluated: a blob that is a
JavaScript expression rather than JSON is skipped), and walked iteratively within
:data:`MAX_NODES`.  The article is the object of the right *shape* — a title, and a body that is
a long string (HTML or plain text) or a list of typed content elements — whatever its keys are
called.  Its body is built as HTML and rendered like any other body, so ``text``, ``markdown``
and ``html`` hold the same paragraphs, headings, lists and images.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from lxml import etree, html

from .. import dom
from ..body import Body
from ..fields.title import similarity
from ..page import Page

# A blob over this many characters is not read (Page.from_html bounds the page at 8 M).
MAX_BLOB_CHARS = 5_000_000
# JSON values visited per blob: a state store of a large site holds a few tens of thousands.
MAX_NODES = 200_000
# An article object's title this alike to the page's title is the page's (He 2019's measure).
TITLE_SIMILARITY = 0.6
# Rich-text nodes nested deeper than this are not followed.
MAX_ELEMENT_DEPTH = 20
# A body shorter than this is a teaser, not an article.
MIN_BODY_CHARS = 200

# A DOM body holding this share of the words of the page's JSON-LD articleBody holds the article;
# the element that does is the article, unless its text is this many times as long.
COVER_SHARE = 0.8
MAX_COVER_GROWTH = 3.0
# The articleBody's first words, looked for in the DOM; a DOM line of the articleBody is this long
# or three words (a bare "Politics" of a menu is found in many texts).
OPENING_WORDS = 8
MIN_LINE_CHARS = 20

# The opening of a script element, the end of its tag, its closing; the assignment of a state
# blob.  Each is matched once per position (no nested quantifiers): linear time.
_SCRIPT_OPEN = re.compile(r"<script\b", re.IGNORECASE)
_SCRIPT_CLOSE = re.compile(r"</script>", re.IGNORECASE)
_NEXT_DATA = re.compile(r"""\bid\s*=\s*["']?__NEXT_DATA__""", re.IGNORECASE)
_ASSIGNMENT = re.compile(
    r"(?:__NUXT__|__INITIAL_STATE__|__PRELOADED_STATE__|Fusion\.globalContent)\s*=\s*")
_HTML_TAG = re.compile(r"</?[a-zA-Z]")  # markup in a string: parse it as HTML
_TITLE_KEY = re.compile(r"headline|title", re.IGNORECASE)
_DATE_KEY = re.compile(r"publish|first_?pub|date_?pub|created|display_?date|^date$", re.IGNORECASE)
_AUTHOR_KEY = re.compile(r"author|byline|credits|writer", re.IGNORECASE)
_URL_KEY = re.compile(r"^(?:url|src|href|image_?url|resized_url)$", re.IGNORECASE)
_TEXT_KEYS = ("content", "text", "html", "value", "body", "children")
_PARAGRAPH_KINDS = frozenset({"", "p", "html", "raw_html"})
_TYPE_KEYS = ("type", "_type", "__typename", "kind", "blockType", "nodeType")

_WORD = re.compile(r"\w+")
_BLOCK_TAGS = frozenset({"p", "div", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "figure", "img",
                         "blockquote", "table", "pre", "section", "picture"})
_DECODER = json.JSONDecoder()


@dataclass
class EmbeddedBody(Body):
    """A body built from page data, with the title, date and authors the data gives."""

    title: str | None = None
    published: str | None = None
    authors: list[str] = field(default_factory=list)


def blobs(page: Page) -> list[tuple[str, object]]:
    """``(source, parsed value)`` of each embedded data blob of the page, in page order; a
    blob too large, invalid, or not JSON (a JavaScript function) is left out."""
    found: list[tuple[str, object]] = []
    source = page.text
    pos = 0
    while (opening := _SCRIPT_OPEN.search(source, pos)) is not None:
        tag_end = source.find(">", opening.end())
        closing = _SCRIPT_CLOSE.search(source, tag_end + 1) if tag_end >= 0 else None
        if closing is None:
            break
        pos = closing.end()
        start, end = tag_end + 1, closing.start()
        if end - start > MAX_BLOB_CHARS:
            continue
        if _NEXT_DATA.search(source, opening.end(), tag_end):
            value = _parsed(source[start:end].strip())
            if value is not None:
                found.append(("next", value))
            continue
        assignment = _ASSIGNMENT.search(source, start, end)
        if assignment is not None:
            value = _parsed(source[assignment.end():end], prefix=True)
            if value is not None:
                found.append(("state", value))
    return found


def _parsed(text: str, prefix: bool = False) -> object | None:
    """The JSON value ``text`` holds (``prefix``: the value it starts with, a ``;`` and more
    script may follow), or None: invalid, too deep, or an expression (``(function(a){...``)."""
    if text[:1] not in ("{", "["):
        return None
    try:
        return _DECODER.raw_decode(text)[0] if prefix else json.loads(text)
    except (ValueError, RecursionError):
        return None


def _walk(value: object):
    """Every dict inside ``value``, breadth first, at most :data:`MAX_NODES` values visited."""
    queue = [value]
    visited = 0
    while queue and visited < MAX_NODES:
        next_level = []
        for item in queue:
            visited += 1
            if visited > MAX_NODES:
                return
            if isinstance(item, dict):
                yield item
                next_level.extend(v for v in item.values() if isinstance(v, dict | list))
            elif isinstance(item, list):
                next_level.extend(v for v in item if isinstance(v, dict | list))
        queue = next_level


def _title_of(obj: dict) -> str | None:
    for key, value in obj.items():
        if isinstance(key, str) and _TITLE_KEY.search(key):
            if isinstance(value, dict):  # Arc: "headlines": {"basic": ...}
                value = next((v for v in value.values() if isinstance(v, str) and v.strip()), None)
            if isinstance(value, str) and 0 < len(value.strip()) <= 500:
                return dom.normalize_space(value)
    return None


def _is_element(item: object) -> bool:
    return isinstance(item, dict) and any(isinstance(item.get(k), str) for k in _TYPE_KEYS)


def _element_text_length(items: list) -> int:
    total = 0
    for item in items:
        if isinstance(item, dict):
            for key in _TEXT_KEYS:
                if isinstance(item.get(key), str):
                    total += len(item[key])
                    break
    return total


def _body_of(obj: dict) -> tuple[int, object] | None:
    """``(length, body)`` of the longest body-shaped value of ``obj``: a long string, or a list
    of typed content elements (Arc's ``content_elements``, a CMS's ``blocks``)."""
    best: tuple[int, object] | None = None
    for key, value in obj.items():
        if isinstance(key, str) and _TITLE_KEY.search(key):
            continue
        if isinstance(value, str):
            size = len(value)
        elif isinstance(value, list) and value and sum(map(_is_element, value)) * 2 >= len(value):
            size = _element_text_length(value)
        else:
            continue
        if size >= MIN_BODY_CHARS and (best is None or size > best[0]):
            best = (size, value)
    return best


def _names(title: str, references: list[str]) -> bool:
    """Whether ``title`` is the page's own (its ``<title>``, ``og:title``: one holds the other, or
    they are alike), not an author's job title or a teaser's headline."""
    folded = title.casefold()
    return any(folded in ref.casefold() or ref.casefold() in folded
               or similarity(title, ref) >= TITLE_SIMILARITY for ref in references)


def find_article(values: list[object], titles: list[str] | None = None) -> tuple[dict, object] | None:
    """``(the article object, its body)``: of the objects with a title (one of ``titles``, the
    page's, when there are any) and a body, the one with the longest body."""
    best = None
    for value in values:
        for obj in _walk(value):
            body = _body_of(obj)
            if body is None:
                continue
            title = _title_of(obj)
            if title is None or (titles and not _names(title, titles)):
                continue
            if best is None or body[0] > best[0]:
                best = (body[0], obj, body[1])
    return None if best is None else (best[1], best[2])


def _html_fragment(text: str) -> html.HtmlElement | None:
    try:
        fragment = html.fragment_fromstring(text, create_parent="div")
    except (etree.ParserError, ValueError):
        return None
    dom.remove_noise(fragment)
    return fragment


def _plain(container: html.HtmlElement, text: str, tag: str = "p") -> None:
    for line in text.splitlines():
        if line.strip():
            etree.SubElement(container, tag).text = line.strip()


def _text_of(item: dict) -> str | None:
    for key in _TEXT_KEYS:
        value = item.get(key)
        if isinstance(value, str) and value.strip():
            return value
    return None


def _url_of(item: object, depth: int = 0) -> str | None:
    """The first URL-keyed string of an image element (nested ``{"url": ...}`` objects too)."""
    if not isinstance(item, dict) or depth > 3:
        return None
    for key, value in item.items():
        if isinstance(value, str) and isinstance(key, str) and _URL_KEY.match(key) and value.strip():
            return value.strip()
    for value in item.values():
        if isinstance(value, dict) and (url := _url_of(value, depth + 1)):
            return url
    return None


def _append_html(container: html.HtmlElement, text: str) -> None:
    fragment = _html_fragment(text) if _HTML_TAG.search(text) else None
    if fragment is None:
        _plain(container, text)
        return
    if not any(child.tag in _BLOCK_TAGS for child in fragment):  # one run of inline text
        fragment.tag = "p"
        container.append(fragment)
        return
    if fragment.text and fragment.text.strip():
        etree.SubElement(container, "p").text = fragment.text.strip()
    for child in list(fragment):
        container.append(child)


def _flat(text: str) -> str:
    """``text`` without its inline markup."""
    fragment = _html_fragment(text) if "<" in text else None
    return dom.normalize_space(fragment.text_content() if fragment is not None else text)


def _append_element(container: html.HtmlElement, item: dict, depth: int = 0) -> None:
    """One typed content element as HTML: heading, list, image, quote or paragraph."""
    kind = next((item[k] for k in _TYPE_KEYS if isinstance(item.get(k), str)), "").lower()
    if "image" in kind or "photo" in kind or "picture" in kind:
        url = _url_of(item)
        if url:
            figure = etree.SubElement(container, "figure")
            etree.SubElement(figure, "img", src=url, alt=str(item.get("alt_text") or item.get("alt") or ""))
            caption = item.get("caption")
            if isinstance(caption, str) and caption.strip():
                etree.SubElement(figure, "figcaption").text = dom.normalize_space(caption)
        return
    if "list" in kind and isinstance(item.get("items"), list):
        listing = etree.SubElement(container, "ol" if item.get("list_type") == "ordered" else "ul")
        for entry in item["items"]:
            text = _text_of(entry) if isinstance(entry, dict) else entry if isinstance(entry, str) else None
            if text:
                li = etree.SubElement(listing, "li")
                li.text = _flat(text)
        return
    text = _text_of(item)
    if text is None:
        if isinstance(item.get("children"), list) and depth < MAX_ELEMENT_DEPTH:  # a tree of nodes
            for child in item["children"]:
                if isinstance(child, dict):
                    _append_element(container, child, depth + 1)
        return
    if "head" in kind or "title" in kind:
        level = item.get("level")
        tag = f"h{level}" if isinstance(level, int) and 2 <= level <= 6 else "h2"
        etree.SubElement(container, tag).text = _flat(text)
    elif "quote" in kind:
        quote = etree.SubElement(container, "blockquote")
        _append_html(quote, text)
    elif kind in _PARAGRAPH_KINDS or "text" in kind or "paragraph" in kind:  # not an ad, a link box
        _append_html(container, text)


def body_element(body: object) -> html.HtmlElement:
    """The article body as an HTML ``<div>``: an HTML string parsed, plain text a paragraph a
    line, content elements each as its HTML."""
    container = html.Element("div")
    if isinstance(body, str):
        _append_html(container, body)
    else:
        for item in body:
            if isinstance(item, dict):
                _append_element(container, item)
    return container


def _authors_of(obj: dict) -> list[str]:
    for key, value in obj.items():
        if not (isinstance(key, str) and _AUTHOR_KEY.search(key)):
            continue
        if isinstance(value, dict):
            value = next((v for v in value.values() if isinstance(v, list | str)), None)
        items = value if isinstance(value, list) else [value]
        names = []
        for item in items:
            name = item.get("name") or item.get("byline") if isinstance(item, dict) else item
            if isinstance(name, str) and 0 < len(name.strip()) <= 100:
                names.append(dom.normalize_space(name))
        if names:
            return names
    return []


def _date_of(obj: dict) -> str | None:
    for key, value in obj.items():
        if isinstance(key, str) and _DATE_KEY.search(key) and isinstance(value, str | int | float) \
                and not isinstance(value, bool):
            return str(value)
    return None


def json_ld_body(page: Page) -> str | None:
    """The longest JSON-LD ``articleBody`` of the page, when it has one of some length."""
    bodies = [o["articleBody"] for o in page.json_ld if isinstance(o.get("articleBody"), str)]
    best = max(bodies, key=len, default="")
    return best if len(best) >= MIN_BODY_CHARS else None


def _words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text)}


def covers(text: str, declared: str) -> bool:
    """Whether ``text`` holds :data:`COVER_SHARE` of the words of ``declared``."""
    wanted = _words(declared)
    return bool(wanted) and len(wanted & _words(text)) >= COVER_SHARE * len(wanted)


def _opening(declared: str) -> str:
    """The first words of ``declared``, as an element's own text would start them."""
    return " ".join(declared.split()[:OPENING_WORDS])


def covering_element(block: html.HtmlElement, declared: str) -> html.HtmlElement | None:
    """The nearest element around ``block``, or else around the element whose text opens
    ``declared`` (the page's ``articleBody``), whose text covers ``declared``; None where that
    element is so much longer that it is the whole page rather than the article
    (:data:`MAX_COVER_GROWTH`)."""
    opening = _opening(declared)
    starts = [block]
    for el in block.getroottree().getroot().iter():
        if isinstance(el.tag, str) and el.text and opening in dom.normalize_space(el.text):
            starts.insert(0, el)
            break
    for start in starts:
        for el in (start, *start.iterancestors()):
            text = el.text_content()
            if covers(text, declared):
                if len(text) <= MAX_COVER_GROWTH * len(declared):
                    return el
                break
    return None


def declared_lines(root: html.HtmlElement, declared: str) -> list[str]:
    """The lines of ``root`` that are part of ``declared``: its paragraphs and headings, without the
    players, teaser strips and captions around them (a page whose markup calls its paragraphs
    placeholders, which the body rules prune)."""
    flat = dom.normalize_space(declared)
    return [line for line in dom.render_paragraphs(root)
            if (len(line) >= MIN_LINE_CHARS or len(line.split()) >= 3) and line in flat]


def extract_body(page: Page, **_ignored) -> EmbeddedBody:
    """The article of the page's data blobs, or its JSON-LD ``articleBody`` (a paragraph a
    line) where that is longer than what the blobs give; an empty body when there is neither."""
    titles = [t for t in (page.title_tag, page.meta("og:title", "twitter:title")) if t]
    found = find_article([value for _source, value in blobs(page)], titles)
    declared = json_ld_body(page)
    if found is not None:
        article, body = found
        built = EmbeddedBody(method="embedded", root=body_element(body), title=_title_of(article),
                             published=_date_of(article), authors=_authors_of(article))
        if declared is None or covers(built.text, declared):
            return built
    if declared is None:
        return EmbeddedBody(method="embedded", root=None)
    return EmbeddedBody(method="embedded", root=body_element(declared))
