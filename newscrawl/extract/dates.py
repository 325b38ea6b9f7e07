"""Publication date of an article: a timezone-aware ``datetime`` or None.

Sources, most trusted first; the first that yields a plausible date wins:

1. the feed entry (``published``/``published_parsed``, then ``updated``/``created``), when given;
2. declared publication metadata: JSON-LD ``datePublished``/``dateCreated`` of the article object,
   ``<meta>`` publication names (``article:published_time``, ``pubdate``, ``dc.date``,
   ``sailthru.date``, ``parsely-pub-date``, ...), ``itemprop="datePublished"`` and
   ``<time pubdate>`` elements;
3. a full date in the URL (``/2020/07/01/``, ``2020-07-01``, ``20200701``) when the metadata is
   silent, or when the metadata's day disagrees with it by more than a day (a republished or
   re-stamped page keeps its original URL);
4. a visible date line near the headline (``2020年07月01日 10:30``, ``发布时间：2020-07-01``,
   ``1 июля 2020, 10:30``, ``3. Mai 2024``, ``May 3, 2024`` ...), month names read by dateparser;
5. htmldate's ``original_date`` search (also looks at comments, scripts and attributes);
6. modification dates (``dateModified``, ``article:modified_time``) as a last resort.

Every date must be plausible: not before 1995 and not more than a day in the future.

Time zones: an offset given by the source is kept as written, so the calendar day is the
source's own.  A date without an offset gets the zone the page most likely means: from the
URL's country domain, else from the page language (``zh`` → Asia/Shanghai, ``ru`` →
Europe/Moscow, ``ja`` → Asia/Tokyo, ``de`` → Europe/Berlin, ...; see ``_LANG_ZONES``), else
UTC.  A feed's ``*_parsed`` struct_time is UTC (feedparser normalises it).
"""

from __future__ import annotations

import re
import time
import warnings
from collections.abc import Iterator, Mapping
from datetime import UTC, date, datetime, timedelta, tzinfo
from email.utils import parsedate_to_datetime
from functools import lru_cache
from typing import Any
from urllib.parse import unquote, urlsplit
from zoneinfo import ZoneInfo

from lxml import etree

from .page import Page

MIN_DATE = datetime(1995, 1, 1, tzinfo=UTC)
MAX_VALUE_CHARS = 120  # longer attribute values are no date strings
TEXT_WINDOW = 6000  # characters of visible text searched after the headline
HTMLDATE_MAX_CHARS = 3_000_000  # htmldate parses the page again; bound its work
TEXT_PREFIX = 20000  # ... and from the start of the body when there is no headline

PUBLISHED_META = (
    "article:published_time", "og:published_time", "og:article:published_time", "article:published",
    "published_time", "published-time", "article:published_date", "pubdate", "pub_date", "publishdate",
    "publish_date", "publish-date", "publishdate", "publication_date", "publication-date", "datepublished",
    "date_published", "dc.date", "dc.date.issued", "dc.date.created", "dcterms.date", "dcterms.issued",
    "dcterms.created", "sailthru.date", "parsely-pub-date", "article.published", "article_date_original",
    "original-publish-date", "originalpublicationdate", "rnews:datepublished", "displaydate",
    "og:pubdate", "citation_publication_date", "citation_date", "prism.publicationdate", "bt:pubdate",
    "date", "created", "datecreated", "article:post_date", "weibo:article:create_at", "apub:time",
    "release_date", "cxenseparse:recs:publishtime", "article.created", "page.date", "live_date",
    "firstpublisheddate", "first_published", "nv:date", "publish_time", "publishtime",
)
MODIFIED_META = (
    "article:modified_time", "og:updated_time", "article:modified", "datemodified", "date_modified",
    "dcterms.modified", "last-modified", "lastmod", "modified", "article.updated", "updated_time",
)

_LANG_ZONES = {
    "zh": "Asia/Shanghai", "ja": "Asia/Tokyo", "ko": "Asia/Seoul", "ru": "Europe/Moscow",
    "de": "Europe/Berlin", "fr": "Europe/Paris", "it": "Europe/Rome", "pl": "Europe/Warsaw",
    "cs": "Europe/Prague", "nl": "Europe/Amsterdam", "uk": "Europe/Kyiv", "tr": "Europe/Istanbul",
    "vi": "Asia/Ho_Chi_Minh", "th": "Asia/Bangkok", "id": "Asia/Jakarta",
}
_TLD_ZONES = {
    "cn": "Asia/Shanghai", "hk": "Asia/Hong_Kong", "tw": "Asia/Taipei", "jp": "Asia/Tokyo",
    "kr": "Asia/Seoul", "ru": "Europe/Moscow", "de": "Europe/Berlin", "at": "Europe/Vienna",
    "ch": "Europe/Zurich", "fr": "Europe/Paris", "it": "Europe/Rome", "es": "Europe/Madrid",
    "nl": "Europe/Amsterdam", "be": "Europe/Brussels", "pl": "Europe/Warsaw", "uk": "Europe/London",
    "ie": "Europe/Dublin", "no": "Europe/Oslo", "se": "Europe/Stockholm", "dk": "Europe/Copenhagen",
    "fi": "Europe/Helsinki", "ua": "Europe/Kyiv", "tr": "Europe/Istanbul", "in": "Asia/Kolkata",
    "za": "Africa/Johannesburg", "br": "America/Sao_Paulo", "au": "Australia/Sydney",
    "nz": "Pacific/Auckland", "sg": "Asia/Singapore", "pt": "Europe/Lisbon", "cz": "Europe/Prague",
    "ar": "America/Argentina/Buenos_Aires", "uy": "America/Montevideo", "mx": "America/Mexico_City",
    "cl": "America/Santiago", "co": "America/Bogota", "pe": "America/Lima", "gr": "Europe/Athens",
    "hu": "Europe/Budapest", "ro": "Europe/Bucharest", "il": "Asia/Jerusalem", "ae": "Asia/Dubai",
    "lu": "Europe/Luxembourg", "li": "Europe/Vaduz", "sk": "Europe/Bratislava", "si": "Europe/Ljubljana",
    "hr": "Europe/Zagreb", "rs": "Europe/Belgrade", "bg": "Europe/Sofia", "lt": "Europe/Vilnius",
    "lv": "Europe/Riga", "ee": "Europe/Tallinn", "by": "Europe/Minsk", "kz": "Asia/Almaty",
    "vn": "Asia/Ho_Chi_Minh", "th": "Asia/Bangkok", "my": "Asia/Kuala_Lumpur", "id": "Asia/Jakarta",
    "ph": "Asia/Manila", "pk": "Asia/Karachi", "ng": "Africa/Lagos", "ke": "Africa/Nairobi",
    "eg": "Africa/Cairo", "is": "Atlantic/Reykjavik", "mo": "Asia/Macau",
}

# --- URL dates -------------------------------------------------------------------------------
_URL_DATE = re.compile(
    r"(?<!\d)((?:19|20)\d\d)(?:[/_-]([01]?\d)[/_-]([0-3]?\d)(?!\d)|([01]\d)([0-3]\d)(?!\d))"
)

# --- visible date lines ----------------------------------------------------------------------
# Linear time on any text (tests/test_regex_linear.py): a white-space run is matched possessively
# (``\s*+``) wherever what follows it cannot start with white space, so giving characters back
# could never help; two greedy runs around an optional item would otherwise try every split of
# a long run, at every date.
_TIME = r"(?:[T\s,]*+(?:\d{1,2}\s*+[:：时]\s*+\d{2}(?:\s*+[:：分]\s*+\d{2})?))?"
_NUMERIC = re.compile(
    r"(?<![\d.])((?:19|20)\d\d)\s*+[年/.-]\s*+(\d{1,2})\s*+[月/.-]\s*+(\d{1,2})(?!\d)\s*+[日号]?" + _TIME
)
_DMY = re.compile(r"(?<![\d.])(\d{1,2})\s*+[./]\s*+(\d{1,2})\s*+[./]\s*+((?:19|20)\d\d)(?!\d)" + _TIME)
# "1 июля 2020", "3. Mai 2024", "12 de março de 2021", "1er janvier 2020": day, word, year.
_DAY_WORD_YEAR = re.compile(
    r"(?<![\w.])(\d{1,2})(?:\.|er|st|nd|rd|th)?\s++(?:de\s++)?([^\W\d_]{3,11})\.?,?\s++(?:de\s++)?"
    r"((?:19|20)\d\d)(?!\d)"
    r"(?:\s*+(?:г\.|года|г)?\s*+,?\s*+(?:в|um|à|at|a las|alle|-|,)?\s*+\d{1,2}[:.h]\d{2})?"
)
# "May 3, 2024", "Jan. 3 2024, 10:30 a.m."
_WORD_DAY_YEAR = re.compile(
    r"(?<![\w])([^\W\d_]{3,9})\.?\s++(\d{1,2})(?:st|nd|rd|th)?,?\s++((?:19|20)\d\d)(?!\d)"
    r"(?:\s*+,?\s*+(?:at\s++)?\d{1,2}:\d{2}(?:\s*+[ap]\.?m\.?)?)?",
    re.IGNORECASE,
)
_PUBLISH_LABEL = re.compile(
    r"(发布|發布|发表|發表|时间|時間|日期|出版|刊登|posted|published|publié|publicado|pubblicato|"
    r"veröffentlicht|erschienen|stand|опубликовано|дата|datum|date|fecha|data)\s*+[:：]?\s*+$",
    re.IGNORECASE,
)
# Publication keys in inline scripts and data attributes ("firstPublicationDate": "20230428").
# The key must start a word; that is checked on each match rather than with a leading \b,
# which stops the regex engine from skipping ahead to the keys' first letters (7x slower).
_SCRIPT_KEY = re.compile(
    r"(datePublished|publishDate|publishedDate|published_at|publishedAt|firstPublicationDate|"
    r"firstPublishedDate|first_published_at|publish_date|publishTime|publish_time|pubDate|pubdate)"
    r"[\"']?\s*+[:=]\s*+[\"']?([0-9][0-9 :T.+\-/Z]{7,34})"
)
SCRIPT_PREFIX = 1_000_000  # characters of raw HTML searched for script keys
# "1998年3月号": the issue of a periodical, a month-precision date.
_ISSUE = re.compile(r"((?:19|20)\d\d)\s*+年\s*+(\d{1,2})\s*+月\s*+[号號期刊]")
_HAS_TIME = re.compile(r"\d[:：时]\d")
# A title's parts: "Headline - Site", "Site | Headline".  A white-space run opens a separator only
# where it starts (the look-behind), so a long run is not scanned again from each of its characters.
_TITLE_SEPARATORS = re.compile(r"(?<!\s)\s++[|\-–—_:]\s+|[|_–—]")
# What _rfc822 and _dateutil accept.
_RFC822_START = re.compile(r"^[A-Za-z]{3},?\s++\d")
_YEAR = re.compile(r"(19|20)\d\d")
_YEAR_FIRST = re.compile(r"^\d{4}")
_NON_ASCII = re.compile(r"[^\x00-\x7f]")
_MODIFIED_LABEL = re.compile(
    r"(更新|修改|updated|modified|aktualisiert|geändert|mis à jour|actualizado|aggiornato|обновлено|"
    r"copyright|©|\(c\))[^\n]{0,20}$",
    re.IGNORECASE,
)


def find_published(page: Page, feed_entry: Mapping[str, Any] | None = None) -> datetime | None:
    """The article's publication date (timezone-aware), or None when no source gives a plausible one."""
    try:
        return _find_published(page, feed_entry)
    except (ValueError, TypeError, OverflowError, RecursionError, etree.LxmlError):
        return None


def _find_published(page: Page, feed_entry: Mapping[str, Any] | None) -> datetime | None:
    zone = default_zone(page)
    if feed_entry:
        found = from_feed_entry(feed_entry, zone)
        if found:
            return found
    declared = _first(_declared_published(page, zone))
    in_url = url_date(page.url, zone)
    if declared and in_url and abs((declared.date() - in_url.date()).days) > 1:
        return in_url  # a re-stamped page keeps its original URL
    if declared or in_url:
        return declared or in_url
    return (
        script_date(page, zone)
        or title_date(page, zone)
        or visible_date(page, zone)
        or _htmldate(page, zone)
        or _first(_declared_modified(page, zone))
    )


# --- parsing -------------------------------------------------------------------------------------


def parse_date(value: Any, zone: tzinfo = UTC, languages: tuple[str, ...] | None = None) -> datetime | None:
    """Parse one date value (datetime, date, struct_time, epoch number or string) into an aware datetime.

    Strings are tried as ISO 8601, RFC 822, epoch seconds/milliseconds, then dateutil and
    dateparser (month names in many languages).  A value without an offset gets ``zone``.
    Implausible results (before 1995, more than a day ahead) give None.
    """
    found = _parse_any(value, languages)
    if found is None:
        return None
    if found.tzinfo is None or found.utcoffset() is None:
        found = found.replace(tzinfo=zone)
    now = datetime.now(UTC)
    if not (MIN_DATE <= found <= now + timedelta(days=1)):
        return None
    return found


def _parse_any(value: Any, languages: tuple[str, ...] | None) -> datetime | None:
    if isinstance(value, datetime):
        return value
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day)
    if isinstance(value, time.struct_time):
        return datetime(*value[:6], tzinfo=UTC)
    if isinstance(value, int | float) and not isinstance(value, bool):
        return _from_epoch(float(value))
    if not isinstance(value, str):
        return None
    text = " ".join(value.split())
    if not text or len(text) > MAX_VALUE_CHARS or not any(ch.isdigit() for ch in text):
        return None
    if text.isdigit():
        if len(text) in (10, 13):
            return _from_epoch(float(text) / (1000 if len(text) == 13 else 1))
        if len(text) == 8:
            return _strptime(text, "%Y%m%d")
        return None
    for parse in (_iso, _rfc822, _dateutil):
        found = parse(text)
        if found is not None:
            return found
    return _dateparser(text, languages)


def _from_epoch(seconds: float) -> datetime | None:
    try:
        return datetime.fromtimestamp(seconds, UTC)
    except (OverflowError, OSError, ValueError):
        return None


def _strptime(text: str, fmt: str) -> datetime | None:
    try:
        return datetime.strptime(text, fmt)
    except ValueError:
        return None


def _iso(text: str) -> datetime | None:
    candidate = text.replace(" UTC", "Z").replace(" GMT", "Z")
    try:
        return datetime.fromisoformat(candidate)
    except ValueError:
        pass
    from dateutil.parser import isoparse

    try:
        return isoparse(candidate)
    except (ValueError, OverflowError):
        return None


def _rfc822(text: str) -> datetime | None:
    if not _RFC822_START.match(text):
        return None
    try:
        return parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None


def _dateutil(text: str) -> datetime | None:
    """dateutil for unambiguous Latin-script strings ("2024-05-03 10:00 +0200", "May 3, 2024")."""
    if not _YEAR.search(text) or _NON_ASCII.search(text):
        return None
    from dateutil.parser import ParserError, parse

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return parse(text, default=datetime(2000, 1, 1), dayfirst=not _YEAR_FIRST.match(text))
    except (ParserError, ValueError, OverflowError, TypeError):
        return None


def _dateparser(text: str, languages: tuple[str, ...] | None) -> datetime | None:
    import dateparser

    settings = {"PREFER_DAY_OF_MONTH": "first", "DATE_ORDER": "DMY", "STRICT_PARSING": False,
                "REQUIRE_PARTS": ["day", "month", "year"], "PARSERS": ["absolute-time"]}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return dateparser.parse(text, languages=list(languages) if languages else None, settings=settings)
    except (ValueError, TypeError, OverflowError, KeyError, AttributeError, RecursionError):
        return None


# --- zones ---------------------------------------------------------------------------------------


@lru_cache(maxsize=64)
def _zone(name: str) -> tzinfo:
    try:
        return ZoneInfo(name)
    except (KeyError, ValueError, OSError):
        return UTC


def default_zone(page: Page) -> tzinfo:
    """Zone for offset-less dates: the URL's country domain, else the page language, else UTC."""
    host = (urlsplit(page.url).hostname or "") if page.url else ""
    tld = host.rsplit(".", 1)[-1].lower() if "." in host else ""
    if tld in _TLD_ZONES:
        return _zone(_TLD_ZONES[tld])
    lang = page.declared_language
    if lang not in _LANG_ZONES:
        lang = page.language
    return _zone(_LANG_ZONES[lang]) if lang in _LANG_ZONES else UTC


def _languages(page: Page) -> tuple[str, ...] | None:
    langs = [lang for lang in (page.declared_language, page.language) if lang]
    return tuple(dict.fromkeys(langs + ["en"])) if langs else None


# --- sources -------------------------------------------------------------------------------------


def from_feed_entry(entry: Mapping[str, Any], zone: tzinfo = UTC) -> datetime | None:
    """The feed item's publication date: ``published`` (string, datetime or struct_time), then updated."""
    for key in ("published", "published_parsed", "pubDate", "date", "created", "created_parsed",
                "updated", "updated_parsed"):
        found = parse_date(entry.get(key), zone)
        if found:
            return found
    return None


def url_date(url: str | None, zone: tzinfo = UTC) -> datetime | None:
    """A full ``year/month/day`` in the URL's path or query, or None."""
    if not url:
        return None
    parts = urlsplit(url[:2000])
    for m in _URL_DATE.finditer(unquote(parts.path + "?" + parts.query)):
        year, month, day = m.group(1), m.group(2) or m.group(4), m.group(3) or m.group(5)
        try:
            found = datetime(int(year), int(month), int(day), tzinfo=zone)
        except ValueError:
            continue
        if MIN_DATE <= found <= datetime.now(UTC) + timedelta(days=1):
            return found
    return None


def _first(values: Iterator[datetime | None]) -> datetime | None:
    return next((v for v in values if v is not None), None)


_ARTICLE_TYPES = frozenset({"BlogPosting", "Report", "WebPage", "LiveBlogPosting", "ItemPage", "Posting"})


def _is_article(obj: Mapping) -> bool:
    kind = obj.get("@type")
    kinds = kind if isinstance(kind, list) else [kind]
    return any(isinstance(k, str) and ("Article" in k or k in _ARTICLE_TYPES) for k in kinds)


def _json_ld_values(page: Page, keys: tuple[str, ...], articles: bool | None = None) -> Iterator[Any]:
    """Values of ``keys`` in the page's JSON-LD objects (article-typed ones only / never / first)."""
    objects = sorted(page.json_ld, key=lambda o: not _is_article(o))
    if articles is not None:
        objects = [o for o in objects if _is_article(o) == articles]
    for key in keys:
        for obj in objects:
            value = obj.get(key)
            if isinstance(value, list):
                value = value[0] if value else None
            if value is not None:
                yield value


def _metas(page: Page) -> list[tuple[tuple[str, ...], str]]:
    """Every ``<meta>`` with content: its property/name/itemprop/http-equiv keys and the content
    (read once per page; the date sources ask for several key sets)."""
    if "metas" not in page.derived:
        attrs = ("property", "name", "itemprop", "http-equiv")
        page.derived["metas"] = [
            (tuple((meta.get(attr) or "").strip().lower() for attr in attrs), meta.get("content"))
            for meta in page.root.iter("meta") if meta.get("content")
        ]
    return page.derived["metas"]


def _meta_values(page: Page, names: tuple[str, ...]) -> Iterator[str]:
    wanted = {name: rank for rank, name in enumerate(names)}
    found: list[tuple[int, str]] = []
    for keys, content in _metas(page):
        for key in keys:
            if key in wanted:
                found.append((wanted[key], content))
                break
    for _, value in sorted(found, key=lambda item: item[0]):
        yield value


def _element_values(page: Page, prop: str) -> Iterator[str]:
    """``itemprop=prop`` elements and ``<time pubdate>``: datetime/content attribute, else their text."""
    xpath = f".//*[@itemprop='{prop}']" + (" | .//time[@pubdate]" if prop == "datePublished" else "")
    for el in page.root.xpath(xpath)[:10]:
        value = el.get("datetime") or el.get("content") or el.get("title") or (el.text_content() or "")[:200]
        if value and value.strip():
            yield value


def _declared_published(page: Page, zone: tzinfo) -> Iterator[datetime | None]:
    """Article JSON-LD, then meta tags, then microdata, then JSON-LD of other objects (videos, pages)."""
    langs = _languages(page)
    for value in _json_ld_values(page, ("datePublished", "dateCreated"), articles=True):
        yield parse_date(value, zone, langs)
    for value in _meta_values(page, PUBLISHED_META):
        yield parse_date(value, zone, langs)
    for value in _element_values(page, "datePublished"):
        yield parse_date(value, zone, langs)
    for value in _json_ld_values(page, ("datePublished", "dateCreated", "uploadDate"), articles=False):
        yield parse_date(value, zone, langs)


def _declared_modified(page: Page, zone: tzinfo) -> Iterator[datetime | None]:
    for value in _json_ld_values(page, ("dateModified",)):
        yield parse_date(value, zone)
    for value in _meta_values(page, MODIFIED_META):
        yield parse_date(value, zone)
    for value in _element_values(page, "dateModified"):
        yield parse_date(value, zone)


# --- visible text --------------------------------------------------------------------------------


def script_date(page: Page, zone: tzinfo = UTC) -> datetime | None:
    """A publication key's value in the raw HTML (inline scripts, data attributes), first that parses."""
    text = page.text[:SCRIPT_PREFIX]
    for m in _SCRIPT_KEY.finditer(text):
        if m.start() and (text[m.start() - 1].isalnum() or text[m.start() - 1] == "_"):
            continue
        found = parse_date(m.group(2).strip(), zone)
        if found:
            return found
    return None


def title_date(page: Page, zone: tzinfo = UTC) -> datetime | None:
    """A full date written in the ``<title>`` or ``og:title`` ("... | DW | 28.04.2023")."""
    for title in (page.title_tag, _first(iter(_meta_values(page, ("og:title",)))) or ""):
        for _, _, found in _text_candidates(title[:500], _languages(page), zone):
            return found
    return None


def visible_text(page: Page) -> tuple[str, int]:
    """Visible body text (bounded) and the offset where the headline ends (0 without one).

    Computed once per page: the date and the author searches both read it."""
    if "visible_text" not in page.derived:
        page.derived["visible_text"] = _visible_text(page)
    return page.derived["visible_text"]


def _visible_text(page: Page) -> tuple[str, int]:
    body = page.body
    pieces: list[str] = []
    size, headline_end = 0, -1
    limit = TEXT_PREFIX + TEXT_WINDOW
    for event, el in etree.iterwalk(body, events=("start", "end")):
        if not isinstance(el.tag, str):
            continue
        if event == "start":
            if el.text:
                pieces.append(el.text)
                size += len(el.text)
            if el.tag in ("p", "div", "li", "br", "td", "span", "h1", "h2", "tr", "dd", "time"):
                pieces.append("\n")
                size += 1
        else:
            if el.tag == "h1" and headline_end < 0 and len((el.text_content() or "").strip()) >= 4:
                headline_end = size
                limit = size + TEXT_WINDOW
            if el.tail and el is not body:
                pieces.append(el.tail)
                size += len(el.tail)
        if size > limit:
            break
    text = "".join(pieces)[:limit]
    if headline_end < 0:
        headline_end = _title_position(text, page.title_tag)
    return text, max(headline_end, 0)


def _title_position(text: str, title: str) -> int:
    """End of the first place the ``<title>`` (or its longest part between separators) is written."""
    parts = sorted(_TITLE_SEPARATORS.split(title), key=len, reverse=True)
    for part in parts[:3]:
        part = part.strip()
        if len(part) >= 4:
            at = text.find(part)
            if at >= 0:
                return at + len(part)
    return -1


def _text_candidates(
    text: str, langs: tuple[str, ...] | None, zone: tzinfo
) -> Iterator[tuple[int, int, datetime]]:
    """``(start, end, datetime)`` for every date written in ``text``."""
    for m in _NUMERIC.finditer(text):
        found = _build(m.group(1), m.group(2), m.group(3), m.group(0)[m.end(3) - m.start():], zone)
        if found:
            yield m.start(), m.end(), found
    for m in _DMY.finditer(text):
        first, second = int(m.group(1)), int(m.group(2))
        month_first = "/" in m.group(0) and second > 12 >= first  # "9/17/2004": US order
        day, month = (m.group(2), m.group(1)) if month_first else (m.group(1), m.group(2))
        found = _build(m.group(3), month, day, m.group(0)[m.end(3) - m.start():], zone)
        if found:
            yield m.start(), m.end(), found
    for pattern in (_DAY_WORD_YEAR, _WORD_DAY_YEAR):
        for m in pattern.finditer(text):
            found = parse_date(m.group(0), zone, langs)
            if found:
                yield m.start(), m.end(), found


_CLOCK = re.compile(r"(\d{1,2})\s*[:：时]\s*(\d{2})(?:\s*[:：分]\s*(\d{2}))?")


def _build(year: str, month: str, day: str, rest: str, zone: tzinfo) -> datetime | None:
    """A date from its numeric parts; ``rest`` is the matched text after them (may hold the time)."""
    try:
        found = datetime(int(year), int(month), int(day))
    except ValueError:
        return None
    clock = _CLOCK.search(rest)
    if clock:
        hour, minute, second = int(clock.group(1)), int(clock.group(2)), int(clock.group(3) or 0)
        if hour < 24 and minute < 60 and second < 60:
            found = found.replace(hour=hour, minute=minute, second=second)
    return parse_date(found, zone)


def visible_date(page: Page, zone: tzinfo = UTC) -> datetime | None:
    """The most credible date written near the headline (see the module docstring)."""
    text, headline_end = visible_text(page)
    best: tuple[tuple, datetime] | None = None
    for start, end, found in _text_candidates(text, _languages(page), zone):
        before = text[max(0, start - 24):start]
        if _MODIFIED_LABEL.search(before):
            continue
        labelled = bool(_PUBLISH_LABEL.search(before))
        has_time = bool(_HAS_TIME.search(text[start:end]))
        after_headline = start >= headline_end
        distance = abs(start - headline_end)
        key = (after_headline and distance < 1500, labelled, has_time, -distance)
        if best is None or key > best[0]:
            best = (key, found)
    if best:
        return best[1]
    for m in _ISSUE.finditer(text):
        found = _build(m.group(1), m.group(2), "1", "", zone)
        if found:
            return found
    return None


def _htmldate(page: Page, zone: tzinfo) -> datetime | None:
    """htmldate's ``original_date`` guess (it re-parses the page, so huge pages are left out)."""
    if len(page.text) > HTMLDATE_MAX_CHARS:
        return None
    try:
        from htmldate import find_date

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            found = find_date(page.text, url=page.url, original_date=True, outputformat="%Y-%m-%d")
    except Exception:  # noqa: BLE001 - a third-party failure means "no date from this source"
        return None
    return parse_date(found, zone) if found else None
