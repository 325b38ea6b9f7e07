"""Issue 37's newcomer cases: in-body pictures however they are loaded, their captions and credits
attached to them in every rendering (never body lines), and the standfirst shown above the body
read as the body's first line in ``text``, ``markdown`` and ``html`` alike.

The pages are written here in the markup the CMSs in question produce (BBC's figure with
screen-reader labels, WordPress' block and classic captions, Arc's ``<picture>`` with a credit
span, Kommersant's figure-less ``doc_media`` block, a header dek as DW and Sohu set it)."""

import pytest_twisted

from newscrawl.evaluation.rich import markdown_images, markdown_text
from newscrawl.extract import extract
from tests.conftest import crawl_settings, read_jsonl, run_crawl, site_spider

URL = "https://example.com/news/2026/11/20/council-transport-budget"
P = ["The regional council approved the new transport budget on Tuesday after a debate that lasted most "
     "of the afternoon and evening.",
     "Supporters said the money would pay for more frequent buses on the busiest routes and for repairs "
     "to two ageing bridges.",
     "Opponents argued that the plan relied on optimistic forecasts of ticket sales and that taxes would "
     "have to rise next year.",
     "The mayor said she was confident the budget would hold and promised quarterly reports to the "
     "council on its progress.",
     "A final vote on the bridge repairs is expected in the spring, once the engineers have delivered "
     "their survey of both structures."]
STANDFIRST = "The city will spend more on buses and bridges next year, and less on its own offices downtown."


def _page(story: str, header: str = "") -> str:
    return f"""<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>Council approves transport budget | Example Times</title></head>
<body><header><nav><a href="/">Home</a><a href="/news">News</a><a href="/sport">Sport</a></nav></header>
<main><article><h1>Council approves transport budget</h1>{header}<div class="byline">By Jane Doe</div>
{story}</article></main><footer><p>Copyright 2026 Example Times.</p></footer></body></html>"""


def _p(i: int) -> str:
    return f"<p>{P[i]}</p>"


BBC_FIGURE = (
    '<div data-component="image-block"><figure><div><span><picture>'
    '<source srcset="https://ichef.example.co.uk/news/240/cpsprodpb/a1/bridge.jpg.webp 240w, '
    'https://ichef.example.co.uk/news/800/cpsprodpb/a1/bridge.jpg.webp 800w" type="image/webp">'
    '<img alt="A bridge over a river" src="https://ichef.example.co.uk/news/480/cpsprodpb/a1/bridge.jpg" '
    'srcset="https://ichef.example.co.uk/news/240/cpsprodpb/a1/bridge.jpg 240w, '
    'https://ichef.example.co.uk/news/800/cpsprodpb/a1/bridge.jpg 800w" width="976" height="549"></picture></span>'
    '<span role="text" class="ssrcss-1gv1t3x-Copyright e1jl38b40"><span class="ssrcss-1f3bvyz-VisuallyHidden '
    'e16en2lz0">Image source, </span>BBC</span></div><figcaption class="ssrcss-1p8f0rq-Caption e1jl38b41">'
    '<span class="ssrcss-1f3bvyz-VisuallyHidden e16en2lz0">Image caption, </span>The older of the two bridges '
    "was built in 1932</figcaption></figure></div>")
BBC = "".join(f'<div data-component="text-block">{_p(i)}</div>' for i in range(2)) + BBC_FIGURE + \
    "".join(f'<div data-component="text-block">{_p(i)}</div>' for i in range(2, 5))


def test_a_caption_and_credit_go_with_their_picture_in_every_rendering_and_are_no_body_lines():
    """BBC: "Image source, BBC" and "Image caption, ..." are a credit and a caption (the labels
    for screen readers dropped), shown with the picture, not as paragraphs of the body."""
    article = extract(_page(BBC), url=URL)
    url = "https://ichef.example.co.uk/news/800/cpsprodpb/a1/bridge.jpg"
    assert article.images == [{"url": url, "caption": "The older of the two bridges was built in 1932",
                               "alt": "A bridge over a river", "credit": "BBC"}]
    assert article.text.split("\n") == P  # no "BBC", no caption line
    assert markdown_text(article.markdown).split("\n") == P
    assert markdown_images(article.markdown) == [
        {"url": url, "alt": "A bridge over a river", "caption": "The older of the two bridges was built in 1932 — BBC"}]
    assert ("<figure><img src=\"" + url + "\" alt=\"A bridge over a river\"><figcaption>The older of the two "
            "bridges was built in 1932 <small>BBC</small></figcaption></figure>") in article.html
    assert article.html.index(P[1]) < article.html.index("<figure>") < article.html.index(P[2])  # page order


WORDPRESS = (
    '<div class="entry-content">' + _p(0) +
    '<figure class="wp-block-image size-large"><img loading="lazy" decoding="async" width="1024" height="683" '
    'src="/wp-content/uploads/2026/11/bus-1024x683.jpg" alt="" class="wp-image-123" '
    'srcset="/wp-content/uploads/2026/11/bus-1024x683.jpg 1024w, /wp-content/uploads/2026/11/bus-300x200.jpg 300w, '
    '/wp-content/uploads/2026/11/bus.jpg 2048w" sizes="(max-width: 1024px) 100vw, 1024px">'
    '<figcaption class="wp-element-caption">A bus on route 7 in the city centre. Photo: John Smith</figcaption>'
    "</figure>" + _p(1) +
    '<div id="attachment_77" class="wp-caption aligncenter" style="width: 810px">'
    '<img aria-describedby="caption-attachment-77" class="size-full wp-image-77" data-lazy-src='
    '"/wp-content/uploads/2026/11/bridge-survey.jpg" src="data:image/svg+xml,%3Csvg%3E" width="800" height="533">'
    '<noscript><img src="/wp-content/uploads/2026/11/bridge-survey.jpg" width="800" height="533"></noscript>'
    '<p id="caption-attachment-77" class="wp-caption-text">Engineers survey the north bridge.</p></div>'
    + "".join(_p(i) for i in range(2, 5)) + "</div>")
ARC = (
    '<div class="article-body">' + _p(0) + _p(1) +
    '<figure class="c-media-item"><div class="image-wrapper"><picture>'
    '<source media="(min-width: 1200px)" srcset="https://www.example.com/resizer/abc=/1200x0/filters:quality(70)'
    '/cloudfront/XYZ.jpg 1200w"><source media="(min-width: 600px)" srcset="https://www.example.com/resizer/def=/'
    '600x0/filters:quality(70)/cloudfront/XYZ.jpg 600w"><img src="https://www.example.com/resizer/ghi=/300x0/'
    'filters:quality(70)/cloudfront/XYZ.jpg" alt="Council members at the vote" loading="lazy"></picture></div>'
    '<figcaption class="c-media-item__caption"><span class="c-media-item__fig-caption">Council members vote on '
    'the budget.</span> <span class="c-media-item__credit">(AP Photo/Mary Altaffer)</span></figcaption></figure>'
    + "".join(_p(i) for i in range(2, 5)) +
    '<div class="promo-item"><a href="/news/2026/11/19/other-story"><img src="https://www.example.com/resizer/'
    'jkl=/400x0/promo-other.jpg" alt="Image"></a><a href="/news/2026/11/19/other-story">Read more: the tram line '
    "plan</a></div></div>")


def test_wordpress_and_arc_pictures_are_found_at_full_size_with_caption_and_credit_shown():
    wordpress = extract(_page(WORDPRESS), url=URL)
    assert [(i["url"], i["caption"], i["credit"]) for i in wordpress.images] == [
        ("https://example.com/wp-content/uploads/2026/11/bus.jpg", "A bus on route 7 in the city centre.",
         "John Smith"),
        ("https://example.com/wp-content/uploads/2026/11/bridge-survey.jpg", "Engineers survey the north bridge.",
         None)]
    assert wordpress.text.split("\n") == P
    assert [i["caption"] for i in markdown_images(wordpress.markdown)] == [
        "A bus on route 7 in the city centre. — John Smith", "Engineers survey the north bridge."]
    assert "<figcaption>A bus on route 7 in the city centre. <small>John Smith</small></figcaption>" in wordpress.html
    assert "<figcaption>Engineers survey the north bridge.</figcaption>" in wordpress.html

    arc = extract(_page(ARC), url=URL)
    largest = "https://www.example.com/resizer/abc=/1200x0/filters:quality(70)/cloudfront/XYZ.jpg"
    assert arc.images == [{"url": largest, "caption": "Council members vote on the budget.",
                           "alt": "Council members at the vote", "credit": "AP Photo/Mary Altaffer"}]  # no promo
    assert "<figcaption>Council members vote on the budget. <small>AP Photo/Mary Altaffer</small></figcaption>" \
        in arc.html
    assert arc.text.split("\n") == P


KOMMERSANT = (
    '<div class="article_text_wrapper">' + _p(0) +
    '<div class="doc_media"><div class="doc_media__media"><img class="lazyload doc_media__media_img" '
    'src="/ResourcesNew/images/pixel.gif" data-src="https://im.example.ru/Issues.photo/2026/11/20/KMO_1_m.jpg" '
    'alt="Фото: Иван Петров, Коммерсантъ"></div><p class="doc_media__subscr">Заседание совета во вторник</p>'
    '<p class="doc_media__author">Фото: Иван Петров, Коммерсантъ</p></div>' + _p(1) + _p(2) +
    '<div class="doc_media"><div class="doc_media__media"><img class="lazyload doc_media__media_img" '
    'data-srcset="https://im.example.ru/Issues.photo/2026/11/20/KMO_2_s.jpg 400w, '
    'https://im.example.ru/Issues.photo/2026/11/20/KMO_2_l.jpg 1200w" alt="Фото"></div>'
    '<p class="doc_media__subscr">Фото</p></div>' + _p(3) + _p(4) + "</div>")


GIF = "data:image/gif;base64,R0lGODlhEAAJAIAAAO7u7gAAACwAAAAAEAAJAAACCoSPqcvtD6OclBUAOw=="
LAZY_SCRIPT = (
    '<div class="article_text_wrapper">' + _p(0) + _p(1) +
    '<div class="doc_media"><figure itemscope itemtype="http://schema.org/ImageObject" class="doc_media__figure">'
    '<div class="photo"><picture class="js-lazyimage"><source class="js-lazyimage-source" srcset="' + GIF + '" '
    'data-lazyimage-srcset="https://iv.example.ru/Issues.photo/2026/11/KMO_7_t249.webp 1380w, '
    'https://iv.example.ru/Issues.photo/2026/11/KMO_7_t242.webp 420w" type="image/webp">'
    '<img class="doc_media__media js-lazyimage-trigger" src="' + GIF + '" '
    'data-lazyimage-src="https://iv.example.ru/Issues.photo/2026/11/KMO_7_t222.jpg" alt="The council in session" '
    'itemprop="contentUrl"></picture></div><figcaption class="doc_media__subscr">The council voted late on '
    'Tuesday</figcaption></figure></div>' + _p(2) +
    '<div class="gallery"><img class="carousel-cell-image" src="' + GIF + '" '
    'data-flickity-lazyload="https://cdn.example.com/photos/2026/11/bridge-survey-1600.jpg" alt="">'
    '<img class="carousel-cell-image" src="' + GIF + '" data-wp-bind--src="state.image" alt=""></div>'
    + _p(3) + _p(4) + "</div>")


def test_pictures_a_sites_own_lazy_loading_script_fills_in_are_found_by_the_attribute_it_reads():
    """Kommersant's ``data-lazyimage-srcset`` on a ``<picture>``'s source, a carousel's
    ``data-flickity-lazyload``: a ``data-`` attribute of any name holding a srcset, or an image
    file's address, is read once ``src`` is a placeholder; a script binding is no address."""
    article = extract(_page(LAZY_SCRIPT), url=URL)
    assert [(i["url"], i["caption"]) for i in article.images] == [
        ("https://iv.example.ru/Issues.photo/2026/11/KMO_7_t249.webp", "The council voted late on Tuesday"),
        ("https://cdn.example.com/photos/2026/11/bridge-survey-1600.jpg", None)]
    assert article.text.split("\n") == P
    assert "state.image" not in article.markdown and GIF not in article.html


def _script_drawn(name: str, caption: str) -> str:
    """The Telegraph's markup: a ``<div>`` a script fills from its ``data-srcset``, the picture
    for readers without scripts in a ``<noscript>``, no ``<img>`` outside it."""
    path = f"/content/dam/news/2026/11/20/{name}.jpeg"
    return (f'<figure itemscope="true" data-test="article-body-image" class="article-body-image section">'
            f'<div class="article-body-image__container"><div class="lazy-image article-body-image__source" '
            f'data-js="LazyImage" data-src="{path}?imwidth=480" data-srcset="{path}?imwidth=480 480w, '
            f'{path}?imwidth=1280 1280w" data-alt="{name}"><noscript><img class="responsive lazy-image__img" '
            f'src="{path}?imwidth=480" alt="{name}" loading="lazy" width="1280" height="800"/></noscript></div>'
            f'</div><figcaption class="e-caption u-meta"><span itemprop="caption">{caption}</span></figcaption>'
            "</figure>")


def test_a_picture_only_a_script_draws_is_found_at_the_copy_the_page_gives_readers_without_scripts():
    story = (_p(0) + _script_drawn("airer", "The airer in a small bathroom") + _p(1) + _p(2)
             + _script_drawn("fan", "A fan speeds the drying") + _p(3) + _p(4))
    article = extract(_page(f'<div class="articleBodyText">{story}</div>'), url=URL)
    assert [(i["url"], i["caption"]) for i in article.images] == [
        ("https://example.com/content/dam/news/2026/11/20/airer.jpeg?imwidth=480", "The airer in a small bathroom"),
        ("https://example.com/content/dam/news/2026/11/20/fan.jpeg?imwidth=480", "A fan speeds the drying")]
    assert article.text.split("\n") == P  # the captions go with their pictures
    md = article.markdown
    assert md.index(P[0]) < md.index("airer.jpeg") < md.index(P[1]) < md.index(P[2]) < md.index("fan.jpeg") \
        < md.index(P[3])


def test_figure_less_picture_blocks_keep_their_caption_and_a_caption_saying_photo_is_none():
    """Kommersant writes no <figure>: the picture's block holds a caption paragraph and a credit
    paragraph beside it; a caption that only says "Фото" (or "Image") is no caption."""
    article = extract(_page(KOMMERSANT), url=URL)
    assert article.images == [
        {"url": "https://im.example.ru/Issues.photo/2026/11/20/KMO_1_m.jpg", "caption": "Заседание совета во вторник",
         "alt": "Фото: Иван Петров, Коммерсантъ", "credit": "Иван Петров, Коммерсантъ"},
        {"url": "https://im.example.ru/Issues.photo/2026/11/20/KMO_2_l.jpg", "caption": None, "alt": "Фото",
         "credit": None}]
    assert article.text.split("\n") == P
    assert markdown_text(article.markdown).split("\n") == P
    assert markdown_images(article.markdown)[0]["caption"] == "Заседание совета во вторник — Иван Петров, Коммерсантъ"
    assert "![Фото](https://im.example.ru/Issues.photo/2026/11/20/KMO_2_l.jpg)\n" in article.markdown  # no title
    assert "<figcaption>Заседание совета во вторник <small>Иван Петров, Коммерсантъ</small></figcaption>" \
        in article.html
    assert article.html.count("<figcaption>") == 1


def test_a_picture_whose_alt_text_only_says_image_has_no_caption():
    story = _p(0) + '<p><img src="/img/2026/bus-depot.jpg" alt="Image" width="800" height="450"></p>' + \
        "".join(_p(i) for i in range(1, 5))
    article = extract(_page(story), url=URL)
    assert article.images == [{"url": "https://example.com/img/2026/bus-depot.jpg", "caption": None,
                               "alt": "Image", "credit": None}]


# Older CMSs set a picture in a small table: the picture in one cell, its caption (with or without
# markup, often in <font size=1>) in the row below; a layout table of pictures and text is no such.
PICTURE_TABLES = (
    _p(0) +
    '<table align="center" width="420" border="0" cellpadding="2"><tr><td><img src="/photos/2026/11/bus-depot.jpg" '
    'width="420" height="280" border="0" alt="Bus depot"></td></tr><tr><td><font size="1">Buses wait at the north '
    "depot. Photo: John Smith</font></td></tr></table>" + _p(1) +
    '<table class="photo"><tbody><tr><td><img src="/photos/2026/11/bridge.jpg" width="420" height="280"></td></tr>'
    '<tr><td class="photo-caption">The older of the two bridges.</td></tr></tbody></table>' +
    "".join(_p(i) for i in range(2, 5)))
LAYOUT_TABLE = (
    '<table><tr><td><img src="/photos/2026/11/a.jpg" width="200" height="150"></td>'
    '<td><img src="/photos/2026/11/b.jpg" width="200" height="150"></td></tr>'
    "<tr><td>North depot</td><td>South depot</td></tr></table>")


def test_a_picture_table_is_a_figure_whose_caption_row_is_the_caption_not_a_body_line():
    article = extract(_page(PICTURE_TABLES), url=URL)
    assert article.images == [
        {"url": "https://example.com/photos/2026/11/bus-depot.jpg", "caption": "Buses wait at the north depot.",
         "alt": "Bus depot", "credit": "John Smith"},
        {"url": "https://example.com/photos/2026/11/bridge.jpg", "caption": "The older of the two bridges.",
         "alt": None, "credit": None}]
    assert article.text.split("\n") == P
    assert markdown_text(article.markdown).split("\n") == P
    assert [i["caption"] for i in markdown_images(article.markdown)] == [
        "Buses wait at the north depot. — John Smith", "The older of the two bridges."]
    assert "<figcaption>Buses wait at the north depot. <small>John Smith</small></figcaption>" in article.html
    assert article.html.index(P[0]) < article.html.index("bus-depot.jpg") < article.html.index(P[1])


def test_a_table_of_two_pictures_or_a_layout_table_is_not_one_picture_and_its_caption():
    article = extract(_page(_p(0) + _p(1) + LAYOUT_TABLE + "".join(_p(i) for i in range(2, 5))), url=URL)
    assert [i["caption"] for i in article.images] == [None, None]
    assert "North depot" in article.text
    layout = ('<table><tr><td><img src="/photos/2026/11/depot.jpg" width="420" height="280"></td></tr>'
              '<tr><td><table><tr><td>Route</td><td>Buses</td></tr><tr><td>Route 7</td><td>12</td></tr></table>'
              "</td></tr></table>")  # a table inside: a layout, not a caption row
    article = extract(_page(_p(0) + layout + "".join(_p(i) for i in range(1, 5))), url=URL)
    assert [i["caption"] for i in article.images] == [None]


# A page laid out in divs (no <article>), as Sohu and many news sites set it: the dek under the
# headline (the description restates it), then the byline and a share bar, then the story's own
# block beside a sidebar.
SHARE = '<ul class="share">' + "".join(f'<li><a href="/share/{n}">Share on {n}</a></li>' for n in (
    "Facebook", "X", "WhatsApp", "Email", "Weibo", "WeChat", "Telegram", "LinkedIn", "Reddit", "Print")) + "</ul>"
MOST_READ = "".join(f'<li><a href="/news/2026/11/{n}/story-{n}">Most read story number {n} of the week</a></li>'
                    for n in range(1, 6))


def _dek_page(story: str) -> str:
    return f"""<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>Council approves transport budget | Example Times</title>
<meta name="description" content="{STANDFIRST}"></head>
<body><div class="top"><a href="/">Home</a><a href="/news">News</a><a href="/sport">Sport</a></div>
<div class="layout"><div class="main"><h1>Council approves transport budget</h1>
<p class="css-1k9sd0">{STANDFIRST}</p><div class="meta">By Jane Doe | November 20, 2026</div>{SHARE}
<div class="story">{story}</div></div><div class="sidebar"><h3>Most read</h3><ul>{MOST_READ}</ul></div></div>
<div class="foot"><p>Copyright 2026 Example Times.</p></div></body></html>"""


def test_the_standfirst_shown_under_the_headline_is_the_first_line_of_text_markdown_and_html():
    article = extract(_dek_page("".join(_p(i) for i in range(5))), url=URL)
    assert article.lead == STANDFIRST
    assert article.text.split("\n") == [STANDFIRST, *P]
    assert markdown_text(article.markdown).split("\n") == [STANDFIRST, *P]
    assert article.html.startswith(f"<p>{STANDFIRST}</p><p>{P[0]}</p>")


@pytest_twisted.ensureDeferred
async def test_a_crawled_article_exports_one_body_in_text_markdown_and_html(http_server, tmp_path):
    """Through the spider and the feed export: the standfirst first, the captions with their pictures."""
    path = "/news/2026/11/20/council-transport-budget.html"
    http_server.add(path, _dek_page(BBC))
    http_server.add("/list.html", f'<html><body><ul><li><a href="{path}">Council approves transport budget '
                                  "after a long debate</a></li></ul></body></html>")
    feed = tmp_path / "out.jsonl"
    await run_crawl(site_spider(catalogues=[http_server.url("/list.html")]), crawl_settings(tmp_path, feed))
    [item] = read_jsonl(feed)
    assert item["text"].split("\n") == [STANDFIRST, *P]
    assert markdown_text(item["markdown"]).split("\n") == [STANDFIRST, *P]
    assert item["images"][0]["caption"] == "The older of the two bridges was built in 1932"
    assert "<small>BBC</small></figcaption>" in item["html"]


def test_a_large_photo_named_for_sharing_is_a_picture_a_share_button_is_not():
    # Daily Mail marks its in-body photos "img-share" (readers may share them); a page about social
    # media names its charts "...-social-...png". Share buttons and icons declare no large size.
    story = (_p(0) + '<div class="mol-img"><div class="image-wrap"><img id="i-5c56fab1c4a17114" '
             'src="data:image/gif;base64,R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7" '
             'data-src="https://i.example.co.uk/1s/2026/11/20/15/841635-image-a-8.jpg" height="459" width="634" '
             'alt="Buses at the depot" class="blkBorder img-share"></div></div>' + _p(1) +
             '<p><img src="/img/social-media-budget-chart.png" width="800" height="450" alt="Chart"></p>' + _p(2) +
             '<p><img src="/img/share-button.png" alt="Share"><img src="/img/icons/rating.png" alt="Rating"></p>' +
             _p(3) + _p(4))
    article = extract(_page(story), url=URL)
    assert [i["url"] for i in article.images] == ["https://i.example.co.uk/1s/2026/11/20/15/841635-image-a-8.jpg",
                                                  "https://example.com/img/social-media-budget-chart.png"]
