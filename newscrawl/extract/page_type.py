"""Is a page an article?  Section and listing pages, tag and author pages, galleries, video
pages and error pages served with status 200 are told apart from articles (no Scrapy imports).

:func:`page_type` reads a page; :func:`page_type_of` reads an already parsed
:class:`~newscrawl.extract.page.Page`.  Both return ``"article"`` or the page's kind:
``"listing"``, ``"tag"``, ``"author"``, ``"gallery"``, ``"video"`` or ``"error"``.

The signals (:func:`page_signals`), all read in one walk of the tree:

- the page's own metadata: ``og:type`` and the JSON-LD ``@type`` values (``NewsArticle``,
  ``Article``, ``BlogPosting`` ... against ``CollectionPage``, ``ItemList``, ``VideoObject``,
  ``ImageGallery``, ``ProfilePage``);
- the share of the page's text that is link text;
- the number of *headline links*: blocks whose text is mostly a link of headline length, the
  items of a listing; and the number of *teaser items*: sibling elements alike (tag and class)
  that each hold a headline link and a teaser;
- the longest *run* of prose: consecutive text blocks, in document order, that are not
  mostly link text, summed.  An article's paragraphs form one long run; a listing's teasers
  are cut apart by the headline links between them (the block segmentation of
  Kohlschütter et al., "Boilerplate Detection using Shallow Text Features", WSDM 2010, §3);
- the URL's shape (``/tag/``, ``/author/``, ``/video/``, ``/gallery/``, ``/category/``,
  the site's or a section's index);
- error phrases in the ``<title>`` or first ``<h1>`` (en, zh, ru, and a few more).

The rules are conservative, as dropping an article is worse than exporting a listing page:
a page with a long run of prose is an article whatever its URL or metadata says, unless its
title is an error phrase and it has little text.  ``bench/page_type_eval.py`` measures the
rules on every article page and every listing page of ``../shared/datasets``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from lxml import etree

from .page import Page
from .tokens import weighted_length

ARTICLE = "article"
KINDS = ("article", "listing", "tag", "author", "gallery", "video", "error")

# JSON-LD @type values, lower-cased.
_ARTICLE_TYPES = frozenset({
    "article", "newsarticle", "blogposting", "reportagenewsarticle", "analysisnewsarticle",
    "opinionnewsarticle", "reviewnewsarticle", "backgroundnewsarticle", "askpublicnewsarticle",
    "scholarlyarticle", "techarticle", "socialmediaposting", "liveblogposting", "report", "review",
})
_NON_ARTICLE_TYPES = {
    "collectionpage": "listing", "itemlist": "listing", "searchresultspage": "listing",
    "videoobject": "video", "imagegallery": "gallery", "mediagallery": "gallery",
    "profilepage": "author",
}
_OG_KINDS = {"video": "video", "video.other": "video", "video.movie": "video", "video.episode": "video",
             "profile": "author"}

# URL path segments that name a kind of page (matched on the lower-cased path).
_TAG_URL = re.compile(r"/(?:tags?|topics?|themes?|keywords?|schlagworte?|theme)/")
_AUTHOR_URL = re.compile(r"/(?:authors?|writers?|journalists?|profiles?|people|autor|avtor|columnists?)/")
_VIDEO_URL = re.compile(r"/(?:videos?|video-\w{1,20}|watch|tv)/")
_GALLERY_URL = re.compile(r"/(?:galler(?:y|ies)|photos?|pictures|slideshows?|fotos?|photogallery|pics)/")
_SECTION_URL = re.compile(r"/(?:category|categories|section|sections|rubric|rubrika|channel|list)/")
_URL_KINDS = ((_TAG_URL, "tag"), (_AUTHOR_URL, "author"), (_VIDEO_URL, "video"), (_GALLERY_URL, "gallery"),
              (_SECTION_URL, "listing"))
# A site's home page, and a section's index ("/world/", "/news/index.html").
_HOME_PATH = re.compile(r"\A/?(?:(?:index|default)\.\w{1,5})?\Z")
_SECTION_PATH = re.compile(r"\A/[a-z]{2,12}/(?:(?:index|default)\.\w{1,5})?\Z")

# Error phrases in a title or h1.  Status pages rather than articles that mention an error:
# they are only trusted on a page with little prose (see page_type_of).
_ERROR_TITLE = re.compile(
    r"\b404\b|\berror 40[34]\b|page (?:was )?not found|not found|page (?:does not|doesn't) exist"
    r"|страница не найдена|ошибка 404|страница не существует"
    r"|页面不存在|页面未找到|找不到(?:该|此|您要的)?(?:页面|网页)|您访问的页面|网页不存在|頁面不存在|找不到網頁"
    r"|seite nicht gefunden|page introuvable|página no encontrada|pagina non trovata|ページが見つかりません",
    re.IGNORECASE,
)

# Block-level elements: they start and end a text block.
_BLOCKS = frozenset({
    "p", "div", "li", "ul", "ol", "dl", "dt", "dd", "h1", "h2", "h3", "h4", "h5", "h6", "table", "tr",
    "td", "th", "tbody", "thead", "section", "article", "aside", "header", "footer", "nav", "main",
    "blockquote", "pre", "figure", "figcaption", "form", "fieldset", "address", "br", "hr", "center",
    "details", "summary", "body",
})

# Thresholds, in weighted characters (a CJK character counts 3: tokens.weighted_length).
PROSE_RUN = 1200  # a run of prose this long makes an article, whatever else the page says
SHORT_PROSE = 400  # below this an error title is trusted
SHORT_RUN = 600  # below this a listing-shaped page at an index or tag/author/... URL is not an article
TEASER_RUN = 300  # below this a listing-shaped page at a section's index ("/world/") is a listing
NO_PROSE = 100  # below this a page of many headline links is a listing wherever it is
MANY_HEADLINES = 20
MANY_TEASERS = 20  # repeated items of a headline link and a teaser, with this share of link text:
TEASER_LINK_SHARE = 0.35  # a listing with teasers (a forum's thread list, a blog's index)
LINK_HEAVY = 0.6
HEADLINE_MIN, HEADLINE_MAX = 12, 240  # a headline link's length
TEASER_LEAD = 30  # a block that opens with a link this long (its only link) is a teaser item, not prose
LISTING_HEADLINES = 8  # a listing-shaped page: at least this many headline links
LISTING_LINK_SHARE = 0.3  # and this share of link text
PROSE_BLOCK = 40  # a block of prose has at least this much text outside links
LINK_BLOCK_SHARE = 0.5  # a block with more link text than this is a link block (it ends a run)


@dataclass
class PageSignals:
    """What :func:`page_type_of` decides on (for evaluation and debugging)."""

    text: int = 0  # weighted characters of visible body text
    link_text: int = 0  # of which inside links
    headline_links: int = 0  # blocks that are one headline-length link
    longest_run: int = 0  # longest run of prose blocks
    teaser_items: int = 0  # most sibling elements alike (tag, class) holding a headline link and a teaser
    ld_types: set[str] = field(default_factory=set)
    og_type: str = ""
    url_kind: str | None = None
    index_url: str | None = None  # "home" or "section"
    error_title: bool = False

    @property
    def link_share(self) -> float:
        return self.link_text / self.text if self.text else 0.0


class _Blocks:
    """Accumulates text blocks and derives the run and headline-link signals."""

    def __init__(self, signals: PageSignals):
        self.signals = signals
        self.text = 0
        self.link = 0
        self.lead = 0  # the link text the block opens with, up to its first text outside a link
        self.leading = True
        self.run = 0

    def add(self, weight: int, in_link: bool) -> None:
        self.text += weight
        if in_link:
            self.link += weight
            if self.leading:
                self.lead += weight
        else:
            self.leading = False

    def flush(self) -> None:
        if not self.text:
            return
        s = self.signals
        s.text += self.text
        s.link_text += self.link
        if self.link > LINK_BLOCK_SHARE * self.text:
            self.run = 0  # a link block ends the run of prose
            if HEADLINE_MIN <= self.link <= HEADLINE_MAX:
                s.headline_links += 1
        elif TEASER_LEAD <= self.lead <= HEADLINE_MAX and self.lead == self.link:
            self.run = 0  # a teaser item (a headline link, then its teaser) ends the run too
            s.headline_links += 1
        elif self.text - self.link >= PROSE_BLOCK:  # shorter (dates, counts, bylines): neither add nor end
            self.run += self.text - self.link
            s.longest_run = max(s.longest_run, self.run)
        self.text = self.link = self.lead = 0
        self.leading = True


def page_signals(page: Page) -> PageSignals:
    """The signals of ``page`` (one walk of its cleaned tree)."""
    signals = _declared_signals(page)
    _walk(page.body, signals)
    return signals


def _declared_signals(page: Page) -> PageSignals:
    """The signals read without walking the body: metadata, URL, error title."""
    signals = PageSignals()
    _read_metadata(page, signals)
    _read_url(page.url, signals)
    title = page.title_tag or ""
    h1 = next(page.root.iter("h1"), None)
    heading = h1.text_content() if h1 is not None else ""
    signals.error_title = bool(_ERROR_TITLE.search(title[:300]) or _ERROR_TITLE.search(heading[:300]))
    return signals


def _walk(body, signals: PageSignals) -> None:
    """Text blocks in document order (:class:`_Blocks`) and, per element, its text, link text and
    longest link, for the repeated teaser items (a headline link and a teaser) of a listing."""
    blocks = _Blocks(signals)
    in_link = 0
    frames: list[list] = [[0, 0, 0, None]]  # per open element: text, link text, longest link, items
    for event, el in etree.iterwalk(body, events=("start", "end")):
        tag = el.tag if isinstance(el.tag, str) else ""
        if event == "start":
            if tag in _BLOCKS:
                blocks.flush()
            if tag == "a":
                in_link += 1
            frames.append([0, 0, 0, None])
            if tag and el.text:
                _add(el.text, in_link > 0, blocks, frames[-1])
            continue
        if tag == "a":
            in_link -= 1
        if tag in _BLOCKS:
            blocks.flush()
        frame = frames.pop()
        if tag == "a":
            frame[2] = max(frame[2], frame[0])
        parent = frames[-1]
        if HEADLINE_MIN <= frame[2] <= HEADLINE_MAX and frame[0] - frame[1] >= PROSE_BLOCK:
            items = parent[3] = parent[3] or {}
            key = (tag, el.get("class"))
            items[key] = items.get(key, 0) + 1
            signals.teaser_items = max(signals.teaser_items, items[key])
        parent[0] += frame[0]
        parent[1] += frame[1]
        parent[2] = max(parent[2], frame[2])
        if el is not body and el.tail:
            _add(el.tail, in_link > 0, blocks, parent)
    blocks.flush()


def _add(text: str, in_link: bool, blocks: _Blocks, frame: list) -> None:
    weight = weighted_length(text)
    if weight:
        blocks.add(weight, in_link)
        frame[0] += weight
        if in_link:
            frame[1] += weight


def _read_metadata(page: Page, signals: PageSignals) -> None:
    for obj in page.json_ld:
        types = obj.get("@type")
        for value in types if isinstance(types, list) else [types]:
            if isinstance(value, str):
                signals.ld_types.add(value.strip().lower()[:60])
    for meta in page.root.iter("meta"):
        if (meta.get("property") or meta.get("name") or "").strip().lower() == "og:type":
            signals.og_type = (meta.get("content") or "").strip().lower()[:60]
            break


def _read_url(url: str | None, signals: PageSignals) -> None:
    if not url:
        return
    try:
        parts = urlsplit(url)
    except ValueError:
        return
    path = parts.path.lower()[:2000]
    if not parts.query:  # "/?p=123" is an article
        signals.index_url = ("home" if _HOME_PATH.match(path) else
                             "section" if _SECTION_PATH.match(path) else None)
    for pattern, kind in _URL_KINDS:
        if pattern.search(path):
            signals.url_kind = kind
            break


def kind_of(signals: PageSignals) -> str:
    """The page's kind from its signals (the rules; see the module docstring)."""
    s = signals
    if s.error_title and s.longest_run < SHORT_PROSE and not (s.ld_types & _ARTICLE_TYPES):
        return "error"
    if s.longest_run >= PROSE_RUN:
        return ARTICLE
    if not s.ld_types & _ARTICLE_TYPES and _teaser_listing(s):
        return s.url_kind or "listing"
    declared = _declared_kind(s)
    if declared is not None:
        return declared
    listing_shape = s.headline_links >= LISTING_HEADLINES and s.link_share >= LISTING_LINK_SHARE
    if listing_shape and s.longest_run < SHORT_RUN:
        if s.index_url == "home" or (s.index_url == "section" and s.longest_run < TEASER_RUN):
            return "listing"
        if s.url_kind is not None:
            return s.url_kind
    if (s.headline_links >= MANY_HEADLINES and s.link_share >= LINK_HEAVY
            and s.longest_run < NO_PROSE):
        return s.url_kind or "listing"
    if s.teaser_items >= MANY_TEASERS and s.link_share >= TEASER_LINK_SHARE and s.longest_run < SHORT_RUN:
        return s.url_kind or "listing"
    return ARTICLE


def _teaser_listing(s: PageSignals) -> bool:
    """A page of repeated teaser items with no prose of its own, or a home or section index of
    listing shape: a listing even when its ``og:type`` (a site-wide template's) says article."""
    if s.teaser_items >= MANY_TEASERS and s.longest_run < TEASER_RUN:
        return True
    listing_shape = s.headline_links >= LISTING_HEADLINES and s.link_share >= LISTING_LINK_SHARE
    return listing_shape and s.index_url is not None and s.longest_run < TEASER_RUN


def _declared_kind(s: PageSignals) -> str | None:
    """``article`` when the metadata says article, a kind when it says another, else None."""
    if s.ld_types & _ARTICLE_TYPES or s.og_type == "article":
        return ARTICLE
    for ld_type in sorted(s.ld_types):
        if ld_type in _NON_ARTICLE_TYPES:
            return _NON_ARTICLE_TYPES[ld_type]
    return _OG_KINDS.get(s.og_type)


def page_type_of(page: Page) -> str:
    """``"article"`` or the kind of non-article page ``page`` is."""
    signals = _declared_signals(page)
    if _settled_article(signals):
        return ARTICLE
    _walk(page.body, signals)
    return kind_of(signals)


def _settled_article(s: PageSignals) -> bool:
    """Does :func:`kind_of` say article whatever the body walk finds?  Metadata that declares an
    article decides before any rule that reads the walk, except that an error title with a
    short body, or a home or section index URL, beats ``og:type`` alone (most article pages:
    the walk is skipped)."""
    return bool(s.ld_types & _ARTICLE_TYPES) or (
        s.og_type == "article" and not s.error_title and s.index_url is None)


def page_type(html: str | bytes, url: str | None = None, content_type: str | None = None) -> str:
    """``"article"`` or the kind of non-article page (``listing``, ``tag``, ``author``,
    ``gallery``, ``video``, ``error``) that ``html`` holds."""
    return page_type_of(Page.from_html(html, url=url, content_type=content_type))
