"""Publication dates: each source on a small page, the feed entry's precedence, time zones, junk input."""

from __future__ import annotations

import gzip
import json
import time
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest

from newscrawl.extract.fields.dates import day_of, find_published, parse_date
from newscrawl.extract.page import Page

BODY = "<p>" + "Some article text that is long enough to be a paragraph. " * 5 + "</p>"


URL = "https://example.org/news/story"


def page(head: str = "", body: str = BODY, url: str | None = URL, lang: str = "en") -> Page:
    html = (f"<html lang='{lang}'><head><title>Story</title>{head}</head>"
            f"<body><h1>A headline here</h1>{body}</body></html>")
    return Page.from_html(html, url=url)


def test_meta_published_time_keeps_its_offset():
    head = '<meta property="article:published_time" content="2024-05-03T23:30:00+08:00">'
    found = find_published(page(head))
    assert found == datetime(2024, 5, 3, 23, 30, tzinfo=found.tzinfo)
    assert found.utcoffset() == timedelta(hours=8)
    assert found.date().isoformat() == "2024-05-03"  # not shifted into the UTC day


def test_json_ld_date_published_preferred_over_modified():
    ld = {"@type": "NewsArticle", "dateModified": "2021-03-02T10:00:00Z",
          "datePublished": "2021-03-01T09:00:00Z"}
    head = f'<script type="application/ld+json">{json.dumps(ld)}</script>'
    assert find_published(page(head)).date().isoformat() == "2021-03-01"


def test_publication_meta_beats_modification_meta():
    head = ('<meta property="article:modified_time" content="2022-02-02T00:00:00Z">'
            '<meta name="pubdate" content="2022-01-15">')
    assert find_published(page(head)) == date(2022, 1, 15)  # a day: no invented midnight


def test_modified_date_used_only_when_nothing_else():
    head = '<meta property="article:modified_time" content="2022-02-02T08:00:00+01:00">'
    assert day_of(find_published(page(head, url=None))) == date(2022, 2, 2)


def test_time_element_with_datetime():
    body = '<time itemprop="datePublished" datetime="2019-11-19T08:00:00-05:00">Nov 19</time>' + BODY
    found = find_published(page(body=body))
    assert found.date().isoformat() == "2019-11-19" and found.utcoffset() == timedelta(hours=-5)


@pytest.mark.parametrize("url, day", [
    ("https://example.com/2020/07/01/some-story/", "2020-07-01"),
    ("https://example.com/news/2020-07-01-some-story", "2020-07-01"),
    ("https://example.com/story-20200701.html", "2020-07-01"),
])
def test_date_in_url(url, day):
    assert find_published(page(url=url)) == date.fromisoformat(day)


def test_chinese_date_line_after_headline_gets_beijing_time():
    body = ("<div>2022年2月13日 星期日</div><h1>标题在这里</h1><div>2020年07月01日 10:30 来源：新华网</div>"
            "<p>" + "正文内容。" * 30 + "</p>")
    html = f"<html lang='zh-CN'><head><title>标题</title></head><body>{body}</body></html>"
    found = find_published(Page.from_html(html, url="http://news.example.cn/a.html"))
    assert (found.year, found.month, found.day, found.hour, found.minute) == (2020, 7, 1, 10, 30)
    assert found.utcoffset() == timedelta(hours=8)


def test_chinese_publish_label_with_seconds():
    body = "<div>发布时间：2021-01-29 13:18:05 来源：本站</div><p>" + "正文内容。" * 30 + "</p>"
    found = find_published(page(body=body, url=None, lang="zh"))
    assert found.isoformat().startswith("2021-01-29T13:18:05")


def test_russian_genitive_month_gets_moscow_offset():
    body = "<div>1 июля 2020, 10:30</div><p>" + "Текст статьи достаточно длинный для абзаца. " * 5 + "</p>"
    found = find_published(page(body=body, url=None, lang="ru"))
    assert (found.year, found.month, found.day) == (2020, 7, 1)
    assert found.utcoffset() == timedelta(hours=3)


def test_german_and_english_month_names():
    de = find_published(page(body="<div>Veröffentlicht am 3. Mai 2024</div>" + BODY, url=None, lang="de"))
    en = find_published(page(body="<div>Published May 3, 2024</div>" + BODY, url=None))
    assert de == en == date(2024, 5, 3)


@pytest.mark.parametrize("published", [
    datetime(2023, 4, 5, 6, 7, tzinfo=UTC),
    time.struct_time((2023, 4, 5, 6, 7, 0, 2, 95, 0)),
    "Wed, 05 Apr 2023 06:07:00 +0000",
    "2023-04-05T06:07:00Z",
])
def test_feed_entry_wins_over_page(published):
    head = '<meta property="article:published_time" content="2020-01-01T00:00:00Z">'
    found = find_published(page(head), {"published": published})
    assert found == datetime(2023, 4, 5, 6, 7, tzinfo=UTC)


def test_feed_entry_without_date_falls_back_to_page():
    head = '<meta property="article:published_time" content="2020-01-02T00:00:00Z">'
    assert find_published(page(head), {"title": "x"}).date().isoformat() == "2020-01-02"


def test_no_date_gives_none():
    assert find_published(page(url=None)) is None


def test_impossible_dates_rejected():
    future = (datetime.now(UTC) + timedelta(days=30)).isoformat()
    assert parse_date(future) is None
    assert parse_date("1990-05-05") is None
    head = f'<meta property="article:published_time" content="{future}">'
    found = find_published(page(head, url="https://example.com/2019/03/04/x"))
    assert found == date(2019, 3, 4)


def test_naive_dates_are_made_aware():
    assert parse_date("2020-07-01 10:30").tzinfo is not None
    found = find_published(page('<meta name="pubdate" content="2020-07-01 10:30">', url=None))
    assert found.tzinfo is not None and found.utcoffset() == timedelta(0)


@pytest.mark.parametrize("junk", [
    "<meta name='pubdate' content='" + "9" * 5000 + "'>",
    "<meta name='pubdate' content='2020-13-45'>",
    "<script type='application/ld+json'>{\"@type\": \"Article\", \"datePublished\": {\"x\": [1]}}</script>",
])
def test_junk_metadata_does_not_raise(junk):
    find_published(page(junk, url=None))


def test_huge_repetitive_text_does_not_raise():
    body = "<div>" + ("12.12.12 1 1 1 2020年 " * 50_000) + "</div>"
    found = find_published(page(body=body, url="https://x.example/" + "2" * 3000))
    assert found is None or not isinstance(found, datetime) or found.tzinfo is not None


def test_weird_values_do_not_raise():
    for value in (None, 10**30, float("nan"), object(), "", "0000", "2020-02-30", "x" * 10_000, b"2020"):
        parse_date(value)


def test_an_rfc822_date_with_a_second_too_large_for_a_c_long_is_no_date():
    # A feed's pubDate the fuzzer wrote (fuzz/targets.py feed_target): the email parser's
    # datetime() raised OverflowError through parse_feed.
    assert parse_date("Sun, 12 May 2024 08:30:2222222222222222222222200 +0200") is None
    assert parse_date("Sun, 12 May 2024 08:30:22 +0200") == datetime(2024, 5, 12, 6, 30, 22, tzinfo=UTC)


DATASETS = Path(__file__).resolve().parents[2] / "shared" / "datasets"


def _day_accuracy(name: str) -> float:
    folder = DATASETS / name
    if not folder.exists():
        pytest.skip(f"../shared/datasets not present: {folder}")
    hits = total = 0
    for line in (folder / "truth.jsonl").open(encoding="utf-8"):
        row = json.loads(line)
        truth = row.get("date")
        if not isinstance(truth, str) or not truth[:10].count("-") == 2:
            continue
        data = gzip.decompress((folder / "pages" / f"{row['id']}.html.gz").read_bytes())
        found = find_published(Page.from_html(data, url=row.get("url")))
        want = tuple(int(x) for x in truth[:10].split(" ")[0].split("-"))
        total += 1
        hits += found is not None and (found.year, found.month, found.day) == want
    return hits / total


def test_fundus_day_accuracy_beats_htmldate():
    assert _day_accuracy("fundus") >= 0.98  # htmldate (original_date=True): 0.969


# --- explicit zones, times in every language, days without a time ---------------------------------

EST, PST = timedelta(hours=-5), timedelta(hours=-8)


@pytest.mark.parametrize("line, url, lang, expected, offset", [
    ("November 20, 2026 6:55 AM PST", "https://example.org/a", "en", (2026, 11, 20, 6, 55), PST),
    ("November 19, 2026, 7:45 a.m. EST", "https://example.ru/a", "en", (2026, 11, 19, 7, 45), EST),
    ("Nov. 20, 2026 12:05 a.m. EDT", "https://example.org/a", "en", (2026, 11, 20, 0, 5), timedelta(hours=-4)),
    ("November 20, 2026 1:20 p.m. CST", "https://example.org/a", "en", (2026, 11, 20, 13, 20), timedelta(hours=-6)),
    ("2026-11-20 10:30 CST", "https://example.com/a", "zh", (2026, 11, 20, 10, 30), timedelta(hours=8)),
    ("20 November 2026 10:30 IST", "https://example.in/a", "en", (2026, 11, 20, 10, 30), timedelta(hours=5, minutes=30)),
    ("20 November 2026 10:30 IST", "https://example.ie/a", "en", (2026, 11, 20, 10, 30), timedelta(hours=1)),
    ("November 20, 2026 10:30 UTC+8", "https://example.com/a", "en", (2026, 11, 20, 10, 30), timedelta(hours=8)),
    ("20.11.2026 10:30 +0200", "https://example.com/a", "en", (2026, 11, 20, 10, 30), timedelta(hours=2)),
    ("20.11.2026, 10:30 Uhr MESZ", "https://example.com/a", "de", (2026, 11, 20, 10, 30), timedelta(hours=2)),
    ("20. November 2026, 10:30 Uhr", "https://example.com/a", "de", (2026, 11, 20, 10, 30), timedelta(hours=1)),
    ("19 ноября 2026, 07:50", "https://example.ru/a", "ru", (2026, 11, 19, 7, 50), timedelta(hours=3)),
    ("19 ноября 2026 в 07:50 по московскому времени", "https://example.de/a", "ru",  # .de: Berlin otherwise
     (2026, 11, 19, 7, 50), timedelta(hours=3)),
    ("19 ноября 2026, 07:50 (мск)", "https://example.de/a", "ru", (2026, 11, 19, 7, 50), timedelta(hours=3)),
    ("北京时间2026年11月20日 10:30", "https://example.com/a", "en", (2026, 11, 20, 10, 30), timedelta(hours=8)),
    ("November 20, 2026 10:30 GMT", "https://example.cn/a", "en", (2026, 11, 20, 10, 30), timedelta(0)),
])
def test_written_zone_is_honoured_and_the_time_kept(line, url, lang, expected, offset):
    found = find_published(page(body=f"<div>{line}</div>" + BODY, url=url, lang=lang))
    assert isinstance(found, datetime), found
    assert (found.year, found.month, found.day, found.hour, found.minute) == expected
    assert found.utcoffset() == offset


@pytest.mark.parametrize("value, hints, offset", [
    ("2026-11-19 07:45 EST", (), EST),
    ("Fri, 20 Nov 2026 10:00 PST", (), PST),
    ("Fri, 20 Nov 2026 10:00 CST", ("zh",), timedelta(hours=8)),
    ("Fri, 20 Nov 2026 10:00 CST", ("en",), timedelta(hours=-6)),
    ("2026-11-20T10:00:00+08:00", (), timedelta(hours=8)),
])
def test_parse_date_reads_a_closing_zone(value, hints, offset):
    found = parse_date(value, hints=hints)
    assert (found.hour, found.utcoffset()) == (10 if "10:00" in value else 7, offset)


@pytest.mark.parametrize("line, lang", [
    ("November 20, 2026", "en"), ("20 ноября 2026", "ru"), ("2026年11月20日", "zh"), ("20. November 2026", "de"),
])
def test_a_day_without_a_time_is_a_date_not_midnight(line, lang):
    assert find_published(page(body=f"<div>{line}</div>" + BODY, url=None, lang=lang)) == date(2026, 11, 20)
    assert parse_date("2026-11-20") == date(2026, 11, 20)


def test_a_day_is_completed_by_the_date_line_not_by_a_comment():
    body = ("<div>20 November 2026, 09:15</div>" + BODY
            + "<div class='comment'>20.11.2026 23:59 great story</div>")
    found = find_published(page(body=body, url="https://example.com/2026/11/20/story", lang="en"))
    assert (found.hour, found.minute) == (9, 15)
    comment_only = BODY + "<div class='comment'>Reader, 20.11.2026 23:59</div>"
    day_line = f"<div>20 November 2026</div>{comment_only}"
    assert find_published(page(body=day_line, url="https://example.com/2026/11/20/story")) == date(2026, 11, 20)


def test_feed_string_keeps_its_offset():
    found = find_published(page(), {"published": "Thu, 19 Nov 2026 07:45:00 -0500"})
    assert found.utcoffset() == EST and found.hour == 7


def test_a_utc_instant_the_page_also_states_on_its_own_clock_takes_that_offset():
    head = "<meta property='article:published_time' content='2026-11-19T12:45:00Z'>"
    same = Page.from_html(f"<html><head>{head}</head><body><h1>Bridge reopens</h1>"
                          "<time datetime='2026-11-19T07:45:00-05:00'>Nov 19, 7:45 a.m.</time></body></html>",
                          url="https://example.com/a")
    assert find_published(same).isoformat() == "2026-11-19T07:45:00-05:00"
    other = Page.from_html(f"<html><head>{head}</head><body><h1>Bridge reopens</h1>"
                           "<time datetime='2026-11-19T09:00:00-05:00'>Updated 9 a.m.</time></body></html>",
                           url="https://example.com/a")
    assert find_published(other).isoformat() == "2026-11-19T12:45:00+00:00"  # another instant: not the same stamp


def test_an_offset_of_a_day_or_more_is_no_date():
    # "+8200" reads as 82 hours: datetime refuses such a zone when asked for the offset
    assert parse_date("Sun, 12 May 2024 08:30:00 +8200") is None
    assert parse_date("Sun, 12 May 2024 08:30:00 +0800").isoformat() == "2024-05-12T08:30:00+08:00"


DURATIONS = ["PT50M55S", "PT10H20M30S", "P1Y2M3D", "P2023Y10M05D", "PT1,5H", "P3DT4H"]


def test_an_iso_duration_is_no_date_and_dateparser_is_not_asked(monkeypatch):
    """A video's length in ``<time datetime="PT50M55S">``: dateparser (day, month and year required)
    reads none of these as a date, after 10 ms or more each; the duration is recognised first."""
    from newscrawl.extract.fields import dates

    assert all(dates._dateparser(value, None) is None for value in DURATIONS[:4])  # what it would say
    asked = []
    real = dates._dateparser
    monkeypatch.setattr(dates, "_dateparser", lambda text, languages: asked.append(text) or real(text, languages))
    assert [parse_date(value) for value in DURATIONS] == [None] * len(DURATIONS)
    assert asked == []
    parse_date("sexta-feira, 22 de outubro de 2010 às 20:13", languages=("pt",))
    assert asked == ["sexta-feira, 22 de outubro de 2010 às 20:13"]  # a date line still is
