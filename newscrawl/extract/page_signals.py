"""What a page shows about its kind, read in one walk of its tree, for the page-type rules and
model (:mod:`.page_type`, :mod:`.page_features`; no Scrapy imports).

The signals (:func:`page_signals`):

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
- error phrases in the ``<title>`` or first ``<h1>`` (en, zh, ru, and a few more);
- walls: a consent manager's own markup (the ids and classes of OneTrust, Didomi, Quantcast
  Choice, TrustArc, Sourcepoint, a form posting to Google's consent service), a consent title
  or heading ("Before you continue", ru, zh: the ``<title>``, the first ``<h1>`` or ``<h2>``),
  and a password input; the text outside the consent markup
  is measured apart (a banner beside an article is not a wall).

The walk also counts elements by tag, class-name words (post, comment, price, cart, toc, ...) and
price- and date-like tokens, for the model.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from lxml import etree

from .page import Page
from .tokens import weighted_length

# JSON-LD @type values, lower-cased.
_ARTICLE_TYPES = frozenset({
    "article", "newsarticle", "blogposting", "reportagenewsarticle", "analysisnewsarticle",
    "opinionnewsarticle", "reviewnewsarticle", "backgroundnewsarticle", "askpublicnewsarticle",
    "scholarlyarticle", "techarticle", "socialmediaposting", "liveblogposting", "report", "review",
})
# The JSON-LD types that settle a page as an article before the walk (TechArticle and
# SocialMediaPosting are documentation and forum pages as often).
SETTLING_TYPES = _ARTICLE_TYPES - {"techarticle", "socialmediaposting"}

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

# Consent managers' markup (ids and classes, lower-cased): OneTrust, Didomi, Quantcast Choice,
# TrustArc/TRUSTe, Sourcepoint, and the generic names sites give their own consent walls.
_CONSENT_MARKUP = re.compile(
    r"onetrust|didomi|qc-cmp|truste-|trustarc|sp_message|sp-message-container|cybotcookiebot"
    r"|cookie-?consent|cookiewall|cookie-wall|consent-(?:wall|banner|dialog|modal|popup|manager|layer)"
)
# A form posting to a consent service (Google's "Before you continue" at consent.google.com).
_CONSENT_ACTION = re.compile(r"//consent\.")
# Consent interstitials' titles: en, ru, zh and a few more (only trusted with little prose).
_CONSENT_TITLE = re.compile(
    r"before you continue|cookie consent|cookies? (?:settings|preferences)|we value your privacy"
    r"|your privacy choices|privacy (?:settings|preferences)|consent to (?:cookies|the use)"
    r"|прежде чем продолжить|перед тем как продолжить|согласие на (?:использование|обработку)"
    r"|(?:использование|файлы) cookie|настройки конфиденциальности"
    r"|隐私(?:设置|选项|与|和)|cookie ?(?:同意|设置)|同意(?:使用)? ?cookie|隱私(?:設定|與|和)"
    r"|bevor sie fortfahren|avant de continuer|antes de continuar|prima di continuare",
    re.IGNORECASE,
)
# What stands before the "password" of a password input (a login form) in the page's source: the
# clean-up drops inputs.  Sought only before the word's occurrences (a scan of the source costs).
_PASSWORD_TYPE = re.compile(r"""type\s{0,3}=\s{0,3}["']?\Z""", re.IGNORECASE)
PASSWORD_LOOKS = 50  # occurrences of "password" looked at, at most

# Words in class attributes that name a part of a page: posts and comments, a shop, documentation.
_CLASS_WORD = re.compile(r"comment|reply|post|thread|forum|message|product|price|cart|sku|toc|sidebar"
                         r"|breadcrumb|highlight|pagination|card|menu|author|share|related|review")
# Price-like and date-like tokens, sought in each text piece of the body.
_PRICE = re.compile(r"[$€£¥₹]\s?\d|\d[.,]\d\d\s?(?:€|руб|zł|kr)|\d\s?元")
# Each branch opens with a digit or a month's capital: the scan skips to those characters.
_DATE = re.compile(r"\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}[-/.]\d{1,2}[-/.]\d{4}|\d{4}年\d{1,2}月"
                   r"|\d{1,3} (?:minutes?|hours?|days?|weeks?|months?|years?) ago"
                   r"|(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]{0,6}\.? \d{1,2}, \d{4}"
                   r"|\d{1,2} (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]{0,6}\.? \d{4}")

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
HEADLINE_MIN, HEADLINE_MAX = 12, 240  # a headline link's length
TEASER_LEAD = 30  # a block that opens with a link this long (its only link) is a teaser item, not prose
LISTING_HEADLINES = 8  # a listing-shaped page: at least this many headline links
PROSE_BLOCK = 40  # a block of prose has at least this much text outside links
LINK_BLOCK_SHARE = 0.5  # a block with more link text than this is a link block (it ends a run)
SHORT_PIECE = 80  # text pieces up to this long are searched for prices and dates (a list's, a post's)


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
    consent_markup: bool = False  # a consent manager's element (see _CONSENT_MARKUP)
    consent_title: bool = False  # a consent interstitial's title, h1 or first h2
    open_text: int = 0  # text outside links and outside consent-marked elements
    password: bool = False  # a password input (in the page's source)
    form: bool = False  # a visible form (the clean-up keeps forms, without their inputs)
    paywalled: bool = False  # declared or marked paywalled (read only for a page with a password input)
    tags: dict[str, int] = field(default_factory=dict)  # elements of the cleaned body, by tag
    class_words: dict[str, int] = field(default_factory=dict)  # class-name words (_CLASS_WORD), counted
    prices: int = 0  # price-like tokens in the short text pieces ("$12", "12,50 €")
    dates: int = 0  # date-like tokens in the short text pieces (repeated: posts, comments, a list)

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
    _read_walls(page.body, signals)
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
    h2 = next(page.root.iter("h2"), None)  # a consent overlay's heading is often its page's first h2
    signals.consent_title = bool(_CONSENT_TITLE.search(title[:300]) or _CONSENT_TITLE.search(heading[:300])
                                 or (h2 is not None and _CONSENT_TITLE.search(h2.text_content()[:300])))
    signals.password = _password_input(page.text)
    if signals.password:
        from .fields.meta import paywalled

        signals.paywalled = paywalled(page)
    return signals


def _password_input(source: str) -> bool:
    """Does the page's source hold ``<input type="password">``?"""
    at = source.find("password")
    for _ in range(PASSWORD_LOOKS):
        if at < 0:
            return False
        if _PASSWORD_TYPE.search(source, max(0, at - 12), at):
            return True
        at = source.find("password", at + 8)
    return False


def _walk(body, signals: PageSignals) -> None:
    """Text blocks in document order (:class:`_Blocks`) and, per element, its text, link text and
    longest link, for the repeated teaser items (a headline link and a teaser) of a listing."""
    blocks = _Blocks(signals)
    tags = signals.tags
    classes: list[str] = []  # class attributes, and text pieces, read once joined after the walk
    texts: list[str] = []
    in_link = 0
    frames: list[list] = [[0, 0, 0, None]]  # per open element: text, link text, longest link, items
    for event, el in etree.iterwalk(body, events=("start", "end")):
        tag = el.tag if isinstance(el.tag, str) else ""
        if event == "start":
            if tag in _BLOCKS:
                blocks.flush()
            tags[tag] = tags.get(tag, 0) + 1
            cls = el.get("class")
            if cls:
                classes.append(cls[:200])
            if tag == "form" and not _hidden(el):
                signals.form = True
            if tag == "a":
                in_link += 1
            frames.append([0, 0, 0, None])
            if tag and el.text:
                _add(el.text, in_link > 0, blocks, frames[-1], texts)
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
            _add(el.tail, in_link > 0, blocks, parent, texts)
    blocks.flush()
    for word in _CLASS_WORD.findall(" ".join(classes).lower()):
        signals.class_words[word] = signals.class_words.get(word, 0) + 1
    joined = "\n".join(texts)
    signals.prices += len(_PRICE.findall(joined))
    signals.dates += len(_DATE.findall(joined))


def _consent_marked(el) -> bool:
    """Is ``el`` a consent manager's element, or a form posting to a consent service?"""
    if el.tag == "form" and el.get("action"):
        if _CONSENT_ACTION.search(el.get("action")[:500].lower()):
            return True
    ident, cls = el.get("id"), el.get("class")
    return bool((ident or cls) and _CONSENT_MARKUP.search(f"{ident} {cls}"[:1000].lower()))


def _read_walls(body, signals: PageSignals) -> None:
    """The consent-marked elements of a page that may be a wall (short of prose, not a listing):
    :attr:`PageSignals.consent_markup`, and the text outside links and outside them."""
    s = signals
    s.open_text = s.text - s.link_text
    if s.longest_run >= PROSE_RUN or s.headline_links >= LISTING_HEADLINES or body is None:
        return
    marked = [el for el in body.iter(etree.Element) if _consent_marked(el)]
    outermost = set(marked)
    for el in marked:
        if any(parent in outermost for parent in el.iterancestors()):
            outermost.discard(el)
    for el in outermost:
        inside = PageSignals()
        _walk(el, inside)
        s.open_text -= inside.text - inside.link_text
    s.consent_markup = bool(marked)


def _hidden(el) -> bool:
    style = (el.get("style") or "").replace(" ", "").lower()
    return "display:none" in style or el.get("hidden") is not None or el.get("aria-hidden") == "true"


def _add(text: str, in_link: bool, blocks: _Blocks, frame: list, texts: list[str]) -> None:
    weight = weighted_length(text)
    if weight:
        if 3 < weight <= SHORT_PIECE:  # may be a price or a date, in a link or not
            texts.append(text)
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
