"""Live blogs (issue #39 item 3): ``entries`` read from JSON-LD ``liveBlogUpdate`` and from the DOM
(en, ru, zh fixtures shaped like real CMS live blogs), none on ordinary articles."""

from __future__ import annotations

import json
import re
from datetime import datetime

import pytest
from liveblog_pages import (
    CST,
    EN_TEXTS,
    ET,
    MSK,
    RU_TEXTS,
    ZH_TEXTS,
    chinese_dom,
    english_jsonld,
    entries_at,
    entry_f1,
    russian_dom,
)

from newscrawl.extract import extract

_LD_SCRIPT = re.compile(r'<script type="application/ld\+json">[^<]*</script>')

CASES = {
    "en-jsonld": (english_jsonld, EN_TEXTS, datetime(2024, 11, 5, 19, 0, tzinfo=ET),
                  "https://news.example.com/live/election-night"),
    "en-dom": (lambda e: _LD_SCRIPT.sub("", english_jsonld(e)), EN_TEXTS, datetime(2024, 11, 5, 19, 0, tzinfo=ET),
               "https://news.example.com/live/election-night"),
    "ru-dom": (russian_dom, RU_TEXTS, datetime(2024, 7, 2, 9, 5, tzinfo=MSK), "https://ru.example.com/live/rain"),
    "zh-dom": (chinese_dom, ZH_TEXTS, datetime(2024, 9, 5, 7, 10, tzinfo=CST),
               "https://zh.example.com/live/2024-09/05/typhoon.shtml"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_entries_of_a_live_blog_match_its_posts(case):
    build, texts, start, url = CASES[case]
    truth = entries_at(texts, start)
    article = extract(build(truth), url=url)
    assert entry_f1(article.entries, truth) >= 0.9, article.entries
    for entry in article.entries:  # every time with its offset, as the page gave it
        assert datetime.fromisoformat(entry["time"]).utcoffset() == start.utcoffset()
    titled = {text: title for _, title, text in truth}
    assert all(e["title"] == titled[e["text"]] for e in article.entries)


def test_the_jsonld_entries_keep_their_own_urls():
    build, texts, start, url = CASES["en-jsonld"]
    article = extract(build(entries_at(texts, start)), url=url)
    assert all(e["url"].startswith(url + "#post-") for e in article.entries)
    assert len({e["url"] for e in article.entries}) == len(texts)


def test_an_entry_body_given_as_html_in_jsonld_is_read_as_text():
    ld = {"@type": "LiveBlogPosting", "headline": "Live", "liveBlogUpdate": [
        {"@type": "BlogPosting", "datePublished": f"2024-05-0{i}T10:00:00+02:00", "headline": f"Update {i}",
         "articleBody": f"<p>First paragraph of update {i}.</p><p>Second &amp; last.</p>"} for i in (1, 2)]}
    page = (f'<html><head><script type="application/ld+json">{json.dumps(ld)}</script></head>'
            "<body><h1>Live</h1><p>" + "Text of the live page. " * 20 + "</p></body></html>")
    entries = extract(page, url="https://example.com/live").entries
    assert [e["text"] for e in entries] == [f"First paragraph of update {i}.\nSecond & last." for i in (1, 2)]


def test_an_ordinary_article_with_dated_related_stories_has_no_entries():
    related = "".join(f'<article class="teaser"><time datetime="2024-05-0{i}T10:00:00Z">May {i}</time>'
                      f'<h3><a href="/s{i}">A related story number {i}</a></h3><p>Its summary line {i}.</p></article>'
                      for i in range(1, 6))
    page = ('<html><head><script type="application/ld+json">{"@type": "NewsArticle", "headline": "Budget"}'
            "</script></head><body><article><h1>Budget</h1><time datetime='2024-05-09T09:00:00+02:00'>9 May</time>"
            + "<p>The council met late into the evening to weigh the cost of new school buses.</p>" * 6
            + f"</article><section class='related'>{related}</section></body></html>")
    article = extract(page, url="https://example.com/news/budget")
    assert article.text and article.entries == []
    assert article.to_dict()["entries"] == []


def test_a_news_ticker_of_untimed_items_is_not_a_live_blog():
    ticker = "".join(f'<li class="ticker-item"><a href="/s{i}">Breaking headline number {i} of the day</a></li>'
                     for i in range(6))
    page = (f"<html><body><ul class='news-ticker'>{ticker}</ul><article><h1>Budget</h1>"
            + "<p>The council met late into the evening to weigh the cost of new school buses.</p>" * 6
            + "</article></body></html>")
    assert extract(page, url="https://example.com/news/budget").entries == []


def test_html_entities_in_jsonld_entries_are_decoded():
    ld = {"@type": "LiveBlogPosting", "headline": "Live", "liveBlogUpdate": [
        {"@type": "BlogPosting", "datePublished": f"2024-05-0{i}T10:00:00+01:00", "headline": "Doria&#39;s view",
         "articleBody": "She said &quot;no&quot; to the plan."} for i in (1, 2)]}
    page = (f'<html><head><script type="application/ld+json">{json.dumps(ld)}</script></head>'
            "<body><h1>Live</h1><p>" + "Text of the live page. " * 20 + "</p></body></html>")
    entries = extract(page, url="https://example.com/live").entries
    assert {(e["title"], e["text"]) for e in entries} == {("Doria's view", 'She said "no" to the plan.')}
