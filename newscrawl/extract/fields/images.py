"""An article image's address, caption, alt text and credit, as a reader's browser would show it.

Lazy loading puts the real address in ``data-src``-like attributes or a ``srcset`` and a
placeholder in ``src``; ``<picture>`` lists ``<source srcset>`` candidates; a ``<noscript>``
beside the image holds the plain ``<img>`` for readers without scripts (kept by
:func:`noscript_images` before the clean-up drops noscripts).  The largest candidate is taken
(the picture at full size, as fundus and newspaper4k report it).  Tracking pixels, icons,
avatars, logos and the thumbnails of teasers linking to other articles are no article images.

A picture's caption is its ``<figure>``'s ``<figcaption>`` or caption-marked element, or, where
the CMS writes no ``<figure>`` (Kommersant's ``doc_media``, WordPress' classic ``wp-caption``), the
caption-marked element beside the picture in the short block holding both
(:func:`captioned_block`); screen-reader labels ("Image caption, ") are no part of it, and a
word that only says it is a picture ("Image", "Фото") is no caption.
"""

from __future__ import annotations

import re
from itertools import islice
from urllib.parse import urljoin, urlsplit

from lxml import html

from .. import dom

MAX_URL_CHARS = 2000
MIN_SIDE = 50  # a declared width or height below this is an icon, a button or a pixel
LAZY_ATTRIBUTES = ("data-src", "data-lazy-src", "data-original", "data-url", "data-hi-res-src",
                   "data-full-src", "data-lazy", "data-img-src", "data-actualsrc", "data-echo",
                   "data-original-src")
SRCSET_ATTRIBUTES = ("data-srcset", "data-lazy-srcset", "srcset")
_PLACEHOLDER = re.compile(r"(?:^data:|blank\.gif|spacer\.gif|placeholder|transparent\.(?:gif|png)|"
                          r"pixel\.(?:gif|png)|1x1\.|lazy[-_.]?load|grey\.gif|loading\.(?:gif|svg))",
                          re.IGNORECASE)
_TRACKER = re.compile(r"(?:doubleclick\.net|google-analytics\.com|scorecardresearch\.com|facebook\.com/tr|"
                      r"/pixel[/?.]|/beacon[/?.]|[/?&]utm_|/b/ss/|/track(?:ing)?[/?.]|quantserve\.com|"
                      r"chartbeat\.net|/count(?:er)?\.(?:gif|php))", re.IGNORECASE)
_NOT_A_PICTURE = re.compile(r"(?:^|[\s/_.-])(?:logos?|avatars?|gravatar|author|profile|ads?|banner)"
                            r"(?:$|[\s/_.-])", re.IGNORECASE)
# Names of small furniture (a share button, an icon, a rating's stars): a picture that declares both
# sides of LARGE_SIDE pixels or more is none of them ("img-share": a photo readers may share).
_SMALL_FURNITURE = re.compile(r"(?:^|[\s/_.-])(?:icons?|sprites?|emoji|emoticons?|badges?|buttons?|social|"
                              r"share|rating|flag)(?:$|[\s/_.-])", re.IGNORECASE)
LARGE_SIDE = 200
_CREDIT_MARKUP = re.compile(r"credit|copyright|source|photographer|byline|attribution|rights|author|"
                            r"urheber|autor|fotograf|quelle", re.IGNORECASE)
# A credit label: what follows it, to the end of the caption, is the credit.
_CREDIT_TEXT = re.compile(r"(?:©|\(c\)|(?:photo|foto|фото|picture|image|bild|credit|fuente|crédit)s?\s*+:)"
                          r"\s*+", re.IGNORECASE)
_CAPTION_MARKUP = re.compile(r"caption|legend|beschreibung|bildunterschrift|subscr|podpis|leyenda|didascalia",
                             re.IGNORECASE)
# Text for screen readers only, as CMSs mark it ("Image caption, " before a caption).
_SCREEN_READER = re.compile(r"visually-?hidden|sr-only|screen-?reader|a11y", re.IGNORECASE)
# A caption that only says the picture is one (a promo's or a CMS's placeholder) is no caption.
GENERIC_CAPTIONS = frozenset({"image", "images", "photo", "photos", "picture", "pic", "foto", "fotos", "bild",
                              "imagen", "immagine", "illustration", "фото", "фотография", "изображение",
                              "图片", "圖片", "照片", "写真", "画像", "사진", "صورة"})
CAPTIONED_LEVELS = 3  # ancestors climbed from a figure-less <img> to the block holding it and its caption
PICTURE_TABLE_LEVELS = 4  # ancestors climbed from an <img> to a picture table (td, tr, tbody, table)
PICTURE_TABLE_ROWS = 4  # rows of a picture table at most (the picture, its caption, a credit)
MAX_BLOCK_PICTURES = 3  # pictures of a figure-less captioned block at most
MAX_CAPTION_CHARS = 500  # text of a figure-less captioned block at most
MAX_BLOCK_CHILDREN = 6  # child elements of a figure-less captioned block at most
_SRCSET_GAP = re.compile(r"[\s,]*")
_SRCSET_URL = re.compile(r"\S*")
_IMAGE_FILE = re.compile(r"\.(?:jpe?g|png|gif|webp|avif|bmp|tiff?)(?:$|[?#])", re.IGNORECASE)
FIGURE_LEVELS = 5  # ancestors climbed from an <img> to its <figure> (libxml2 nests it in unclosed <source>s)
# Attributes naming the full-size picture (a zoom or lightbox view), preferred to any other.
FULL_SIZE_ATTRIBUTES = ("data-fullscreen-src", "data-zoom-src", "data-zoom-image", "data-large-src",
                        "data-full-src", "data-hi-res-src", "data-src-large", "data-lazy-src-large")


def srcset_candidates(value: str | None) -> list[tuple[str, str]]:
    """``(url, descriptor)`` of each candidate of a ``srcset``, parsed as the HTML standard's
    "parse a srcset attribute" does: white space and commas before a URL are skipped; the URL
    runs to white space (trailing commas end the candidate); its descriptors run to the next
    comma.  So ``a.jpg 1x,b.jpg 2x`` (no space after the comma, as some CMSs write it) is two
    candidates, and URLs may hold commas (image CDNs' ``c_fill,w_800``)."""
    out: list[tuple[str, str]] = []
    if not value:
        return out
    pos, n = 0, len(value)
    while pos < n:
        pos = _SRCSET_GAP.match(value, pos).end()
        if pos >= n:
            break
        end = _SRCSET_URL.match(value, pos).end()
        url, pos = value[pos:end], end
        descriptor = ""
        if url.endswith(","):
            url = url.rstrip(",")
        else:
            comma = value.find(",", pos)
            comma = n if comma < 0 else comma
            descriptor, pos = value[pos:comma].strip(), comma + 1
        if url:
            out.append((url, descriptor))
    return out


def srcset_largest(value: str | None) -> str | None:
    """The largest candidate of a ``srcset`` (by ``w``, else ``x`` descriptor, else the last)."""
    best, best_size, last = None, -1.0, None
    for url, descriptor in srcset_candidates(value):
        last = url
        word = next((w for w in descriptor.split() if w[-1:] in ("w", "x", "h")), "")
        try:
            size = float(word[:-1]) * (1 if word.endswith("w") else 1000) if word else 0.0
        except ValueError:
            size = 0.0
        if size > best_size:
            best, best_size = url, size
    return best if best_size > 0 else last


def _usable(value: str | None) -> str | None:
    value = (value or "").strip()
    if not value or len(value) > MAX_URL_CHARS or _PLACEHOLDER.search(value):
        return None
    return value


def image_source(img: html.HtmlElement, fallbacks: dict | None = None) -> str | None:
    """The address a browser would end up showing for ``img`` (relative as written): the largest
    ``srcset`` candidate (its own or its ``<picture>``'s), a lazy-loading attribute, ``src``,
    the ``<noscript>`` fallback found beside it (``fallbacks``, :func:`noscript_images`), or
    a lazy-loading attribute of another name (:func:`_lazy_script_source`)."""
    for name in FULL_SIZE_ATTRIBUTES:
        if (found := _usable(img.get(name))):
            return found
    for name in SRCSET_ATTRIBUTES:
        if (found := _usable(srcset_largest(img.get(name)))):
            return found
    parent = img.getparent()
    picture = next((a for a in islice(img.iterancestors(), 4) if a.tag == "picture"), None)
    if picture is not None:
        for source in picture.iter("source"):
            for name in SRCSET_ATTRIBUTES:
                if (found := _usable(srcset_largest(source.get(name)))):
                    return found
    for name in (*LAZY_ATTRIBUTES, "src"):
        if (found := _usable(img.get(name))):
            return found
    if fallbacks:
        for holder in (img, parent):
            if holder is not None and holder in fallbacks:
                return fallbacks[holder]
    return _lazy_script_source(img, picture)


def _lazy_script_source(img: html.HtmlElement, picture: html.HtmlElement | None) -> str | None:
    """The address a lazy-loading script of the site's own puts in place, from an attribute of a
    name no list can hold (``data-lazyimage-srcset``, ``data-flickity-lazyload``, ``data-lzl-src``):
    a ``data-`` attribute ending in ``srcset`` (the largest candidate), else one ending in ``src``
    or holding ``lazy`` whose value names an image file.  Read only when ``src`` is a placeholder."""
    holders = [img, *(picture.iter("source") if picture is not None else ())]
    for holder in holders:
        for name, value in holder.attrib.items():
            if name.startswith("data-") and name.endswith("srcset"):
                if (found := _usable(srcset_largest(value))):
                    return found
    for name, value in img.attrib.items():
        if name.startswith("data-") and (name.endswith("src") or "lazy" in name) and \
                _IMAGE_FILE.search(value or "") and (found := _usable(value)):
            return found
    return None


def absolute(url: str | None, base: str | None) -> str | None:
    """``url`` resolved against ``base``, http(s) only."""
    if not url:
        return None
    try:
        resolved = urljoin(base or "", url.strip())
        if urlsplit(resolved).scheme.lower() not in ("http", "https"):
            return None
    except ValueError:
        return None
    return resolved


def _side(value: str | None) -> int | None:
    digits = (value or "").strip().removesuffix("px")
    return int(digits) if digits.isdigit() else None


def is_furniture(img: html.HtmlElement, url: str, page_url: str | None) -> bool:
    """A tracking pixel, an icon, a logo, an avatar, an SVG glyph, or a teaser's thumbnail (an
    image inside a link to another page that is no image file).  A name of small furniture
    (``share``, ``icon``, ``rating``) is not believed of a picture declaring both sides of
    :data:`LARGE_SIDE` pixels or more."""
    if _TRACKER.search(url):
        return True
    sides = [s for s in (_side(img.get("width")), _side(img.get("height"))) if s is not None]
    if sides and min(sides) < MIN_SIDE:
        return True
    path = urlsplit(url).path
    if path.lower().endswith(".svg"):
        return True
    names = " ".join(filter(None, (img.get("class"), img.get("id"), path.rsplit("/", 1)[-1])))
    if _NOT_A_PICTURE.search(names):
        return True
    if _SMALL_FURNITURE.search(names) and not (len(sides) == 2 and min(sides) >= LARGE_SIDE):
        return True
    for above in islice(img.iterancestors(), 4):
        if above.tag == "a":
            href = (above.get("href") or "").strip()
            if href and not href.startswith("#") and not _IMAGE_FILE.search(href):
                target = absolute(href, page_url)
                if target and page_url and target.split("#")[0] != page_url.split("#")[0]:
                    return True
            break
    return False


def figure_of(img: html.HtmlElement) -> html.HtmlElement | None:
    """The ``<figure>`` holding ``img``, else the figure-less block holding it with its caption."""
    for above in islice(img.iterancestors(), FIGURE_LEVELS):
        if above.tag == "figure":
            return above
    return captioned_block(img)


def captioned_block(img: html.HtmlElement) -> html.HtmlElement | None:
    """The nearest of ``img``'s :data:`CAPTIONED_LEVELS` ancestors that holds, beside the
    branch leading to ``img``, a caption-marked element, when that ancestor is a picture's block
    (at most :data:`MAX_BLOCK_PICTURES` pictures and :data:`MAX_CAPTION_CHARS` of text); else
    the picture table holding ``img`` (:func:`picture_table`)."""
    branch = img
    for above in islice(img.iterancestors(), CAPTIONED_LEVELS):
        if above.tag in ("body", "html", "article", "main") or len(above) > MAX_BLOCK_CHILDREN:
            break  # a picture's block holds the picture, its caption and credit, not a story
        for sibling in above:
            if sibling is not branch and isinstance(sibling.tag, str) and \
                    _CAPTION_MARKUP.search(sibling.get("class") or ""):
                return above if _picture_sized(above) else None
        branch = above
    return picture_table(img)


def picture_table(img: html.HtmlElement) -> html.HtmlElement | None:
    """The ``<table>`` around ``img`` that shows it with its caption and nothing else: older
    pages and CMSs set a picture in one cell and its caption (with or without markup, or in a
    ``<caption>``) in another row.  One picture in a row of its own, at most
    :data:`PICTURE_TABLE_ROWS` rows, no table inside, and a caption's length of text, some of
    it outside links.  A picture beside text in one row is set into that text (a paragraph
    flowing around it, an author's photo beside the bio): no caption."""
    above = list(islice(img.iterancestors(), PICTURE_TABLE_LEVELS))
    table = next((a for a in above if a.tag == "table"), None)
    row = next((a for a in above if a.tag == "tr"), None)
    if table is None or row is None:
        return None
    # Cheap, bounded checks first: a page of many pictures in one table pays little per picture.
    pictures = sum(1 for _ in islice(table.iter("img"), 2))
    rows = sum(1 for _ in islice(table.iter("tr"), PICTURE_TABLE_ROWS + 1))
    if pictures != 1 or rows > PICTURE_TABLE_ROWS or not _picture_sized(table):
        return None
    if next(table.iterdescendants("table"), None) is not None or dom.non_space_len(row.text_content()):
        return None
    chars = dom.non_space_len(table.text_content())
    linked = sum(dom.non_space_len(a.text_content()) for a in table.iter("a"))
    return table if chars and linked < chars else None


def _picture_sized(block: html.HtmlElement) -> bool:
    if len(list(islice(block.iter("img"), MAX_BLOCK_PICTURES + 1))) > MAX_BLOCK_PICTURES:
        return False
    chars = 0
    for text in block.itertext():
        chars += len(text.strip())
        if chars > MAX_CAPTION_CHARS:
            return False
    return True


def shown_text(el: html.HtmlElement) -> str:
    """``el``'s text without the labels written for screen readers only."""
    parts: list[str] = []
    for node in el.iter():
        if not isinstance(node.tag, str):
            if node is not el and node.tail:
                parts.append(node.tail)
            continue
        hidden = any(_SCREEN_READER.search(a.get("class") or "") for a in _up_to(node, el))
        if not hidden and node.text:
            parts.append(node.text)
        if node is not el and node.tail and \
                not any(_SCREEN_READER.search(a.get("class") or "") for a in _up_to(node.getparent(), el)):
            parts.append(node.tail)
    return dom.normalize_space(" ".join(parts))


def _up_to(node, top):
    while node is not None:
        yield node
        if node is top:
            return
        node = node.getparent()


def no_generic(text: str | None) -> str | None:
    """``text``, or None when it only says that the picture is one (:data:`GENERIC_CAPTIONS`)."""
    if not text or text.strip(" .:,-–—|").casefold() in GENERIC_CAPTIONS:
        return None
    return text


def caption_and_credit(img: html.HtmlElement) -> tuple[str | None, str | None]:
    """The caption (``<figcaption>``, or a caption-marked element in the image's figure or
    figure-less block, :func:`figure_of`) without the credit, and the credit (a credit-marked
    element, or a ``© ...``/``Photo: ...`` ending), brackets around it dropped."""
    figure = figure_of(img)
    if figure is None:
        return None, None
    holder = next(figure.iter("figcaption"), None)
    if holder is None:
        holder = next((el for el in figure.iter() if el is not img and isinstance(el.tag, str)
                       and _CAPTION_MARKUP.search(el.get("class") or "")), None)
    credit = None
    for el in figure.iter():
        if el is not holder and isinstance(el.tag, str) and el.tag != "img" and \
                _CREDIT_MARKUP.search(" ".join(filter(None, (el.get("class"), el.get("itemprop"))))):
            credit = shown_text(el) or None
            if credit:
                break
    if holder is None and figure.tag == "table":  # a picture table's text is the caption
        holder = figure
    if holder is None and credit is None:
        return None, None
    caption = shown_text(holder) if holder is not None else ""
    label = _CREDIT_TEXT.match(credit) if credit else None
    if credit and label is not None and credit[label.end():].strip():
        if caption.endswith(credit):
            caption = caption[: len(caption) - len(credit)].rstrip(" |/–—-")
        credit = credit[label.end():].strip()
    elif credit and caption.endswith(credit):
        caption = caption[: -len(credit)].rstrip(" |/–—-")
    elif credit is None and (match := _CREDIT_TEXT.search(caption)) and caption[match.end():].strip():
        credit = caption[match.end():].strip().rstrip(")") or None
        caption = caption[: match.start()].rstrip(" |/–—-(")
    if credit and credit.startswith("(") and credit.endswith(")"):
        credit = credit[1:-1].strip()
    return no_generic(caption or None), no_generic(credit)


def noscript_images(root: html.HtmlElement) -> dict:
    """``{element: src}``: for each ``<noscript>`` holding an ``<img>``, the image it shows,
    keyed by the noscript's previous sibling (the lazy ``<img>`` it backs up) and its parent.

    Read before the clean-up (:func:`.dom.remove_noise`) drops noscripts."""
    found: dict = {}
    for noscript in root.iter("noscript"):
        content = noscript.text or ""
        if "<img" not in content.lower() and next(noscript.iter("img"), None) is None:
            continue
        img = next(noscript.iter("img"), None)
        src = None
        if img is not None:
            src = _usable(srcset_largest(img.get("srcset"))) or _usable(img.get("src"))
        elif len(content) < 20_000:
            try:
                fragment = html.fragment_fromstring(content, create_parent="div")
            except (ValueError, TypeError, Exception):  # noqa: BLE001 - any unparsable fallback is no image
                fragment = None
            img = next(fragment.iter("img"), None) if fragment is not None else None
            if img is not None:
                src = _usable(srcset_largest(img.get("srcset"))) or _usable(img.get("src"))
        if not src:
            continue
        for holder in (noscript.getprevious(), noscript.getparent()):
            if holder is not None:
                found.setdefault(holder, src)
    return found


def noscript_holders(root: html.HtmlElement, fallbacks: dict) -> set:
    """The elements holding nothing but a ``<noscript>`` whose image :func:`noscript_images` read
    (``fallbacks``; no image and no text of their own): a picture only a script draws (the
    Telegraph's ``<div class="lazy-image" data-srcset>``), walked as an image at the noscript's
    copy once the clean-up has dropped the noscript (:mod:`..render.blocks`).  Read before the
    clean-up."""
    found = set()
    for noscript in root.iter("noscript"):
        parent = noscript.getparent()
        if parent is None or parent not in fallbacks or parent.tag in ("body", "head", "html"):
            continue
        others = [el for el in parent if el is not noscript and isinstance(el.tag, str)]
        if others or (parent.text or "").strip() or (noscript.tail or "").strip():
            continue
        found.add(parent)
    return found


def file_name(url: str | None) -> str:
    """The last path segment of ``url``, lower-cased: two versions of one picture share it."""
    if not url:
        return ""
    try:
        return urlsplit(url).path.rstrip("/").rsplit("/", 1)[-1].lower()
    except ValueError:
        return ""
