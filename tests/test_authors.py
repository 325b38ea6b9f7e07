"""Authors: the credited people and agencies from JSON-LD, meta, byline elements and lines (Latin,
Chinese, Russian); never the site itself; clean-up (initials, particles, suffixes, affiliations,
dates, photo credits); junk input."""

from __future__ import annotations

import json

import pytest

from newscrawl.extract.fields.authors import clean_name, find_author, find_authors
from newscrawl.extract.page import Page

PARA = "<p>" + "Some article text that is long enough to be a paragraph. " * 5 + "</p>"
ZH_PARA = "<p>" + "这是新闻正文的内容，足够长的一段文字。" * 10 + "</p>"


def page(head: str = "", body: str = PARA, lang: str = "en", url: str = "https://news.example.org/a"):
    html = (f"<html lang='{lang}'><head><title>Story | Example News</title>{head}</head>"
            f"<body><h1>A headline here</h1>{body}</body></html>")
    return Page.from_html(html, url=url)


def ld(obj) -> str:
    return f'<script type="application/ld+json">{json.dumps(obj)}</script>'


def test_json_ld_people_and_credited_organisation_in_order():
    head = ld({"@type": "NewsArticle", "author": [
        {"@type": "Person", "name": "Jane Doe"}, {"@type": "Organization", "name": "Wire Agency"},
        {"@type": "Person", "name": "John Roe"}]})
    assert find_authors(page(head)) == ["Jane Doe", "Wire Agency", "John Roe"]


def test_json_ld_agency_is_credited_but_the_publisher_is_not():
    head = ld({"@type": "NewsArticle", "author": {"@type": "Organization", "name": "dpa"}})
    assert find_authors(page(head)) == ["dpa"]
    own = ld({"@type": "NewsArticle", "author": {"@type": "Organization", "name": "Daily Planet"},
              "publisher": {"@type": "Organization", "name": "Daily Planet"}})
    assert find_authors(page(own)) == []
    byline = '<p class="byline">By Sam Smith</p>' + PARA  # the next source names the person
    assert find_authors(page(own, byline)) == ["Sam Smith"]


def test_json_ld_given_and_family_name_and_nested_list():
    head = ld({"@type": "NewsArticle", "author": [
        {"@type": "Person", "givenName": "Anna Giulia", "familyName": "Fink"},
        [{"@type": "Person", "name": "Jan Marchart"}]]})
    assert find_authors(page(head)) == ["Anna Giulia Fink", "Jan Marchart"]


@pytest.mark.parametrize("raw, names", [
    ("By AFP", ["AFP"]),
    ("Adam Vidler, AP", ["Adam Vidler", "AP"]),
    ("Felix Schröder und Jörg Soldwisch, dpa", ["Felix Schröder", "Jörg Soldwisch", "dpa"]),
    ("Associated Press in Valencia", ["Associated Press"]),
    ("Photo: AFP", []),
    ("Foto: dpa", []),
    ("MM-Redaktion", []),
    ("Gear Team", []),
    ("Nachrichten", []),
])
def test_agencies_credited_affiliations_and_photo_credits_not(raw, names):
    assert clean_name(raw) == names


def test_site_brand_host_and_section_are_not_credits():
    mdr = '<meta property="og:site_name" content="MDR"><meta name="author" content="Eva Roth, MDR THÜRINGEN">'
    assert find_authors(page(mdr)) == ["Eva Roth"]
    host = '<meta name="author" content="Planet">'
    assert find_authors(page(host, url="https://www.planet.co.uk/a/b")) == []
    section = '<div class="author-brand">capital</div><div class="byline">von Jemima Kelly</div>' + PARA
    assert find_authors(page(body=section, lang="de", url="https://stern.example.de/capital/story.html")) == [
        "Jemima Kelly"]


def test_a_lower_ranked_author_meta_is_read_when_the_first_names_the_site():
    head = ('<meta property="og:site_name" content="Planet Daily"><meta name="author" content="Planet Daily">'
            '<meta name="articleauthor" content="Anadolu Ajansı">')
    assert find_authors(page(head)) == ["Anadolu Ajansı"]


def test_japanese_name_with_a_space_is_one_person():
    head = '<meta name="author" content="大渡 美咲">'
    body = "<p>" + "これは日本語の記事の本文です。" * 20 + "</p>"
    assert find_authors(page(head, body, lang="ja", url="https://news.example.jp/a")) == ["大渡 美咲"]


def test_json_ld_author_reference_resolved_in_graph():
    head = ld({"@graph": [{"@type": "Article", "author": {"@id": "#p1"}}, {"@id": "#p1", "@type": "Person",
                                                                            "name": "Ana Pérez"}]})
    assert find_authors(page(head)) == ["Ana Pérez"]


@pytest.mark.parametrize("name", ["author", "article:author", "parsely-author", "byl"])
def test_meta_author_names(name):
    attr = "property" if ":" in name else "name"
    assert find_authors(page(f'<meta {attr}="{name}" content="By Maria Musterfrau">')) == ["Maria Musterfrau"]


def test_meta_author_url_is_not_a_name():
    head = '<meta property="article:author" content="https://www.facebook.com/someone">'
    assert find_authors(page(head)) == []


def test_byline_element_strips_prefix_and_splits():
    body = '<div class="article-byline">Von Anna Schmidt und Peter Müller</div>' + PARA
    assert find_authors(page(body=body, lang="de")) == ["Anna Schmidt", "Peter Müller"]


def test_itemprop_author_name():
    body = '<span itemprop="author"><span itemprop="name">Kim Lee</span></span>' + PARA
    assert find_authors(page(body=body)) == ["Kim Lee"]


def test_site_name_is_not_a_person():
    head = '<meta property="og:site_name" content="Example News"><meta name="author" content="Example News">'
    body = '<p class="byline">By Sam Smith</p>' + PARA
    assert find_authors(page(head, body)) == ["Sam Smith"]
    assert find_authors(page(head)) == []


@pytest.mark.parametrize("line, expected", [
    ("作者：宋怡 杨志华", "宋怡, 杨志华"),
    ("光明日报记者 王建宏 张文攀", "王建宏, 张文攀"),
    ("本报记者罗科苏盈发自北京", "罗科苏盈"),
    ("新京报记者 彭冲 山东冠县报道", "彭冲"),
    ("文/李明", "李明"),
])
def test_chinese_writer_lines(line, expected):
    body = f"<div>{line}</div>{ZH_PARA}"
    assert find_authors(page(body=body, lang="zh", url="http://news.example.cn/a.html")) == expected.split(", ")


def test_chinese_writer_beats_editor_and_editor_is_fallback():
    writer = f"<div>记者 刘涛</div>{ZH_PARA}<div>责任编辑：张三</div>"
    editor = f"{ZH_PARA}<div>（责任编辑：刘林源）</div>"
    assert find_authors(page(body=writer, lang="zh")) == ["刘涛"]
    assert find_authors(page(body=editor, lang="zh")) == ["刘林源"]


def test_chinese_reporter_phrase_in_running_text_is_not_a_byline():
    body = "<p>记者调查</p><p>苹果公司9日对记者表示，这是一个很长的句子。</p>" + ZH_PARA
    assert find_author(page(body=body, lang="zh")) is None


def test_russian_author_label():
    body = "<div>Автор: Андрей Колесников</div><p>" + "Текст статьи достаточно длинный. " * 8 + "</p>"
    assert find_authors(page(body=body, lang="ru")) == ["Андрей Колесников"]


def test_by_line_in_text():
    assert find_authors(page(body="<div>By Jane Doe and John Roe</div>" + PARA)) == ["Jane Doe", "John Roe"]


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
    found = find_authors(page(head, body))
    assert isinstance(found, list) and all(isinstance(name, str) for name in found)
    assert find_author(page(head, body)) == (", ".join(found) or None)


@pytest.mark.parametrize("head, body, names", [
    ('<meta name="author" content="Sarah E. Needleman">', PARA, ["Sarah E. Needleman"]),
    ("", '<p class="byline">By Tom Becker · November 20</p>' + PARA, ["Tom Becker"]),
    ("", "<div>By Tom Becker · November 20, 2026</div>" + PARA, ["Tom Becker"]),
    ("", '<div class="byline">By <span>Helen Marsh</span>, Herald staff</div>' + PARA, ["Helen Marsh"]),
    ("", "<div>By Helen Marsh, Herald staff</div>" + PARA, ["Helen Marsh"]),
    ("", "<div>By Ludwig van Beethoven and Martin Luther King Jr.</div>" + PARA,
     ["Ludwig van Beethoven", "Martin Luther King Jr."]),
    (ld({"@type": "NewsArticle", "author": "Martin Luther King, Jr."}), PARA, ["Martin Luther King Jr."]),
    ('<meta name="author" content="Jane Doe, Reuters">', PARA, ["Jane Doe", "Reuters"]),
    ('<meta name="author" content="Reuters">', PARA, ["Reuters"]),
    ('<meta name="author" content="Jane Doe, Staff Writer">', PARA, ["Jane Doe"]),
    ('<meta name="author" content="Sarah E. Needleman and John Roe">', PARA, ["Sarah E. Needleman", "John Roe"]),
])
def test_one_person_per_name_with_initials_particles_and_suffixes(head, body, names):
    assert find_authors(page(head, body)) == names


def test_russian_affiliation_dropped():
    body = "<div>Автор: Ирина Соколова, специальный корреспондент</div><p>" + "Текст статьи. " * 20 + "</p>"
    assert find_authors(page(body=body, lang="ru")) == ["Ирина Соколова"]
    assert clean_name("Ирина Соколова, специальный корреспондент") == ["Ирина Соколова"]


def test_chinese_agency_reporter_line():
    body = f"<div>新华社记者 张晓岚</div>{ZH_PARA}"
    assert find_authors(page(body=body, lang="zh", url="http://news.example.cn/a.html")) == ["张晓岚"]


def test_compatibility_property_joins_the_list():
    head = '<meta name="author" content="Sarah E. Needleman and John Roe">'
    assert find_author(page(head)) == "Sarah E. Needleman, John Roe"
    assert find_author(page()) is None


def test_a_personal_site_names_its_owner_but_an_outlet_names_nobody():
    blog = '<meta property="og:site_name" content="Helge Fahrnberger"><meta name="author" content="Helge Fahrnberger">'
    outlet = '<meta property="og:site_name" content="Miami Today"><meta name="author" content="Miami Today">'
    brand = '<meta property="og:site_name" content="Eurosport"><meta name="author" content="Eurosport">'
    article = '<meta property="og:site_name" content="Les Echos"><meta name="author" content="Les Echos">'
    assert find_authors(page(blog)) == ["Helge Fahrnberger"]
    assert find_authors(page(outlet)) == [] and find_authors(page(brand)) == [] and find_authors(page(article)) == []
    handle = '<div class="byline">Posted by Creeny</div>' + PARA  # the blog's own subdomain
    assert find_authors(page(body=handle, lang="de", url="https://creeny.blogs.example/2020/a")) == ["Creeny"]
    assert clean_name("Grant Tinsley, PhD") == ["Grant Tinsley"]


def test_dublin_core_last_first_and_korean_reporter_title():
    assert find_authors(page('<meta name="dc.creator" content="Brazil, Rachel">')) == ["Rachel Brazil"]
    assert clean_name("신현주 기자") == ["신현주"]
    assert find_authors(page('<meta name="dc.creator" content="Jane Doe, John Roe">')) == ["Jane Doe", "John Roe"]


def test_link_to_an_author_page_names_the_person():
    body = ('<p class="meta-info"><a href="/autoren/name/max-kolter">Dr. Max Kolter</a></p>'
            '<nav><a href="/authors/">Our Authors</a></nav>' + PARA)
    assert find_authors(page(body=body, lang="de")) == ["Dr. Max Kolter"]
    assert find_authors(page(body='<a href="/authors/all">All authors here</a>' + PARA)) == []
    assert find_authors(page(body='<nav><a href="/authors/">Our Authors</a></nav>' + PARA)) == []


@pytest.mark.parametrize("raw, names", [
    ("Zeige alle Beiträge von Cem Basman", ["Cem Basman"]),
    ("View all posts by Daniel Lemire", ["Daniel Lemire"]),
    ("Erstellt von Andri Bryner", ["Andri Bryner"]),
    ("Veröffentlicht von Creeny", ["Creeny"]),
    ("Williams Perdomo @wperdomod", ["Williams Perdomo"]),
    ("Tomas Spahn Fr, 12.03.2021", ["Tomas Spahn"]),
    ("edilson.la.rosa", []),
    ("gabor_munier", []),
    ("Herr_Rein", ["Herr_Rein"]),
    ("Afficher mon profil complet", []),
])
def test_byline_labels_handles_and_logins(raw, names):
    assert clean_name(raw) == names


def test_yoast_written_by_meta():
    head = ('<meta name="twitter:label1" content="Written by">'
            '<meta name="twitter:data1" content="Williams Perdomo @wperdomod">'
            '<meta name="twitter:label2" content="Est. reading time"><meta name="twitter:data2" content="3 minutes">')
    assert find_authors(page(head)) == ["Williams Perdomo"]


def test_one_byline_split_over_author_elements_but_not_teasers():
    byline = ('<p class="byline">By <span itemprop="author creator"><span itemprop="name">KEVIN SACK</span></span>'
              ' and <span itemprop="author"><span itemprop="name">SHERI FINK</span></span></p>')
    teaser = '<div class="teaser"><span itemprop="author">Other Writer</span></div>'
    head = '<meta name="author" content="KEVIN SACK">'
    assert find_authors(page(head, byline + PARA + teaser)) == ["KEVIN SACK", "SHERI FINK"]


def test_a_brand_label_before_the_byline_element():
    body = ('<div class="authors"><span class="authors__brand">capital</span>'
            '<span class="authors__item">von Jemima Kelly</span></div>' + PARA)
    assert find_authors(page(body=body, lang="de", url="https://www.example.de/capital/story-1.html")) == [
        "Jemima Kelly"]


def test_bold_name_paragraph_opening_the_text_when_the_excerpt_starts_with_it():
    long_par = "<p>" + "In the heart of the valley the story begins and goes on. " * 4 + "</p>"
    head = '<meta name="description" content="Mohloai Mpesi In the heart of the valley">'
    body = "<div><p><strong>Mohloai Mpesi</strong></p>" + long_par + "</div>"
    assert find_authors(page(head, body)) == ["Mohloai Mpesi"]
    assert find_authors(page("", body)) == []  # no excerpt: a bold opening line may be a heading
    signed = "<div>" + long_par + '<p style="text-align:right;"><strong>Lê Phương</strong></p></div>'
    assert find_authors(page(body=signed)) == ["Lê Phương"]
    heading = "<div>" + long_par + "<p><strong>Featured Video</strong></p></div>"
    assert find_authors(page(body=heading)) == []


@pytest.mark.parametrize("raw, names", [
    ("FOCUS-Online-Experte Robin Tschöpe", ["Robin Tschöpe"]),
    ("Staff Writer Jane Doe", ["Jane Doe"]),
    ("gloria-ruiz-kuilan", []),
    ("null", []),
])
def test_leading_affiliation_and_placeholders(raw, names):
    assert clean_name(raw) == names


@pytest.mark.parametrize("raw, names", [
    ("vom Krimiblogger", ["Krimiblogger"]),
    ("Interview: Julia Lauter", ["Julia Lauter"]),
    ("Artikel von: hausinfo", ["hausinfo"]),
    ("Jens Bergmann Foto: Michael Hudler", ["Jens Bergmann"]),
    ("Isabella.DiBiase am Samstag", ["Isabella.DiBiase"]),
    ("Johanna Kropfitsch Alle Artikel", ["Johanna Kropfitsch"]),
    ("Publiziert am", []),
    ("Redacci&oacute;n Sur", ["Redacción Sur"]),
    ("Hanns-Seidel-Stiftung e. V.", ["Hanns-Seidel-Stiftung"]),
])
def test_trailing_labels_entities_and_lone_initials(raw, names):
    assert clean_name(raw) == names


def test_a_trailing_site_name_word_is_cut():
    head = '<meta property="og:site_name" content="PhillyVoice"><meta name="author" content="Adam Aaronson PhillyVoice">'
    assert find_authors(page(head)) == ["Adam Aaronson"]


def test_parenthesised_credit_is_a_chinese_convention():
    ja = "<p>" + "これは日本語の記事の本文です。" * 20 + "</p><div>日経平均について（銘柄一覧）</div>"
    assert find_authors(page(body=ja, lang="ja", url="https://news.example.jp/a")) == []
    zh = f"<div>{ZH_PARA}（常书香 马丹阳）</div>"
    assert find_authors(page(body=zh, lang="zh", url="http://news.example.cn/a.html")) == ["常书香", "马丹阳"]


def test_author_label_line_and_name_bar_date_line():
    body = "<div>Autorin/Autor Roman Goncharenko</div>" + PARA
    assert find_authors(page(body=body, lang="de")) == ["Roman Goncharenko"]
    body = "<div><span>Sehernur Karsu |</span><div>05.04.2025 - Güncelleme : 05.04.2025</div></div>" + PARA
    assert find_authors(page(body=body, lang="tr")) == ["Sehernur Karsu"]
    body = "<div><span>Politik |</span><div>05.04.2025</div></div>" + PARA
    assert find_authors(page(body=body, lang="de")) == []


@pytest.mark.parametrize("head, body, names", [
    # picture credits: a photo agency, the photographer's desk, an author element in a caption
    ('<meta name="author" content="Getty Images">', PARA, []),
    ('<meta name="author" content="AFP Photo">', PARA, []),
    ('<meta name="author" content="Jane Doe/AFP via Getty Images">', PARA, ["Jane Doe"]),
    ("", '<div class="byline">By Jane Doe</div><figure><img src="/p.jpg"><figcaption>The harbour at dawn. '
         '<span class="author">REUTERS</span></figcaption></figure>' + PARA, ["Jane Doe"]),
    ("", '<figure><img src="/p.jpg"><figcaption>The harbour. <span class="author">Reuters</span></figcaption>'
         "</figure>" + PARA, []),
    # editors are not the writers (Chinese portals' 责任编辑 line is the last resort, below)
    ("", '<div class="author">Editor: Mark Stone</div>' + PARA, []),
    ('<meta name="author" content="Редактор Иван Петров">', PARA, []),
    ('<meta name="author" content="Edited by Mark Stone">', PARA, []),
    # a company, with or without its legal form
    ('<meta name="author" content="Acme Media Ltd">', PARA, []),
    (ld({"@type": "NewsArticle", "author": {"@type": "Organization", "name": "Acme Media Group"}}), PARA, []),
    ('<meta name="author" content="Copyright Acme GmbH &amp; Co. KG">', PARA, []),
    # an agency the byline credits stays, as the datasets' truth has it ("dpa", "AFP", "Associated Press")
    ("", '<p class="byline">By Reuters</p>' + PARA, ["Reuters"]),
    ('<meta name="author" content="Jane Doe, AFP">', PARA, ["Jane Doe", "AFP"]),
    ('<meta name="author" content="Xinhua">', PARA, ["Xinhua"]),
    # a Chinese portal's 责任编辑 line: the last resort (the zh-news truth takes it), never before the writer
    ("", ZH_PARA + "<p>责任编辑：王小明</p>", ["王小明"]),
    ("", "<p>记者 李四</p>" + ZH_PARA + "<p>责任编辑：王小明</p>", ["李四"]),
])
def test_photo_agencies_editors_and_companies_are_not_authors(head, body, names):
    lang = "zh" if body.startswith(("<p>记者", ZH_PARA)) else "en"
    assert find_authors(page(head, body, lang=lang)) == names
