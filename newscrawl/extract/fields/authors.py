"""Article authors: the piece's credited creators as a list of names (empty when unsure).

Sources, most trusted first; the first that yields a name other than the site's wins:

1. JSON-LD ``author`` (and ``creator``) of the article object: its ``Person`` and
   ``Organization`` entries in order (``@id`` references resolved, ``givenName`` +
   ``familyName`` when there is no ``name``);
2. ``<meta>`` author names (``author``, ``article:author``, ``parsely-author``, ``byl``,
   ``sailthru.author``, ``dc.creator``, Yoast's "Written by" ``twitter:data`` ...), each name in
   turn, URLs and handles skipped;
3. byline elements: the ``itemprop="author"`` / ``rel="author"`` elements of one byline (they
   extend a meta that names only the first), then the first two elements whose class or id says
   ``byline``/``author`` (short texts only);
4. byline lines in the visible text near the headline: ``作者：``, ``记者 XXX``, ``文/XXX``,
   ``执笔``, ``Автор:``, ``By``/``Von``/``Par``/``Por`` at the start of a line;
5. editor lines (``责任编辑：``, ``编辑：``) when nothing names a writer — Chinese portals
   credit only the editor, and that is what readers and the zh-news truth take as the author;
6. a paragraph of nothing but a bold name opening the text (when the page's excerpt starts
   with it) or closing it aligned right.

The list names people, and a news agency or other organisation the byline credits ("By AFP",
"Jane Doe, Reuters", a JSON-LD ``Organization`` author that is not the publisher).  Never the
site itself: a name the page uses for its site or publisher (``og:site_name``, JSON-LD
``publisher`` and ``WebSite``, the ``<title>`` suffix, the host and its brand, or the brand and a
region: "MDR THÜRINGEN" on mdr.de), a section label (a path segment of the URL: "capital"), an
affiliation ("Herald staff", "Staff Writer", "Gear Team", "MM-Redaktion", "специальный
корреспондент"), a photo credit ("Foto: dpa", "Getty Images", "AFP Photo", an author element in a
picture's caption), an editor's credit ("Editor: Mark Stone", "Редактор") or a company ("Acme Media
Ltd", "Acme Media Group").  A personal site's owner ("Helge Fahrnberger":
two or three capitalised words) is the one site name taken, and only when nothing else is found.
Labels ("By ", "Von ", "Zeige alle Beiträge von", "作者：") are stripped; a byline is cut at a date
or a separator ("By Tom Becker · November 20"); initials, particles and suffixes stay part of the
name ("Sarah E. Needleman", "Ludwig van Beethoven", "Martin Luther King Jr."); names are
de-duplicated case-insensitively, first spelling kept.
"""

from __future__ import annotations

import bisect
import html
import itertools
import operator
import re
import unicodedata
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from lxml import etree

from ..dom import normalize_space
from ..page import Page

try:  # the attribute scan compiled (newscrawl/extract/_speedups.pyx); the Python loop otherwise
    from .._speedups import author_candidates
except ImportError:  # not built, or NEWSCRAWL_PURE_PYTHON=1
    author_candidates = None

MAX_NAME_CHARS = 60
MAX_NAMES = 12
MAX_ELEMENT_TEXT = 120
MAX_CLASS_BYLINES = 2  # elements a byline class rule offers

META_NAMES = (
    "author", "article:author", "article:author_name", "og:article:author", "parsely-author", "byl",
    "sailthru.author", "dc.creator", "dcterms.creator", "cxenseparse:author", "analytics:author",
    "citation_author", "twitter:data1:author", "creator", "authors", "articleauthor", "article-author",
    "shareaholic:article_author_name",
)
# Yoast's ``twitter:labelN`` "Written by" names the meta whose ``twitter:dataN`` is the author.
_WRITTEN_BY = frozenset({"written by", "geschrieben von", "verfasst von", "escrito por", "écrit par",
                         "scritto da", "geschreven door", "skrevet av", "napisane przez"})

# These patterns scan in linear time on any text (tests/test_regex_linear.py):
# - a white-space run is possessive (``\s*+``) where what follows cannot start with white space;
# - a pattern that may start with a run (``\s*X``, ``\S*X``) enters it only where the run starts
#   (``(?<!\s)``): a failed attempt is not repeated from each later character of the run;
# - ``.*`` to the end is DOTALL: the text is one normalised line, so it always reaches the end
#   (a ``.*$`` that stops at a line break would be tried again from every later separator).
_PREFIX = re.compile(
    r"^\s*+(?:(?:written|reported|text|posted|story|words|photos?|published|eingestellt|erstellt|verfasst|"
    r"geschrieben|veröffentlicht|publié|publiée|publicado|escrito|scritto|pubblicato|geplaatst|artikel|beitrag|"
    r"(?:(?:zeige|view)\s++)?(?:alle|all)\s++(?:beiträge|posts|artikel|articles)|more\s++posts)\s++)?"
    r"(?:by|von|vom|par|por|di|da|door|av|af|quelle|source|fuente|fonte|interview|"
    r"от|автор(?:ы)?|text|texte|texto|testo|author|autor|autora|auteur|autore|redaktion|作者|记者|文)"
    r"\b\s*+[:：]?\s*+|^\s*+(?:作者|记者|文|撰文|执笔人?|责任编辑|编辑|责编|Автор(?:ы)?|Текст)\s*+[:：/／]\s*+",
    re.IGNORECASE,
)
# Conjunctions split only in lower case ("Sarah E. Needleman" is one person) or as "AND".
_SPLIT = re.compile(
    r"(?:(?<!\s)\s*+)?(?:,|;|\||、|，|/|／|&|\+|\b(?:and|AND|And|und|et|y|e|и|og|en|och)\b)\s*"
)
_URL = re.compile(r"(?<!\S)\S*(?:https?:/|www\.)\S*", re.IGNORECASE)
# A lower-case word before "von"/"by" is a label, not a name ("capital von Jemima Kelly").
_LOWER_LABEL = re.compile(r"^[^\W\d_A-ZÀ-ÞĀ-ſ]\S*+\s++(?=(?:by|von|par|por|door)\s)")
_AT_HANDLE = re.compile(r"(?<!\S)@\S*")  # "Williams Perdomo @wperdomod" (an e-mail address stays junk)
_SLUG = re.compile(r"^[a-z]++(?:[._-][a-z]++)++$")  # "edilson.la.rosa", "gabor_munier", "gloria-ruiz": logins
# A weekday left before the date a byline was cut at ("Tomas Spahn Fr, 12.03.2021").
_WEEKDAY = frozenset("mon tue wed thu fri sat sun mo di mi do fr sa so lun mar mer jeu ven sam dim".split())
_HAN = re.compile(r"[\u3400-\u9fff]")
_HAN_NAMES = re.compile(r"^[\u3400-\u9fff·]{2,5}(?:[\s\u3000]+[\u3400-\u9fff·]{2,5})+$")
_JUNK = re.compile(r"https?:|www\.|@|\.(?:com|html?)\b|\d|^\W+$", re.IGNORECASE)  # names hold no digits
# The lookahead lists every character a match can start with, so elsewhere the scan moves on after
# one test instead of trying each alternative; the white space before a marker is atomic, since no
# alternative starts with white space.  Same matches, a third of the cost on "1,1,1,…".
_TRAILING = re.compile(
    r"(?=[\s|–—\-(（\[【•·\dupaovsfbjmnd])(?>(?:(?<!\s)\s*+)?)(?:\||–|—|-{1,2}\s|\(|（|\[|【|•|(?<=\s)·|·(?=\s)|\d{1,2}[.:/]\d{1,2}|"
    r"\b(?:updated\b|published\b|am\s++\d|on\s++\d|veröffentlicht\b|aktualisiert\b|stand\s*+:|"
    r"am\s++(?:montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag)\b|"
    r"(?:fotos?|photos?|bild)\s*+:|alle\s++(?:artikel|beiträge)\b(?!\s++von)|all\s++(?:posts|articles)\b(?!\s++by)|"
    r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]{0,6}\.?\s++\d|(?:19|20)\d\d\b))(?s:.*)",
    re.IGNORECASE,
)
# Words that make a byline part an affiliation, not a person ("Herald staff", "Staff Writer").
AFFILIATION_WORDS = frozenset(
    "staff writer writers correspondent correspondents reporter reporters editor editors contributor "
    "contributing columnist bureau newsroom desk team journalist journalists photographer redaktion "
    "redakteur redakteurin korrespondent korrespondentin experte expertin gastautor gastautorin "
    "journaliste rédaction rédacteur envoyé "
    "корреспондент корреспондента корреспондентка обозреватель редакция редактор собкор "
    "inc ltd gmbh corp llc 기자 특파원".split()
)
# News agencies and wire services: credited as an article's author on wire copy ("By AFP").
AGENCIES = frozenset(
    "reuters ap afp dpa tass itar-tass xinhua bloomberg upi efe ansa pti ians kyodo yonhap epa apa anp "
    "belga sid kna cnn bbc интерфакс тасс 新华社 中新社 中新网 央视网 人民网 新华网".split()
) | {"associated press", "agence france-presse", "ria novosti", "риа новости", "press association"}
_SUFFIXES = frozenset({"jr", "sr", "ii", "iii", "iv"})  # part of the name
_CREDENTIALS = frozenset({"phd", "ph.d", "md", "mba", "rd", "rn", "msc", "bsc"})  # not part of it
# Words of an organisation's or outlet's name: a site name holding one is no person's name.
ORGANISATION_WORDS = frozenset(
    "news nachrichten zeitung times today daily weekly presse press magazin magazine journal online "
    "tv radio foundation stiftung verlag verein association institute institut university universität "
    "council ministry department group company media report reports sport sports blog".split()
)
_NOT_PERSON_WORDS = ORGANISATION_WORDS | AFFILIATION_WORDS  # a word no person's name holds
# "赵 培": a two-character name padded to the width of three
_SPACED_HAN_NAME = re.compile(r"^([\u3400-\u9fff])[\s\u3000]++([\u3400-\u9fff]{1,2})$")
# A company's name: a legal form or a publisher's word (Latin), a Han name of four or more characters
# ending in an institution's word (出版社, 期刊, 公司, 集团, 报社, 杂志社).
_COMPANY = re.compile(
    r"\b(?:publishers?|publishing|verlag|inc|ltd|gmbh|llc|corp|plc|s\.a|ag|kg)\b\.?$|^(?:copyright|©)|"
    r"^[\u3400-\u9fff]{2,}(?:出版社|期刊|公司|集团|集團|杂志社|雜誌社|报社|報社)$",
    re.IGNORECASE,
)
_NON_WORD = re.compile(r"[\W_]+")
# A credit for the pictures, not the text.
_PHOTO_CREDIT = re.compile(r"^\s*+(?:photos?|fotos?|bild(?:er)?|images?|pictures?|illustrations?|"
                           r"credits?|crédits?)\b(?!\s*+(?:and|und|&)\b)", re.IGNORECASE)
_NAME_STRIP = " ·:：-–—'\"\u201c\u201d"
# A credit naming the picture agency or the photographer's desk: "Getty Images", "AFP Photo",
# "AFP via Getty Images", "Shutterstock" (an agency the text credits stays: "By Reuters").
_PHOTO_AGENCY = re.compile(r"\b(?:getty|shutterstock|istock(?:photo)?|alamy|imago|picture[\s-]alliance|"
                           r"images|photos?|photography|fotos?|bildagentur)\b", re.IGNORECASE)
# An editor's credit, not the writer's ("Editor: Mark Stone", "Edited by", "Редактор"); Chinese
# portals' 责任编辑 lines are read apart, as the last resort (see the module docstring).
_EDITOR_CREDIT = re.compile(
    r"^\s*+(?:(?:sub-?|copy\s++|managing\s++|chief\s++)?editors?\b|edit(?:ed|ing)\s++by\b|"
    r"редактор|редактировал|выпускающий\s++редактор)", re.IGNORECASE)
# A company credited: a name of two or more words ending in one of these ("Acme Media Group").
_COMPANY_LAST_WORDS = frozenset(
    {"media", "group", "holdings", "company", "corporation", "networks", "studios"})
_NOT_NAMES = frozenset(
    "author authors autor admin administrator editor redaktion staff unknown anonymous 未知 匿名 佚名 "
    "guest by von share follow facebook twitter email name instagram linkedin whatsapp print mail "
    "themen bearbeiten folgen teilen more mehr alle all beiträge posts articles artikel view my mon "
    "profile profil complete complet afficher red null none undefined no posted on am publiziert "
    "veröffentlicht datum date zuletzt geändert published updated".split()  # "red": Redaktion
)

# Visible-text bylines work on short lines: a label, then nothing but names up to a stop word.
MAX_BYLINE_LINE = 80
_WRITER_LABEL = re.compile(
    r"(?:作者|撰文|执笔人?|撰稿人?|(?<![\u3400-\u9fff])文(?=\s*[:：/／])|记者|通讯员)\s*[:：/／]?"
)
_EDITOR_LABEL = re.compile(r"(?:责任编辑|责编|编辑)\s*[:：]")
_POSTED_BY = re.compile(r"^\s*([\w&.\-\u3400-\u9fff]{2,30})\s*(?:发表于|发布于|posted)")
_PAREN_BYLINE = re.compile(r"(?:^|[。！？!?”」])\s*[（(]\s*([^()（）\n]{2,30}?)\s*[)）]\s*$")
LABEL_MAX_OFFSET = 16  # a byline label starts its line, after at most an outlet's name ("新京报记者")
_RU_AUTHOR = re.compile(r"(?:Автор(?:ы)?|Текст)\s*+:\s*+([А-ЯЁA-Z][^\n|,;]{2,60})")
# Up to four names a group, groups joined by "," / "and" / "&".  Names in a group are apart by
# white space: two names written together are one name to the pattern (same match, fewer names),
# and the regex engine does not try every way of cutting "AAAA...A" into names.
# Lower-case name particles ("Ludwig van Beethoven") sit between capitalised words.
_PARTICLES = r"(?:van|von|de|der|den|del|della|di|da|du|la|le|ter|ten|bin|ibn|al|el|dos|das|do|zu)"
_BY_NAME = r"[A-ZÀ-ÖØ-ÞĀ-ſ][\w'’.\-]+"
_PARTICLE_WORDS = frozenset(_PARTICLES[3:-1].split("|"))
# The path of an author's profile page.
_AUTHOR_PAGE = re.compile(r"/(?:authors?|autor(?:en|in)?|avtor|journalists?|reporters?|writers?|profiles?)/",
                          re.IGNORECASE)
_BY_NAMES = rf"{_BY_NAME}(?:\s++(?:{_PARTICLES}\s++){{0,2}}{_BY_NAME}){{0,3}}\s*+"
_BY_LINE = re.compile(
    rf"^\s*+(?:By|Von|Par|Por|Door|Av|Af|Di|(?:Autorin/Autor|Autor(?:in)?|Author|Auteur|Autore|Autora)(?:\s*+:)?)"
    rf"\s++({_BY_NAMES}(?:(?:,|\band\b|\bund\b|\bet\b|\by\b|&)\s*+{_BY_NAMES}){{0,5}})$",
)
# "Sehernur Karsu | 05.04.2025": a name, a bar and the date (on the line or the next).
_NAME_BAR = re.compile(rf"^\s*+({_BY_NAMES})\|\s*+((?s:.*))")
_DATE_START = re.compile(r"^\s*+\d{1,2}[./]\d{1,2}[./]\d{2,4}\b")
_REPORTER_PREFIX = re.compile(r"^[^\s]{0,10}?(?:记者|通讯员)\s*")
_HAN_TOKEN = re.compile(r"^[\u3400-\u9fff·]{2,4}$")
_HANDLE_TOKEN = re.compile(r"^[A-Za-z][\w&.\-]{1,29}$")
_NAME_END = re.compile(r"(发自|报道|摄影?|/|／|_|\||【|\[|[(（)）\]】])(?s:.*)")  # on one token
_NAME_SEPARATORS = re.compile(r"[\s、，,]+")
_TITLE_PARTS = re.compile(r"(?<!\s)\s++[|\-–—:]\s+|[|_]")  # "Headline - Site": see _SPLIT
_NOT_HAN_NAME = re.compile(  # function words anywhere, or an institution's last character
    r"[的了是们这那么吗呢吧着过]|[说网报社台局委院所部厅处站刊号]$"
)
_HAN_STOP = frozenset(
    "相关 简介 联系 来源 时间 编辑 记者 作者 评论 分享 阅读 点击 登录 注册 返回 首页 发布 日期 本报 本站 "
    "原创 转载 新闻 图片 视频 通讯员 实习生 综合 整理 "
    # picture and video labels in parentheses after a headline or caption: "（组图）", "(资料图)"
    "组图 多图 高清组图 资料图 图文 图集 配图 供图 圖片 組圖 資料圖 圖文 視頻 视频截图 "
    "上一页 下一页 接下一页 上一頁 下一頁 接下一頁".split()  # pager links
)


def find_authors(page: Page) -> list[str]:
    """The article's credited authors (people, a credited agency), byline order; empty when none."""
    try:
        return _find_authors(page)
    except (ValueError, TypeError, RecursionError, etree.LxmlError):
        return []


def find_author(page: Page) -> str | None:
    """:func:`find_authors` joined with ", " (the former single-string form), or None."""
    return ", ".join(find_authors(page)) or None


def _find_authors(page: Page) -> list[str]:
    metas, by_rule = _scan(page)  # one walk of the tree; the sources below read its findings
    site_names = _site_names(page, metas) | _publisher_names(page)
    addresses = _site_addresses(page, metas)
    sections = _sections(page)
    personal_site: list[str] = []
    found: list[str] = []
    site_words = site_names | addresses
    for structured, names in _sources(page, metas, by_rule):
        names = [n if _is_site(n.casefold(), site_names) else _without_site_word(n, site_words)
                 for n in names]
        people = unique_names(n for n in names
                              if not _is_site(n.casefold(), site_names) and n.casefold() not in addresses
                              and not _is_section(n, sections))
        if found:  # a later markup source naming them all and more: a byline the first one cut short
            if not structured:
                break
            if len(people) > len(found) and {n.casefold() for n in found} <= {n.casefold() for n in people}:
                found = people
            continue
        if people:  # "Jane Doe, Example News" → ["Jane Doe"]
            found = people
            continue
        personal_site = personal_site or [n for n in names if _is_personal_site_name(n)][:1]
    return found or personal_site


def _without_site_word(name: str, site_names: set[str]) -> str:
    """``name`` without a last word that is the site's name ("Adam Aaronson PhillyVoice")."""
    head, _, last = name.rpartition(" ")
    return head if head and last.casefold() in site_names else name


def _is_personal_site_name(name: str) -> bool:
    """A site name that is a person's (a blog's owner: "Helge Fahrnberger"), taken only when no
    other name is found: two or three capitalised words of letters, no leading article ("Les
    Echos"), none of an organisation's words.  A one-word brand ("Eurosport") is the site."""
    words = name.split()
    return (2 <= len(words) <= 3 and words[0].casefold() not in _ARTICLES
            and all(w[:1].isupper() and w.replace("-", "").replace("'", "").isalpha() for w in words)
            and not any(w.casefold() in _NOT_PERSON_WORDS for w in words)
            and name.casefold() not in AGENCIES)


_ARTICLES = frozenset("the le la les l der die das el il lo los las het de een".split())


def _is_section(name: str, sections: set[str]) -> bool:
    """A one-word lower-case label that is a path segment of the URL ("capital")."""
    return name.islower() and name in sections


def _sources(page: Page, metas: list | None = None,
             by_rule: list[list] | None = None) -> Iterator[tuple[bool, list[str]]]:
    """``(from markup, names)`` candidate lists, best first.  On Chinese pages the byline lines
    come before ``<meta>`` and author widgets, which there usually name the site or the
    syndicating account.  ``metas``, ``by_rule``: :func:`_scan`'s (read when not given)."""
    if metas is None:
        metas = list(page.root.iter("meta"))
    yield True, _json_ld_authors(page)
    lines = _Lines(page)  # the visible text is split into lines only when a text source is reached
    if page.language == "zh":
        for names in _text_bylines(lines, _WRITER_FINDERS):
            yield False, names
    for names in _meta_authors(page, metas):
        yield True, names
    yield from _element_authors(page, by_rule)
    # Only text sources follow, and the first of them ends the search once a name is found, as
    # this empty one does: the visible text is not split into lines for a decided page.
    yield False, []
    finders = _WRITER_FINDERS if page.language == "zh" else _WRITER_FINDERS[:-1]  # "（常书香 马丹阳）"
    for names in _text_bylines(lines, finders + _EDITOR_FINDERS):
        yield False, names
    yield False, _bold_byline(page, metas)


# --- cleaning ------------------------------------------------------------------------------------


def clean_name(raw: Any, han_spaces_split: bool = True) -> list[str]:
    """Credited names in one raw author string: label stripped, cut at a date or separator, split
    on name separators, suffixes re-attached ("King, Jr."), affiliations, photo credits and junk
    dropped.  ``han_spaces_split``: Han names apart by spaces are several people ("王建宏 张文攀"),
    as in Chinese bylines; False on Japanese pages, where "大渡 美咲" is one person."""
    if not isinstance(raw, str):
        return []
    if "&" in raw:  # "Redacci&oacute;n": an entity escaped twice
        raw = html.unescape(raw)
    text = normalize_space(unicodedata.normalize("NFKC", raw[:400]))
    if _PHOTO_CREDIT.match(text) or _EDITOR_CREDIT.match(text):  # "Photo: AFP", "Foto: dpa", "Editor: X"
        return []
    text = _AT_HANDLE.sub(" ", _URL.sub(" ", text)).strip()
    text = _PREFIX.sub("", _LOWER_LABEL.sub("", text, count=1), count=1)
    cut = _TRAILING.sub("", text)
    if cut != text and len(cut.split()) >= 3 and cut.split()[-1].casefold().rstrip(".,") in _WEEKDAY:
        cut = cut.rsplit(None, 1)[0]
    text = cut
    if han_spaces_split and _HAN_NAMES.match(text):  # "王建宏 张文攀": several people
        parts = text.split()
    else:
        parts = _SPLIT.split(text)
    names: list[str] = []
    for part in parts:
        name = _trim(_PREFIX.sub("", _trim(part)))
        if names and name.casefold().rstrip(".") in _SUFFIXES:
            names[-1] = f"{names[-1]} {name}"
            continue
        if name.casefold().rstrip(".") in _CREDENTIALS:  # "Grant Tinsley, PhD"
            continue
        if _COMPANY.search(name):  # "Acme Media Ltd": not "Acme Media" once its legal form is cut
            continue
        name = _SPACED_HAN_NAME.sub(r"\1\2", _without_affiliation(name))
        if _is_name(name):
            names.append(name)
    return names


def _trim(text: str) -> str:
    """``text`` without surrounding punctuation, keeping the full stop of a closing initial or
    suffix ("Sarah E.", "King Jr.")."""
    core = text.strip(_NAME_STRIP + ".")
    if core and text.rstrip(_NAME_STRIP).endswith("."):
        last = core.rsplit(None, 1)[-1]
        if (len(last) == 1 and last.isalpha()) or last.casefold() in _SUFFIXES:
            core += "."
    return core


def _without_affiliation(name: str) -> str:
    """The person in "Jane Doe Staff Writer", the agency in "Associated Press in Valencia"; "" for
    an affiliation ("Herald staff", "Gear Team", "MM-Redaktion")."""
    head = name.split(" in ")[0]
    if head.casefold() in AGENCIES:  # "Associated Press in Valencia"
        return head
    words = name.split()
    for i, word in enumerate(words):
        if _is_affiliation_word(word):
            caseless = i == 1 and _is_caseless(words[0])  # "신현주 기자": a Korean name is one word
            if i == 0:  # "FOCUS-Online-Experte Robin Tschöpe", "Staff Writer Jane Doe"
                rest = list(itertools.dropwhile(_is_affiliation_word, words))
                return " ".join(rest) if len(rest) >= 2 and all(w[:1].isupper() for w in rest) else ""
            return " ".join(words[:i]) if i >= 2 or caseless else ""
    return name


def _is_affiliation_word(word: str) -> bool:
    folded = word.casefold().strip(".,")
    return folded in AFFILIATION_WORDS or folded.rpartition("-")[2] in AFFILIATION_WORDS


def _is_caseless(word: str) -> bool:
    """Written in a script without letter case (Han, Hangul, kana): one word can be a whole name."""
    return word[:1].isalpha() and not word[:1].isupper() and not word[:1].islower()


def _is_name(name: str) -> bool:
    if len(name.rstrip(".")) < 2 or len(name) > MAX_NAME_CHARS or name.casefold() in _NOT_NAMES:
        return False  # "V." of "e. V." is no name
    if _JUNK.search(name) or _SLUG.match(name) or not any(ch.isalpha() for ch in name):
        return False
    if all(word.casefold() in _NOT_NAMES for word in name.split()):  # "Twitter Facebook"
        return False
    if name.casefold() in ORGANISATION_WORDS:  # "Nachrichten", "News": a section, not a credit
        return False
    if _COMPANY.search(name):  # "Hans Publishers", "汉斯出版社", "中文学术期刊": a company credited
        return False
    if _PHOTO_AGENCY.search(name):  # "Getty Images", "AFP Photo": the pictures' credit
        return False
    words = name.split()
    if len(words) >= 2 and words[-1].casefold() in _COMPANY_LAST_WORDS and name.casefold() not in AGENCIES:
        return False  # "Acme Media Group"
    return len(name.split()) <= 6


def unique_names(names: Iterable[str]) -> list[str]:
    """De-duplicated (case-insensitively, keeping the first spelling); [] past MAX_NAMES (a list
    of that length is a widget, not a byline)."""
    seen: dict[str, str] = {}
    for name in names:
        seen.setdefault(name.casefold(), name)
    return list(seen.values()) if len(seen) <= MAX_NAMES else []


def _is_site(name: str, site_names: set[str]) -> bool:
    """``name`` is the site's own name, a part of it ("网易" in "网易财经", "Deutsche Welle" in
    "Deutsche Welle (www.dw.com)": whole words in a Latin name), or the site's brand and a
    region or desk ("MDR THÜRINGEN" on a site called "MDR").  A ``<title>`` part such as "By Jane
    Doe" is no site name, so a name inside it is not one either."""
    if len(name) < 2:
        return name in site_names
    han = bool(_HAN.search(name))
    words = f" {_NON_WORD.sub(' ', name).strip()} "
    for site in site_names:
        if name == site:
            return True
        if site.startswith("by "):
            continue
        if han and name in site:
            return True
        if not han and words in f" {_NON_WORD.sub(' ', site).strip()} ":
            return True
        if " " not in site and len(site) >= 2 and name.startswith(site + " "):
            return True
    return False



def _site_names(page: Page, metas: list | None = None) -> set[str]:
    """The names the page gives its site (meta, ``<title>`` suffix, JSON-LD ``WebSite``); a name
    in one of them is the site's (the JSON-LD publisher's are added by the caller)."""
    names = set()
    for meta in page.root.iter("meta") if metas is None else metas:
        key = (meta.get("property") or meta.get("name") or "").lower()
        if key in ("og:site_name", "application-name", "publisher", "copyright"):
            names.add(normalize_space(meta.get("content")).casefold().lstrip("@"))
    for obj in page.json_ld:
        if "WebSite" in str(obj.get("@type")):
            names.update(_ld_names(obj))
    title = page.title_tag
    for part in _TITLE_PARTS.split(title)[1:]:
        names.add(part.strip().casefold())
    names.discard("")
    return names


def _site_addresses(page: Page, metas: list | None = None) -> set[str]:
    """The host ("zeit.de"), its brand ("zeit") and the site's ``twitter:site`` handle: a name
    equal to one is the site's.  Only equal: "Heiko" on heiko-adams.de, "Creeny" on
    creeny.wordpress.com are people, a personal site's owner."""
    names = set()
    for meta in page.root.iter("meta") if metas is None else metas:
        if (meta.get("name") or meta.get("property") or "").lower() == "twitter:site":
            names.add(normalize_space(meta.get("content")).casefold().lstrip("@"))
    host = (page.url or "").split("//")[-1].split("/")[0].split(":")[0].lower().removeprefix("www.")
    if host:
        names.add(host)
        labels = host.split(".")
        if len(labels) >= 2:  # "nine.com.au" → "nine", "faktencheck.afp.com" → "afp"
            second_level = len(labels) >= 3 and labels[-2] in _SECOND_LEVEL
            names.add(labels[-3] if second_level else labels[-2])
    names.discard("")
    return names


def _publisher_names(page: Page) -> set[str]:
    """Names of the organisations the JSON-LD gives as publisher."""
    names: set[str] = set()
    by_id = {o.get("@id"): o for o in page.json_ld if isinstance(o.get("@id"), str)}
    for obj in page.json_ld:
        publishers = obj.get("publisher")
        for publisher in (publishers if isinstance(publishers, list) else [publishers]):
            if isinstance(publisher, Mapping) and isinstance(publisher.get("@id"), str):
                publisher = by_id.get(publisher["@id"], publisher)
            if isinstance(publisher, Mapping) and "Person" not in str(publisher.get("@type")):
                names.update(_ld_names(publisher))
    return names


_SECOND_LEVEL = frozenset("com co org net gov ac edu or ne go".split())


def _ld_names(obj: Mapping) -> list[str]:
    """``name`` and ``alternateName`` of a JSON-LD object, case-folded."""
    found = []
    for key in ("name", "alternateName"):
        value = obj.get(key)
        for item in (value if isinstance(value, list) else [value]):
            if isinstance(item, str) and item.strip():
                found.append(normalize_space(item).casefold())
    return found


def _sections(page: Page) -> set[str]:
    """The URL's path segments, case-folded: a name equal to one is a section label ("capital"
    from stern.de/capital/...), not a credit."""
    path = (page.url or "").split("//")[-1].partition("/")[2].split("?")[0].split("#")[0]
    return {segment.casefold() for segment in path.split("/")[:-1] if segment}


# --- structured sources --------------------------------------------------------------------------


def _is_article(obj: Mapping) -> bool:
    kind = obj.get("@type")
    kinds = kind if isinstance(kind, list) else [kind]
    return any(isinstance(k, str) and ("Article" in k or k in ("BlogPosting", "Report", "LiveBlogPosting",
                                                              "WebPage", "Posting")) for k in kinds)


def _json_ld_authors(page: Page) -> list[str]:
    by_id = {o.get("@id"): o for o in page.json_ld if isinstance(o.get("@id"), str)}
    objects = sorted(page.json_ld, key=lambda o: not _is_article(o))
    split = _han_spaces_split(page)
    for obj in objects:
        if not _is_article(obj):
            continue
        for key in ("author", "creator"):
            names = _credited(obj.get(key), by_id, split)
            if names:
                return names
    return []


def _han_spaces_split(page: Page) -> bool:
    """Han names apart by a space are several people, except on Japanese pages ("大渡 美咲")."""
    return page.language != "ja"


def _credited(value: Any, by_id: Mapping[str, Mapping], split: bool = True) -> list[str]:
    """The names in a JSON-LD author value, people and organisations in order (the site's own
    name is dropped by the caller); ``givenName`` + ``familyName`` when there is no ``name``."""
    names: list[str] = []
    items = value if isinstance(value, list) else [value]
    items = [sub for item in items for sub in (item if isinstance(item, list) else [item])]  # [[{...}]]
    for item in items[:MAX_NAMES * 2]:
        if isinstance(item, str):
            names.extend(clean_name(item, split))
            continue
        if not isinstance(item, Mapping):
            continue
        if "name" not in item and isinstance(item.get("@id"), str):
            item = by_id.get(item["@id"], item)
        name = item.get("name")
        if isinstance(name, list):
            name = ", ".join(n for n in name if isinstance(n, str))
        if not name:
            parts = (item.get("givenName"), item.get("familyName"))
            name = " ".join(p.strip() for p in parts if isinstance(p, str) and p.strip())
        names.extend(clean_name(name, split))
    return names


_META_RANKS = {name: rank for rank, name in enumerate(META_NAMES)}
_INVERTED_META = frozenset({"citation_author", "dc.creator", "dcterms.creator"})  # "Brazil, Rachel"


def _surname_first(key: str, value: str) -> bool:
    """"Brazil, Rachel": Highwire's citation_author always, Dublin Core when one word leads
    ("Jane Doe, John Roe" is two people)."""
    return key == "citation_author" or len(value.split(",")[0].split()) == 1


def _meta_authors(page: Page, metas: list | None = None) -> Iterator[list[str]]:
    """Names of each author ``<meta>`` name present (all its occurrences), best-ranked first: when
    one names only the site ("Habertürk"), the next ("articleauthor": "Anadolu Ajansı") is read."""
    if metas is None:
        metas = list(page.root.iter("meta"))
    wanted = _META_RANKS
    by_rank: dict[int, list[str]] = {}
    for meta in metas:
        key = (meta.get("name") or meta.get("property") or meta.get("itemprop") or "").strip().lower()
        if key in wanted and meta.get("content"):
            value = meta.get("content")
            if key in _INVERTED_META and value.count(",") == 1 and _surname_first(key, value):
                value = " ".join(reversed(value.split(",")))
            by_rank.setdefault(wanted[key], []).append(value)
    labels = {(meta.get("name") or "").lower(): normalize_space(meta.get("content")).casefold()
              for meta in metas if (meta.get("name") or "").lower().startswith("twitter:")}
    for key, label in labels.items():
        data = key.replace("twitter:label", "twitter:data", 1)
        if key.startswith("twitter:label") and label in _WRITTEN_BY and data != key:
            for meta in metas:
                if (meta.get("name") or "").lower() == data and meta.get("content"):
                    by_rank.setdefault(len(META_NAMES), []).append(meta.get("content"))
    split = _han_spaces_split(page)
    for rank in sorted(by_rank):
        names = [name for value in by_rank[rank][:MAX_NAMES] for name in clean_name(value, split)]
        if names:
            yield names


def _author_rule(el) -> int | None:
    """Which author-element rule ``el`` meets, best first: itemprop, rel, byline class, author
    class/id, a link to an author's page ("/autoren/name/max-kolter") whose text is a person's name."""
    attrib = el.attrib
    if not attrib:
        return None
    if "author" in (attrib.get("itemprop") or "").split():  # itemprop="author creator"
        return 0
    if "author" in (attrib.get("rel") or "").split() and el.tag == "a":
        return 1
    classes = (attrib.get("class") or "").lower()
    if "byline" in classes:
        return 2
    if "author" in classes or "author" in (attrib.get("id") or "").lower():
        return 3
    if el.tag == "a" and _AUTHOR_PAGE.search(attrib.get("href") or ""):
        return 4 if _looks_like_person(el.text_content()) else None
    return None


def _scan(page: Page) -> tuple[list[dict], list[list]]:
    """The attributes of the page's ``<meta>`` elements, in document order (a ``<meta>`` without
    attributes names nothing and may be left out), and :func:`_elements_by_rule`: one walk of
    the tree instead of two.  Each source reads a ``<meta>`` as ``meta.get(name)``; a dict
    answers as the element does, and an lxml attribute read costs as much as all of them."""
    root, body = page.root, page.body
    metas = [root] if root.tag == "meta" else []
    after: list = []
    if body is not root:
        seen_body = False
        for child in root.iterchildren():
            if child is body:
                seen_body = True
            else:
                (after if seen_body else metas).extend(child.iter("meta"))
    by_rule = _elements_by_rule(body, metas)
    metas.extend(after)
    return [dict(meta.items()) for meta in metas], by_rule


def _elements_by_rule(body, metas: list | None = None) -> list[list]:
    """The elements under ``body`` that meet each :func:`_author_rule` rule, in document order;
    its ``<meta>`` elements that have attributes are appended to ``metas``."""
    by_rule: list[list] = [[], [], [], [], []]
    if metas is None:
        metas = []
    if author_candidates is not None:  # the same elements from one C walk (tests/test_speedups.py)
        candidates, found_metas = author_candidates(body)
        metas.extend(found_metas)
    else:
        candidates = _candidates(body, metas)
    for el in candidates:
        rule = _author_rule(el)
        if rule is not None:
            by_rule[rule].append(el)
    return by_rule


def _candidates(body, metas: list) -> Iterator:
    """The elements under ``body`` an author rule could take, in document order; the ``<meta>``
    elements with attributes are appended to ``metas`` on the way.

    One Python pass over the elements (4x faster than the four XPath string searches).  Reading
    an attribute costs as much as all of an element's values, so those are read once: an element
    meets a rule only when they hold "author" or "byline" (lower-cased; ``str.lower`` changes no
    other character into an ASCII letter) or, on a link, an author's page (_AUTHOR_PAGE matches
    the href within them, never across the separator)."""
    author_page, lowered_author_page = _AUTHOR_PAGE.search, _LOWERED_AUTHOR_PAGE.search
    for el in body.iterdescendants():
        values = _attribute_values(el)
        if not values:
            continue
        tag = el.tag
        if tag == "meta":
            metas.append(el)
        joined = "\x00".join(values)
        lowered = joined.lower()
        if "author" in lowered or "byline" in lowered or (
                tag == "a" and (lowered_author_page(lowered) if joined.isascii() else author_page(joined))):
            yield el


_attribute_values = etree._Element.values
# _AUTHOR_PAGE on a lower-cased ASCII text: the same matches, found faster without IGNORECASE.
_LOWERED_AUTHOR_PAGE = re.compile(_AUTHOR_PAGE.pattern)


def _looks_like_person(text: str) -> bool:
    """Two to four capitalised words (particles between), as a link to a profile page names a person."""
    words = normalize_space(text).split()
    if any(w.casefold() in _NOT_PERSON_WORDS for w in words):
        return False
    if not 2 <= len(words) <= 4 or len(" ".join(words)) > MAX_NAME_CHARS:
        return False
    if any(w.casefold() in _NOT_NAMES for w in words) or _JUNK.search(" ".join(words)):
        return False  # "Our Authors", "Follow Twitter"
    return all(w[:1].isupper() or w in _PARTICLE_WORDS for w in words)


_IN_COMMENTS = etree.XPath("ancestor::*[contains(@class, 'comment')]")  # compiled once, not per call
# A picture's caption: an author element there credits the photograph ("REUTERS"), not the text.
_IN_CAPTION = etree.XPath("ancestor-or-self::figcaption")


def _element_authors(page: Page, by_rule: list[list] | None = None) -> Iterator[tuple[bool, list[str]]]:
    """``(from author markup, names)``: the itemprop / rel="author" elements of the first one's
    byline (its parent: one element a person, "KEVIN SACK, SHERI FINK"), then the first elements
    of each byline class rule (a brand label may come before the byline)."""
    if by_rule is None:
        by_rule = _elements_by_rule(page.body)
    split = _han_spaces_split(page)
    for rule, found in enumerate(by_rule):
        byline = None  # the parent of the first marked element that names someone
        marked: list[str] = []
        yielded = 0
        for el in found[:20]:
            if byline is not None and el.getparent() is not byline:
                continue
            if _IN_COMMENTS(el) or _IN_CAPTION(el):
                continue
            name_el = el.find(".//*[@itemprop='name']")
            target = name_el if name_el is not None else el
            value = target.get("content") if target.tag == "meta" else " ".join(target.itertext())
            value = normalize_space(value)
            names = clean_name(value, split) if value and len(value) <= MAX_ELEMENT_TEXT else []
            if names and rule <= 1:
                marked.extend(names)
                byline = el.getparent() if byline is None else byline
            elif names:
                yield False, names
                yielded += 1
                if yielded == MAX_CLASS_BYLINES:
                    break
        if marked:
            yield True, marked


def _bold_byline(page: Page, metas: list | None = None) -> list[str]:
    """The names of a paragraph that is nothing but a bold name or two ("<p><strong>Mohloai
    Mpesi</strong></p>", "Jane Roe/John Doe") beside a long paragraph, the byline of sites whose
    markup has none: opening the text, when the page's description starts with it too (the site's
    excerpt took the byline along), or closing it, aligned right (a signature)."""
    description = ""
    for meta in page.root.iter("meta") if metas is None else metas:
        if (meta.get("name") or meta.get("property") or "").lower() in ("description", "og:description"):
            description = description or normalize_space(meta.get("content"))
    for par in page.body.iter("p"):
        if len(par) != 1 or par[0].tag not in ("strong", "b") or (par.text or "").strip():
            continue
        text = normalize_space(par.text_content())
        if not 4 <= len(text) <= MAX_NAME_CHARS or (par[0].tail or "").strip():
            continue
        before, after = _text_sibling(par, -1), _text_sibling(par, 1)
        opens = (before is None and after is not None and len(after) >= LONG_PARAGRAPH
                 and description.startswith(text))
        closes = (after is None and before is not None and len(before) >= LONG_PARAGRAPH
                  and "right" in (par.get("style") or "") + (par.get("align") or ""))
        if not (opens or closes):
            continue
        names = clean_name(text)
        if names and all(_looks_like_person(name) for name in names):
            return names
    return []


LONG_PARAGRAPH = 150


def _text_sibling(el, step: int) -> str | None:
    """The text of the nearest sibling before (``step`` -1) or after ``el`` that has text, when it
    is a paragraph; None when there is none or it is not a paragraph."""
    sibling = el.getprevious() if step < 0 else el.getnext()
    while sibling is not None:
        text = normalize_space(sibling.text_content()) if isinstance(sibling.tag, str) else ""
        if text:
            return text if sibling.tag == "p" else None
        sibling = sibling.getprevious() if step < 0 else sibling.getnext()
    return None


# --- visible text ----------------------------------------------------------------------------------


def _byline_lines(page: Page) -> list[str]:
    """Visible text lines, starting a little above the headline and wrapping round to the top."""
    from .dates import visible_text

    text, headline_end = visible_text(page)
    start = max(0, text.rfind("\n", 0, max(0, headline_end - 300)) + 1)
    # normalize_space on each line, mapped in C: " ".join(line.split()); empty lines dropped
    return list(filter(None, map(" ".join, map(str.split, (text[start:] + "\n" + text[:start]).split("\n")))))


class _Lines:
    """The page's :func:`_byline_lines`, read on first use (most pages are decided by their
    markup before a text source is reached), and for each finder the lines it may accept."""

    def __init__(self, page: Page):
        self.page = page
        self._lines: list[str] | None = None
        self._joined = ""
        self._ends: list[int] = []
        self._candidates: dict[Any, list[int]] = {}

    @property
    def lines(self) -> list[str]:
        if self._lines is None:
            self._lines = _byline_lines(self.page)
        return self._lines

    def candidates(self, finder) -> list[int]:
        """Indexes, in order, of the lines that hold what ``finder`` needs to accept a line
        (:data:`_FINDER_HINTS`): found by searches of all the lines joined, not a call per line."""
        found = self._candidates.get(finder)
        if found is not None:
            return found
        lines = self.lines
        hint, starts = _FINDER_HINTS.get(finder, (None, None))
        if hint is None and starts is None:
            found = list(range(len(lines)))
        else:
            if self._ends == [] and lines:
                self._joined = "\n".join(lines)
                # where each line's successor starts: line i holds the offsets before ends[i]
                self._ends = list(itertools.accumulate(map((1).__add__, map(len, lines))))
            indexes = set()
            if hint is not None:
                ends = self._ends
                indexes.update(bisect.bisect_right(ends, m.start()) for m in hint.finditer(self._joined))
            if starts is not None:
                starting = map(operator.methodcaller("startswith", starts), lines)
                indexes.update(itertools.compress(range(len(lines)), starting))
            found = sorted(indexes)
        self._candidates[finder] = found
        return found


def _text_bylines(lines: _Lines, finders: tuple) -> Iterator[list[str]]:
    """For each finder in turn, the names of the first line it accepts."""
    for finder in finders:
        all_lines = lines.lines
        for i in lines.candidates(finder):
            line = all_lines[i]
            if len(line) > MAX_BYLINE_LINE and finder is not _paren_byline:
                continue
            names = finder(line, all_lines[i + 1] if i + 1 < len(all_lines) else "")
            if names:
                yield names
                break


def _labelled(label: re.Pattern):
    def find(line: str, next_line: str) -> list[str]:
        for m in label.finditer(line):
            opening = max(line.rfind("(", 0, m.start()), line.rfind("（", 0, m.start()))
            after_field = m.start() > 0 and line[m.start() - 1] in " |｜】]"
            if m.start() > LABEL_MAX_OFFSET and not after_field and not (0 <= m.start() - opening <= 12):
                continue
            rest = line[m.end():]
            glued = bool(rest) and m.group(0)[-1] not in " :：/／"
            names = _name_tokens(rest.strip() if rest.strip() else next_line[:MAX_BYLINE_LINE], glued)
            if names:
                return names
        return []

    return find


def _posted_by(line: str, next_line: str) -> list[str]:
    m = _POSTED_BY.match(line)
    return _name_tokens(m.group(1)) if m else []


def _latin_byline(line: str, next_line: str) -> list[str]:
    """"Автор: …", or a line of nothing but "By" and names, up to a date, a separator or a closing
    affiliation ("By Helen Marsh, Herald staff · Nov. 20")."""
    m = _RU_AUTHOR.search(line)
    if m:
        return clean_name(m.group(1))
    m = _NAME_BAR.match(line)
    if m and _DATE_START.match(m.group(2) or next_line) and _looks_like_person(m.group(1)):
        return clean_name(m.group(1))
    line = _TRAILING.sub("", line)
    head, _, tail = line.rpartition(",")
    if head and is_affiliation(tail.strip()):
        line = head
    m = _BY_LINE.match(line)
    return clean_name(m.group(1)) if m else []


def is_affiliation(text: str) -> bool:
    """An agency's name or a staff description ("Herald staff", "специальный корреспондент")."""
    folded = text.casefold()
    return folded in AGENCIES or any(w.strip(".,") in AFFILIATION_WORDS for w in folded.split())


def _paren_byline(line: str, next_line: str) -> list[str]:
    """"……（常书香 马丹阳）" at the end of a paragraph: the reporters' credit."""
    m = _PAREN_BYLINE.search(line)
    return _name_tokens(m.group(1)) if m and _HAN.search(m.group(1)) else []


_WRITER_LABELLED = _labelled(_WRITER_LABEL)
_EDITOR_LABELLED = _labelled(_EDITOR_LABEL)
_WRITER_FINDERS = (_WRITER_LABELLED, _posted_by, _latin_byline, _paren_byline)
_EDITOR_FINDERS = (_EDITOR_LABELLED,)
# What a line must hold for each finder to accept it: ``(pattern, line starts)``, a line being
# a candidate when the pattern matches in it or it starts with one of the starts.  The lines are
# normalised (no white space at either end) and the patterns never match across a line break.
# _WRITER_LABEL needs one of its labels' characters, _EDITOR_LABEL "编"; _posted_by its marker;
# _latin_byline "Автор"/"Текст" (_RU_AUTHOR), "|" (_NAME_BAR) or a _BY_LINE label at the start
# of the line (a date cut off the end keeps the start); _paren_byline a closing parenthesis last.
_WRITER_HINT = re.compile(r"[作撰执文记通]")
_EDITOR_HINT = re.compile(r"编")
_POSTED_HINT = re.compile(r"发[表布]于|posted")
_LATIN_HINT = re.compile(r"Автор|Текст|\|")
_PAREN_HINT = re.compile(r"[)）]$", re.MULTILINE)
_FINDER_HINTS = {
    _WRITER_LABELLED: (_WRITER_HINT, None),
    _EDITOR_LABELLED: (_EDITOR_HINT, None),
    _posted_by: (_POSTED_HINT, None),
    _latin_byline: (_LATIN_HINT, ("By", "Von", "Par", "Por", "Door", "Av", "Af", "Di", "Aut")),
    _paren_byline: (_PAREN_HINT, None),
}


def _name_tokens(rest: str, glued: bool = False) -> list[str]:
    """Leading names of ``rest``: Han names (2-4 characters) or one Latin handle, up to a stop.

    ``glued``: the text follows its label without a space or colon ("记者马俊峰/文"); then the
    name must end in a byline marker (发自, 报道, /, 摄), or "记者调查" would be a name.
    """
    names: list[str] = []
    rest = _REPORTER_PREFIX.sub("", rest.strip())
    for token in _NAME_SEPARATORS.split(rest):
        if token.endswith("报道") and names:  # "姚峰 上海报道": a place, not a name
            break
        cut = _NAME_END.sub("", token)
        if glued and not names and cut == token:
            return []
        if _HAN_TOKEN.match(cut) and cut not in _HAN_STOP and not _NOT_HAN_NAME.search(cut):
            names.append(cut)
        elif not names and _HANDLE_TOKEN.match(cut) and cut.casefold() not in _NOT_NAMES:
            return [cut]
        else:
            break
        if cut != token:
            break
    return names
