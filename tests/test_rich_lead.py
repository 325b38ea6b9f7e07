"""The rich record's ``lead`` (newscrawl.extract.fields.lead): the standfirst where the page sets
one apart, by markup, not every article's first paragraph."""

from newscrawl.extract import extract
from tests.pages import ARTICLE_PARAGRAPHS, english_article

URL = "https://example.com/news/1"
REST = "".join(f"<p>{p}</p>" for p in ARTICLE_PARAGRAPHS)
STANDFIRST = "The city will spend more on schools and buses next year, and less on its own offices downtown."


def _page(story: str, description: str | None = None) -> str:
    html = english_article(paragraphs=[]).replace('<div class="story"></div>', f'<div class="story">{story}</div>')
    if description:
        html = html.replace("</head>", f'<meta name="description" content="{description}"></head>')
    return html


def test_a_first_paragraph_written_like_the_others_is_no_lead_though_the_description_restates_it():
    """CMSs fill the description from the article's first paragraph: that makes it no standfirst."""
    article = extract(_page(REST, description=ARTICLE_PARAGRAPHS[0][:90] + "..."), url=URL)
    assert article.text.split("\n")[0] == ARTICLE_PARAGRAPHS[0]
    assert article.lead is None


def test_a_first_paragraph_set_apart_and_restated_by_the_description_is_the_lead():
    story = f'<p class="c-x1">{STANDFIRST}</p>{REST}'
    article = extract(_page(story, description=STANDFIRST), url=URL)
    assert article.lead == STANDFIRST


def test_lead_markup_in_camel_case_and_a_summary_list_are_leads():
    camel = f'<div class="Article_elementLead__N3pG"><p>{STANDFIRST}</p></div>{REST}'
    assert extract(_page(camel, description="Another text altogether."), url=URL).lead == STANDFIRST
    points = ["Schools get twelve million more than last year.", "Bus lines run every ten minutes from May.",
              "The council cuts its own office budget by a fifth."]
    listed = '<ul class="summary-list">' + "".join(f"<li>{p}</li>" for p in points) + "</ul>" + REST
    assert extract(_page(listed), url=URL).lead == "\n".join(points)


def test_a_bold_first_paragraph_and_a_sentence_long_heading_dek_are_leads():
    bold = f"<p><strong>{STANDFIRST}</strong></p>{REST}"
    assert extract(_page(bold), url=URL).lead == STANDFIRST
    dek = f"<h2>{STANDFIRST}</h2>{REST}"
    assert extract(_page(dek), url=URL).lead == STANDFIRST
    short_heading = f"<h2>The vote</h2>{REST}"  # a section title, not a dek
    assert extract(_page(short_heading), url=URL).lead is None


def test_a_summary_class_on_the_whole_story_makes_no_lead_of_its_first_paragraph():
    story = f'<div class="summary font-resizer">{REST}</div>'
    assert extract(_page(story), url=URL).lead is None


def test_a_standfirst_marked_in_the_article_header_outside_the_body_is_the_lead():
    header = f'<p class="detail__excerpt">{STANDFIRST}</p>'
    html = _page(REST).replace("<h1>", f"<header>{header}<h1>", 1).replace("</h1>", "</h1></header>", 1)
    article = extract(html, url=URL)
    assert STANDFIRST not in article.text or article.text.startswith(STANDFIRST)
    assert article.lead == STANDFIRST
    subtitle = _page(f'<p class="article-subtitle">{STANDFIRST}</p>{REST}')
    assert extract(subtitle, url=URL).lead == STANDFIRST


def test_several_marked_summaries_before_the_body_are_teasers_not_a_lead():
    teasers = "".join(f'<div class="teaser"><p class="summary">Another story number {i} that the site wants '
                      f"read, with its own summary.</p></div>" for i in range(3))
    html = _page(REST).replace("<header>", f"<header><div class='rail'>{teasers}</div>", 1)
    article = extract(html, url=URL)
    assert article.text.split("\n") == ARTICLE_PARAGRAPHS
    assert article.lead is None
