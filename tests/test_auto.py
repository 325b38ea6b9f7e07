"""auto: the combined default method."""

from newscrawl.extract import extract
from tests.pages import ARTICLE_PARAGRAPHS, TEASERS, english_article

COMMENTS = "".join(
    f'<div class="comment"><span class="user">reader{i}</span><p>I think that this is a long comment number {i} '
    "about the budget and the council and what they should have done instead of this.</p></div>"
    for i in range(12)
)


def test_a_longer_comment_thread_is_not_taken_for_the_article():
    html = english_article(after_body=f'<section id="comments">{COMMENTS}</section>')
    article = extract(html, method="auto")
    assert article.text.split("\n") == ARTICLE_PARAGRAPHS
    assert article.method == "auto"


def test_sidebar_teasers_with_summaries_are_not_body():
    article = extract(english_article(related=TEASERS), method="auto")
    assert article.text.split("\n") == ARTICLE_PARAGRAPHS
    assert (
        extract(english_article(related=TEASERS), method="cevc").text != article.text
    )  # the paper's weak spot


def test_title_heading_and_byline_are_not_body():
    html = english_article().replace(
        '<div class="story">',
        '<div class="story"><h1>Council approves budget</h1><p>By Jane Doe</p><p>November 20, 2026 10:30</p>',
    )
    text = extract(html, method="auto").text
    assert text.split("\n") == ARTICLE_PARAGRAPHS


def test_teaser_list_inside_the_article_container_is_dropped():
    teasers = "".join(
        f'<div class="card"><a href="/n/{i}">Another story headline {i}</a><p>This is a summary of the story.</p></div>'
        for i in range(5)
    )
    text = extract(english_article(extra_body=teasers), method="auto").text
    assert text.split("\n") == ARTICLE_PARAGRAPHS


def test_list_items_that_open_with_a_linked_name_are_body():
    items = "".join(
        f'<li><a href="/players/{i}">Player {i}</a> and his team were the best on the field this week.</li>'
        for i in range(4)
    )
    text = extract(english_article(extra_body=f"<ul>{items}</ul>"), method="auto").text
    assert "Player 2 and his team were the best on the field this week." in text.split("\n")


def test_hidden_share_widget_is_dropped_but_a_hidden_paywalled_body_is_kept():
    hidden = '<div style="display:none">This hidden text is about the tools that the site uses.</div>'
    assert "hidden text" not in extract(english_article(extra_body=hidden), method="auto").text
    paywalled = english_article().replace(
        '<div class="story">', '<div class="story paywall" style="display: none">'
    )
    assert extract(paywalled, method="auto").text.split("\n") == ARTICLE_PARAGRAPHS


def test_editorial_links_are_absolute_and_only_from_the_body():
    body = ARTICLE_PARAGRAPHS[:2] + ['The full <a href="/docs/budget.pdf">budget document</a> was published.']
    article = extract(english_article(paragraphs=body), "https://example.com/news/a.html", method="auto")
    assert [(link.text, link.url) for link in article.links] == [
        ("budget document", "https://example.com/docs/budget.pdf")
    ]


def test_json_ld_article_body_stands_in_for_a_script_rendered_page():
    body = " ".join(ARTICLE_PARAGRAPHS)
    html = (
        '<html><head><title>Budget</title><script type="application/ld+json">'
        f'{{"@type": "NewsArticle", "headline": "Budget", "articleBody": "{body}"}}</script></head>'
        '<body><div id="root">Loading...</div></body></html>'
    )
    assert extract(html, method="auto").text == body
