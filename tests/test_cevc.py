"""CEVC (Wang et al. 2020): valid characters, countVC, locateCB."""

from newscrawl.extract import Page, extract
from newscrawl.extract.methods.cevc import count_vc, locate_cb
from tests.pages import ARTICLE_PARAGRAPHS, ZH_PARAGRAPHS, chinese_article, english_article


def test_valid_characters_exclude_link_text_and_text_without_stop_words():
    page = Page.from_html(
        "<html><body><div id=a><a href=/x>the link text is not valid</a></div>"
        "<div id=b>Quarterly Report</div><div id=c>this is a sentence</div></body></html>"
    )
    amount, own, _, _ = count_vc(page, "en")
    by_id = {el.get("id"): amount[el] for el in page.body}
    assert by_id == {"a": 0, "b": 0, "c": len("thisisasentence")}
    assert amount[page.body] == by_id["c"]


def test_locate_cb_stops_where_no_child_dominates():
    page = Page.from_html(english_article())
    amount, own, _, _ = count_vc(page, "en")
    block = locate_cb(page.body, amount, own, alpha=0.5)
    assert block.get("class") == "story"


def test_alpha_sets_how_deep_locate_cb_descends():
    page = Page.from_html(english_article())
    amount, own, _, _ = count_vc(page, "en")
    assert locate_cb(page.body, amount, own, alpha=0.05).tag == "p"  # always follows the richest child
    assert locate_cb(page.body, amount, own, alpha=0.99).tag == "body"  # no child holds 99%


def test_cevc_extracts_the_article_and_not_the_link_farms():
    article = extract(english_article(), "https://example.com/a.html", method="cevc")
    assert article.method == "cevc"
    assert article.text.split("\n") == ARTICLE_PARAGRAPHS
    assert "Related headline" not in article.text and "Section 3" not in article.text


def test_cevc_on_chinese_without_spaces_uses_substring_stop_words():
    article = extract(chinese_article(), method="cevc")
    assert article.text.split("\n") == [p.replace("\u3000", " ") for p in ZH_PARAGRAPHS]


def test_one_paragraph_article():
    one = ["Only one paragraph reports that the bridge will reopen on Monday after the repairs are done."]
    article = extract(english_article(paragraphs=one), method="cevc")
    assert article.text == one[0]
