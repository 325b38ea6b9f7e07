"""auto: rules added after measuring its losses on the datasets (captions, consent dialogs, ...)."""

from lxml import html as lxml_html

from newscrawl.extract import extract
from newscrawl.extract.hints import cut_trailing_sections, element_weight, is_furniture_line, strip_furniture
from tests.pages import ARTICLE_PARAGRAPHS, ZH_PARAGRAPHS, chinese_article, english_article

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


def test_a_dateline_of_two_timestamps_is_furniture():
    assert is_furniture_line("Updated Nov 19, 2019, 6:55 AM; Posted Nov 19, 2019, 6:51 AM")
    assert is_furniture_line("Published Nov 18, 2019 at 4:07 PM | Updated at 5:36 PM CST on Nov 18, 2019")
    # A sentence that happens to hold a date is not.
    assert not is_furniture_line("The council will meet again on Nov 19, 2019 to vote on the library plans.")


def test_calls_to_action_at_the_edges_are_dropped_but_not_inside_the_body():
    body = [
        "Receive the latest local updates in your inbox",
        *ARTICLE_PARAGRAPHS[:2],
        "You may also like this story about the city hall",
        *ARTICLE_PARAGRAPHS[2:],
        "Get the latest updates right in your inbox. Sign up for our newsletters.",
    ]
    text = extract(english_article(paragraphs=body), method="auto").text
    assert text.split("\n") == body[1:-1]


def test_a_long_legal_notice_closes_the_body_only_at_its_end():
    notice = (
        "This copy is for your personal, non-commercial use only. To order presentation-ready copies for "
        "distribution to your colleagues, clients or customers, visit our reprints page."
    )
    opening = (
        "Not everyone subscribes to a resolution, but the council will follow its new budget in the new year."
    )
    body = [opening, *ARTICLE_PARAGRAPHS, notice, "© 2026 Example Times"]
    text = extract(english_article(paragraphs=body), method="auto").text
    assert text.split("\n") == [opening, *ARTICLE_PARAGRAPHS]
    assert strip_furniture([notice, *ARTICLE_PARAGRAPHS]) == [notice, *ARTICLE_PARAGRAPHS]


def test_chinese_copyright_statements_after_the_body_are_dropped():
    body = [
        *ZH_PARAGRAPHS,
        "声明：该文观点仅代表作者本人，本平台系信息发布平台，仅提供信息存储空间服务。未经授权，禁止转载本文内容。",
    ]
    lines = extract(chinese_article(paragraphs=body), method="auto").text.split("\n")
    assert len(lines) == len(ZH_PARAGRAPHS) and lines[-1] == ZH_PARAGRAPHS[-1]


def test_list_items_opening_with_a_bold_link_and_going_on_are_body():
    items = "".join(
        f'<li><strong><a href="/n/{i}">Company {i} is investigating the layoffs.</a></strong> The company '
        f"confirmed that it had been contacted by the attorney general about the plan number {i}.</li>"
        for i in range(3)
    )
    text = extract(english_article(extra_body=f"<ol>{items}</ol>"), method="auto").text
    assert (
        "Company 2 is investigating the layoffs. The company confirmed that it had been contacted by the "
        "attorney general about the plan number 2." in text.split("\n")
    )


def test_a_body_shipped_only_in_script_data_is_read_from_it():
    paragraphs = "".join(
        f'\\u003cp class=\\"editor-p\\"\\u003e{p}\\u003c/p\\u003e' for p in ARTICLE_PARAGRAPHS
    )
    html = (
        '<html><head><title>Budget</title></head><body><div id="app"></div>'
        f'<script>self.__next_f.push([1,"{paragraphs}"])</script></body></html>'
    )
    assert extract(html, method="auto").text.split("\n") == ARTICLE_PARAGRAPHS


def test_script_data_does_not_replace_a_short_rendered_body_it_does_not_hold():
    others = "".join(f"<p>Another story number {i} that the page lists in its data.</p>" for i in range(12))
    html = (
        '<html><head><title>Photos</title></head><body><div class="story"><p>1/10 The steppe in winter, '
        f'seen from the road.</p></div><script>var data = "{others}";</script></body></html>'
    )
    assert extract(html, method="auto").text == "1/10 The steppe in winter, seen from the road."


def test_the_body_ends_at_a_comment_section_heading_that_has_no_comment_markup():
    comments = [
        "热门评论",
        "我穿了十年气垫鞋了，没想过要跳得高，主要是为了减轻着地对脚的震荡，不知道这些研究人员穿了多长时间。",
        "更多评论 共 4 条评论",
    ]
    lines = extract(chinese_article(paragraphs=[*ZH_PARAGRAPHS, *comments]), method="auto").text.split("\n")
    assert len(lines) == len(ZH_PARAGRAPHS) and lines[-1] == ZH_PARAGRAPHS[-1]
    # Before any body text the same words are not a cut point.
    assert cut_trailing_sections(["Comments", *ARTICLE_PARAGRAPHS]) == ["Comments", *ARTICLE_PARAGRAPHS]


def test_the_body_ends_at_a_newsletter_platforms_discussion_heading():
    # A newsletter platform's post page: the discussion section under the post, then its
    # "No posts" placeholder; a scientific paper's "Discussion" section is its own.
    for heading, after in (("Discussion about this post", ["No posts"]),
                           ("Join the Conversation", ["Rene", "I use this box every month and love it.", "Reply"])):
        assert cut_trailing_sections([*ARTICLE_PARAGRAPHS, heading, *after]) == ARTICLE_PARAGRAPHS
    assert cut_trailing_sections([*ARTICLE_PARAGRAPHS, "Discussion", "The findings"])[-2:] == ["Discussion",
                                                                                                "The findings"]


def test_a_table_of_contents_label_is_no_body_line_wherever_it_stands():
    # The contents box of a long guide: its in-page links are pruned with the other link lists,
    # and its label must not stay behind as a heading over the next section.
    toc = ('<div class="ez-toc-container"><p class="ez-toc-title">Table of Contents</p><ul>'
           + "".join(f'<li><a href="#s{i}">Part {i}</a></li>' for i in range(1, 5)) + "</ul></div>")
    paragraphs = [ARTICLE_PARAGRAPHS[0], toc, *ARTICLE_PARAGRAPHS[1:]]
    html = english_article(paragraphs=paragraphs)
    found = extract(html, method="auto")
    assert found.text.split("\n") == ARTICLE_PARAGRAPHS and "Contents" not in found.markdown


def test_counters_pagers_share_labels_and_dispatch_lines_are_furniture():
    for line in [
        "您是本文第 154 个阅览者",
        "(本文发表于首页, 已被阅读178次)",
        "第1页/共1页 << 上一页 | 下一页 >>",
        "分享到：",
        "本报记者罗科苏盈发自北京",
        "阅读 ()",
    ]:
        assert is_furniture_line(line), line
    # A heading that ends with the word 阅读 ("reading") is not a counter.
    assert not is_furniture_line("4、艺术美学与哲学经典阅读")


def test_ad_labels_and_picture_credits_are_dropped_inside_the_body_too():
    body = [*ARTICLE_PARAGRAPHS[:2], "Advertisement", "Foto: REUTERS/Jane Roe", "Jane Roe/Getty Images",
            "Photograph by Jane Roe", *ARTICLE_PARAGRAPHS[2:3], "© Thinkstock", *ARTICLE_PARAGRAPHS[3:]]
    text = extract(english_article(paragraphs=body), method="auto").text
    assert text.split("\n") == ARTICLE_PARAGRAPHS
    from newscrawl.extract.hints import is_stray_line
    assert not is_stray_line("The AP reported on Monday that the vote had been delayed by a week.")
    assert not is_stray_line("Photographs by the hundreds")


def test_toolbar_words_and_reading_times_are_edge_furniture():
    for line in ["Teilen", "E-Mail", "3 Min Lesezeit", "Lecture 4 min.", "5 min read"]:
        assert is_furniture_line(line), line
    assert not is_furniture_line("Minutes later the police arrived")


def test_of_two_stories_on_one_page_the_one_headed_by_the_title_is_the_body():
    next_story = [
        p.replace("council", "football club").replace("budget", "transfer") for p in ARTICLE_PARAGRAPHS
    ]
    next_story = next_story + [p + " The fans agreed." for p in next_story]
    html = (
        english_article()
        .replace(
            '<div class="story">',
            '<article class="entity"><h1>Council approves budget</h1><div class="story">',
        )
        .replace(
            "</div></div>\n<aside",
            '</div></article><div class="below"><article class="entity"><h1>Club signs a new coach</h1>'
            + "".join(f"<p>{p}</p>" for p in next_story)
            + "</article></div></div></div>\n<aside",
        )
    )
    assert "Club signs" in html
    assert extract(html, method="auto").text.split("\n") == ARTICLE_PARAGRAPHS


SIDEBAR_BLURBS = [
    f"This site is written by a photographer who has worked for the papers of the city for {n} years "
    "and who writes about the cameras and the lenses that she uses every day of the week."
    for n in range(10, 16)
]


def test_a_short_post_beside_a_wordier_sidebar_is_the_body():
    # The sidebar holds most of the page's text, yet the post's own markup names it the body.
    post = "".join(f"<p>{p}</p>" for p in ARTICLE_PARAGRAPHS[:3])
    sidebar = "".join(f"<p>{p}</p>" for p in SIDEBAR_BLURBS)
    html = f"""<html lang="en"><head><title>New lens in stock</title></head><body>
<div id="container"><div class="post"><h2>New lens in stock</h2><div class="entry-content">{post}</div></div>
<div id="sidebar"><div class="widget">{sidebar}</div></div></div></body></html>"""
    assert extract(html, method="auto").text.split("\n") == ARTICLE_PARAGRAPHS[:3]


def _news_feed(items: int, stamp: bool) -> str:
    """A feed of other stories: a linked headline (after a time stamp when ``stamp``) in a
    ``<dt>``, its summary in the ``<dd>`` after it."""
    return "<dl class='feed'>" + "".join(
        f"<dt>{f'<span>10:{i:02d}</span> ' if stamp else ''}<a href='/news/{i}'>Headline of story {i}</a></dt>"
        f"<dd>The summary of the other story number {i} says what happened in the city and why it matters "
        "to the people who live there.</dd>"
        for i in range(items)
    ) + "</dl>"


def test_headline_summaries_in_sibling_elements_are_teasers():
    # A feed of other stories beside the article, in the same column: the summaries together
    # outweigh the article, and each follows its linked headline.
    html = english_article(paragraphs=ARTICLE_PARAGRAPHS[:2], after_body=_news_feed(6, stamp=False))
    assert extract(html, method="auto").text.split("\n") == ARTICLE_PARAGRAPHS[:2]


def test_a_time_stamp_before_the_headline_link_still_makes_a_teaser():
    html = english_article(paragraphs=ARTICLE_PARAGRAPHS[:2], after_body=_news_feed(6, stamp=True))
    assert extract(html, method="auto").text.split("\n") == ARTICLE_PARAGRAPHS[:2]
    stamped = "".join(
        f'<div class="card"><span>10:{i:02d}</span> <a href="/n/{i}">Another story headline {i}</a>'
        "<p>This is a summary of the story.</p></div>"
        for i in range(5)
    )
    assert extract(english_article(extra_body=stamped), method="auto").text.split("\n") == ARTICLE_PARAGRAPHS


def test_a_list_of_linked_headings_with_descriptions_that_is_the_page_stays():
    # Headline-summary pairs that hold nearly all the text are the article ("ten tools" post).
    items = "".join(
        f"<dt><a href='/tool/{i}'>Tool {i}</a></dt><dd>The tool number {i} is the one that we use when the "
        "files are too large for the other tools, and it is free for everyone.</dd>"
        for i in range(8)
    )
    html = english_article(paragraphs=ARTICLE_PARAGRAPHS[:1], extra_body=f"<dl>{items}</dl>")
    assert "The tool number 7 is the one" in extract(html, method="auto").text


def test_a_promo_box_inside_the_marked_body_does_not_split_it():
    # A slideshow of captioned pictures, longer than the story, inside the story's own container:
    # the container stays the body, and the slideshow is pruned from it.
    slides = "".join(
        f"<p>Picture {i}: the bank that has been at the centre of the rate scandal since the summer, "
        "when it paid a fine to the regulators of the two countries.</p>"
        for i in range(6)
    )
    sidebar = "".join(f"<p>{p}</p>" for p in SIDEBAR_BLURBS)
    first, second = ("".join(f"<p>{p}</p>" for p in half) for half in (ARTICLE_PARAGRAPHS[:2], ARTICLE_PARAGRAPHS[2:]))
    html = f"""<html lang="en"><head><title>Council approves budget</title></head><body>
<div class="page"><h1>Council approves budget</h1><div class="article-body">{first}
<div class="promo_holder"><div class="slideshow">{slides}</div></div>{second}</div></div>
<aside class="sidebar">{sidebar}</aside></body></html>"""
    assert extract(html, method="auto").text.split("\n") == ARTICLE_PARAGRAPHS


def test_paragraphs_beside_a_longer_comment_thread_in_one_container_are_the_body():
    # The paragraphs sit directly in the container that also holds the comment thread.
    story = "".join(f"<p>{p}</p>" for p in ARTICLE_PARAGRAPHS)
    comments = "".join(
        f"<li><p>{n}. Reader {n} wrote: I have been to the city many times and I think that the "
        "council was right to approve the budget, because the roads are in a terrible state.</p></li>"
        for n in range(12)
    )
    html = f"""<html lang="en"><head><title>Council approves budget</title></head><body>
<div id="content"><h1>Council approves budget</h1>{story}<div id="comments"><ol>{comments}</ol></div></div>
</body></html>"""
    assert extract(html, method="auto").text.split("\n") == ARTICLE_PARAGRAPHS


def test_page_builder_widget_wrappers_are_not_sidebar_widgets():
    # A page builder wraps every block, the article's too, in "<builder>-widget-*" classes.
    body = "".join(f"<p>{p}</p>" for p in ARTICLE_PARAGRAPHS)
    wrapped = (
        '<div class="elementor-widget-wrap"><div class="elementor-element elementor-widget">'
        f'<div class="elementor-widget-container">{body}</div></div></div>'
    )
    html = english_article(paragraphs=[], extra_body=wrapped)
    assert extract(html, method="auto").text.split("\n") == ARTICLE_PARAGRAPHS
    assert element_weight(lxml_html.fragment_fromstring('<div class="widget widget_archive">x</div>')) == 0


def test_an_editors_widget_wrappers_saved_with_the_article_are_not_sidebar_widgets():
    # CKEditor saved its editing wrappers ("ck-widget") with the article: a grid of
    # plant portraits, each a picture, a name and a paragraph, after the introduction.
    cells = "".join(f'<div class="ck-widget ck-widget row" contenteditable="false"><div class="col-lg">'
                    f'<img src="/p{i}.jpg" alt=""><p>{p}</p></div></div>' for i, p in enumerate(ARTICLE_PARAGRAPHS[1:]))
    body = f'<p>{ARTICLE_PARAGRAPHS[0]}</p><div class="ck-widget bs_grid" contenteditable="false">{cells}</div>'
    html = english_article(paragraphs=[], extra_body=body)
    assert extract(html, method="auto").text.split("\n") == ARTICLE_PARAGRAPHS
    assert element_weight(lxml_html.fragment_fromstring('<div class="widget ck-widget">x</div>')) == 0


def test_a_results_table_in_the_marked_body_is_kept_with_it():
    # Names and numbers have no stop words: the table reads as noise, and the marked body
    # holding it would lose to its own introduction.
    rows = "".join(
        f"<tr><td>{i}.</td><td>Schmidt, Anna {1990 + i}</td><td>LG Nordstadt</td><td>12,{i}4</td></tr>"
        for i in range(1, 40)
    )
    intro = "The results of the regional championship for the under-16 teams, which was held in the rain."
    more = "Thanks to all the volunteers who helped with the timing and the results on the day."
    last = "The next meeting of the teams will be in the spring, when the season starts again at home."
    body = f'<div class="entry-content"><h3>{intro}</h3><table>{rows}</table><p>{more}</p><p>{last}</p></div>'
    text = extract(english_article(paragraphs=[], extra_body=body), method="auto").text
    assert intro in text and last in text and "Schmidt, Anna 2019" in text


def test_a_short_marked_post_beats_a_wordier_sidebar_blurb():
    post = "I am at the conference this week, and the talks have been good so far."
    blurb = (
        "<p>This blog is about the things that I have learned in the years that I have been working in "
        "the field, and about the people I have met on the way; the opinions here are my own and not "
        "those of my employer, who has not read them and is not to blame for any of them at all.</p>"
    )
    links = "".join(f'<li><a href="/archive/{i}">Archive for the month {i}</a></li>' for i in range(12))
    html = f"""<html lang="en"><head><title>Conference week</title></head><body><ul>{links}</ul>
<div id="main"><h1>Conference week</h1><div class="entry-content"><p>{post}</p></div></div>
<div id="col2"><div class="about">{blurb}</div></div></body></html>"""
    assert extract(html, method="auto").text == post


def test_a_photo_story_told_in_its_caption_keeps_the_caption():
    # The story's text is the one photo's caption inside the marked body: it is the article.
    caption = " ".join(ARTICLE_PARAGRAPHS)
    dek = "A short line about the vote."
    story = (
        f'<div class="story-body"><div class="dek">{dek}</div><div class="photo"><img src="a.jpg">'
        f'<div class="caption">{caption}</div></div></div>'
    )
    about = "".join(f"<p>{p}</p>" for p in ARTICLE_PARAGRAPHS[::-1]).replace("city", "town")
    after = f'<div class="footer-about">{about}</div>'
    text = extract(english_article(paragraphs=[], extra_body=story, after_body=after), method="auto").text
    assert caption in text and "town" not in text
    # Fifty captions are a gallery beside the article, not the article.
    gallery = "".join(f'<div class="caption">{ARTICLE_PARAGRAPHS[0]} Picture {i}.</div>' for i in range(50))
    html = english_article(extra_body=f'<div class="gallery">{gallery}</div>')
    html = html.replace('class="story"', 'class="story-body"')
    assert "Picture 7" not in extract(html, method="auto").text


def test_form_labels_are_not_body():
    # A sign-up form's labels and consent text read as prose; they are never the article.
    consent = (
        "I agree that the association may send me news about its work by e-mail, and I know that I can "
        "withdraw this consent at any time by writing to the office or by using the link in every mail."
    )
    fields = ("Your e-mail address (required)", "First name", consent, consent.replace("e-mail", "post"))
    labels = "".join(f"<label>{x}</label>" for x in fields)
    form = f'<div class="signup-box"><form>{labels}</form></div>'
    html = english_article(paragraphs=ARTICLE_PARAGRAPHS[:1], after_body=form)
    assert extract(html, method="auto").text.split("\n") == ARTICLE_PARAGRAPHS[:1]
    assert element_weight(lxml_html.fragment_fromstring("<label>x</label>")) == 0


def test_an_invitation_to_comment_does_not_end_the_body():
    post = ["A draft of my new paper is out, and I thought it might interest some of you.", "Comments welcome!",
            "The abstract: we asked people what they knew about the side effects of what they did."]
    assert cut_trailing_sections(post) == post
    assert cut_trailing_sections([*post, "3 Comments", "Great paper, thanks for sharing it with us."]) == post


def test_a_dialog_is_boilerplate_but_a_dialogue_is_not():
    assert element_weight(lxml_html.fragment_fromstring('<div class="b-dialog x-dialog-login">x</div>')) == 0
    assert element_weight(lxml_html.fragment_fromstring('<div role="dialog">x</div>')) == 0
    assert element_weight(lxml_html.fragment_fromstring('<div class="dialogue">x</div>')) > 0


def test_an_author_box_after_the_article_is_not_body():
    bio = (
        "<p>Jane Doe is a senior writer for the Example Times, covering the city council, the budget and "
        "what it means for the people who live in the northern district of the city.</p>"
    )
    box = f'<div class="author-box"><div class="author-box__content">{bio}</div></div>'
    html = english_article(extra_body=box)
    assert extract(html, method="auto").text.split("\n") == ARTICLE_PARAGRAPHS


def test_the_lead_in_the_article_header_opens_the_body():
    lead = "The council has approved a budget that funds road repairs and a new library in the north."
    header = f'<header class="intro-header"><h1>Council approves budget</h1><p class="a-lead">{lead}</p></header>'
    body = "".join(f"<p>{p}</p>" for p in ARTICLE_PARAGRAPHS)
    html = f"""<html lang="en"><head><title>Council approves budget</title></head><body>
<article>{header}<div class="article-text">{body}</div></article>
<aside class="sidebar"><p class="leading-snug">A sidebar line that is not the lead at all.</p></aside></body></html>"""
    for method in ("auto", "auto-rules"):  # on by default; the datasets disagree on leads
        assert extract(html, method=method).text.split("\n") == [lead, *ARTICLE_PARAGRAPHS]
        assert extract(html, method=method, params={"lead": False}).text.split("\n") == ARTICLE_PARAGRAPHS


def test_leads_named_in_other_ways_and_languages_open_the_body_too():
    lead = "The council has approved a budget that funds road repairs and a new library in the north."
    body = "".join(f"<p>{p}</p>" for p in ARTICLE_PARAGRAPHS)
    for name in ("texto-bajada", "introduction", "epigraph", "article--sub-headline", "entradilla"):
        html = f"""<html lang="en"><head><title>Council approves budget</title></head><body>
<article><header><h1>Council approves budget</h1><div class="{name}"><p>{lead}</p></div></header>
<div class="article-text">{body}</div></article></body></html>"""
        assert extract(html, method="auto").text.split("\n") == [lead, *ARTICLE_PARAGRAPHS], name


def test_a_lead_with_a_link_in_its_sentence_opens_the_body_but_a_linked_teaser_does_not():
    body = "".join(f"<p>{p}</p>" for p in ARTICLE_PARAGRAPHS)
    linked = ('The council has <a href="/budget">approved a budget</a> that funds road repairs and a new '
              "library in the north of the city.")
    teaser = '<a href="/other">Read how the council spent last year\'s budget on roads</a> in full.'
    for lead, opens in ((linked, True), (teaser, False)):
        html = f"""<html lang="en"><head><title>Council approves budget</title></head><body>
<article><header><h1>Council approves budget</h1><p class="lead">{lead}</p></header>
<div class="article-text">{body}</div></article></body></html>"""
        text = lxml_html.fragment_fromstring(f"<p>{lead}</p>").text_content()
        expected = [text, *ARTICLE_PARAGRAPHS] if opens else ARTICLE_PARAGRAPHS
        assert extract(html, method="auto").text.split("\n") == expected, lead


def article_with_header(header_paragraphs: list[str], wrappers: int = 1) -> str:
    """A page whose class names say nothing (generated ones), its body nested ``wrappers`` deep."""
    body = "".join(f"<p>{p}</p>" for p in ARTICLE_PARAGRAPHS)
    for i in range(wrappers):  # each wrapper adds a link beside the text: the innermost one gains most
        body = f'<div class="sc-w{i}">{body}<div class="sc-n{i}"><a href="/more/{i}">More news {i}</a></div></div>'
    header = "".join(f"<div class='sc-d1'><p>{p}</p></div>" for p in header_paragraphs)
    return f"""<html lang="en"><head><title>Council approves budget</title></head><body>
<article class="sc-a1"><header class="sc-h1"><nav><a href="/news">News</a></nav>
<div class="sc-t1"><h1>Council approves budget</h1>{header}</div></header>{body}</article></body></html>"""


def test_the_one_paragraph_of_an_unmarked_article_header_is_its_lead():
    lead = "The council has approved a budget that funds road repairs and a new library in the north."
    other = "A second paragraph in the header makes neither of them the lead of the article."
    for wrappers in (1, 4):
        text = extract(article_with_header([lead], wrappers), method="auto").text
        assert text.split("\n") == [lead, *ARTICLE_PARAGRAPHS], wrappers
    assert extract(article_with_header([lead, other]), method="auto").text.split("\n") == ARTICLE_PARAGRAPHS


def test_innermost_lead_markup_is_found_in_one_climb():
    from lxml import html as lxml_html

    from newscrawl.extract.methods.auto import _innermost

    root = lxml_html.fromstring('<div><div class="lead"><p class="lead">a</p><p>b</p></div>'
                                '<p class="lead">c</p></div>')
    marked = [el for el in root.iter() if el.get("class") == "lead"]
    assert [el.text for el in _innermost(marked, root)] == ["a", "c"]
    deep = lxml_html.fromstring("<div></div>")
    node = deep
    for _ in range(1500):  # nested leads: the old list scan per descendant took ~10^6 steps here
        child = lxml_html.Element("div", {"class": "lead"})
        node.append(child)
        node = child
    chain = list(deep.iter())[1:]
    assert _innermost(chain, deep) == [chain[-1]]


def weight_of(markup: str) -> float:
    return element_weight(lxml_html.fragment_fromstring(markup))


def test_a_boilerplate_word_outranks_the_body_word_it_qualifies_in_one_class_token():
    teasers = "".join(
        f"<p>Another story that readers of this site went on to read about the city budget, number {i}.</p>"
        for i in range(4)
    )
    related = f'<div class="rp4wp-related-posts"><h3>Related posts</h3>{teasers}</div>'
    bio = '<div class="post-author-bio"><p>Jane Doe has written about the city for the paper since 2010.</p></div>'
    html = english_article(extra_body=related + bio)
    assert extract(html, method="auto").text.split("\n") == ARTICLE_PARAGRAPHS
    for markup in ('<div class="related-posts">x</div>', '<div class="entry-footer">x</div>',
                   '<div class="blog-pager">x</div>', '<div class="textwidget">x</div>'):
        assert weight_of(markup) == 0, markup


def test_layout_words_and_article_widgets_still_let_the_body_word_count():
    # "content-sidebar-wrap" wraps the article and its sidebar; "article-widget-text" is a piece
    # of the article; in separate tokens a body word and a boilerplate word still cancel out.
    for markup in ('<div class="content-sidebar-wrap">x</div>', '<div class="article-widget-text">x</div>',
                   '<div class="story related">x</div>'):
        assert weight_of(markup) == 1.0, markup
    body = "".join(f"<p>{p}</p>" for p in ARTICLE_PARAGRAPHS)
    html = english_article(paragraphs=[], extra_body=f'<div class="article-widget article-widget-text">{body}</div>')
    assert extract(html, method="auto").text.split("\n") == ARTICLE_PARAGRAPHS


def test_drupals_page_wrapper_is_not_a_dialog():
    html = english_article().replace('<div class="layout">', '<div class="dialog-off-canvas-main-canvas">')
    assert weight_of('<div class="dialog-off-canvas-main-canvas">x</div>') > 0
    assert extract(html, method="auto").text.split("\n") == ARTICLE_PARAGRAPHS


def test_a_section_marked_as_holding_ads_is_not_an_ad():
    body = "".join(f"<p>{p}</p>" for p in ARTICLE_PARAGRAPHS)
    sections = f'<section class="o-section o-section--has-ads">{body}</section>'
    html = english_article(paragraphs=[], extra_body=sections)
    assert extract(html, method="auto").text.split("\n") == ARTICLE_PARAGRAPHS
    for markup in ('<section class="Report__Section--Ads">x</section>', '<div class="with-ads">x</div>'):
        assert weight_of(markup) > 0, markup
    for markup in ('<div class="ad-slot">x</div>', '<div class="article__ad">x</div>', '<div class="ads">x</div>'):
        assert weight_of(markup) == 0, markup


def test_a_comment_counter_link_before_each_paragraph_is_not_body():
    paragraphs = "".join(
        f'<p><a class="article-commented-link comments_count" href="#c{i}">{i * 3}</a>{p}</p>'
        for i, p in enumerate(ARTICLE_PARAGRAPHS)
    )
    html = english_article(paragraphs=[], extra_body=paragraphs)
    assert extract(html, method="auto").text.split("\n") == ARTICLE_PARAGRAPHS


def test_rating_prompts_post_metadata_and_footers_inside_the_post_are_not_body():
    rating = '<div class="sectionRating"><h3>Was this article helpful?</h3><p>Rate it from one to five.</p></div>'
    meta = '<p class="postmetadata">This entry was posted on Tuesday and is filed under City news.</p>'
    footer = '<footer class="entry-info"><p>This entry was posted in City news by Jane Doe.</p></footer>'
    related = ('<div class="rp4wp-related-post-content"><p>Another post about the budget of the city and '
               'what the council decided on it in the spring of this year.</p></div>')
    html = english_article(extra_body=rating + meta + footer + related)
    assert extract(html, method="auto").text.split("\n") == ARTICLE_PARAGRAPHS
    for markup in ('<div class="entry-meta">x</div>', '<div class="entry__meta">x</div>',
                   '<div class="feedback-wrapper">x</div>', '<footer class="entry">x</footer>',
                   '<div class="trackbacks">x</div>'):
        assert weight_of(markup) == 0, markup
    assert weight_of('<div class="meta-information">x</div>') > 0  # a description of the media


def test_an_author_box_or_related_list_heading_in_the_second_half_closes_the_body():
    bio = "Jane Doe has covered the city council for the paper since 2010 and lives in the north."
    teaser = "Another story about the budget of the city and what the council decided on it this spring."
    for heading, after in (("About the author", [bio]), ("Über den Autor:", [bio]),
                           ("Related posts", [teaser, teaser + " Again."])):
        paragraphs = cut_trailing_sections([*ARTICLE_PARAGRAPHS, heading, *after])
        assert paragraphs == ARTICLE_PARAGRAPHS, heading
    # In the first half it heads a box set into the article, which goes on after it.
    early = [ARTICLE_PARAGRAPHS[0], "Mehr zum Thema", teaser, *ARTICLE_PARAGRAPHS[1:]]
    assert cut_trailing_sections(early) == early


def test_a_profile_box_beside_a_one_line_post_does_not_win():
    profile = ('<div class="profile-block"><p class="profile-textblock">I live, I learn and I teach, and here '
               "I share what I find on the web with the readers of this blog every day of the week.</p></div>")
    post = "<p>This one plays with your right brain in a big way, and it is worth a look.</p>"
    html = f"""<html lang="en"><head><title>The human bowling ball</title></head><body>
<div class="post"><h2>The human bowling ball</h2><div class="entry-content">{post}</div></div>
<div class="about">{profile}</div></body></html>"""
    assert extract(html, method="auto").text == "This one plays with your right brain in a big way, and it is worth a look."
    for markup in ('<p class="bio">x</p>', '<div class="dsq-brlink">x</div>', '<div class="profileDescription">x</div>'):
        assert weight_of(markup) == 0, markup
    assert weight_of('<div class="biography">x</div>') > 0
    for markup in ('<div class="author-dropdown">x</div>', '<div class="blog-search">x</div>',
                   '<div class="searchbox">x</div>'):
        assert weight_of(markup) == 0, markup
    assert weight_of('<div class="research-notes">x</div>') > 0
    assert weight_of('<div class="APageRoot__Sections">x</div>') > 0  # a page root, not a pager
    assert weight_of('<div class="blog-pager">x</div>') == 0


def test_a_headline_is_never_the_body_on_its_own():
    # Short lines without stop words gain nothing; the headline, with its stop words, gains most.
    lines = ["Locations", "Tokyo, Japan.", "Berlin, Germany.", "Film", "Fujicolor 400.", "Cameras", "Widelux F7.",
             "Pentax 35mm.", "Exposures", "12 frames.", "36 frames."]
    html = f"""<html lang="en"><head><title>A walk in the city of the two of us</title></head><body>
<article><header><h1>A walk in the city of the two of us</h1></header>
<div class="entry-content">{"".join(f"<p>{line}</p>" for line in lines)}</div></article></body></html>"""
    assert extract(html, method="auto").text.split("\n") == lines


def test_paragraphs_each_wrapped_in_a_component_are_read_together():
    wrapped = "".join(f'<div class="sc-x1 abc"><p>{p}</p></div>' for p in ARTICLE_PARAGRAPHS)
    noise = "".join(f'<div class="sc-y2"><a href="/n/{i}">Headline number {i} of the day</a></div>' for i in range(40))
    html = english_article(paragraphs=[], extra_body=f"<div>{wrapped}{noise}</div>")
    assert extract(html, method="auto").text.split("\n") == ARTICLE_PARAGRAPHS


def dialogue_post(lines: list[str], container: str = 'div class="post hentry"') -> str:
    """A blog post as WordPress themes set it: linked title, date line and share links beside the text."""
    tag = container.split()[0]
    return f"""<html lang="de"><head><title>Die Möglichkeit nichts zu tun</title></head><body>
<div id="wrap"><{container}>
<h2 class="posttitle"><a href="/2013/06/14/die-moglichkeit/">Die Möglichkeit nichts zu tun ist auch eine</a></h2>
<p class="meta">14. Juni 2013 at 20:51 (<a href="/category/spezifisch/">Spezifisch</a>)</p>
{"".join(f"<p>{line}</p>" for line in lines)}
<div class="sharing"><a href="/share/twitter">Twitter</a> <a href="/share/facebook">Facebook</a></div>
</{tag}></div></body></html>"""


def test_a_short_post_of_short_lines_is_read_whole_within_its_marked_container():
    # Only the first line holds enough stop words to gain: the post's markup says the rest belongs.
    lines = ["„Ich weiß ich bin betrunken und sollte das vielleicht nicht sagen…“", "– „Dann sag es nicht“",
             "– „Ok.“"]
    assert extract(dialogue_post(lines), method="auto").text.split("\n") == lines


def test_an_unmarked_container_is_not_widened_to():
    lines = ["„Ich weiß ich bin betrunken und sollte das vielleicht nicht sagen…“", "– „Dann sag es nicht“",
             "– „Ok.“"]
    assert extract(dialogue_post(lines, container="div"), method="auto").text == lines[0]


def test_an_embed_placeholder_and_a_buy_box_inside_the_article_are_not_body():
    placeholder = ('<div class="third-party-services--placeholder"><p>We respect your privacy: this video is '
                   "shown only after you agree to load content from the video platform.</p></div>")
    buybox = ('<div class="c-box buybox__info"><p>Immediate online access to all issues from this year, and a '
              "subscription that renews itself every year until you cancel it.</p></div>")
    half = len(ARTICLE_PARAGRAPHS) // 2
    body = [*ARTICLE_PARAGRAPHS[:half], placeholder, *ARTICLE_PARAGRAPHS[half:], buybox]
    html = english_article(paragraphs=[], extra_body="<div class='article-text'>" + "".join(
        p if p.startswith("<div") else f"<p>{p}</p>" for p in body) + "</div>")
    assert extract(html, method="auto").text.split("\n") == ARTICLE_PARAGRAPHS
    assert weight_of('<div id="ctl00_ContentPlaceHolder1_div_main">x</div>') > 0  # ASP.NET's main region
    assert weight_of('<div class="image-placeholder">x</div>') == 0


def test_an_authors_section_after_the_article_is_not_body():
    authors = ('<section class="article--authors"><h4>Authors:</h4><p>Jane Roe writes about energy and the '
               "climate for the magazine and has covered the wind industry for ten years.</p></section>")
    html = english_article(extra_body=authors)
    assert extract(html, method="auto").text.split("\n") == ARTICLE_PARAGRAPHS
    assert weight_of('<div class="post-authors-list">x</div>') == 0
    assert weight_of('<div class="article-author">x</div>') > 0  # the byline's own element is not a box


def test_a_list_of_the_sites_recent_posts_inside_the_article_is_not_body():
    recent = ('<section class="recent-articles-carousel-section"><h2>Recent Blogs</h2>'
              + "".join(f"<div><h3>Top {n} companies in the global {market} market</h3><p>The {market} market grew "
                        f"again last year, and these are the companies that lead it.</p></div>"
                        for n, market in ((10, "taxi"), (5, "oats"), (7, "battery")))
              + "</section>")
    html = english_article(extra_body=recent)
    assert extract(html, method="auto").text.split("\n") == ARTICLE_PARAGRAPHS
    assert weight_of('<ul class="widget_recent_entries recent-posts">x</ul>') == 0
    assert weight_of('<h2 id="how-have-recent-deaths-among-adolescents-changed">x</h2>') > 0  # its words
