"""Publication dates: the cheap sources read without dateparser or htmldate, and the two rules by
which what the page shows its reader beats the declared metadata."""

from __future__ import annotations

from datetime import date, datetime, timedelta

import pytest

from newscrawl.extract.fields import dates
from newscrawl.extract.fields.dates import find_published, parse_date
from newscrawl.extract.page import Page

BODY = "<p>" + "Some article text that is long enough to be a paragraph. " * 5 + "</p>"


def page(head: str = "", body: str = BODY, url: str | None = None, lang: str = "en") -> Page:
    html = (f"<html lang='{lang}'><head><title>Story</title>{head}</head>"
            f"<body><h1>A headline here</h1>{body}</body></html>")
    return Page.from_html(html, url=url)


def meta(value: str) -> str:
    return f'<meta property="article:published_time" content="{value}">'


@pytest.fixture
def no_dateparser(monkeypatch):
    def refuse(text, languages):
        raise AssertionError(f"dateparser asked about {text!r}")
    monkeypatch.setattr(dates, "_dateparser", refuse)


@pytest.mark.parametrize("line, lang, day", [
    ("Veröffentlicht am 3. Mai 2024", "de", date(2024, 5, 3)),
    ("Publié le 1er janvier 2020", "fr", date(2020, 1, 1)),
    ("12 de março de 2021", "pt", date(2021, 3, 12)),
    ("1 июля 2020", "ru", date(2020, 7, 1)),
    ("Published Sept. 5, 2019", "en", date(2019, 9, 5)),
])
def test_month_names_are_read_without_dateparser(no_dateparser, line, lang, day):
    assert find_published(page(body=f"<div>{line}</div>" + BODY, lang=lang)) == day


def test_a_word_that_is_no_month_gives_no_date(no_dateparser):
    # "Sat 3, 2024" once became 3 January (dateutil filled in the month)
    assert dates.visible_date(page(body="<div>Episode 3, 2024</div>" + BODY)) is None


@pytest.mark.parametrize("value, lang, expected", [
    ("4. März 2017", "de", date(2017, 3, 4)),
    ("2020年09月11日 18:05", "zh", datetime(2020, 9, 11, 18, 5)),
])
def test_metadata_written_as_a_date_line_needs_no_dateparser(no_dateparser, value, lang, expected):
    found = find_published(page(meta(value), lang=lang))
    if isinstance(expected, datetime):
        assert found.replace(tzinfo=None) == expected and found.utcoffset() == timedelta(hours=8)
    else:
        assert found == expected


def test_a_bare_time_is_not_sent_to_dateparser(no_dateparser):
    assert parse_date("01:38:07") is None


@pytest.mark.parametrize("script, day", [
    ('{"datePublished": "2021-03-04T05:06:07Z"}', date(2021, 3, 4)),
    ('{"first_published_at": "2021-03-04"}', date(2021, 3, 4)),
    ('{"firstPublicationDate": "20210304"}', date(2021, 3, 4)),
    ('var x = {pubDate: "2021-03-04 10:00"}', date(2021, 3, 4)),
    ('{"xdatePublished": "2020-01-01", "publishTime": "2021-03-04"}', date(2021, 3, 4)),  # a key starts a word
])
def test_script_keys(script, day):
    found = find_published(page(body=f"<script>{script}</script>" + BODY))
    assert dates.day_of(found) == day


def test_a_labelled_line_under_the_headline_beats_the_metadata():
    body = "<div>Stand: 28.04.2020 18:00 Uhr</div>" + BODY
    found = find_published(page(meta("2020-04-29T11:52:23+02:00"), body=body, lang="de"))
    assert found == datetime(2020, 4, 28, 18, 0, tzinfo=found.tzinfo)
    assert found.utcoffset() == timedelta(hours=2)


def test_an_unlabelled_or_distant_line_does_not():
    declared = meta("2020-04-29T11:52:23+02:00")
    unlabelled = find_published(page(declared, body="<div>28.04.2020</div>" + BODY, lang="de"))
    distant = find_published(page(declared, body=BODY * 3 + "<div>Stand: 28.04.2020</div>", lang="de"))
    assert unlabelled.date() == distant.date() == date(2020, 4, 29)


def test_the_metadata_settles_the_order_of_an_ambiguous_line():
    body = "<div>Posted: 08/09/2012 4:03 pm</div>" + BODY
    found = find_published(page(meta("2012-08-09T16:08:10-05:00"), body=body))
    assert found.date() == date(2012, 8, 9)


def test_a_utc_instant_at_local_midnight_is_the_local_day():
    found = find_published(page(meta("2021-11-04T23:00:00+00:00"), lang="de"))
    assert found == date(2021, 11, 5)


def test_a_utc_instant_moves_to_the_local_day_the_headline_line_shows():
    body = "<div>3 de mayo de 2022</div>" + BODY
    found = find_published(page(meta("2022-05-04T00:25:56Z"), body=body, url="https://www.example.com.ar/n", lang="es"))
    assert found.date() == date(2022, 5, 3) and found.utcoffset() == timedelta(hours=-3)
    assert found == datetime(2022, 5, 4, 0, 25, 56, tzinfo=dates.UTC)  # the same instant


def test_a_utc_instant_stays_utc_when_the_page_shows_the_utc_day():
    body = "<div>26 August 2024</div>" + BODY
    found = find_published(page(meta("2024-08-26T23:27:57+00:00"), body=body, lang="de"))
    assert found.date() == date(2024, 8, 26) and found.utcoffset() == timedelta(0)


def test_htmldate_is_asked_for_its_markup_search_only(monkeypatch):
    import htmldate

    calls = []

    def fake(text, url=None, original_date=False, extensive_search=True, outputformat=None):
        calls.append(extensive_search)
        return "2019-02-10" if extensive_search else None

    monkeypatch.setattr(htmldate, "find_date", fake)
    assert dates._htmldate(page(), dates.UTC) is None
    assert calls == [False]


@pytest.mark.parametrize("url, day", [
    ("https://example.de/meldungen/29-10-2021", date(2021, 10, 29)),
    ("https://example.de/news/3.1.2022.html", date(2022, 1, 3)),
    ("https://example.de/a/29-10-2021/b?x=1", date(2021, 10, 29)),
    ("https://example.de/v1.29-10-2021", None),  # part of a longer token
    ("https://example.de/p/129-10-2021", None),
    ("https://example.de/31-02-2021", None),  # no such day
    ("https://example.de/29-10.2021", None),  # mixed separators
    ("https://example.de/?d=29-10-2021", None),  # the query is not read
    ("https://example.de/29-10-1990", None),  # implausible
])
def test_a_day_month_year_in_the_url_path(url, day):
    assert dates.url_day_month_year(url) == day


def test_the_url_day_month_year_is_a_last_resort():
    assert find_published(page(url="https://example.de/meldungen/29-10-2021")) == date(2021, 10, 29)
    declared = find_published(page(meta("2021-10-30T10:00:00+02:00"), url="https://example.de/m/29-10-2021"))
    assert declared.date() == date(2021, 10, 30)


FILLER = "<p>" + "Plenty of words without any date in them, line after line. " * 10 + "</p>"


@pytest.fixture
def no_htmldate(monkeypatch):
    monkeypatch.setattr(dates, "_htmldate", lambda page, zone: None)


def test_a_date_line_far_below_the_headline_is_read_when_nothing_else_gives_one(no_dateparser, no_htmldate):
    far = FILLER * 60  # past the text the date-line search near the headline reads
    assert len(far) > dates.TEXT_PREFIX + dates.TEXT_WINDOW
    assert dates.visible_date(page(body=far + "<div>Datum: 25.01.2022</div>"), dates.UTC) is None
    assert find_published(page(body=far + "<div>Datum: 25.01.2022</div>", lang="de")) == date(2022, 1, 25)
    assert find_published(page(body=far)) is None


def test_far_below_a_publication_label_beats_an_earlier_date_and_a_modification_is_skipped(
        no_dateparser, no_htmldate):
    far = FILLER * 60
    labelled = far + "<div>Nächster Termin 02.02.2022</div><div>Veröffentlicht: 25.01.2022</div>"
    assert find_published(page(body=labelled, lang="de")) == date(2022, 1, 25)
    unlabelled = far + "<div>Geändert am 02.02.2022</div><div>Termine</div><div>01.01.2022</div><div>03.03.2022</div>"
    assert find_published(page(body=unlabelled, lang="de")) == date(2022, 1, 1)


def test_the_short_walk_under_the_headline_sees_what_the_full_one_sees():
    body = "<div>Stand: 28.04.2020 18:00 Uhr MESZ</div>" + BODY * 40
    short = page(meta("2020-04-29T11:52:23+02:00"), body=body, lang="de")
    full = page(meta("2020-04-29T11:52:23+02:00"), body=body, lang="de")
    dates.visible_text(full)  # the whole bounded walk first
    text, end = dates._headline_text(short)
    assert "visible_text" not in short.derived and len(text) < len(dates.visible_text(full)[0])
    assert find_published(short) == find_published(full)
    assert find_published(short).utcoffset() == timedelta(hours=2)


def _reference_walk(page: Page, window: int) -> tuple[str, int]:
    """The visible text walk written plainly: what the resumed walk must give."""
    from lxml import etree

    body, pieces, size, headline_end = page.body, [], 0, -1
    limit = dates.TEXT_PREFIX + dates.TEXT_WINDOW
    for event, el in etree.iterwalk(body, events=("start", "end")):
        if not isinstance(el.tag, str):
            continue
        if event == "start":
            pieces.append(el.text or "")
            size += len(el.text or "")
            if el.tag in dates._LINE_TAGS:
                pieces.append("\n")
                size += 1
        else:
            if el.tag == "h1" and headline_end < 0 and len(el.text_content().strip()) >= 4:
                headline_end, limit = size, size + window
            if el.tail and el is not body:
                pieces.append(el.tail)
                size += len(el.tail)
        if size > limit:
            break
    return "".join(pieces)[:limit], headline_end


@pytest.mark.parametrize("body", [
    "<div>Intro <b>bold</b> tail</div><h1>The headline</h1>" + BODY * 30,
    "<h1>ab</h1><div>x</div><h1>Second <i>headline</i></h1><p>Posted <span>May 3, 2024</span></p>" + BODY * 30,
    BODY * 600,  # no <h1> qualifies before the prefix ends
    "<h1>   </h1>" + BODY * 3,
], ids=["inline", "short-h1", "no-h1", "blank-h1"])
def test_the_walk_resumed_with_a_longer_window_is_the_walk_from_the_start(body):
    html = f"<html><head><title>Story</title></head><body>{body}</body></html>"
    for windows in ((dates.HEADLINE_TEXT, dates.TEXT_WINDOW), (dates.TEXT_WINDOW, dates.HEADLINE_TEXT),
                    (5, 50, 5000)):
        resumed = Page.from_html(html)
        for window in windows:
            text, end, has_h1 = dates._walk_visible_text(resumed, window)
            expected, expected_end = _reference_walk(Page.from_html(html), window)
            assert text == expected and has_h1 == (expected_end >= 0)
            if has_h1:
                assert end == expected_end


def test_the_walk_shows_no_comment_nor_its_tail():
    from lxml import etree

    built = page(body="<div>Intro <b>bold</b> tail</div>" + BODY)
    comment = etree.Comment("a comment")
    comment.tail = "hidden tail"
    built.body.find(".//div").insert(0, comment)  # the parser's cleaning drops comments: add one
    text, _, _ = dates._walk_visible_text(built, dates.TEXT_WINDOW)
    assert text == _reference_walk(built, dates.TEXT_WINDOW)[0]
    assert "Intro" in text and "hidden tail" not in text and "a comment" not in text


def test_a_labelled_line_without_a_zone_takes_the_offset_the_metadata_instant_implies():
    body = "<div>PUBLISHED: November 8, 2023 at 11:30 p.m.</div>" + BODY
    found = find_published(page(meta("2023-11-09T05:30:59+00:00"), body=body))
    assert found.date() == date(2023, 11, 8) and found.utcoffset() == timedelta(hours=-6)
    assert found == datetime(2023, 11, 9, 5, 30, 59, tzinfo=dates.UTC)


NEAR_YEAR_TEXTS = [
    "", "no year here", "Posted May 3, 2024 at 10:30 a.m. and updated Jan. 4 2025",
    "3. Mai 2024, 10:30 Uhr; 12 de março de 2021 às 20:13; 1er janvier 2020",
    "2020. 0\t /9 年 and 2024 - 05 - 03 10:30", "03.05.2024 18:00 / 9/17/2004 / 12.20.2019",
    "202019 2019202 19201920 1999-1999-1999", "May" + " " * 500 + "3," + "\n" * 300 + "2024",
    "1 июля 2020 г. в 10:30 мск, 2020年07月01日 10:30", "x3 May 2024 _4 May 2024 Ä5 May 2024",
]


@pytest.mark.parametrize("pattern", sorted(dates._BEFORE_YEAR, key=lambda p: p.pattern))
@pytest.mark.parametrize("text", NEAR_YEAR_TEXTS)
def test_the_search_near_years_finds_what_a_scan_of_the_whole_text_finds(pattern, text):
    for pos, endpos in ((0, len(text)), (3, len(text) - 2), (len(text) // 2, len(text)), (0, len(text) // 2)):
        if pos > endpos:
            continue
        years = [m.start() for m in dates._YEAR_AT.finditer(text, pos, endpos)]
        expected = [(m.span(), m.groups()) for m in pattern.finditer(text, pos, endpos)]
        assert [(m.span(), m.groups()) for m in dates._near_years(pattern, text, pos, endpos, years)] == expected


def test_the_search_near_years_runs_in_linear_time():
    from test_regex_linear import check_function

    def scan(text: str) -> list:
        return list(dates._text_candidates(text, ("en", "de"), dates.UTC))

    # On lines of nothing but dates each match builds a datetime and searches a time of day:
    # 1,000-2,000x a trivial regex scan (more at 128 K than at 8 K), growth 4.0 (linear).
    failures = check_function(scan, ["May 3, 2024", "3. Mai 2024 10:30", "03.05.2024 18:00", "2024年5月3日 10:30"],
                              cost_bound=10_000)
    assert not failures, failures


def test_meta_keys_are_read_trimmed_and_lower_cased_and_a_meta_without_keys_is_skipped():
    built = page('<meta content="2020-01-02"><meta name=" DC.Date " content="2021-03-04">'
                 '<meta property="og:title" name="pubdate" content="2022-05-06"><meta name="date" content="">')
    assert list(dates._meta_values(built, dates.PUBLISHED_META)) == ["2022-05-06", "2021-03-04"]  # by key rank
    assert [keys for keys, _ in dates._metas(built)] == [("", "dc.date", "", ""), ("og:title", "pubdate", "", "")]


def test_warm_up_leaves_dates_as_they_were():
    from newscrawl.extract.fields.dates import parse_date, warm_up

    before = parse_date("12 marca 2011")
    warm_up()
    assert parse_date("12 marca 2011") == before


@pytest.mark.parametrize("value", ["1h ago", "5m", "vor 3 Stunden", "Mai 2023", "Updated 12"])
def test_a_value_that_cannot_hold_a_day_and_a_year_is_not_sent_to_dateparser(value, no_dateparser):
    assert parse_date(value) is None


def test_a_value_with_a_day_and_a_year_still_goes_to_dateparser(monkeypatch):
    asked = []
    monkeypatch.setattr(dates, "_dateparser", lambda text, languages: asked.append(text))
    parse_date("le 3 floréal 2023")
    parse_date("am 03052023 erschienen")
    assert asked == ["le 3 floréal 2023", "am 03052023 erschienen"]


def test_a_date_line_in_another_language_than_the_page_s_is_read_last(no_dateparser, no_htmldate):
    body = "<p><span>24 ноября 2026</span></p>" + FILLER
    assert dates.visible_date(page(body=body), dates.UTC) is None  # English month names only
    assert find_published(page(body=body)) == date(2026, 11, 24)
    assert find_published(page(body="<p>3. März 2021</p>" + FILLER)) == date(2021, 3, 3)


def test_every_language_s_month_names_leave_out_the_ones_that_name_two_months(no_dateparser, no_htmldate):
    months = dates._any_language_months()
    assert months["ноября"] == 11 and months["märz"] == 3 and months["november"] == 11
    assert "listopad" not in months  # November in Polish and Czech, October in Croatian
    assert find_published(page(body="<p>5 listopad 2021</p>" + FILLER)) is None
    assert find_published(page(body="<p>5 listopad 2021</p>" + FILLER, lang="pl")) == date(2021, 11, 5)
