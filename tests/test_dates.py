"""Publication dates: each source on a small page, the feed entry's precedence, time zones, junk input."""

from __future__ import annotations

import gzip
import json
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from newscrawl.extract.dates import find_published, parse_date
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
    assert find_published(page(head)).date().isoformat() == "2022-01-15"


def test_modified_date_used_only_when_nothing_else():
    head = '<meta property="article:modified_time" content="2022-02-02T08:00:00+01:00">'
    assert find_published(page(head, url=None)).date().isoformat() == "2022-02-02"


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
    assert find_published(page(url=url)).date().isoformat() == day


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
    assert de.date().isoformat() == en.date().isoformat() == "2024-05-03"


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
    assert found.date().isoformat() == "2019-03-04"


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
    assert found is None or found.tzinfo is not None


def test_weird_values_do_not_raise():
    for value in (None, 10**30, float("nan"), object(), "", "0000", "2020-02-30", "x" * 10_000, b"2020"):
        parse_date(value)


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
