"""auto: rules added after measuring its losses on the datasets (captions, consent dialogs, ...)."""

from lxml import html as lxml_html

from newscrawl.extract import extract
from newscrawl.extract.hints import element_weight
from tests.pages import ARTICLE_PARAGRAPHS, english_article

CAPTION = "The mayor speaks to reporters outside the city hall after the vote on Tuesday. Photo: John Smith"


def test_a_caption_named_after_the_article_is_still_a_caption():
    figure = (
        '<figure class="article__media"><img src="a.jpg">'
        f'<figcaption class="article__media-caption">{CAPTION}</figcaption></figure>'
    )
    text = extract(english_article(extra_body=figure), method="auto").text
    assert text.split("\n") == ARTICLE_PARAGRAPHS


def test_a_negative_tag_with_only_a_positive_name_keeps_its_text():
    header = lxml_html.fragment_fromstring('<header class="article-header">x</header>')
    caption = lxml_html.fragment_fromstring('<figcaption class="article-caption">x</figcaption>')
    assert element_weight(header) > 0
    assert element_weight(caption) == 0


def test_a_consent_dialog_longer_than_the_article_is_not_taken_for_it():
    policy = "".join(
        f"<p>You have the right to direct a business that sells your personal information to stop it, "
        f"and you can do this at any time from the settings page of the site number {i}.</p>"
        for i in range(8)
    )
    dialog = f'<div id="consent-sdk"><div class="policy-text">{policy}</div></div>'
    html = english_article().replace("</body>", dialog + "</body>")
    assert extract(html, method="auto").text.split("\n") == ARTICLE_PARAGRAPHS
