"""Markdown and HTML renderings of the body: the nodes that make ``text``, with their structure."""

from pathlib import Path

import pytest
from lxml import html as lxml_html

from newscrawl.evaluation.rich import markdown_headings, markdown_images, markdown_text
from newscrawl.extract import extract
from newscrawl.extract.render import blocks, write
from tests.pages import ARTICLE_PARAGRAPHS, english_article

STRUCTURED = """
<h2>What the plan funds</h2>
<p>The plan funds <strong>road repairs</strong>, a <em>new library</em> and <a href="/parks">parks</a> in the city.</p>
<ul><li>Road repairs in the northern district of the city</li><li>A new library with a reading room
<ol><li>Opening in the spring of next year</li></ol></li></ul>
<blockquote><p>It is a fair compromise for everyone who lives in the city, said the mayor.</p></blockquote>
<table><tr><th>Item</th><th>Cost</th></tr><tr><td>Roads</td><td>$4m</td></tr><tr><td>Library | annex</td><td>$2m</td></tr></table>
<pre>total = roads + library</pre>
<p>1. A line that starts like a list item # and * stars * and _under_ and [brackets](x) and &lt;tags&gt; &amp; more.</p>
"""


def test_markdown_keeps_the_structure_and_exactly_the_text():
    article = extract(english_article(extra_body=STRUCTURED), url="https://example.com/news/1")
    md = article.markdown
    assert "## What the plan funds" in md
    assert "**road repairs**" in md and "*new library*" in md and "[parks](https://example.com/parks)" in md
    assert "- Road repairs in the northern district of the city" in md
    assert "  1. Opening in the spring of next year" in md
    assert "> It is a fair compromise" in md
    assert "| Item | Cost |\n| --- | --- |\n| Roads | $4m |\n| Library \\| annex | $2m |" in md
    assert "```\ntotal = roads + library\n```" in md
    assert markdown_headings(md) == ["What the plan funds"]
    # A CommonMark reader sees the text of ``text``, line for line except the table (one row a line).
    assert markdown_text(md).split() == article.text.split()
    for paragraph in ARTICLE_PARAGRAPHS:
        assert paragraph in article.text


def test_html_is_the_same_body_with_allow_listed_tags():
    article = extract(english_article(extra_body=STRUCTURED), url="https://example.com/news/1")
    root = lxml_html.fragment_fromstring(article.html, create_parent="div")
    tags = {el.tag for el in root.iter()} - {"div"}
    assert tags <= {"p", "h2", "h3", "ul", "ol", "li", "blockquote", "table", "tr", "th", "td", "pre", "code",
                    "strong", "em", "a", "figure", "img", "figcaption"}
    assert {"h2", "ul", "ol", "li", "blockquote", "table", "pre", "strong", "em", "a"} <= tags
    assert root.xpath("//a/@href") == ["https://example.com/parks"]
    assert " ".join(root.text_content().split()).replace(" ", "") == article.text.replace("\n", "").replace(" ", "")


def test_text_is_unchanged_by_the_renderings():
    plain = english_article(extra_body=STRUCTURED)
    article = extract(plain, url="https://example.com/news/1")
    from newscrawl.extract.dom import render_paragraphs
    from newscrawl.extract.page import Page

    page = Page.from_html(plain, url="https://example.com/news/1")
    # the renderer's paragraph lines are render_paragraphs' lines for the same root
    walked = blocks._Walker(page.body, (), page.base_url, page.url, {}).walk()
    lines = [line for b in walked for line in b.lines]
    assert lines == render_paragraphs(page.body)
    assert article.text.split("\n")[0] == ARTICLE_PARAGRAPHS[0]


def test_lines_a_method_dropped_or_added_are_followed():
    built = blocks._Walker(lxml_html.fromstring("<div><h2>Head</h2><p>One</p><p>Two</p><p>Three</p></div>"),
                           (), None, None, {}).walk()
    kept = blocks.align(built, ["Lead added by the method", "Head", "One", "Three"])
    assert [b.lines for b in kept] == [["Lead added by the method"], ["Head"], ["One"], ["Three"]]
    assert kept[1].kind == "h"


def test_bold_only_short_line_is_a_heading_and_br_lines_stay_apart():
    zh = ("<p>第一段文字很长，讲述了事情的经过，以及有关部门的回应和下一步的安排。</p><p><strong>一、基本情况</strong></p>"
          "<p>第二行内容<br>第三行内容也很长，并且包含了更多的细节。</p>")
    article = extract(english_article(extra_body=zh), url="https://example.com/zh")
    assert "### 一、基本情况" in article.markdown
    assert "第二行内容\n\n第三行内容" in article.markdown


def test_oversized_tables_and_image_lists_are_capped_and_counted():
    rows = "".join(f"<tr><td>r{i}</td><td>{i}</td></tr>" for i in range(blocks.MAX_TABLE_ROWS + 50))
    root = lxml_html.fromstring(f"<div><p>Before the table.</p><table>{rows}</table></div>")
    lines = ["Before the table.", *[x for i in range(blocks.MAX_TABLE_ROWS + 50) for x in (f"r{i}", str(i))]]
    rendering = blocks.render_body(root, (), lines, None, None)
    assert rendering.capped == {"table_rows": 50}
    assert rendering.markdown.count("| r") == blocks.MAX_TABLE_ROWS
    pictures = "".join(f'<img src="/img/p{i}.jpg" alt="p{i}">' for i in range(write.MAX_IMAGES + 20))
    article = extract(english_article(extra_body=f"<p>{pictures}</p>"), url="https://example.com/a")
    assert len(article.images) == write.MAX_IMAGES
    assert article.capped == {"images": 20}
    assert len(markdown_images(article.markdown)) == write.MAX_IMAGES


DATASETS = Path(__file__).resolve().parents[2] / "shared" / "datasets"


@pytest.mark.skipif(not (DATASETS / "zh-news").is_dir(), reason="../shared/datasets is absent")
@pytest.mark.parametrize("dataset", ["zh-news", "fundus", "daniel-ru"])
def test_real_pages_markdown_read_back_is_text(dataset):
    from newscrawl.evaluation.datasets import load_dataset
    from newscrawl.extract.render.blocks import _BULLET, _NUMBERED

    def unmarked(text: str) -> str:  # a paragraph written as a list item shows its marker as the list's
        lines = [line[(m.end() if (m := _BULLET.match(line) or _NUMBERED.match(line)) else 0):]
                 for line in text.split("\n")]
        return "".join("".join(lines).split())

    for record in load_dataset(DATASETS / dataset, limit=15):
        article = extract(record.html, url=record.url)
        read_back = markdown_text(article.markdown)
        assert unmarked(read_back) == unmarked(article.text), record.id


def test_emphasis_commonmark_would_not_read_is_left_out_of_the_markdown_only():
    from newscrawl.extract.render import inline

    md, out = inline.render([("o", "strong", None), ("t", "文章引用："), ("c", "strong"), ("t", "赵培")])
    assert md == "文章引用：赵培" and out == "<strong>文章引用：</strong>赵培"
    md, _ = inline.render([("t", "见"), ("o", "em", None), ("t", "「标题」"), ("c", "em"), ("t", " 后文")])
    assert markdown_text(md) == "见「标题」 后文"
    md, _ = inline.render([("o", "strong", None), ("t", "Note:"), ("c", "strong"), ("t", " it works")])
    assert md == "**Note:** it works"


def test_a_heading_that_heads_nothing_is_a_paragraph():
    built = blocks._Walker(lxml_html.fromstring(
        "<div><h2>Section</h2><p>Text of it.</p><h2>Weitere Videos</h2><h2>Last</h2></div>"),
        (), None, None, {}).walk()
    rendering = blocks.render_body(None, (), [], None, None)
    assert rendering.markdown == ""
    kept = blocks._empty_headings_demoted(blocks.align(built, ["Section", "Text of it.", "Weitere Videos", "Last"]))
    assert [b.kind for b in kept] == ["h", "p", "p", "p"]


def test_a_heading_over_a_picture_heads_the_picture_and_a_teaser_strip_still_heads_nothing():
    """A product round-up names each product in a heading over its photo, then the next product:
    the headings are sections.  The last heading of the body, or one that a heading of a higher
    level follows, still heads nothing, with a picture or without."""
    products = "".join(f'<h2>{name}</h2><img src="/img/{name.split()[0].lower()}-1200.jpg" alt="">'
                       for name in ("Moccamaster KBT drip coffee maker", "Breville Precision Brewer"))
    extra = (f"{products}<h2>How we tested them</h2><p>{ARTICLE_PARAGRAPHS[1]}</p>"
             '<h3>Weitere Videos</h3><img src="/img/teaser-1200.jpg" alt=""><h2>Last one</h2>'
             '<img src="/img/last-1200.jpg" alt="">')
    article = extract(english_article(extra_body=extra), url="https://example.com/news/1")
    assert markdown_headings(article.markdown) == ["Moccamaster KBT drip coffee maker", "Breville Precision Brewer",
                                                   "How we tested them"]
    md = article.markdown
    assert md.index("## Moccamaster") < md.index("/img/moccamaster-1200.jpg") < md.index("## Breville") \
        < md.index("/img/breville-1200.jpg") < md.index("## How we tested")
    assert {"https://example.com/img/moccamaster-1200.jpg", "https://example.com/img/breville-1200.jpg"} \
        <= {i["url"] for i in markdown_images(md)}


def test_a_sentence_long_heading_before_the_first_paragraph_is_a_dek_not_a_subheading():
    """Pages set the standfirst (or the headline again, with a kicker) as an ``<h2>`` above the
    text; a section title is short, and one after the first paragraph stays a heading."""
    dek = "The city will spend more on schools and buses next year, and less on its offices."
    later = "A long section title that comes after the first paragraph of the story"
    story = f"<div><h2>{dek}</h2><p>{ARTICLE_PARAGRAPHS[0]}</p><h2>{later}</h2><p>{ARTICLE_PARAGRAPHS[1]}</p></div>"
    root = lxml_html.fromstring(story)
    lines = [dek, ARTICLE_PARAGRAPHS[0], later, ARTICLE_PARAGRAPHS[1]]
    rendering = blocks.render_body(root, (), lines, None, None)
    assert markdown_headings(rendering.markdown) == [later]
    assert markdown_text(rendering.markdown).split("\n") == lines
    short = lxml_html.fromstring(f"<div><h2>The vote</h2><p>{ARTICLE_PARAGRAPHS[0]}</p></div>")
    assert markdown_headings(blocks.render_body(short, (), ["The vote", ARTICLE_PARAGRAPHS[0]], None, None).markdown) \
        == ["The vote"]


def test_text_without_marks_renders_as_the_token_walk_renders_it():
    """A paragraph with no emphasis or link is rendered from its line, not by the token walk:
    both must collapse every white-space character alike and escape alike."""
    import sys

    from newscrawl.extract.render import inline

    spaces = "".join(chr(i) for i in range(sys.maxunicode + 1) if chr(i).isspace())
    texts = [f"{spaces}a{spaces}b *c* _d_ [e](f) <g> & | ~ `h`{spaces}", "1. item", "# not a heading", spaces, "",
             "\u3000中文\u00a0text\u2028end\x1c"]
    for text in texts:
        assert inline.render_text(text) == inline.render([("t", text)])
        split = [("t", text[i:i + 3]) for i in range(0, len(text), 3)]  # one text spread over several nodes
        assert inline.render_text(text) == inline.render(split)


def test_paragraphs_spread_over_inline_elements_and_white_space_render_as_their_line():
    root = lxml_html.fromstring("<div><p> a<span>\u3000b </span><span> </span>c*d<img src='x.gif'>e </p>"
                                "<p>x<strong> bold </strong>y</p></div>")
    lines = ["a b c*d e", "x bold y"]
    rendering = blocks.render_body(root, (), lines, None, None)
    assert rendering.markdown == "a b c\\*d e\n\nx **bold** y"
    assert rendering.html == "<p>a b c*d e</p><p>x <strong>bold</strong> y</p>"


def test_a_table_cell_over_the_cap_in_one_text_or_many_makes_a_layout_grid():
    cap = blocks.MAX_TABLE_CELL_CHARS
    for cell in (" x" * cap, "<b>x</b> " * (cap // 2) + "x " * (cap // 2)):  # exactly the cap: data
        table = lxml_html.fromstring(f"<table><tr><td>{cell}</td><td>b</td></tr></table>")
        assert blocks._data_table(table)
    for cell in (" x" * (cap + 1), "<b>x</b> " * (cap // 2) + "x " * (cap // 2 + 1)):  # one more: layout
        table = lxml_html.fromstring(f"<table><tr><td>{cell}</td><td>b</td></tr></table>")
        assert not blocks._data_table(table)
    nested = lxml_html.fromstring("<table><tr><td>a</td><td><table><tr><td>b</td></tr></table></td></tr></table>")
    assert not blocks._data_table(nested)


def test_skipped_parts_of_table_cells_are_left_out_of_the_rendered_table():
    root = lxml_html.fromstring(
        "<div><p>Before the table.</p><table><tr><th>Item</th><th>Cost <sup class='ref'>[1]</sup></th></tr>"
        "<tr><td>Roads <a href='#n'>note</a></td><td>$4m</td></tr>"
        "<tr class='ad'><td>Buy</td><td>now</td></tr></table></div>")
    skip = {root.find_class("ref")[0], root.find_class("ad")[0], root.xpath("//a")[0]}
    from newscrawl.extract.dom import render_paragraphs

    rendering = blocks.render_body(root, skip, render_paragraphs(root, skip), None, None)
    assert rendering.markdown == "Before the table.\n\n| Item | Cost |\n| --- | --- |\n| Roads | $4m |"


def test_a_table_the_text_does_not_hold_is_neither_rendered_nor_counted():
    rows = "".join(f"<tr><td>r{i}</td><td>{i}</td></tr>" for i in range(blocks.MAX_TABLE_ROWS + 50))
    root = lxml_html.fromstring(f"<div><p>Before the table.</p><table>{rows}</table><p>After it.</p></div>")
    rendering = blocks.render_body(root, (), ["Before the table.", "After it."], None, None)
    assert rendering.markdown == "Before the table.\n\nAfter it."
    assert rendering.capped == {}
