"""The rich record's metadata and images (newscrawl.extract.record): read from the page's own
declarations and the body's nodes, never a crawl's configuration."""

import json

from newscrawl.extract import extract
from newscrawl.extract.fields.images import srcset_largest
from newscrawl.extract.record import word_count
from tests.pages import ARTICLE_PARAGRAPHS, chinese_article, english_article

HEAD = """<meta name="description" content="The council approved the budget after months of debate.">
<link rel="canonical" href="/2026/11/council-budget">
<meta property="og:image" content="https://cdn.example.com/img/council-1200.jpg">
<meta property="article:tag" content="Budget"><meta property="article:tag" content="City council">
<meta property="article:section" content="Local">
<meta property="article:modified_time" content="2026-11-21T09:30:00+01:00">
<meta name="keywords" content="budget, council, taxes">
<script type="application/ld+json">{ld}</script>"""


def page(extra_body="", ld=None, head=HEAD):
    ld = ld or {"@type": "NewsArticle", "isAccessibleForFree": True, "publisher": {"name": "Example Times Co"}}
    html = english_article(extra_body=extra_body)
    return html.replace("</head>", head.replace("{ld}", json.dumps(ld)) + "</head>")


def test_declared_metadata_is_exported_not_dropped():
    article = extract(page(), url="https://example.com/news/1?utm_source=x")
    assert article.description == "The council approved the budget after months of debate."
    assert article.canonical_url == "https://example.com/2026/11/council-budget"
    assert article.site_name == "Example Times"  # og:site_name in the page, not a configured name
    assert article.tags == ["Budget", "City council"]
    assert article.keywords == ["budget", "council", "taxes"]
    assert article.section == "Local"
    assert article.modified.isoformat() == "2026-11-21T09:30:00+01:00"
    assert article.image == "https://cdn.example.com/img/council-1200.jpg"
    assert article.paywalled is False
    assert article.word_count == sum(len(p.split()) for p in ARTICLE_PARAGRAPHS)
    data = article.to_dict()
    assert data["modified"] == "2026-11-21T09:30:00+01:00" and "capped" not in data
    json.dumps(data)  # JSON-ready


def test_site_name_falls_back_to_the_publisher_and_paywall_to_json_ld():
    html = page(ld={"@type": "NewsArticle", "isAccessibleForFree": "False", "publisher": {"name": "Times Co"},
                    "keywords": ["Budgets", "Taxes"], "articleSection": "Politics"},
                head=HEAD.replace('property="article:tag"', 'property="x"').replace("article:section", "x"))
    html = html.replace('<meta property="og:site_name" content="Example Times">', "")
    article = extract(html, url="https://example.com/news/1")
    assert article.site_name == "Times Co"
    assert article.paywalled is True
    assert article.tags == ["Budgets", "Taxes"]
    assert article.section == "Politics"


def test_paywall_markup_marks_the_article():
    article = extract(english_article(extra_body='<div class="paywall">Subscribe to read on</div>'),
                      url="https://example.com/a")
    assert article.paywalled is True
    assert extract(english_article(), url="https://example.com/a").paywalled is False


def test_cjk_word_count_counts_characters():
    article = extract(chinese_article(), url="https://example.com/zh")
    assert article.word_count == sum(1 for ch in article.text if "\u4e00" <= ch <= "\u9fff")
    assert word_count("新华社 reports 北京") == 6


def test_srcset_largest_candidate_with_commas_in_urls():
    srcset = ("https://img.example.com/c_fill,w_400/a.jpg 400w, https://img.example.com/c_fill,w_1600/a.jpg 1600w,"
              " https://img.example.com/c_fill,w_800/a.jpg 800w")
    assert srcset_largest(srcset) == "https://img.example.com/c_fill,w_1600/a.jpg"
    assert srcset_largest("a.jpg 1x, b.jpg 2x") == "b.jpg"
    assert srcset_largest("only.jpg") == "only.jpg"


def test_srcset_candidates_split_at_a_comma_without_space():
    """The HTML standard ends a candidate's descriptors at a comma: ``a 1x,b 2x`` is two candidates
    (CMSs write it so); taking ``1x,b`` for a URL made a relative path of it."""
    srcset = "https://cdn.example.com/r/640x360/a.jpg 1x,https://cdn.example.com/r/1280x720/a.jpg 2x"
    assert srcset_largest(srcset) == "https://cdn.example.com/r/1280x720/a.jpg"
    assert srcset_largest("/s/a.jpg 400w,/s/b.jpg 1200w,/s/c.jpg 800w") == "/s/b.jpg"
    html = english_article(extra_body='<figure><picture><source srcset="https://cdn.example.com/r/640/v.webp 640w,'
                           'https://cdn.example.com/r/1536/v.webp 1536w"><img src="/r/320/v.jpg"></picture>'
                           "<figcaption>The vote.</figcaption></figure>")
    article = extract(html, url="https://example.com/news/1")
    assert [i["url"] for i in article.images] == ["https://cdn.example.com/r/1536/v.webp"]


FIGURES = """
<figure><img src="data:image/gif;base64,R0lGOD" data-src="/img/lazy.jpg" alt="A lazy picture">
<figcaption>The council chamber on Tuesday. <span class="credit">Photo: Ann Lee</span></figcaption></figure>
<p>Second part of the story goes on with a long paragraph about the budget and the city council.</p>
<figure><picture><source srcset="/img/p-800.webp 800w, /img/p-1600.webp 1600w"><img src="/img/p-400.jpg"></picture>
<figcaption>The new library, drawn by the architects © City Archive</figcaption></figure>
<p>More text about the budget follows here, so that the body goes on past the pictures above.</p>
<img src="/img/placeholder.gif" class="lazy"><noscript><img src="/img/from-noscript.jpg"></noscript>
<img src="https://tracker.example.net/pixel.gif?id=1" width="1" height="1">
<img src="/static/icons/share-icon.png" width="16" height="16">
<a href="/news/other-story.html"><img src="/img/teaser-thumb.jpg"></a>
<img src="/img/author-avatar.jpg" class="avatar">
"""


def test_body_images_resolved_captioned_and_furniture_dropped():
    article = extract(english_article(extra_body=FIGURES), url="https://example.com/news/1")
    urls = [i["url"] for i in article.images]
    assert urls == ["https://example.com/img/lazy.jpg", "https://example.com/img/p-1600.webp",
                    "https://example.com/img/from-noscript.jpg"]
    first, second = article.images[0], article.images[1]
    assert first["alt"] == "A lazy picture"
    assert first["caption"] == "The council chamber on Tuesday." and first["credit"] == "Ann Lee"
    assert second["caption"] == "The new library, drawn by the architects" and second["credit"] == "City Archive"
    assert article.image == "https://example.com/img/lazy.jpg"  # no declared image: the first body figure


COVER = """<figure class="lead-picture"><img src="/img/800/council-hall.jpg" srcset="/img/800/council-hall.jpg 800w,
/img/1600/council-hall.jpg 1600w"><figcaption>The council hall before the vote.</figcaption></figure>"""


def test_a_cover_picture_shown_above_the_body_leads_the_images_and_is_the_main_image():
    html = english_article(extra_body='<p><img src="/img/body-picture.jpg" alt="In the body"></p>')
    html = html.replace("<h1>", COVER + "<h1>").replace(
        "</head>", '<meta property="og:image" content="https://cdn.example.com/social/council-hall.jpg"></head>')
    article = extract(html, url="https://example.com/news/1")
    assert [i["url"] for i in article.images] == ["https://example.com/img/1600/council-hall.jpg",
                                                   "https://example.com/img/body-picture.jpg"]
    assert article.images[0]["caption"] == "The council hall before the vote."
    assert article.image == "https://cdn.example.com/social/council-hall.jpg"  # declared, and shown


def test_a_declared_image_the_article_does_not_show_yields_to_its_first_picture():
    html = english_article(extra_body='<p><img src="/img/body-picture.jpg" alt="In the body"></p>').replace(
        "</head>", '<meta property="og:image" content="https://cdn.example.com/site-share-card.png"></head>')
    article = extract(html, url="https://example.com/news/1")
    assert article.image == "https://example.com/img/body-picture.jpg"


def test_the_pages_own_description_wins_over_an_earlier_open_graph_one():
    html = english_article().replace("<head>", '<head><meta property="og:description" content="Site">'
                                     '<meta name="description" content="The council approved the budget.">')
    assert extract(html, url="https://example.com/a").description == "The council approved the budget."


def test_rich_false_leaves_the_rich_record_out_and_text_as_it_is():
    html = page(extra_body=FIGURES)
    full, plain = extract(html, url="https://example.com/1"), extract(html, url="https://example.com/1", rich=False)
    assert plain.text == full.text and plain.title == full.title
    assert full.markdown and full.images and not plain.markdown and not plain.images and plain.tags == []


def _story(html_inside_story: str) -> str:
    return english_article(paragraphs=[]).replace('<div class="story"></div>',
                                                  f'<div class="story">{html_inside_story}</div>')


PARAS = "".join(f"<p>{p}</p>" for p in ARTICLE_PARAGRAPHS)


def test_a_picture_the_body_method_left_out_is_still_an_article_image():
    """A figure the text method leaves out (its caption is no body text, its wrapper's class reads as
    furniture) still shows the article's picture; a teaser box left out (linked text) shows none."""
    figure = ('<figure class="img-container shareable-item wp-caption"><img src="/img/vote.jpg" alt="The vote">'
              "<figcaption>Councillors vote on Tuesday.</figcaption></figure>")
    teaser = ('<div class="widget related"><a href="/news/2"><img src="/img/other.jpg"></a>'
              '<a href="/news/2">Another story the site wants read</a></div>')
    html = _story(PARAS[: len(PARAS) // 2].rsplit("<p>", 1)[0] + figure + teaser + "<p>" +
                  PARAS[: len(PARAS) // 2].rsplit("<p>", 1)[1] + PARAS[len(PARAS) // 2:])
    article = extract(html, url="https://example.com/news/1")
    assert "Councillors vote" not in article.text  # text as the method made it
    assert [i["url"] for i in article.images] == ["https://example.com/img/vote.jpg"]
    assert article.images[0]["caption"] == "Councillors vote on Tuesday."
    assert '![The vote](https://example.com/img/vote.jpg "Councillors vote on Tuesday.")' in article.markdown


def test_a_picture_above_the_first_line_the_method_kept_is_kept():
    """Lines the method drops at the body's start (a date line, a share prompt) no longer take the
    lead picture standing between them and the first kept line with them."""
    for dropped in ("<p>Submitted on Mon, 2019-01-21 13:49</p>", "<p>Share this article</p>"):
        html = _story(dropped + '<p><img src="/img/lead.jpg" style="width: 600px"></p>' + PARAS)
        article = extract(html, url="https://example.com/news/1")
        assert article.text.split("\n")[0] == ARTICLE_PARAGRAPHS[0]
        assert [i["url"] for i in article.images] == ["https://example.com/img/lead.jpg"]
        assert article.image == "https://example.com/img/lead.jpg"


def test_paywall_markup_is_found_wherever_it_sits_with_every_method():
    """auto reads the classes under <body> once (its Gain pass) and the paywall check reuses them;
    markup on <html>, in <head>, on <body> itself and deep in the body counts the same for every
    method, in any letter case, and a paywall word only outside class names does not."""
    base = english_article()
    marked = {
        "body descendant": base.replace('<div class="story">', '<div class="story"><span class="x PAYWALL-note">'
                                        "Subscribers only.</span>"),
        "body element": base.replace("<body>", '<body class="has-paywall">'),
        "html element": base.replace('<html lang="en">', '<html lang="en" class="regwall">'),
        "head element": base.replace("</head>", '<link class="subscriber-only" rel="x" href="/x"></head>'),
        "sidebar": base.replace('<aside class="sidebar">', '<aside class="sidebar piano-paywall">'),
    }
    unmarked = {
        "plain": base,
        "word in the text": base.replace("<p>", "<p>Our paywall story: ", 1),
        "word in an id": base.replace('<div class="story">', '<div class="story" id="paywall">'),
        "word inside a class word": base.replace('<div class="story">', '<div class="story nopaywallx">'),
    }
    for method in ("auto", "auto-rules", "cevc", "decay"):
        for name, html in marked.items():
            assert extract(html, url="https://example.com/a", method=method).paywalled is True, (method, name)
        for name, html in unmarked.items():
            assert extract(html, url="https://example.com/a", method=method).paywalled is False, (method, name)


def test_word_count_splits_words_at_han_and_kana_characters():
    assert word_count("abc中def") == 3
    assert word_count("東京タワーは333m") == 7  # 東 京 タ ワ ー は, then "333m"
    assert word_count("état_civil, naïve—Ελλάδα 12.5") == 5
    assert word_count(" \u3000 ") == 0


def test_tag_strings_joined_by_chinese_and_other_separators_are_split():
    """One declared string of tags, joined by ideographic commas, full-width semicolons, ideographic
    spaces, bars, slashes or plain spaces between Chinese words, is a list of tags; tags that hold a
    space, a slash or a middle dot themselves ("New York", "서울 시장", "AC/DC", "ドナルド・トランプ") stay whole."""
    def declared(keywords, tags=None):
        metas = f'<meta name="keywords" content="{keywords}">'
        metas += "".join(f'<meta property="article:tag" content="{tag}">' for tag in tags or [])
        html = chinese_article().replace("</head>", metas + "</head>")
        return extract(html, url="https://news.example.cn/2026/11/20/1.html")

    article = declared("公园 城市绿化 市民", tags=["城市建设、环境保护；民生", "公园｜绿地\u3000休闲", "政治/经济"])
    assert article.keywords == ["公园", "城市绿化", "市民"]
    assert article.tags == ["城市建设", "环境保护", "民生", "公园", "绿地", "休闲", "政治", "经济"]
    article = declared("New York, AC/DC, 9/11, 서울 시장, ドナルド・トランプ 大統領, Politics / Economy, سياسة، اقتصاد")
    assert article.keywords == ["New York", "AC/DC", "9/11", "서울 시장", "ドナルド・トランプ", "大統領",
                                "Politics", "Economy", "سياسة", "اقتصاد"]
