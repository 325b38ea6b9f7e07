"""Information decay (Chen et al. 2012): FindMT and CleanTree."""

from newscrawl.extract import Page, extract
from newscrawl.extract.methods.decay import clean_tree, find_mt
from tests.pages import ARTICLE_PARAGRAPHS, english_article


def test_find_mt_returns_the_node_before_the_decay():
    page = Page.from_html(english_article())
    assert find_mt(page.body, page.lengths, 0.34).get("class") == "story"


def test_a_threshold_above_every_decay_descends_to_the_largest_paragraph():
    page = Page.from_html(english_article())
    mt = find_mt(page.body, page.lengths, 0.99)
    assert mt.tag == "p" and mt.text == max(ARTICLE_PARAGRAPHS, key=len)


def test_clean_tree_removes_link_nodes_but_keeps_links_inside_sentences():
    page = Page.from_html(
        "<html><body><div id=t><p>The report, published by <a href=/r>the agency</a>, was long.</p>"
        "<ul id=links><li><a href=/1>One</a></li><li><a href=/2>Two</a></li></ul></div></body></html>"
    )
    topic = page.body.find("div")
    removed = clean_tree(topic, page.lengths, 0.65)
    assert [el.get("id") for el in removed] == ["links"]
    assert extract(page.text, method="decay").text == "The report, published by the agency, was long."


def test_body_split_across_sibling_blocks_is_kept_whole():
    split = english_article(extra_body='<div class="ad"><a href="/ad">Buy now</a></div>', after_body="")
    html = split.replace("<p>Opponents", '</div><div class="story-2"><p>Opponents')
    article = extract(html, method="decay")
    assert ARTICLE_PARAGRAPHS[0] in article.text and ARTICLE_PARAGRAPHS[-1] in article.text
    assert "Buy now" not in article.text


def test_nested_lists_inside_the_body_survive():
    nested = "<ul><li>First point is that the road was closed</li><li>Second point<ul><li>with a sub point that it was reopened</li></ul></li></ul>"
    article = extract(english_article(extra_body=nested), method="decay")
    assert "with a sub point that it was reopened" in article.text
