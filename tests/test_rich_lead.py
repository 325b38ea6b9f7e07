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


SHARE = '<ul class="share">' + "".join(f'<li><a href="/share/{i}">Share on network {i}</a></li>' for i in range(12)) \
    + "</ul>"


def _under_headline(element: str, story: str = REST, description: str | None = None) -> str:
    """``element`` set between the headline and the byline, a share bar between them and the
    story's block (the body method takes the story alone)."""
    html = _page(f"{story}", description).replace('<div class="story">', f'{SHARE}<div class="story">', 1)
    return html.replace("</h1>", f"</h1>{element}", 1)


def test_the_paragraph_under_the_headline_is_the_lead_whatever_its_class_name():
    """Position is the evidence: a generated class (css-1485smx) or none at all, no description."""
    for element in (f'<p class="css-1485smx">{STANDFIRST}</p>', f"<div><p>{STANDFIRST}</p></div>"):
        article = extract(_under_headline(element), url=URL)
        assert article.text.split("\n") == ARTICLE_PARAGRAPHS
        assert article.lead == STANDFIRST
    dek = "The council will spend more on schools and buses next year, and less on its offices."
    assert extract(_under_headline(f"<h3>{dek}</h3>"), url=URL).lead == dek  # a dek written as a heading


def test_a_caption_a_byline_or_a_second_headline_under_the_headline_is_no_lead():
    caption = "The council chamber on Tuesday evening, when the members voted on the budget."
    for element in (f'<figure><img src="/a.jpg"><figcaption>{caption}</figcaption></figure>',
                    f'<div class="image-caption"><p>{caption}</p></div>', "<p>By Jane Doe and John Roe, city desk</p>",
                    f'<p class="article-byline">{caption}</p>',
                    "<h2>Council approves a budget for schools and buses in the city</h2>"):
        assert extract(_under_headline(element), url=URL).lead is None, element


def test_a_header_dek_the_description_restates_better_than_the_opening_is_the_lead():
    """The description restates both; the opening is written like the paragraph after it."""
    opening = STANDFIRST.replace("will spend more", "is to spend a lot more").replace("its own", "the")
    story = f"<p>{opening}</p>{REST}"
    html = _under_headline(f"<h3>{STANDFIRST}</h3>", story, description=STANDFIRST)
    assert extract(html, url=URL).lead == STANDFIRST
    plain = _page(story, description=STANDFIRST)  # no dek: the restated opening is still no lead
    assert extract(plain, url=URL).lead is None


def test_an_opening_paragraph_in_a_style_of_its_own_is_the_lead_a_numbered_one_is_not():
    styled = f'<p class="font-sans font-medium">{STANDFIRST}</p>{REST}'
    assert extract(_page(styled), url=URL).lead == STANDFIRST
    numbered = f'<p class="par1">{STANDFIRST}</p>' + "".join(
        f'<p class="par{i + 2}">{p}</p>' for i, p in enumerate(ARTICLE_PARAGRAPHS))
    assert extract(_page(numbered, description=STANDFIRST), url=URL).lead is None


def test_a_key_points_box_is_no_lead():
    """A bold title over a list opening the story is a box (key points), not a dek."""
    points = "".join(f"<li>{p}</li>" for p in ("Schools get twelve million more than last year.",
                                               "Bus lines run every ten minutes from May."))
    story = f"<p><b>The most important points of this story at a glance</b></p><ul>{points}</ul>{REST}"
    assert extract(_page(story), url=URL).lead is None


def test_the_standfirst_after_a_headline_the_story_block_holds():
    """The block opens with the article header: kicker and headline, byline, then the standfirst."""
    story = (f"<h2>City hall - Council approves budget</h2><p>By Jane Doe</p>"
             f'<p class="c1bdz7f4">{STANDFIRST}</p>{REST}')
    assert extract(_page(story), url=URL).lead == STANDFIRST
