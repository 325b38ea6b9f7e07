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


def test_htmldate_full_search_only_when_its_markup_search_finds_nothing(monkeypatch):
    import htmldate

    calls = []

    def fake(text, url=None, original_date=False, extensive_search=True, outputformat=None):
        calls.append(extensive_search)
        return None if not extensive_search else "2019-02-10"

    monkeypatch.setattr(htmldate, "find_date", fake)
    assert dates._htmldate(page(), dates.UTC) == date(2019, 2, 10)
    assert calls == [False, True]
    calls.clear()
    monkeypatch.setattr(htmldate, "find_date", lambda *a, **k: calls.append(k["extensive_search"]) or "2019-02-11")
    assert dates._htmldate(page(), dates.UTC) == date(2019, 2, 11)
    assert calls == [False]


def test_the_short_walk_under_the_headline_sees_what_the_full_one_sees():
    body = "<div>Stand: 28.04.2020 18:00 Uhr MESZ</div>" + BODY * 40
    short = page(meta("2020-04-29T11:52:23+02:00"), body=body, lang="de")
    full = page(meta("2020-04-29T11:52:23+02:00"), body=body, lang="de")
    dates.visible_text(full)  # the whole bounded walk first
    text, end = dates._headline_text(short)
    assert "visible_text" not in short.derived and len(text) < len(dates.visible_text(full)[0])
    assert find_published(short) == find_published(full)
    assert find_published(short).utcoffset() == timedelta(hours=2)


def test_a_labelled_line_without_a_zone_takes_the_offset_the_metadata_instant_implies():
    body = "<div>PUBLISHED: November 8, 2023 at 11:30 p.m.</div>" + BODY
    found = find_published(page(meta("2023-11-09T05:30:59+00:00"), body=body))
    assert found.date() == date(2023, 11, 8) and found.utcoffset() == timedelta(hours=-6)
    assert found == datetime(2023, 11, 9, 5, 30, 59, tzinfo=dates.UTC)
