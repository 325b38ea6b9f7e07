"""Authors: JSON-LD, meta, byline elements and lines (Latin, Chinese, Russian), clean-up, junk input."""

from __future__ import annotations

import json

import pytest

from newscrawl.extract.authors import clean_name, find_author
from newscrawl.extract.page import Page

PARA = "<p>" + "Some article text that is long enough to be a paragraph. " * 5 + "</p>"
ZH_PARA = "<p>" + "这是新闻正文的内容，足够长的一段文字。" * 10 + "</p>"


def page(head: str = "", body: str = PARA, lang: str = "en", url: str = "https://news.example.org/a"):
    html = (f"<html lang='{lang}'><head><title>Story | Example News</title>{head}</head>"
            f"<body><h1>A headline here</h1>{body}</body></html>")
    return Page.from_html(html, url=url)


def ld(obj) -> str:
    return f'<script type="application/ld+json">{json.dumps(obj)}</script>'


def test_json_ld_people_joined_and_organisation_skipped():
    head = ld({"@type": "NewsArticle", "author": [
        {"@type": "Person", "name": "Jane Doe"}, {"@type": "Organization", "name": "Wire Agency"},
        {"@type": "Person", "name": "John Roe"}]})
    assert find_author(page(head)) == "Jane Doe, John Roe"


def test_json_ld_organisation_when_no_person():
    head = ld({"@type": "NewsArticle", "author": {"@type": "Organization", "name": "dpa"}})
    assert find_author(page(head)) == "dpa"


def test_json_ld_author_reference_resolved_in_graph():
    head = ld({"@graph": [{"@type": "Article", "author": {"@id": "#p1"}}, {"@id": "#p1", "@type": "Person",
                                                                            "name": "Ana Pérez"}]})
    assert find_author(page(head)) == "Ana Pérez"


@pytest.mark.parametrize("name", ["author", "article:author", "parsely-author", "byl"])
def test_meta_author_names(name):
    attr = "property" if ":" in name else "name"
    assert find_author(page(f'<meta {attr}="{name}" content="By Maria Musterfrau">')) == "Maria Musterfrau"


def test_meta_author_url_is_not_a_name():
    head = '<meta property="article:author" content="https://www.facebook.com/someone">'
    assert find_author(page(head)) is None


def test_byline_element_strips_prefix_and_splits():
    body = '<div class="article-byline">Von Anna Schmidt und Peter Müller</div>' + PARA
    assert find_author(page(body=body, lang="de")) == "Anna Schmidt, Peter Müller"


def test_itemprop_author_name():
    body = '<span itemprop="author"><span itemprop="name">Kim Lee</span></span>' + PARA
    assert find_author(page(body=body)) == "Kim Lee"


def test_site_name_is_only_a_fallback():
    head = '<meta property="og:site_name" content="Example News"><meta name="author" content="Example News">'
    body = '<p class="byline">By Sam Smith</p>' + PARA
    assert find_author(page(head, body)) == "Sam Smith"
    assert find_author(page(head)) == "Example News"


@pytest.mark.parametrize("line, expected", [
    ("作者：宋怡 杨志华", "宋怡, 杨志华"),
    ("光明日报记者 王建宏 张文攀", "王建宏, 张文攀"),
    ("本报记者罗科苏盈发自北京", "罗科苏盈"),
    ("新京报记者 彭冲 山东冠县报道", "彭冲"),
    ("文/李明", "李明"),
])
def test_chinese_writer_lines(line, expected):
    body = f"<div>{line}</div>{ZH_PARA}"
    assert find_author(page(body=body, lang="zh", url="http://news.example.cn/a.html")) == expected


def test_chinese_writer_beats_editor_and_editor_is_fallback():
    writer = f"<div>记者 刘涛</div>{ZH_PARA}<div>责任编辑：张三</div>"
    editor = f"{ZH_PARA}<div>（责任编辑：刘林源）</div>"
    assert find_author(page(body=writer, lang="zh")) == "刘涛"
    assert find_author(page(body=editor, lang="zh")) == "刘林源"


def test_chinese_reporter_phrase_in_running_text_is_not_a_byline():
    body = "<p>记者调查</p><p>苹果公司9日对记者表示，这是一个很长的句子。</p>" + ZH_PARA
    assert find_author(page(body=body, lang="zh")) is None


def test_russian_author_label():
    body = "<div>Автор: Андрей Колесников</div><p>" + "Текст статьи достаточно длинный. " * 8 + "</p>"
    assert find_author(page(body=body, lang="ru")) == "Андрей Колесников"


def test_by_line_in_text():
    assert find_author(page(body="<div>By Jane Doe and John Roe</div>" + PARA)) == "Jane Doe, John Roe"


def test_no_author_gives_none():
    assert find_author(page()) is None


@pytest.mark.parametrize("raw, names", [
    ("By JANE DOE", ["JANE DOE"]),
    ("Par Jean Dupont et Marie Curie", ["Jean Dupont", "Marie Curie"]),
    ("Por Ana García", ["Ana García"]),
    ("admin", []),
    ("https://example.com/author/x", []),
    ("", []),
])
def test_clean_name(raw, names):
    assert clean_name(raw) == names


@pytest.mark.parametrize("head, body", [
    (ld({"@type": "Article", "author": {"name": {"nested": [1, 2]}}}), PARA),
    (ld({"@type": "Article", "author": [None, 3, [], {"@id": 5}]}), PARA),
    ('<meta name="author" content="' + "x, " * 10_000 + '">', PARA),
    ("", "<div class='author'>" + "作者：" * 20_000 + "</div>"),
    ("", "<div>" + "记者 " * 50_000 + "</div>"),
])
def test_junk_does_not_raise(head, body):
    found = find_author(page(head, body))
    assert found is None or isinstance(found, str)
