"""Structural hints shared by the combined and learned methods: how an element's name,
class, id and role bear on whether its text is article body.

The patterns are the conventions of the web at large (they follow Mozilla
Readability's candidate regexes), not rules for particular sites.
"""

from __future__ import annotations

import re
from functools import lru_cache

import ahocorasick
from lxml import html

# Lower-case patterns, matched against the lower-cased descriptor: without re.IGNORECASE a
# markup never seen before costs a third as much (ids are often unique to a page).
# Each pattern as its alternatives: plain words (a word anywhere in the descriptor is a match)
# and guarded ones (the word must be there, and the alternative decides).  _token_votes finds
# the words of all three in one Aho-Corasick pass and runs a pattern only when a guard is there.
_NEGATIVE_WORDS = (
    "comment", "disqus", "respond", "reply", "replies", "sidebar", "side-bar", "related", "recommend",
    "popular", "trending", "most-read", "mostread", "share", "sharing", "social", "newsletter", "subscribe",
    "signup", "promo", "sponsor", "advert", "banner", "breadcrumb", "pagination", "footer",
    "copyright", "cookie", "gdpr", "consent", "modal", "popup", "overlay", "masthead", "navbar", "menu",
    "toolbar", "byline", "caption", "credit", "outbrain", "taboola", "skip-link", "read-more", "readmore",
    "more-stories", "next-article", "prev-article", "print-only", "visually-hidden", "sr-only", "rating",
    "feedback", "trackback", "pingback", "profile", "dropdown", "buybox",
)
_NEGATIVE_GUARDED = {
    "widget": r"(?<!elementor-)(?<!ck-)widget",  # not CKEditor's own wrappers, saved with the article
    # Not a modifier saying a section holds ads ("o-section--has-ads", "Section--Ads").
    "ad": r"(?:^|[-_ ])(?<!has-)(?<!with-)(?:ad|(?<!--)ads)(?:$|[-_ ])",
    "foot": r"foot(?:$|[-_ ])",
    "dialog": r"dialog(?!ue|-off-canvas-main)",  # not Drupal's page wrapper
    "nav": r"(?:^|[-_ ])nav(?:$|[-_ ])",
    "tag": r"tags?(?:$|[-_ ])",
    "meta": r"(?:^|[-_ ]|post|entry)meta(?:data)?(?:$| |__)",  # "entry-meta", "postmetadata"
    "pager": r"pager(?!oot)",  # not "PageRoot"
    "bio": r"(?:^|[-_ ])bio(?:$|[-_ ])",
    "dsq": r"(?:^|[-_ ])dsq(?:$|[-_ ])",  # Disqus
    "search": r"(?:^|[-_ ])search(?:$|[-_ ]|box|form|bar)",
    "author": r"author[-_]*(?:bio|box|info|description|details|profile|card)|authors(?:$|[-_ ])",
    "contributor": r"contributor[-_]*bio",
    "about": r"about[-_]*(?:the[-_]*)?author",
    # What stands in for content not shown (a blocked embed's consent notice), but not ASP.NET's
    # "ContentPlaceHolder1", the page's main region.
    "placeholder": r"(?<!content)placeholder",
    # Lists of the site's latest posts ("recent-posts", "widget_recent_entries"), not a heading's
    # id made of its words.
    "recent": r"recent[-_ ]?(?:post|article|entr|new|stor|blog|item|update|content|comment)",
}
NEGATIVE = re.compile("|".join([*map(re.escape, _NEGATIVE_WORDS), *_NEGATIVE_GUARDED.values()]))
# Within one class token a boilerplate word names what the element is, whatever body word
# it qualifies: "related-posts", "post-author-bio", "entry-footer", "blog-pager", "textwidget".
# Not the layout words ("content-sidebar-wrap" wraps the article and its sidebar), nor a widget
# of the article itself ("article-widget-text"): a token holding one of those and a body word
# stays a vote each way.
_LAYOUT_WORDS = ("sidebar", "side-bar", "widget", "banner", "masthead")
DOMINANT_NEGATIVE = re.compile("|".join([
    *(re.escape(word) for word in _NEGATIVE_WORDS if word not in _LAYOUT_WORDS),
    *(guard for word, guard in _NEGATIVE_GUARDED.items() if word not in _LAYOUT_WORDS),
    r"(?<!elementor-)(?<!ck-)(?<!article-)(?<!article_)(?<!story-)(?<!post-)(?<!entry-)widget",
]))
_POSITIVE_WORDS = (
    "article", "body", "content", "entry", "hentry", "h-entry", "main", "post", "text", "blog", "story",
    "detail", "news", "zhengwen", "neirong", "正文",
)
POSITIVE = re.compile("|".join(map(re.escape, _POSITIVE_WORDS)))
NEGATIVE_TAGS = frozenset({"nav", "aside", "footer", "header", "menu", "dialog", "figcaption", "label"})
STRONG_POSITIVE = re.compile(
    r"(?:article|story|post|entry|news)[-_]*(?:body|content|text)|body[-_]*text|main[-_]*text"
)
_STRONG_GUARDS = ("body", "content", "text")  # every alternative ends with one of them
STRONG = 1.5

# Markup that never wraps the article, however much text it holds: a cookie-consent
# dialog with a long privacy policy, a comment thread longer than the story.
NEVER_BODY = re.compile(
    r"comment|disqus|cookie|consent|gdpr|onetrust|modal|popup|" + _NEGATIVE_GUARDED["dialog"], re.IGNORECASE
)

# The page's own regions beside the article: what holds them is never the story, whatever
# the markup around says (see :func:`page_region`).
REGION_TAGS = frozenset({"aside", "footer", "header", "nav"})
REGION = re.compile(r"sidebar|side-bar|footer|header|masthead", re.IGNORECASE)

HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.IGNORECASE)


def descriptor(el: html.HtmlElement) -> str:
    return f"{el.get('class') or ''} {el.get('id') or ''} {el.get('role') or ''}"


def is_hidden(el: html.HtmlElement) -> bool:
    """Hidden from readers: ``hidden``/``aria-hidden`` attributes or an inline ``display:none``."""
    if el.get("hidden") is not None or el.get("aria-hidden") == "true":
        return True
    style = el.get("style")
    return bool(style and HIDDEN_STYLE.search(style))


def page_region(el: html.HtmlElement) -> bool:
    """A sidebar, header, footer or navigation bar by its tag or its markup."""
    return el.tag in REGION_TAGS or bool(REGION.search(descriptor(el)))


def never_body(el: html.HtmlElement) -> bool:
    """Markup that names a consent dialog, popup or comment thread (see :data:`NEVER_BODY`)."""
    return bool(NEVER_BODY.search(descriptor(el)))


def markup_key(tag, attributes: dict[str, str] | None):
    """What of an element decides :func:`markup`: its tag, and the attributes the hints read
    (``attributes`` is ``dict(el.items())``, or None for an element without any)."""
    if not attributes:
        return tag
    get = attributes.get
    return (tag, get("class"), get("id"), get("role"), get("itemprop"), "hidden" in attributes,
            get("aria-hidden"), get("style"))


def markup(tag, attributes: dict[str, str] | None) -> tuple[float, bool]:
    """:func:`element_weight` and :func:`is_hidden` of an element from its tag and attributes."""
    key = markup_key(tag, attributes)
    found = MARKUPS.get(key)
    return found if found is not None else weigh_markup(key)


# markup_key -> (weight, hidden): pages repeat the same few markups thousands of times.
# Callers in a hot loop look keys up here themselves and call weigh_markup on a miss.
MARKUPS: dict = {}
_OLDER_MARKUPS: dict = {}
# Entries a markup cache holds before it ages.  Most markups a page uses are new (ids and inline
# styles unique to it): the dataset pages add about 12 markups and 65 name tokens a page, at 400
# and 170 bytes an entry, so a larger bound is memory that grows with the distinct pages a worker
# has seen (issue 27: 65,536 and 100,000 held 70 MB after 3,000 pages).  A full cache becomes the
# older generation (:func:`_age`) and a miss looks there before computing, so the markups a site
# repeats on every page survive and only those no page asked for again are dropped.
MAX_CACHED_MARKUPS = 2048


def _age(cache: dict, older: dict) -> None:
    """Make ``cache`` the older generation and start it afresh (each holds ``MAX_CACHED_MARKUPS``)."""
    older.clear()
    older.update(cache)
    cache.clear()


def weigh_markup(key) -> tuple[float, bool]:
    """``(weight, hidden)`` of a :func:`markup_key`, remembered in :data:`MARKUPS`."""
    if len(MARKUPS) >= MAX_CACHED_MARKUPS:  # ids and styles unique to a page must not pile up
        _age(MARKUPS, _OLDER_MARKUPS)
    found = _OLDER_MARKUPS.get(key)
    if found is not None:
        MARKUPS[key] = found
        return found
    if isinstance(key, tuple):
        tag, cls, ident, role, itemprop, hidden, aria_hidden, style = key
        hidden = hidden or aria_hidden == "true" or bool(style and HIDDEN_STYLE.search(style))
    else:
        tag, cls, ident, role, itemprop, hidden = key, None, None, None, None, False
    # Not through _markup_weight's lru_cache: MARKUPS is this path's cache, and a key missing
    # here (an id or style unique to the page) is almost always missing there too.
    weight = _markup_weight.__wrapped__(tag if isinstance(tag, str) else "", cls, ident, role, itemprop)
    MARKUPS[key] = (weight, hidden)
    return weight, hidden


def element_weight(el: html.HtmlElement) -> float:
    """How much an element's own markup says its text is body: 0 (noise) … 1.5 (body)."""
    tag = el.tag if isinstance(el.tag, str) else ""
    return _markup_weight(tag, el.get("class"), el.get("id"), el.get("role"), el.get("itemprop"))


@lru_cache(maxsize=MAX_CACHED_MARKUPS)
def _markup_weight(
    tag: str, cls: str | None, ident: str | None, role: str | None, itemprop: str | None
) -> float:
    # Pages repeat the same few markups thousands of times: the regexes run once per markup,
    # and on a new markup once per new token (ids and class lists are often unique to a
    # page; their tokens seldom are).
    if itemprop == "articleBody":
        return STRONG
    strong, negative_name, positive_name = _name_votes(cls, ident, role)
    if strong:
        return STRONG
    # Two votes against beat one for: <figcaption class="article__caption"> is a caption.  A
    # <footer> is the post's metadata whatever its class says, unless marked as the body (above).
    if (tag in NEGATIVE_TAGS and negative_name) or tag == "footer":
        return 0.0
    negative = tag in NEGATIVE_TAGS or negative_name
    positive = tag in ("article", "main") or positive_name
    if negative and not positive:
        return 0.0
    if positive and not negative:
        return 1.25
    return 1.0


def _name_votes(cls: str | None, ident: str | None, role: str | None) -> tuple[bool, bool, bool]:
    """Whether :data:`STRONG_POSITIVE`, :data:`NEGATIVE` and :data:`POSITIVE` match the
    descriptor ``f"{cls} {ident} {role}".lower()``, found token by token.

    No pattern matches a space except as a word boundary (``[-_ ]``, where ``^`` and ``$``
    also do), so a match lies in one space-separated token, seen with the space that
    follows it; the descriptor's last token is seen as it is, ``$`` and all.
    """
    tokens = f"{cls or ''} {ident or ''} {role or ''}".split(" ")
    last = tokens.pop()
    strong = negative = positive = False
    for token in tokens:
        votes = _TOKEN_VOTES.get(token)
        if votes is None:
            votes = _token_votes(token, token + " ")
        strong, negative, positive = strong or votes[0], negative or votes[1], positive or votes[2]
    if last:
        votes = _LAST_TOKEN_VOTES.get(last)
        if votes is None:
            votes = _token_votes(last, last, _LAST_TOKEN_VOTES, _OLDER_LAST_TOKEN_VOTES)
        strong, negative, positive = strong or votes[0], negative or votes[1], positive or votes[2]
    return strong, negative, positive


_TOKEN_VOTES: dict[str, tuple[bool, bool, bool]] = {}  # a token followed by a space
_LAST_TOKEN_VOTES: dict[str, tuple[bool, bool, bool]] = {}  # the descriptor's last token
_OLDER_TOKEN_VOTES: dict[str, tuple[bool, bool, bool]] = {}  # the older generations of the two
_OLDER_LAST_TOKEN_VOTES: dict[str, tuple[bool, bool, bool]] = {}


_POSITIVE_WORD, _STRONG_GUARD, _NEGATIVE_WORD, _NEGATIVE_GUARD = 1, 2, 4, 8


def _hint_words() -> ahocorasick.Automaton:
    """The words of the three patterns, each with what finding it means (bit flags)."""
    flags: dict[str, int] = {}
    for words, flag in ((_POSITIVE_WORDS, _POSITIVE_WORD), (_STRONG_GUARDS, _STRONG_GUARD),
                        (_NEGATIVE_WORDS, _NEGATIVE_WORD), (_NEGATIVE_GUARDED, _NEGATIVE_GUARD)):
        for word in words:
            flags[word] = flags.get(word, 0) | flag
    automaton = ahocorasick.Automaton()
    for word, flag in flags.items():
        automaton.add_word(word, flag)
    automaton.make_automaton()
    return automaton


_HINT_WORDS = _hint_words()


def _token_votes(token: str, text: str, cache: dict | None = None,
                 older: dict | None = None) -> tuple[bool, bool, bool]:
    """Whether :data:`STRONG_POSITIVE`, :data:`NEGATIVE` and :data:`POSITIVE` match ``text``
    (lower-cased here), remembered under ``token``.  Most tokens hold none of their words: one
    pass over the text finds them all, and a pattern runs only to decide a guarded word."""
    if cache is None:
        cache, older = _TOKEN_VOTES, _OLDER_TOKEN_VOTES
    elif older is None:
        older = {}
    if len(cache) >= MAX_CACHED_MARKUPS:  # tokens unique to a page must not pile up in a crawl
        _age(cache, older)
    votes = older.get(token)
    if votes is not None:
        cache[token] = votes
        return votes
    text = text.lower()
    found = 0
    for _end, flag in _HINT_WORDS.iter(text):
        found |= flag
    negative = bool(found & _NEGATIVE_WORD) or (
        bool(found & _NEGATIVE_GUARD) and NEGATIVE.search(text) is not None)
    outranked = negative and DOMINANT_NEGATIVE.search(text) is not None
    votes = cache[token] = (
        bool(found & _STRONG_GUARD) and not outranked and STRONG_POSITIVE.search(text) is not None,
        negative,
        bool(found & _POSITIVE_WORD) and not outranked,
    )
    return votes


# Line-level hints: short lines that are article furniture, not body, in any language.
_DATE_PART = re.compile(
    r"\d{1,4}\s*[./\-年]\s*\d{1,2}\s*[./\-月]\s*\d{1,4}|\d{1,2}:\d{2}|"
    r"\b\d{1,2}\.?\s+\w{3,10}\.?\s+\d{4}\b|\b\w{3,10}\.?\s+\d{1,2},?\s+\d{4}\b"
)
_BYLINE = re.compile(
    r"^(?:by|von|par|por|av|di|door|de|af|od|autor(?:in)?:?|author:?|автор:?|текст:?|作者|记者|编辑|责编|"
    r"责任编辑|来源|本报记者|文[/／]|written by|posted by|reporting by)[\s:：]",
    re.IGNORECASE,
)
_EDITOR_NOTE = re.compile(r"^[(（\[【]\s*(?:责任编辑|责编|编辑|来源|作者)[：:]")
# "光明日报记者 王建宏 张文攀", "新华网黑龙江频道 记者 伊琳": an outlet, then the reporter label.
# The label, then nothing but names to the end of the line; matched on the reversed line,
# anchored at its start, which is the forward pattern
# ``(?:记者|通讯员|特约撰稿|实习生)\s*[:：]?\s*H{2,4}(?:[\s、，,]H{2,4})*\s*$`` read backwards.
# (Forwards, a search would scan the rest of the line again from every label: "记者 记者 记者 ...".)
_ZH_REPORTER_REVERSED = re.compile(
    r"^\s*+(?:[\u3400-\u9fff]{2,4}[\s、，,])*[\u3400-\u9fff]{2,4}\s*+[:：]?\s*+(?:者记|员讯通|稿撰约特|生习实)"
)
ZH_BYLINE_MAX_CHARS = 40
# "本报记者罗科苏盈发自北京", "新京报记者 彭冲 山东冠县报道": the reporter, then where from.
_ZH_DISPATCH = re.compile(r"记者.{2,16}(?:发自|报道)\S{0,8}$")
# Page counters and pagers: "已被阅读178次", "您是本文第 154 个阅览者", "阅读 ()", "第1页/共1页 << 上一页".
# (White-space and digit runs are possessive: what follows them cannot start with the same
# characters, and greedy runs side by side would try every split of a long run.)
_COUNTER = re.compile(
    r"阅读\s*+(?:[(（]\s*+\d*+\s*+[)）]|[:：]?\s*+\d++)\s*+$|已被阅读\s*+\d+|阅览者|浏览次数|点击数[:：]|"
    r"第\s*+\d++\s*+页|上一页|下一页|^\d[\d,.]*+\s++(?:views|reads)$",
    re.IGNORECASE,
)
AD_LABELS = frozenset(
    "advertisement advertising advert ad anzeige werbung publicidad publicidade publicité publicite "
    "pubblicità reklam reklama реклама 广告 廣告 annonse annons mainos sponsored gesponsert".split()
)
# The label of a table of contents on a line of its own (its list of in-page links goes with the
# body's link pruning; the label stayed, as a heading over the next section).
TOC_LABELS = frozenset({
    "table of contents", "contents", "on this page", "in this article", "jump to", "jump to section",
    "inhaltsverzeichnis", "sommaire", "table des matières", "índice", "indice", "spis treści",
    "inhoudsopgave", "содержание", "оглавление", "目录", "目錄", "文章目录",
})
# "Foto: REUTERS/Nadja Wohlleben", "Photo by ...", "Bild: dpa": a picture credit on a line of its own.
_PICTURE_CREDIT = re.compile(
    r"^(?:foto|fotos|photo|photos|photograph|bild|image|picture|credit|zdjęcie|kuva|billede|fotografía)"
    r"(?:\s+by\b|\s*[:：])"
    # "Judy Eddy/WENN.com", "© Thinkstock", "Augusta National/Getty Images": a picture agency
    # after a slash or a copyright sign.
    r"|^[^.!?/©]{0,60}(?:/|©|\(c\))\s*(?:getty images|afp|reuters|dpa|ap|epa|shutterstock|"
    r"istock(?:photo)?|thinkstock|wenn(?:\.com)?|imago|picture[ -]alliance|keystone|ddp|sipa|xinhua|anp|ansa|"
    r"efe)\b[^.!?]{0,30}$",
    re.IGNORECASE,
)
# Toolbar words on a line of their own: share, print and mail buttons.
TOOLBAR_LABELS = frozenset(
    "share teilen partager compartir condividi dela del udostępnij print drucken imprimer imprimir stampa "
    "email e-mail mail facebook twitter x whatsapp linkedin telegram reddit pinterest copy link kopieren "
    "feedback tweet autoplay 分享 打印 转发 收藏".split()
) | frozenset({"text size", "font size", "schriftgröße", "размер шрифта", "字号"})  # text-size buttons
_READING_TIME = re.compile(
    r"^\d++\s*+min(?:\.|s|utes?)?(?:\s++(?:read|lesezeit|lectura|leitura|lettura|läsning))?$|"
    r"^(?:reading time|lesezeit|lecture|temps de lecture|tiempo de lectura)\s*+:?\s*+\d++\s*+min",
    re.IGNORECASE,
)
METADATA_MAX_CHARS = 80
# Calls to action and list headings that open or close a body: "Sign up for our newsletter",
# "You may also like", "Lesen Sie auch", "推荐阅读" (edge lines only, see strip_furniture).
_CALL_TO_ACTION = re.compile(
    r"newsletter|subscribe\b|sign up|signup|in your inbox|to your inbox|follow us|follow (?:him|her) on|"
    r"you may also like|you might also like|read more|more stories|most popular|most read|have a tip|"
    r"^write to |give us feedback|abonnier|abonnez|abonne-toi|lesen sie auch|mehr zum thema|"
    r"lire aussi|voir aussi|suscríbete|lee también|leia também|veja também|inscreva-se|iscriviti|"
    r"leggi anche|^share (?:this|on)\b|^分享到|扫一扫|推荐阅读|相关阅读|相关新闻|热门评论|最新评论|关注我们|"
    r"関連記事|관련기사|"
    # the heading of a list of links, alone on its line (the links themselves were left out)
    r"^(?:see also|recent posts|related links|tell us what you think|auch interessant|weitere videos|"
    r"czytaj (?:więcej|także)|ссылки по теме|смотрите также|читайте также|更多相关\w{0,4}|相关链接)"
    r"[\s:：.!…]*$",
)
# "Updated Nov 19, 6:55 AM;Posted Nov 19, 6:51 AM": what is left around the dates is a few
# labels (words of three letters or more; "at", "on" and "PM" do not count).
DATELINE_MAX_WORDS = 6

# Legal notices and reader appeals that close a body, however long: "This copy is for your
# personal, non-commercial use only", "版权与免责声明", "If you enjoyed this article, join ...".
_NOTICE = re.compile(
    r"copyright (?:©|\d{4})|© ?\d{4}|subject to copyright|all rights reserved|non-commercial use|"
    r"reproduced without|if you enjoyed this|ad ?block|免责|反侵权|禁止转载|不得转载|转载请|转载申请|"
    r"声明[:：]|版权声明|著作权声明",
)
NOTICE_MAX_CHARS = 400

# The heading of a comment section: the body ends before it.  An author's invitation that opens
# with the word ("Comments welcome!") is the post's own line.
_COMMENTS_HEADING = re.compile(
    r"^(?:热门评论|最新评论|网友评论|发表评论|参与评论|更多评论|全部评论|评论区|"
    r"(?:\d+ )?comments\b(?!\s+(?:are\s+)?(?:always\s+)?(?:welcome|appreciated|encouraged))|"
    r"\d+ comment\b|leave a (?:comment|reply)|post a comment|add a comment|join the conversation\b|"
    r"discussion about this (?:post|episode|video)\b|kommentare\b|commentaires\b|"
    r"comentarios\b|comentários\b|commenti\b|reacties\b|kommentarer\b)",
    re.IGNORECASE,
)
COMMENTS_HEADING_MAX_CHARS = 40
# The heading of an author box or a list of other articles, on a line of its own: in the
# second half of the body it closes the body.  (In the first half it is a box set into
# the article: "Mehr zum Thema" beside the second paragraph.)
_CLOSING_HEADING = re.compile(
    r"(?:about the authors?|über (?:den autor|die autorin|die autoren)|zum autor|zur autorin|"
    r"à propos de l'auteur|a propos de l'auteur|sobre (?:el autor|la autora|o autor|a autora)|"
    r"sull'autore|over de auteur|o autorze|об авторе|关于作者|作者简介|"
    r"related (?:posts|articles|stories|content)|you (?:may|might) also like|more (?:stories|articles)|"
    r"weitere (?:beiträge|artikel)|ähnliche (?:beiträge|artikel)|zum weiterlesen|mehr zum thema|"
    r"das könnte sie auch interessieren|articles similaires|à lire aussi|artículos relacionados|"
    r"noticias relacionadas|artigos relacionados|articoli correlati|gerelateerde artikelen|"
    r"похожие (?:статьи|новости)|читайте также|相关文章|相关阅读|推荐阅读)[\s:：.!…]*",
    re.IGNORECASE,
)
CLOSING_HEADING_SHARE = 0.5
# The heading of a site's copyright and disclaimer notice, which Chinese sites set after every
# article ("大江网版权与免责声明", "南方网版权相关声明", "反侵权公告"), or "Copyright" alone.
_NOTICE_HEADING = re.compile(
    r"\S{0,12}?(?:版权(?:与|和|及|相关)?(?:免责)?声明|免责声明|传输内容声明|反侵权公告)[\s:：]*|copyright[\s:：.]*",
    re.IGNORECASE,
)


def cut_trailing_sections(paragraphs: list[str], substantial: int = METADATA_MAX_CHARS) -> list[str]:
    """The paragraphs before the first heading of a section that follows the article: a
    comment-section or copyright-notice heading (:data:`_NOTICE_HEADING`) after ``substantial``
    characters of body text, or an author-box or related-articles heading
    (:data:`_CLOSING_HEADING`) in the second half of the body."""
    total = sum(map(len, paragraphs))
    before = 0
    for i, line in enumerate(paragraphs):
        if before >= substantial and len(line) <= COMMENTS_HEADING_MAX_CHARS:
            text = line.strip()
            if _COMMENTS_HEADING.match(text) or _NOTICE_HEADING.fullmatch(text) or (
                before >= CLOSING_HEADING_SHARE * total and _CLOSING_HEADING.fullmatch(text)
            ):
                return paragraphs[:i]
        before += len(line)
    return paragraphs


def is_notice_line(line: str) -> bool:
    """A legal notice or reader appeal of any length up to :data:`NOTICE_MAX_CHARS`."""
    text = line.strip()
    if len(text) > NOTICE_MAX_CHARS:
        return False
    lowered = text.lower()  # the patterns are lower-case: re.IGNORECASE made them 4x slower
    return bool(_NOTICE.search(lowered) or _CALL_TO_ACTION.search(lowered))


def is_stray_line(line: str) -> bool:
    """An ad label, a table of contents' label or a picture credit standing alone: never body,
    wherever it is."""
    text = line.strip()
    label = text.casefold().strip(" .:-–—|")
    if label in AD_LABELS or label in TOC_LABELS:
        return True
    return len(text) <= METADATA_MAX_CHARS and bool(_PICTURE_CREDIT.match(text))


def is_furniture_line(line: str) -> bool:
    """A short paragraph that is a dateline, byline, editor credit, ad label or bare number."""
    text = line.strip()
    if not text:
        return True
    label = text.casefold().strip(" .:-–—|")
    if label in AD_LABELS or label in TOOLBAR_LABELS or _READING_TIME.match(label):
        return True
    if not any(ch.isalpha() for ch in text):
        return len(text) <= METADATA_MAX_CHARS
    if len(text) > METADATA_MAX_CHARS:
        return False
    if _EDITOR_NOTE.match(text) or _BYLINE.match(text):
        return True
    if len(text) <= ZH_BYLINE_MAX_CHARS and (
        _ZH_REPORTER_REVERSED.match(text[::-1]) or _ZH_DISPATCH.search(text)
    ):
        return True
    if _COUNTER.search(text):
        return True
    if _CALL_TO_ACTION.search(text.lower()):
        return True
    if _DATE_PART.search(text):
        words = text.split()
        if len(words) <= 8 or len(text) <= 40:
            return True
        labels = [w for w in _DATE_PART.sub(" ", text).split() if sum(ch.isalpha() for ch in w) >= 3]
        return len(labels) <= DATELINE_MAX_WORDS
    return False


# Lines repeating an earlier stretch of the body in the same order, holding at least this many
# paragraphs of prose (lines this long), are a second copy of the article (a page that renders
# it twice, for two layouts), not text.
REPEAT_MIN_PARAGRAPHS = 5
REPEAT_PARAGRAPH_CHARS = 100
# ... and at least this share of the body's characters (a day of a meal plan the plan repeats
# whole holds less).
REPEAT_MIN_SHARE = 0.125


def without_second_copy(paragraphs: list[str]) -> list[str]:
    """``paragraphs`` without each stretch that repeats an earlier stretch line for line,
    holds :data:`REPEAT_MIN_PARAGRAPHS` or more paragraphs of prose and
    :data:`REPEAT_MIN_SHARE` of the characters.

    What a text repeats in another order or among other lines stays: a meal plan's days, a
    training plan's warm-ups, a webcam page's credit lines.  Linear: a stretch kept is not
    compared again from each of its lines (a shorter part of it could not qualify either).
    """
    first: dict[str, int] = {}
    kept: list[str] = []
    least = REPEAT_MIN_SHARE * sum(map(len, paragraphs))
    i = 0
    while i < len(paragraphs):
        k = first.get(paragraphs[i])
        n = 1
        if k is not None:
            while i + n < len(paragraphs) and k + n < i and paragraphs[k + n] == paragraphs[i + n]:
                n += 1
            stretch = paragraphs[i:i + n]
            if sum(map(len, stretch)) >= least and \
                    sum(len(x) >= REPEAT_PARAGRAPH_CHARS for x in stretch) >= REPEAT_MIN_PARAGRAPHS:
                i += n
                continue
        for j in range(i, i + n):
            first.setdefault(paragraphs[j], j)
        kept.extend(paragraphs[i:i + n])
        i += n
    return kept


def strip_furniture(
    paragraphs: list[str], substantial: int = METADATA_MAX_CHARS, is_headline=lambda line: False
) -> list[str]:
    """Drop furniture lines at the body's edges: before its first and after its last
    substantial paragraph.  Inside the body the same shapes are content (a tweet's
    attribution line, a schedule, a table row) and are kept.  ``is_headline`` tells
    a line that repeats the page's title, which opens many bodies in non-heading markup.
    """

    def furniture(line: str) -> bool:
        return is_furniture_line(line) or is_headline(line) or is_notice_line(line)

    paragraphs = [line for line in cut_trailing_sections(paragraphs, substantial) if not is_stray_line(line)]

    long_ones = [i for i, line in enumerate(paragraphs) if len(line) >= substantial]
    if not long_ones:
        return [line for line in paragraphs if not furniture(line)]
    # A long legal notice or appeal after the last paragraph of text closes the body too.
    # (Scanned from the end: only the trailing long lines need the notice patterns.)
    first, last = long_ones[0], next((i for i in reversed(long_ones) if not is_notice_line(paragraphs[i])),
                                     long_ones[-1])
    return [line for i, line in enumerate(paragraphs) if first <= i <= last or not furniture(line)]
