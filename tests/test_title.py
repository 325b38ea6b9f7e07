"""Title by LCS similarity (He 2019) and the auto title."""

import pytest

from newscrawl.extract import Page, extract
from newscrawl.extract.fields.title import find_title, similarity, strip_site_name


def test_similarity_is_twice_the_lcs_over_the_summed_lengths():
    assert similarity("abcd", "abcd") == 1.0
    assert similarity("abcd", "xbxd") == pytest.approx(2 * 2 / 8)
    assert similarity("", "") == 0.0


PAGE = """<html><head><title>{title}</title></head><body>
<h2>Most popular</h2><h1>{h1}</h1><h3>Related stories about other things</h3><p>text</p></body></html>"""


def test_heading_most_similar_to_the_title_tag_wins():
    page = Page.from_html(
        PAGE.format(title="Storm closes harbour bridge - City News", h1="Storm closes harbour bridge")
    )
    assert find_title(page) == "Storm closes harbour bridge"


def test_listing_title_is_a_candidate_and_the_reference_when_title_is_empty():
    page = Page.from_html(PAGE.format(title="", h1="Storm closes bridge"))
    assert (
        find_title(page, "Storm closes harbour bridge for a week") == "Storm closes harbour bridge for a week"
    )
    page = Page.from_html(
        PAGE.format(title="Storm closes harbour bridge - City News", h1="Storm: bridge shut")
    )
    assert find_title(page, "Storm closes harbour bridge") == "Storm closes harbour bridge"


def test_chinese_title_with_section_and_site_suffix():
    page = Page.from_html(PAGE.format(title="全市新建公园十二座_新闻中心_示例网", h1="全市新建公园十二座"))
    assert find_title(page) == "全市新建公园十二座"


def test_auto_title_drops_kicker_and_site_name_by_agreement():
    html = """<html><head><title>Politik: Neue Brücke eröffnet | Beispiel Zeitung</title>
    <meta property="og:title" content="Neue Brücke eröffnet | Beispiel Zeitung">
    <meta property="og:site_name" content="Beispiel Zeitung"></head>
    <body><h1><span>Politik</span>: Neue Brücke eröffnet</h1><p>Der Text.</p></body></html>"""
    assert extract(html, method="auto").title == "Neue Brücke eröffnet"


def test_strip_site_name_keeps_dashes_that_belong_to_the_headline():
    names = {"example times"}
    assert strip_site_name("Rain - and more rain | Example Times", names) == "Rain - and more rain"
    assert strip_site_name("Rain - and more rain", names) == "Rain - and more rain"
