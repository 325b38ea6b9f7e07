"""The article a page carries as data (issue #39, "embedded data first"; issue #37, the JSON-LD
``articleBody`` fallback): each blob shape an app-shell page ships, hostile blobs, and a page whose
DOM holds the article beside its ``articleBody``.  Through :func:`newscrawl.extract.extract`, the
default method, as the crawl runs it."""

from __future__ import annotations

import json
from datetime import date, datetime

import pytest

from newscrawl.extract import extract

URL = "http://news.example/2026/11/20/harbour-bridge"
LINE = ("The council voted on Tuesday to rebuild the old harbour bridge, closed to traffic since the "
        "spring floods damaged its eastern pier")
PARAGRAPHS = [f"{LINE}, said the report's section {n}." for n in ("one", "two", "three")]
HEADING = "What happens next"
ITEMS = ["Phase one starts in March", "Phase two in the autumn"]
CAPTION = "The old bridge in May"


def shell(script: str, title: str = "Harbour bridge to be rebuilt | Daily Example") -> str:
    """An app shell: an empty mount point, the article only in ``script``."""
    return (f"<html><head><title>{title}</title></head><body><div id='app'><noscript>Enable JavaScript"
            f"</noscript></div>{script}</body></html>")


def next_data(value: object) -> str:
    return f'<script id="__NEXT_DATA__" type="application/json">{json.dumps(value)}</script>'


def assignment(name: str, value: object | str) -> str:
    blob = value if isinstance(value, str) else json.dumps(value)
    return f"<script>window.{name} = {blob};window.__other = 1;</script>"


HTML_BODY = (f"<p>{PARAGRAPHS[0]}</p><h2>{HEADING}</h2><p>{PARAGRAPHS[1]}</p>"
             f"<figure><img src='/img/bridge.jpg' alt='The bridge'><figcaption>{CAPTION}</figcaption></figure>"
             f"<ul>{''.join(f'<li>{i}</li>' for i in ITEMS)}</ul><p>{PARAGRAPHS[2]}</p>")


def assert_structured(article, images: bool = True) -> None:
    """Every paragraph, the heading and the list in ``text``, ``markdown`` and ``html`` alike."""
    assert article.method == "embedded"
    lines = article.text.splitlines()
    for paragraph in PARAGRAPHS:
        assert paragraph in lines
        assert paragraph in article.markdown and f"<p>{paragraph}</p>" in article.html
    assert f"## {HEADING}" in article.markdown and f"<h2>{HEADING}</h2>" in article.html
    for item in ITEMS:
        assert item in lines and f"- {item}" in article.markdown and f"<li>{item}</li>" in article.html
    if images:
        assert [i["url"] for i in article.images] == ["http://news.example/img/bridge.jpg"]
        assert article.images[0]["caption"] == CAPTION


def test_a_next_js_shell_gives_the_article_of_its_next_data_with_structure_date_and_authors():
    story = {"title": "Harbour bridge to be rebuilt", "publishedAt": "2026-11-20T08:30:00+01:00",
             "authors": [{"name": "Ana Lopez"}, {"name": "Tom Berg"}], "excerpt": "Short.", "body": HTML_BODY}
    # A longer text under another title (an author's job title and biography) is not the article.
    profile = {"title": "Chief correspondent", "bio": " ".join(["Ana Lopez has covered the city for years."] * 20)}
    data = {"props": {"pageProps": {"menu": [{"title": "Home", "url": "/"}], "author": profile, "story": story}},
            "page": "/[slug]"}
    article = extract(shell(next_data(data)), URL)
    assert_structured(article)
    assert article.title == "Harbour bridge to be rebuilt"
    assert article.published == datetime.fromisoformat("2026-11-20T08:30:00+01:00")
    assert article.authors == ["Ana Lopez", "Tom Berg"]


def test_arc_content_elements_in_fusion_global_content():
    elements = [{"_id": "a", "type": "text", "content": PARAGRAPHS[0]},
                {"_id": "b", "type": "header", "level": 2, "content": HEADING},
                {"_id": "c", "type": "text", "content": PARAGRAPHS[1]},
                {"_id": "c2", "type": "text", "content": "A <b>bold</b> aside, with a link to <a href='/plan'>the plan</a>."},
                {"_id": "d", "type": "image", "url": "https://cdn.news.example/bridge.jpg", "caption": CAPTION},
                {"_id": "e", "type": "list", "list_type": "unordered",
                 "items": [{"type": "text", "content": i} for i in ITEMS]},
                {"_id": "f", "type": "text", "content": PARAGRAPHS[2]}]
    content = {"headlines": {"basic": "Harbour bridge to be rebuilt"}, "display_date": "2026-11-20T07:30:00Z",
               "credits": {"by": [{"type": "author", "name": "Ana Lopez"}]}, "content_elements": elements}
    page = shell(f"<script>Fusion=window.Fusion||{{}};Fusion.globalContent={json.dumps(content)};"
                 "Fusion.contentCache={};</script>")
    article = extract(page, URL)
    assert_structured(article, images=False)
    assert "A bold aside, with a link to the plan." in article.text.splitlines()
    assert "A **bold** aside, with a link to [the plan](http://news.example/plan)." in article.markdown
    assert [i["url"] for i in article.images] == ["https://cdn.news.example/bridge.jpg"]
    assert article.title == "Harbour bridge to be rebuilt" and article.authors == ["Ana Lopez"]
    assert article.published == datetime.fromisoformat("2026-11-20T07:30:00+00:00")


def test_an_initial_state_store_with_a_plain_text_body_gives_a_paragraph_a_line():
    state = {"user": {"loggedIn": False}, "articles": {"byId": {"a17": {
        "headline": "Harbour bridge to be rebuilt", "author": "Ana Lopez", "datePublished": "2026-11-19",
        "text": "\n\n".join(PARAGRAPHS)}}}}
    article = extract(shell(assignment("__INITIAL_STATE__", state)), URL)
    assert article.method == "embedded"
    assert article.text.splitlines() == PARAGRAPHS
    assert article.markdown == "\n\n".join(PARAGRAPHS)
    assert article.published == date(2026, 11, 19) and article.authors == ["Ana Lopez"]


def test_a_preloaded_state_and_nuxt_blocks_are_found_by_their_shape():
    blocks = [{"__typename": "ParagraphBlock", "html": f"<p>{PARAGRAPHS[0]}</p>"},
              {"__typename": "HeadingBlock", "text": HEADING},
              {"__typename": "ParagraphBlock", "html": f"<p>{PARAGRAPHS[1]}</p><p>{PARAGRAPHS[2]}</p>"},
              {"__typename": "ListBlock", "items": ITEMS}]
    nuxt = {"layout": "default", "data": [{"post": {"title": "Bridge", "blocks": blocks}}], "state": {}}
    for page in (shell(assignment("__NUXT__", nuxt)), shell(assignment("__PRELOADED_STATE__", nuxt))):
        article = extract(page, URL)
        assert_structured(article, images=False)
        assert article.title == "Bridge"


def test_json_ld_article_body_alone_is_split_at_its_newlines():
    ld = {"@context": "https://schema.org", "@type": "NewsArticle", "headline": "Bridge",
          "articleBody": "\n".join(PARAGRAPHS)}
    page = shell(f'<script type="application/ld+json">{json.dumps(ld)}</script>')
    article = extract(page, URL)
    assert article.method == "embedded"
    assert article.text.splitlines() == PARAGRAPHS
    assert article.markdown == "\n\n".join(PARAGRAPHS)
    assert article.html == "".join(f"<p>{p}</p>" for p in PARAGRAPHS)


def split_article_page() -> tuple[str, list[str]]:
    """A page whose DOM holds the whole article in three groups between long link lists (so the
    densest block is one group), with a heading and a figure, and whose JSON-LD ``articleBody``
    is the same text as one line (issue #37's CNN page)."""
    paragraphs = [f"Paragraph {n}: the regional water board said on Monday that reservoir levels had "
                  "recovered after the autumn rains, and that restrictions on garden watering would be "
                  "lifted from next week in all districts." for n in range(12)]
    declared = " ".join([*paragraphs[:4], "Why the levels rose", *paragraphs[4:]])
    ld = {"@context": "https://schema.org", "@type": "NewsArticle", "headline": "Reservoirs recover",
          "articleBody": declared}
    links = "<ul class='more'>" + "".join(
        f"<li><a href='/more/{n}'>More coverage: another story on a different topic, headline {n}</a></li>"
        for n in range(25)) + "</ul>"
    groups = []
    for start in range(0, 12, 4):
        inner = "".join(f"<p>{p}</p>" for p in paragraphs[start:start + 4])
        if start == 4:
            inner = "<h2>Why the levels rose</h2>" + inner
        if start == 8:
            inner = "<figure><img src='/img/dam.jpg' alt='Dam'><figcaption>The dam</figcaption></figure>" + inner
        groups.append(f"<div class='paragraph-group'>{inner}</div>" + (links if start < 8 else ""))
    page = (f"<html><head><title>Reservoirs recover</title><script type='application/ld+json'>{json.dumps(ld)}"
            "</script></head><body><nav><a href='/'>Home</a></nav><h1>Reservoirs recover</h1>"
            f"<div class='l-container'>{''.join(groups)}</div><footer>Copyright</footer></body></html>")
    return page, paragraphs


def test_the_dom_wins_over_a_one_line_article_body_it_covers_with_its_headings_and_images():
    page, paragraphs = split_article_page()
    article = extract(page, URL)
    assert article.method == "auto"
    lines = article.text.splitlines()
    assert all(p in lines for p in paragraphs)  # a paragraph a line, not one 2,500-character line
    assert "## Why the levels rose" in article.markdown and "<h2>Why the levels rose</h2>" in article.html
    assert "http://news.example/img/dam.jpg" in [i["url"] for i in article.images]
    assert all(f"<p>{p}</p>" in article.html for p in paragraphs)


def test_paragraphs_the_markup_calls_placeholders_are_kept_in_order_with_their_heading_and_image():
    """The body rules prune ``class="paragraph inline-placeholder"`` as a placeholder for content
    not shown; the articleBody says they are the article, so its lines of the DOM are kept."""
    paragraphs = [f"Line {n}: the witness spoke for four hours on Monday and the judge twice asked his "
                  "lawyer to keep the answers to the questions that were put to him." for n in range(8)]
    ld = {"@type": "NewsArticle", "headline": "The witness speaks",
          "articleBody": " ".join([*paragraphs[:4], "The judge steps in", *paragraphs[4:]])}
    videos = "".join(f"<li><a href='/video/{n}'>Video {n}: more from the courtroom today</a></li>" for n in range(15))
    inner = "".join(f"<p class='paragraph inline-placeholder'>{p}</p>" for p in paragraphs[:4])
    inner += "<h2 class='subheader'>The judge steps in</h2>"
    inner += "<figure><img src='/img/court.jpg' alt='The court'></figure>"
    inner += "".join(f"<p class='paragraph inline-placeholder'>{p}</p>" for p in paragraphs[4:])
    page = (f"<html><head><title>The witness speaks</title><script type='application/ld+json'>{json.dumps(ld)}"
            "</script></head><body><main class='article__main'><h1>The witness speaks</h1>"
            f"<div class='video-playlist'><ul>{videos}</ul></div><div class='article__content'>{inner}</div>"
            "</main></body></html>")
    article = extract(page, URL)
    assert article.method == "auto"
    assert article.text.splitlines() == [*paragraphs[:4], "The judge steps in", *paragraphs[4:]]
    assert "## The judge steps in" in article.markdown
    assert [i["url"] for i in article.images] == ["http://news.example/img/court.jpg"]


HOSTILE = {
    "a blob over the size bound": "{\"title\": \"Big\", \"body\": \"" + "word " * 1_200_000 + "\"}",
    "deeply nested JSON": "[" * 200_000 + "]" * 200_000,
    "deeply nested objects": '{"a":' * 50_000 + "1" + "}" * 50_000,
    "invalid JSON": '{"title": "Bridge", "body": "' + PARAGRAPHS[0] + '", ',
    "a JavaScript function": "(function(a,b){return {title:a,body:b}})(\"Bridge\",\"" + PARAGRAPHS[0] + "\")",
    "a JavaScript object literal": "{title:'Bridge',body:'" + PARAGRAPHS[0] * 3 + "'}",
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_a_hostile_blob_is_skipped_and_the_article_of_the_page_s_other_blob_still_found(name):
    story = next_data({"props": {"pageProps": {"story": {"title": "Bridge", "body": HTML_BODY}}}})
    for hostile in (assignment("__NUXT__", HOSTILE[name]),
                    f'<script id="__NEXT_DATA__" type="application/json">{HOSTILE[name]}</script>'):
        assert extract(shell(hostile), URL).text == ""
        assert_structured(extract(shell(hostile + story), URL))


def test_a_wide_blob_is_walked_within_the_node_budget():
    from newscrawl.extract.methods import embedded

    story = {"title": "Bridge", "body": HTML_BODY}
    wide = {"items": [{"n": n} for n in range(embedded.MAX_NODES * 2)], "more": {"story": story}}
    assert embedded.find_article([wide]) is None  # the story lies past the budget: not reached
    assert embedded.find_article([{"more": {"story": story}}]) is not None
