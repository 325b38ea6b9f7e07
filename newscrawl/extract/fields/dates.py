"""Publication date of an article: a timezone-aware ``datetime``, a ``date``, or None.

A ``datetime`` when the source gives a time of day, with the offset the source gives; a ``date``
when the source gives only the day (no midnight is invented).

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
   ``1 июля 2020, 10:30``, ``3. Mai 2024``, ``May 3, 2024`` ...), month names read from
   dateparser's language data (dateparser itself is asked only about languages it has no data for);
5. htmldate's ``original_date`` markup search (meta, JSON, ``<time>``, date classes, also in
   comments, scripts and attributes);
6. a day-month-year in the URL (``/29-10-2021``), then a date line anywhere in the rest of the
   body text (labelled as the publication first, else the first one).  These replace htmldate's
   extensive search, which on the dataset pages found as many right days (none of its free-text
   guesses were right, a copyright year read as 1 January often was its answer) at many times the
   cost: dateparser on every short text segment, each locale loaded on first use;
7. modification dates (``dateModified``, ``article:modified_time``) as a last resort.

What the reader is shown beats the declared metadata in two cases: a date line labelled as the
publication (``Stand:``, ``PUBLISHED:``, ``发布时间：`` ...) within ``LABELLED_WINDOW`` characters
under the headline that names another day (unless it is the metadata's day with day and month
swapped, "08/09/2012"); and a declared UTC instant that falls on another day in the page's zone
(below) is moved to that zone when it is exactly local midnight there (a day stored as its first
instant) or when the date line by the headline names the local day.

Every date must be plausible: not before 1995 and not more than a day in the future.

When the best source gives only a day, a time written on the page for that same day (a visible
date line, a script key) completes it.

Time zones, in this order:

1. an explicit offset or zone is honoured: ISO/RFC 822 offsets (``+08:00``, ``+0800``, ``Z``),
   ``UTC+8``/``GMT-05:00``, a zone abbreviation after the time (:data:`ZONE_ABBREVIATIONS`; the
   ones that name different clocks in different countries, such as ``CST`` and ``IST``, are
   resolved by the page's language and country domain, :data:`AMBIGUOUS_ZONES`), and the
   written names ``по московскому времени``/``мск``/``МСК`` (Moscow) and ``北京时间`` (Beijing);
2. a time without a zone gets the zone the page most likely means: from the URL's country
   domain, else from the page language (``zh`` → Asia/Shanghai, ``ru`` → Europe/Moscow, ``ja`` →
   Asia/Tokyo, ``de`` → Europe/Berlin, ...; see ``_LANG_ZONES``), else UTC.

The offset is kept as the source wrote it, so the calendar day is the source's own.  A feed's
``*_parsed`` struct_time is UTC (feedparser normalises it); the raw feed string, when given,
keeps its own offset.
"""

from __future__ import annotations

import re
import sys
import time
import warnings
from collections.abc import Iterator, Mapping
from datetime import UTC, date, datetime, timedelta, timezone, tzinfo
from datetime import time as clock_time
from email.utils import parsedate_to_datetime
from functools import lru_cache
from itertools import chain
from typing import Any
from urllib.parse import unquote, urlsplit
from zoneinfo import ZoneInfo

from lxml import etree

from ..page import Page

try:  # the visible-text walk compiled (newscrawl/extract/_speedups.pyx); _TextWalk otherwise
    from .._speedups import TextWalk as CompiledTextWalk
except ImportError:  # not built, or NEWSCRAWL_PURE_PYTHON=1
    CompiledTextWalk = None

MIN_DATE = datetime(1995, 1, 1, tzinfo=UTC)
MAX_VALUE_CHARS = 120  # longer attribute values are no date strings
TEXT_WINDOW = 6000  # characters of visible text searched after the headline
HTMLDATE_MAX_CHARS = 3_000_000  # htmldate parses the page again; bound its work
TEXT_PREFIX = 20000  # ... and from the start of the body when there is no headline
LABELLED_WINDOW = 300  # characters after the headline where a labelled date line overrides metadata

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

# Zone abbreviations written after a time ("7:45 a.m. EST", "10:30 MSK"): the UTC offset in
# minutes, or an IANA zone where the abbreviation names a region's clock without saying standard
# or summer time ("ET" is EST in winter, EDT in summer).  Standard and summer names are distinct
# entries (PST/PDT, CET/CEST), so the written one is taken as is.
ZONE_ABBREVIATIONS: dict[str, int | str] = {
    "UTC": 0, "UT": 0, "GMT": 0, "Z": 0, "WET": 0, "WEST": 60, "BST": 60, "IST": 330,
    "CET": 60, "CEST": 120, "MEZ": 60, "MESZ": 120, "EET": 120, "EEST": 180, "MSK": 180, "MSD": 240,
    "EST": -300, "EDT": -240, "CST": -360, "CDT": -300, "MST": -420, "MDT": -360, "PST": -480,
    "PDT": -420, "AKST": -540, "AKDT": -480, "HST": -600, "AST": -240, "ADT": -180, "NST": -210,
    "NDT": -150, "ET": "America/New_York", "CT": "America/Chicago", "MT": "America/Denver",
    "PT": "America/Los_Angeles", "JST": 540, "KST": 540, "HKT": 480, "SGT": 480, "PHT": 480,
    "WIB": 420, "ICT": 420, "PKT": 300, "AWST": 480, "ACST": 570, "ACDT": 630, "AEST": 600,
    "AEDT": 660, "NZST": 720, "NZDT": 780, "SAST": 120, "EAT": 180, "WAT": 60, "CAT": 120,
}
# Abbreviations with another meaning in some countries: page language or country domain → offset.
# Elsewhere the ZONE_ABBREVIATIONS meaning holds (CST: US Central, IST: India, BST: British summer,
# AST: Atlantic).
AMBIGUOUS_ZONES: dict[str, dict[str, int]] = {
    "CST": {"zh": 480, "cn": 480, "tw": 480, "hk": 480, "mo": 480, "cu": -300},  # China; Cuba
    "IST": {"he": 120, "il": 120, "ie": 60, "ga": 60},  # Israel; Irish Standard Time (summer)
    "BST": {"bn": 360, "bd": 360},  # Bangladesh
    "AST": {"ar": 180, "sa": 180, "kw": 180, "qa": 180, "bh": 180, "iq": 180, "ye": 180},  # Arabia
}
MOSCOW, BEIJING = "Europe/Moscow", "Asia/Shanghai"

# --- URL dates -------------------------------------------------------------------------------
_URL_DATE = re.compile(
    r"(?<!\d)((?:19|20)\d\d)(?:[/_-]([01]?\d)[/_-]([0-3]?\d)(?!\d)|([01]\d)([0-3]\d)(?!\d))"
)

_URL_DMY = re.compile(r"(?<![\w.-])([0-3]?\d)([.-])([01]?\d)\2((?:19|20)\d\d)(?![\w-])")

# --- visible date lines ----------------------------------------------------------------------
# Linear time on any text (tests/test_regex_linear.py): a white-space run is matched possessively
# (``\s*+``) wherever what follows it cannot start with white space, so giving characters back
# could never help; two greedy runs around an optional item would otherwise try every split of
# a long run, at every date.
_MERIDIEM = r"(?:\s*+[AaPp]\.?\s*+[Mm](?!\w)\.?)?"
_TIME = r"(?:[T\s,]*+(?:\d{1,2}\s*+[:：时]\s*+\d{2}(?:\s*+[:：分]\s*+\d{2})?" + _MERIDIEM + "))?"
_NUMERIC = re.compile(
    r"(?<![\d.])((?:19|20)\d\d)\s*+[年/.-]\s*+(\d{1,2})\s*+[月/.-]\s*+(\d{1,2})(?!\d)\s*+[日号]?" + _TIME
)
_DMY = re.compile(r"(?<![\d.])(\d{1,2})\s*+[./]\s*+(\d{1,2})\s*+[./]\s*+((?:19|20)\d\d)(?!\d)" + _TIME)
# "1 июля 2020", "3. Mai 2024", "12 de março de 2021", "1er janvier 2020": day, word, year.
_DAY_WORD_YEAR = re.compile(
    r"(?<![\w.])(\d{1,2})(?:\.|er|st|nd|rd|th)?\s++(?:de\s++)?([^\W\d_]{3,11})\.?,?\s++(?:de\s++)?"
    r"((?:19|20)\d\d)(?!\d)"
    r"(?:\s*+(?:г\.|года|г)?\s*+,?\s*+(?:в|um|à|at|a las|alle|-|,)?\s*+\d{1,2}[:.h]\d{2}" + _MERIDIEM + ")?"
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
# Every key above holds "ub" followed by one of these: a pattern with a literal prefix is
# scanned by the regex engine's fast substring search (about 7x faster than _SCRIPT_KEY over a
# page); _SCRIPT_KEY is then matched only where a key can start, this many characters before.
_SCRIPT_KEY_HINT = re.compile(r"ub(?:lish|Date|date|lication)")
_SCRIPT_KEY_OFFSETS = (1, 5, 6, 7)  # p|ublish..., dateP|ublished, firstP|ublic..., first_p|ublished_at
# "1998年3月号": the issue of a periodical, a month-precision date.
_ISSUE = re.compile(r"((?:19|20)\d\d)\s*+年\s*+(\d{1,2})\s*+月\s*+[号號期刊]")
# A title's parts: "Headline - Site", "Site | Headline".  A white-space run opens a separator only
# where it starts (the look-behind), so a long run is not scanned again from each of its characters.
_TITLE_SEPARATORS = re.compile(r"(?<!\s)\s++[|\-–—_:]\s+|[|_–—]")
# What _rfc822 and _dateutil accept.
_RFC822_START = re.compile(r"^[A-Za-z]{3},?\s++\d")
_YEAR = re.compile(r"(19|20)\d\d")
_YEAR_FIRST = re.compile(r"^\d{4}")
_NON_ASCII = re.compile(r"[^\x00-\x7f]")
_LETTER = re.compile(r"[^\W\d_]")
# What dateparser needs to read a whole day (_dateparser requires day, month and year): two
# numbers (matched from the start only), or one long enough to hold both ("03052023").
_TWO_NUMBERS = re.compile(r"^\D*+\d++\D++\d")
_LONG_NUMBER = re.compile(r"\d{6}")
# An ISO 8601 duration ("PT50M55S", a video's length in <time datetime> or itemprop="duration"):
# no day in it, and dateparser takes 10-1,700 ms to find that out.
_ISO_DURATION = re.compile(r"P(?:\d++(?:[.,]\d++)?[YMWD])*+(?:T(?:\d++(?:[.,]\d++)?[HMS])++)?")
_MODIFIED_LABEL = re.compile(
    r"(更新|修改|updated|modified|aktualisiert|geändert|mis à jour|actualizado|aggiornato|обновлено|"
    r"copyright|©|\(c\))[^\n]{0,20}$",
    re.IGNORECASE,
)
# A zone written right after a time, matched on the text that follows the time with its leading
# white space removed: "UTC+8", "GMT-05:00", "+0800", "EST", "(MSK)", "Uhr MEZ", "по московскому времени".
_ZONE_AFTER = re.compile(
    r"(?<!\s)(?:Uhr\s*+)?[(（]?\s*+(?:(?:UTC|GMT)\s*+([+\-−])\s*+(\d{1,2})(?::?(\d\d))?(?!\d)|([+\-−])(\d\d):?(\d\d)(?!\d)"
    r"|([A-Z]{1,5})(?![\w+\-−])|(по\s++московскому\s++времени|по\s++Москве|мск|МСК)(?!\w)|(北京时间|北京時間))"
)
# A zone abbreviation closing a date string ("2026-11-19 07:45 EST", "Fri, 20 Nov 2026 10:00 CST").
_TRAILING_ZONE = re.compile(r"(?<![A-Za-z])([A-Z]{2,5})\s*+$")
_BEIJING_BEFORE = ("北京时间", "北京時間")
ZONE_WINDOW = 40  # characters after a time searched for its zone
HEADLINE_TEXT = LABELLED_WINDOW + 120 + 2 * ZONE_WINDOW  # text after the headline a labelled line sees
# A time of day: "10:30", "10：30：15", "10时30分", "7.45", "14h30", with "a.m."/"PM" read.
_CLOCK = re.compile(
    r"(\d{1,2})\s*+[:：时.h]\s*+(\d{2})(?:\s*+[:：分]\s*+(\d{2}))?(?:\s*+([AaPp])\.?\s*+[Mm](?!\w))?"
)
# Does a date string hold a time of day (else it is a day only)?
_HAS_CLOCK = re.compile(r"\d\s*+[:：时]\s*+\d|T\d\d")


def find_published(page: Page, feed_entry: Mapping[str, Any] | None = None) -> datetime | date | None:
    """The article's publication instant (aware ``datetime``, in the source's offset), or its
    ``date`` when the sources give only the day, or None when no source gives a plausible one."""
    try:
        return _find_published(page, feed_entry)
    except (ValueError, TypeError, OverflowError, RecursionError, etree.LxmlError):
        return None


def _find_published(page: Page, feed_entry: Mapping[str, Any] | None) -> datetime | date | None:
    zone, hints = default_zone(page), zone_hints(page)
    found = from_feed_entry(feed_entry, zone, hints) if feed_entry else None
    if found is None:
        declared_values = _declared_published(page, zone)
        declared = _own_offset(page, zone, _first(declared_values), declared_values)
        in_url = url_date(page.url, zone)
        if declared and in_url and abs((day_of(declared) - in_url).days) > 1:
            found = in_url  # a re-stamped page keeps its original URL
        elif declared is not None:
            found = _labelled_line(page, zone, declared) or _local_day(page, zone, declared)
        else:
            found = in_url
    if found is None:
        found = (
            script_date(page, zone)
            or title_date(page, zone)
            or visible_date(page, zone)
            or _htmldate(page, zone)
            or url_day_month_year(page.url)
            or _body_text_date(page, zone)
            or _first(_declared_modified(page, zone))
        )
    if found is not None and not isinstance(found, datetime):
        found = _with_time_of_day(page, zone, found)
    return found


def _own_offset(page: Page, zone: tzinfo, declared: datetime | date | None,
                later: Iterator[datetime | date | None]) -> datetime | date | None:
    """A declared UTC instant that the page also states in an offset of its own (``<meta>`` says
    ``12:45Z``, ``<time datetime>`` or JSON-LD ``07:45-05:00``): the same instant on the source's
    own clock, as its feed would give it.  ``later``: the declared values after ``declared``
    (the rest of the same generator, so none is parsed twice)."""
    if not isinstance(declared, datetime) or declared.utcoffset() != timedelta(0):
        return declared
    stamps = (el.get("datetime") for el in page.root.iter("time") if el.get("datetime"))
    hints = zone_hints(page)
    for value in chain(later, (parse_date(v, zone, None, hints) for v in stamps)):
        if isinstance(value, datetime) and value.utcoffset() != timedelta(0) and value == declared:
            return value
    return declared


def _local_day(page: Page, zone: tzinfo, declared: datetime | date) -> datetime | date:
    """A declared UTC instant on the day the page's own readers see, where the two days differ
    and the page says so: a time of exactly local midnight (a day stored as its first instant,
    then converted to UTC), or a date line by the headline on the local day."""
    if not isinstance(declared, datetime) or declared.utcoffset() != timedelta(0) or zone is UTC:
        return declared
    local = declared.astimezone(zone)
    if local.date() == declared.date():
        return declared
    if local.time() == clock_time(0):
        return local.date()
    line = _headline_date(page, zone)
    return local if line is not None and day_of(line) == local.date() else declared


def _labelled_line(page: Page, zone: tzinfo, declared: datetime | date) -> datetime | date | None:
    """A publication date line just under the headline ("Stand: 28.04.2020", "PUBLISHED: Nov 8,
    2023") that names another day than the declared metadata: what the reader is shown wins
    (metadata is often re-stamped by a later edit or a feed import)."""
    text, headline_end = _headline_text(page)
    if not text:
        return None
    end = min(len(text), headline_end + LABELLED_WINDOW + 120)
    langs, hints = _languages(page), zone_hints(page)
    best: tuple[int, datetime | date] | None = None
    for start, _end, found in _text_candidates(text, langs, zone, hints, headline_end, end):
        if start >= headline_end + LABELLED_WINDOW or (best is not None and start >= best[0]):
            continue
        before = text[max(0, start - 24):start]
        if _PUBLISH_LABEL.search(before) and not _MODIFIED_LABEL.search(before):
            best = (start, found)
    if best is None or day_of(best[1]) == day_of(declared):
        return None
    line, day = best[1], day_of(best[1])
    if day.day <= 12 and _day(str(day.year), str(day.day), str(day.month)) == day_of(declared):
        return None  # "08/09/2012" read day first, the metadata says month first: it is right
    if isinstance(line, datetime) and isinstance(declared, datetime) and line.tzinfo is zone:
        # The line's clock with no zone written, the metadata's instant: when the line is that
        # instant's wall clock in some whole-quarter-hour offset, that offset is the page's own.
        instant = declared.astimezone(UTC).replace(tzinfo=None)
        if line.second == 0:  # the line gives minutes only
            instant = instant.replace(second=0, microsecond=0)
        minutes, rest = divmod((line.replace(tzinfo=None) - instant).total_seconds(), 60)
        if rest == 0 and abs(minutes) <= 14 * 60 and minutes % 15 == 0:
            return declared.astimezone(_fixed(int(minutes)))
    return line


def _with_time_of_day(page: Page, zone: tzinfo, day: date) -> datetime | date:
    """``day`` completed by a time the page writes for that same day (script key, the date line
    nearest the headline; a reader comment's time further down is no publication time)."""
    for source in (script_date, _headline_date):
        found = source(page, zone)
        if isinstance(found, datetime) and found.date() == day:
            return found
    return day


def day_of(value: datetime | date) -> date:
    """The calendar day of a date, or of a datetime in its own offset."""
    return value.date() if isinstance(value, datetime) else value


def _plausible(value: datetime | date) -> bool:
    """Not before 1995 and not more than a day ahead."""
    ahead = datetime.now(UTC) + timedelta(days=1)
    if isinstance(value, datetime):
        return MIN_DATE <= value <= ahead
    return MIN_DATE.date() <= value <= ahead.date()


# --- parsing -------------------------------------------------------------------------------------


def parse_date(
    value: Any, zone: tzinfo = UTC, languages: tuple[str, ...] | None = None, hints: tuple[str, ...] = ()
) -> datetime | date | None:
    """Parse one date value (datetime, date, struct_time, epoch number or string).

    Strings are tried as ISO 8601, RFC 822, epoch seconds/milliseconds, then dateutil and
    dateparser (month names in many languages).  A string without a time of day gives a ``date``;
    anything else an aware ``datetime``: its own offset, a closing zone abbreviation
    (:func:`named_zone`, ``hints`` resolve ambiguous ones), else ``zone``.
    Implausible results (before 1995, more than a day ahead) give None.
    """
    found = _parse_any(value, languages, hints)
    if found is None:
        return None
    try:
        if isinstance(found, datetime) and (found.tzinfo is None or found.utcoffset() is None):
            found = found.replace(tzinfo=zone)
        return found if _plausible(found) else None
    except (ValueError, OverflowError):  # an offset of a day or more ("+8200") is no zone
        return None


def _parse_any(
    value: Any, languages: tuple[str, ...] | None, hints: tuple[str, ...] = ()
) -> datetime | date | None:
    if isinstance(value, datetime | date):
        return value
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
            found = _strptime(text, "%Y%m%d")
            return found.date() if found else None
        return None
    written_zone = None
    closing = _TRAILING_ZONE.search(text)
    if closing:
        written_zone = named_zone(closing.group(1), hints)
        if written_zone is not None:
            text = text[:closing.start()].rstrip(" ,")
    found = _parse_text(text, languages)
    if found is None:
        return None
    if not _HAS_CLOCK.search(text):
        return found.date()
    if written_zone is not None and found.tzinfo is None:
        found = found.replace(tzinfo=written_zone)
    return found


def _parse_text(text: str, languages: tuple[str, ...] | None) -> datetime | None:
    for parse in (_iso, _rfc822, _dateutil):
        found = parse(text)
        if found is not None:
            return found
    found = _written_date(text, languages)
    if found is not None or not (_YEAR.search(text) or _LETTER.search(text)):
        return found  # dateparser needs a year or a month name to read a day ("01:38:07" is none)
    if not (_TWO_NUMBERS.match(text) or _LONG_NUMBER.search(text)):
        return None  # a day and a year are two numbers ("1h ago", "5m": 10-90 ms of dateparser each)
    if _ISO_DURATION.fullmatch(text):
        return None  # a length of time, which dateparser (day, month and year required) reads as none
    return _dateparser(text, languages)


def _written_date(text: str, languages: tuple[str, ...] | None) -> datetime | None:
    """A value that is wholly a date line our patterns read ("4. März 2017", "2020年09月11日 18:05"),
    naive: the caller applies the zone.  None for anything else (dateparser is asked then)."""
    if _month_names(languages) is None and _LETTER.search(text):
        return None  # a month name in a language without data: dateparser's to read
    for start, end, found in _text_candidates(text, languages, UTC):
        if start == 0 and end == len(text):
            if isinstance(found, datetime):
                return found.replace(tzinfo=None)
            return datetime.combine(found, clock_time(0))
    return None


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
    return http_date(text) if _RFC822_START.match(text) else None


def http_date(text: str) -> datetime | None:
    """An RFC 822 / HTTP date (a feed's ``pubDate``, a ``Retry-After``), None when unreadable:
    the email parser raises four kinds of error, OverflowError for a second of 25 digits."""
    try:
        return parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError, OverflowError):
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


# dateparser builds each locale's tables on the first parse that tries it: a parse with no
# language tries them all, so its first two such parses cost ~1.2 s CPU (then 1-10 ms each).
_WARM_UP_DATES = ("PT50M55S", "12 marca 2011")


def warm_up() -> None:
    """Have dateparser set up every locale now (once per process), not on the first article
    whose date only it can read (the speed benchmark calls this before it times anything)."""
    for text in _WARM_UP_DATES:
        _dateparser(text, None)


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


@lru_cache(maxsize=64)
def _fixed(minutes: int) -> tzinfo:
    return UTC if minutes == 0 else timezone(timedelta(minutes=minutes))


def named_zone(abbreviation: str, hints: tuple[str, ...] = ()) -> tzinfo | None:
    """The zone an abbreviation names (:data:`ZONE_ABBREVIATIONS`), or None for an unknown word.

    ``hints`` (country domain, languages) pick the local meaning of an ambiguous one
    (:data:`AMBIGUOUS_ZONES`): "CST" on a Chinese page is China Standard Time (+08:00).
    """
    local = AMBIGUOUS_ZONES.get(abbreviation, {})
    for hint in hints:
        if hint in local:
            return _fixed(local[hint])
    value = ZONE_ABBREVIATIONS.get(abbreviation)
    if value is None:
        return None
    return _zone(value) if isinstance(value, str) else _fixed(value)


def zone_after(text: str, hints: tuple[str, ...] = ()) -> tzinfo | None:
    """The zone written at the start of ``text`` (what follows a time), or None."""
    m = _ZONE_AFTER.match(text[:ZONE_WINDOW * 2].lstrip()[:ZONE_WINDOW])
    if not m:
        return None
    sign = m.group(1) or m.group(4)
    if sign:
        minutes = int(m.group(2) or m.group(5)) * 60 + int(m.group(3) or m.group(6) or 0)
        if minutes > 14 * 60:
            return None
        return _fixed(-minutes if sign in "-−" else minutes)
    if m.group(7):
        return named_zone(m.group(7), hints)
    return _zone(MOSCOW if m.group(8) else BEIJING)


def _zone_before(text: str, start: int) -> tzinfo | None:
    """"北京时间2026年11月20日 10:30": Beijing time written before the date."""
    before = text[max(0, start - 8):start]
    return _zone(BEIJING) if any(name in before for name in _BEIJING_BEFORE) else None


def zone_hints(page: Page) -> tuple[str, ...]:
    """The page's country domain and languages: what resolves an ambiguous zone abbreviation."""
    if "zone_hints" not in page.derived:
        host = (urlsplit(page.url).hostname or "") if page.url else ""
        tld = host.rsplit(".", 1)[-1].lower() if "." in host else ""
        langs = (page.declared_language, page.language)
        page.derived["zone_hints"] = tuple(dict.fromkeys(h for h in (tld, *langs) if h))
    return page.derived["zone_hints"]


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


def from_feed_entry(
    entry: Mapping[str, Any], zone: tzinfo = UTC, hints: tuple[str, ...] = ()
) -> datetime | date | None:
    """The feed item's publication date: ``published`` (string, datetime or struct_time), then updated."""
    for key in ("published", "published_parsed", "pubDate", "date", "created", "created_parsed",
                "updated", "updated_parsed"):
        found = parse_date(entry.get(key), zone, hints=hints)
        if found:
            return found
    return None


def url_date(url: str | None, zone: tzinfo = UTC) -> date | None:
    """A full ``year/month/day`` in the URL's path or query, or None (a day: ``zone`` is unused)."""
    if not url:
        return None
    parts = urlsplit(url[:2000])
    for m in _URL_DATE.finditer(unquote(parts.path + "?" + parts.query)):
        year, month, day = m.group(1), m.group(2) or m.group(4), m.group(3) or m.group(5)
        try:
            found = date(int(year), int(month), int(day))
        except ValueError:
            continue
        if _plausible(found):
            return found
    return None


def url_day_month_year(url: str | None) -> date | None:
    """A ``day-month-year`` path segment or file name of the URL (``/29-10-2021``,
    ``/29.10.2021.html``), or None: read only where no other source gave a date."""
    if not url:
        return None
    for m in _URL_DMY.finditer(unquote(urlsplit(url[:2000]).path)):
        try:
            found = date(int(m.group(4)), int(m.group(3)), int(m.group(1)))
        except ValueError:
            continue
        if _plausible(found):
            return found
    return None


def _first(values: Iterator[datetime | date | None]) -> datetime | date | None:
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
    metas = page.derived.get("metas")
    if metas is None:
        metas = page.derived["metas"] = []
        for meta in page.root.iter("meta"):
            content = meta.get("content")
            if content:
                get = meta.get
                prop, name, itemprop, equiv = get("property"), get("name"), get("itemprop"), get("http-equiv")
                if prop or name or itemprop or equiv:  # a <meta> with none of them has no key to match
                    keys = ((prop or "").strip().lower(), (name or "").strip().lower(),
                            (itemprop or "").strip().lower(), (equiv or "").strip().lower())
                    metas.append((keys, content))
    return metas


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
    # An attribute value the raw page does not hold is in no element: skip that tree search.
    by_prop = prop in page.text
    by_time = prop == "datePublished" and any(el.get("pubdate") is not None for el in page.root.iter("time"))
    if not (by_prop or by_time):
        return
    paths = ([f".//*[@itemprop='{prop}']"] if by_prop else []) + ([".//time[@pubdate]"] if by_time else [])
    xpath = " | ".join(paths)
    for el in page.root.xpath(xpath)[:10]:
        value = el.get("datetime") or el.get("content") or el.get("title") or (el.text_content() or "")[:200]
        if value and value.strip():
            yield value


def _declared_published(page: Page, zone: tzinfo) -> Iterator[datetime | date | None]:
    """Article JSON-LD, then meta tags, then microdata, then JSON-LD of other objects (videos, pages)."""
    langs, hints = _languages(page), zone_hints(page)
    for value in _json_ld_values(page, ("datePublished", "dateCreated"), articles=True):
        yield parse_date(value, zone, langs, hints)
    for value in _meta_values(page, PUBLISHED_META):
        yield parse_date(value, zone, langs, hints)
    for value in _element_values(page, "datePublished"):
        yield parse_date(value, zone, langs, hints)
    for value in _json_ld_values(page, ("datePublished", "dateCreated", "uploadDate"), articles=False):
        yield parse_date(value, zone, langs, hints)


def _declared_modified(page: Page, zone: tzinfo) -> Iterator[datetime | date | None]:
    hints = zone_hints(page)
    for value in _json_ld_values(page, ("dateModified",)):
        yield parse_date(value, zone, hints=hints)
    for value in _meta_values(page, MODIFIED_META):
        yield parse_date(value, zone, hints=hints)
    for value in _element_values(page, "dateModified"):
        yield parse_date(value, zone, hints=hints)


# --- visible text --------------------------------------------------------------------------------


def script_date(page: Page, zone: tzinfo = UTC) -> datetime | date | None:
    """A publication key's value in the raw HTML (inline scripts, data attributes), first that parses.

    Computed once per page and zone (the search for a date and the search for its time ask)."""
    key = ("script_date", zone)
    if key not in page.derived:
        page.derived[key] = _script_date(page, zone)
    return page.derived[key]


def _script_date(page: Page, zone: tzinfo) -> datetime | date | None:
    text, hints = page.text, zone_hints(page)
    end = min(len(text), SCRIPT_PREFIX)
    for hint in _SCRIPT_KEY_HINT.finditer(text, 0, end):
        for back in _SCRIPT_KEY_OFFSETS:
            start = hint.start() - back
            if start < 0:
                break
            m = _SCRIPT_KEY.match(text, start, end)
            if m is None:
                continue
            if start and (text[start - 1].isalnum() or text[start - 1] == "_"):
                continue
            found = parse_date(m.group(2).strip(), zone, hints=hints)
            if found:
                return found
            break
    return None


def title_date(page: Page, zone: tzinfo = UTC) -> datetime | date | None:
    """A full date written in the ``<title>`` or ``og:title`` ("... | DW | 28.04.2023")."""
    for title in (page.title_tag, _first(iter(_meta_values(page, ("og:title",)))) or ""):
        for _, _, found in _text_candidates(title[:500], _languages(page), zone, zone_hints(page)):
            return found
    return None


def visible_text(page: Page) -> tuple[str, int]:
    """Visible body text (bounded) and the offset where the headline ends (0 without one).

    Computed once per page: the date and the author searches both read it."""
    if "visible_text" not in page.derived:
        page.derived["visible_text"] = _visible_text(page)
    return page.derived["visible_text"]


def _visible_text(page: Page) -> tuple[str, int]:
    text, headline_end, _ = _walk_visible_text(page, TEXT_WINDOW)
    return text, headline_end


def _headline_text(page: Page) -> tuple[str, int]:
    """:func:`visible_text` up to ``HEADLINE_TEXT`` characters after the headline: the same
    text there, for a fraction of the walk when the rest is not needed yet."""
    if "visible_text" in page.derived:
        return page.derived["visible_text"]
    text, headline_end, has_h1 = _walk_visible_text(page, HEADLINE_TEXT)
    if not has_h1:  # without an <h1> the walk is the whole bounded one: keep it
        page.derived["visible_text"] = (text, headline_end)
    return text, headline_end


def _walk_visible_text(page: Page, window: int | None) -> tuple[str, int, bool]:
    """The visible text (to ``window`` characters after an <h1>; None: all of it), where the
    headline ends, and whether an <h1> marked it.

    The walk is resumed, not restarted, when a longer window is asked for later (the headline
    search reads a short one first, the date and author searches the whole bounded one): the
    text is the same as a walk from the start with that window."""
    walk = page.derived.get("text_walk")
    if walk is None:
        if CompiledTextWalk is not None:  # the same walk in C (tests/test_speedups.py)
            walk = CompiledTextWalk(page.body, _LINE_TAGS, TEXT_PREFIX + TEXT_WINDOW)
        else:
            walk = _TextWalk(page.body)
        page.derived["text_walk"] = walk
    try:
        text, headline_end = walk.run(window)
    except BaseException:
        del page.derived["text_walk"]  # a walk cut short by an error is not resumed
        raise
    has_h1 = headline_end >= 0
    if not has_h1:
        headline_end = _title_position(text, page.title_tag)
    return text, max(headline_end, 0), has_h1


_LINE_TAGS = frozenset(("p", "div", "li", "br", "td", "span", "h1", "h2", "tr", "dd", "time"))


class _TextWalk:
    """One page's walk over its <body>: the text and tails of its elements in reading order
    (a comment's text and tail are not shown), a line break after the opening of the
    :data:`_LINE_TAGS`; it stops once ``window`` characters follow the end of the first <h1>
    with a text, else after ``TEXT_PREFIX + TEXT_WINDOW`` characters."""

    __slots__ = ("body", "events", "pieces", "size", "headline_end")

    def __init__(self, body: etree._Element) -> None:
        self.body = body
        # tag="*": elements only, so comments and processing instructions (and their tails)
        # never reach the loop below.
        self.events: Iterator | None = etree.iterwalk(body, events=("start", "end"), tag="*")
        self.pieces: list[str] = []
        self.size = 0
        self.headline_end = -1

    def run(self, window: int | None) -> tuple[str, int]:
        """The text to ``window`` characters after the headline (None: the whole body), and where
        the headline ends (-1)."""
        size, headline_end = self.size, self.headline_end
        whole = window is None
        if whole:
            limit = sys.maxsize
        else:
            limit = headline_end + window if headline_end >= 0 else TEXT_PREFIX + TEXT_WINDOW
        if self.events is not None and size <= limit:
            body, append, line_tags = self.body, self.pieces.append, _LINE_TAGS
            for event, el in self.events:
                if event == "start":
                    text = el.text
                    if text:
                        append(text)
                        size += len(text)
                    if el.tag in line_tags:
                        append("\n")
                        size += 1
                else:
                    if headline_end < 0 and el.tag == "h1" and len((el.text_content() or "").strip()) >= 4:
                        headline_end = size
                        if not whole:
                            limit = size + window
                    tail = el.tail
                    if tail and el is not body:
                        append(tail)
                        size += len(tail)
                if size > limit:
                    break
            else:
                self.events = None  # the whole body is walked
            self.size, self.headline_end = size, headline_end
        return "".join(self.pieces)[:limit], headline_end


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
    text: str, langs: tuple[str, ...] | None, zone: tzinfo, hints: tuple[str, ...] = (),
    pos: int = 0, endpos: int | None = None, months: dict[str, int] | None = None,
) -> Iterator[tuple[int, int, datetime | date]]:
    """``(start, end, datetime or date)`` for every date written in ``text`` (``text[pos:endpos]``);
    month names from ``months`` when given, else from the languages ``langs``."""
    endpos = len(text) if endpos is None else endpos
    years = [m.start() for m in _YEAR_AT.finditer(text, pos, endpos)]
    if not years:
        return  # every date line holds a year
    for m in _near_years(_NUMERIC, text, pos, endpos, years):
        found = _at_time(_day(m.group(1), m.group(2), m.group(3)), text, m, m.end(3), zone, hints)
        if found:
            yield m.start(), m.end(), found
    for m in _near_years(_DMY, text, pos, endpos, years):
        first, second = int(m.group(1)), int(m.group(2))
        month_first = "/" in m.group(0) and second > 12 >= first  # "9/17/2004": US order
        day, month = (m.group(2), m.group(1)) if month_first else (m.group(1), m.group(2))
        found = _at_time(_day(m.group(3), month, day), text, m, m.end(3), zone, hints)
        if found:
            yield m.start(), m.end(), found
    months = _month_names(langs) if months is None else months
    for pattern, day_group, month_group in ((_DAY_WORD_YEAR, 1, 2), (_WORD_DAY_YEAR, 2, 1)):
        for m in _near_years(pattern, text, pos, endpos, years):
            if months is not None:  # the page's languages' month names: no dateparser call
                month = months.get(m.group(month_group).casefold())
                day = _day(m.group(3), str(month), m.group(day_group)) if month else None
            else:
                written = _parse_any(text[m.start():m.end(3)], langs)
                day = day_of(written) if written else None
            found = _at_time(day, text, m, m.end(3), zone, hints)
            if found:
                yield m.start(), m.end(), found


# Where a year can start (overlapping ones too: "202019").
_YEAR_AT = re.compile(r"(?=(?:19|20)\d\d)")
# The most non-white-space characters each date-line pattern matches before its year group
# (a day, a month name, separators, "de"...).  Before the year they hold no four-digit run, so
# a match's year is the first place a year starts after the match's start.
_BEFORE_YEAR = {_NUMERIC: 0, _DMY: 6, _DAY_WORD_YEAR: 21, _WORD_DAY_YEAR: 15}


def _near_years(
    pattern: re.Pattern, text: str, pos: int, endpos: int, years: list[int]
) -> Iterator[re.Match]:
    """``pattern.finditer(text, pos, endpos)`` for the date-line patterns, searched only just
    before each year (``years``: where one starts) instead of over the whole text.

    A match starting at ``s`` has its year at the first year ``y >= s``, with at most
    ``_BEFORE_YEAR[pattern]`` non-white-space characters between, so no match starts between
    the last place searched and that bound.  The search up to ``y`` looks at the text only to
    just past the year (the required part of those that end with the year: the year and the
    "no digit follows" check); the match found there is then taken again on the whole text, for
    its optional time part.  A pattern that starts with its year is tried at each year."""
    before, p = _BEFORE_YEAR[pattern], pos
    for y in years:
        if y < p:
            continue
        if not before:  # the match starts with its year (and goes on past it): try it there
            found = pattern.match(text, y, endpos)
            if found is not None:
                yield found
                p = found.end()
            continue
        lo, budget = y, before
        while lo > p:
            if not text[lo - 1].isspace():  # str.isspace() is exactly what \s matches
                if not budget:
                    break
                budget -= 1
            lo -= 1
        near = pattern.search(text, lo, min(y + 5, endpos))
        if near is None or near.start() > y:
            p = y + 1  # no match starts in [p, y]
            continue
        found = pattern.match(text, near.start(), endpos)
        if found is None:  # cannot happen (see above); the plain search is the reference
            yield from pattern.finditer(text, p, endpos)
            return
        yield found
        p = found.end()


_LANG_CODE = re.compile(r"[a-z]{2,3}(?:-[A-Za-z]{2,4})?")  # a dateparser data file's name
_MONTH_KEYS = ("january", "february", "march", "april", "may", "june", "july", "august", "september",
               "october", "november", "december")


def _month_names(langs: tuple[str, ...] | None) -> dict[str, int] | None:
    """Month name (casefolded) → number in ``langs``, from dateparser's own language data (so a
    date line reads as dateparser would read it, without its per-call cost); None when a language
    has no data there (or none is known): dateparser is then asked, as before."""
    if not langs:
        return None
    return _month_table(langs)


@lru_cache(maxsize=256)
def _month_table(langs: tuple[str, ...]) -> dict[str, int] | None:
    table: dict[str, int] = {}
    for lang in langs:
        names = _language_months(lang)
        if names is None:
            return None
        for name, number in names.items():
            table.setdefault(name, number)
    return table


@lru_cache(maxsize=256)
def _language_months(lang: str) -> dict[str, int] | None:
    """One language's month names in dateparser's data (its locales' variants too), or None.
    The data modules are the ones dateparser imports itself (after :func:`warm_up`, all of them)."""
    from importlib import import_module

    if not _LANG_CODE.fullmatch(lang):
        return None
    try:
        info = import_module(f"dateparser.data.date_translation_data.{lang}").info
    except (ImportError, AttributeError):
        return None
    names: dict[str, int] = {}
    for part in (info, *info.get("locale_specific", {}).values()):
        for number, key in enumerate(_MONTH_KEYS, 1):
            for name in part.get(key, ()):
                if isinstance(name, str):
                    names.setdefault(name.casefold().rstrip("."), number)
    return names


@lru_cache(maxsize=1)
def _any_language_months() -> dict[str, int]:
    """The month names of every language in dateparser's data that name one month wherever they
    occur ("ноября", "März"; not "listopad", November in Polish and October in Croatian)."""
    from importlib import import_module
    from pathlib import Path

    table: dict[str, int] = {}
    clashes: set[str] = set()
    data = Path(import_module("dateparser.data.date_translation_data").__file__).parent
    for path in sorted(data.glob("*.py")):  # one module a language; _language_months skips __init__
        for name, number in (_language_months(path.stem) or {}).items():
            if table.setdefault(name, number) != number:
                clashes.add(name)
    for name in clashes:
        del table[name]
    return table


def _day(year: str, month: str, day: str) -> date | None:
    try:
        return date(int(year), int(month), int(day))
    except ValueError:
        return None


def _at_time(
    day: date | None, text: str, m: re.Match, after: int, zone: tzinfo, hints: tuple[str, ...]
) -> datetime | date | None:
    """``day`` at the time of day the match ``m`` writes after position ``after``, in the zone
    written next to it (else ``zone``); the day alone when no time is written."""
    if day is None:
        return None
    clock = _CLOCK.search(text, after, m.end())
    if clock is None:
        return day if _plausible(day) else None
    hour, minute, second = int(clock.group(1)), int(clock.group(2)), int(clock.group(3) or 0)
    if clock.group(4):  # 12-hour clock: 12:05 a.m. is 00:05, 1:20 p.m. is 13:20
        if not 1 <= hour <= 12:
            return day if _plausible(day) else None
        hour = hour % 12 + (12 if clock.group(4) in "Pp" else 0)
    if not (hour < 24 and minute < 60 and second < 60):
        return day if _plausible(day) else None
    written = _zone_before(text, m.start()) or zone_after(text[m.end():m.end() + ZONE_WINDOW * 2], hints)
    found = datetime.combine(day, clock_time(hour, minute, second), tzinfo=written or zone)
    return found if _plausible(found) else None


def visible_date(page: Page, zone: tzinfo = UTC) -> datetime | date | None:
    """The most credible date written near the headline (see the module docstring)."""
    return _visible_date(page, zone, prefer_time=True)


def _headline_date(page: Page, zone: tzinfo = UTC) -> datetime | date | None:
    """The date line nearest the headline (labelled ones first), with or without a time."""
    return _visible_date(page, zone, prefer_time=False)


def _visible_candidates(page: Page, zone: tzinfo) -> list[tuple[int, int, datetime | date]]:
    """Every date in the visible text, found once per page and zone (two searches read them)."""
    key = ("visible_candidates", zone)
    if key not in page.derived:
        text, _ = visible_text(page)
        page.derived[key] = list(_text_candidates(text, _languages(page), zone, zone_hints(page)))
    return page.derived[key]


def _visible_date(page: Page, zone: tzinfo, prefer_time: bool) -> datetime | date | None:
    text, headline_end = visible_text(page)
    best: tuple[tuple, datetime | date] | None = None
    for start, _end, found in _visible_candidates(page, zone):
        before = text[max(0, start - 24):start]
        if _MODIFIED_LABEL.search(before):
            continue
        labelled = bool(_PUBLISH_LABEL.search(before))
        has_time = prefer_time and isinstance(found, datetime)
        after_headline = start >= headline_end
        distance = abs(start - headline_end)
        key = (after_headline and distance < 1500, labelled, has_time, -distance)
        if best is None or key > best[0]:
            best = (key, found)
    if best:
        return best[1]
    for m in _ISSUE.finditer(text):
        found = _day(m.group(1), m.group(2), "1")
        if found and _plausible(found):
            return found
    return None


def _htmldate(page: Page, zone: tzinfo) -> date | None:
    """htmldate's ``original_date`` markup search (it re-parses the page, so huge pages are left out)."""
    if len(page.text) > HTMLDATE_MAX_CHARS:
        return None
    try:
        from htmldate import find_date

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            found = find_date(
                page.text, url=page.url, original_date=True, extensive_search=False, outputformat="%Y-%m-%d"
            )
    except Exception:  # noqa: BLE001 - a third-party failure means "no date from this source"
        return None
    return parse_date(found, zone) if found else None


_LONGEST_DATE_LINE = 80


def _body_text_date(page: Page, zone: tzinfo) -> datetime | date | None:
    """A date line in the body text past what :func:`visible_date` read (where it found none):
    the first labelled as the publication, else the first not labelled as a modification; then,
    in all the text, one whose month is named in another language than the page's ("24 ноября
    2026" on a page read as English), from every language's unambiguous month names."""
    searched = max(0, len(visible_text(page)[0]) - _LONGEST_DATE_LINE)  # one cut at its end too
    text, _, _ = _walk_visible_text(page, None)
    langs, hints = _languages(page), zone_hints(page)
    found = _first_date_line(text, _text_candidates(text, langs, zone, hints, pos=searched))
    if found is None and langs:
        months = _any_language_months()
        found = _first_date_line(text, _text_candidates(text, langs, zone, hints, months=months))
    return found


Candidates = Iterator[tuple[int, int, datetime | date]]


def _first_date_line(text: str, candidates: Candidates) -> datetime | date | None:
    first = None
    for start, _end, found in candidates:
        before = text[max(0, start - 24):start]
        if _PUBLISH_LABEL.search(before):
            return found
        if first is None and not _MODIFIED_LABEL.search(before):
            first = found
    return first
