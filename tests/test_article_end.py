"""Where the article ends (:mod:`newscrawl.extract.methods.article_end`): a section of the page's own
below the article (a newsletter call to action) leaves the body in every rendering, a closing
section of the article stays, and only headings near the body's end are weighed."""

from __future__ import annotations

from pathlib import Path

from lxml import html

from newscrawl.evaluation.rich import markdown_headings
from newscrawl.extract import Page, extract, models
from newscrawl.extract.body import Body
from newscrawl.extract.methods import article_end, auto_learned
from tests.pages import english_article
from tests.test_rich_structure import MORE

URL = "https://example.com/news/2026/11/20/council-budget.html"
# Three sections of the article, each a heading over four paragraphs.
SECTIONS = "".join(f"<h2>Part {n}</h2>" + "".join(f"<p>{line}</p>" for line in MORE) for n in (1, 2, 3))
NEWSLETTER = ('<div class="cta-box"><h3>Never miss a council vote</h3>'
              "<p>Get the city hall briefing in your inbox every Friday morning.</p>"
              '<a href="/subscribe">Subscribe</a></div>')
CLOSING = ("<h2>What happens next</h2><p>The budget goes to the regional office, which has a month to "
           "approve the council's plan for the libraries and parks.</p>")


def test_a_newsletter_box_below_the_article_leaves_text_markdown_and_html():
    found = extract(english_article(extra_body=SECTIONS + NEWSLETTER), url=URL)
    for rendering in (found.text, found.markdown, found.html):
        assert "Never miss a council vote" not in rendering
        assert "Friday morning" not in rendering
        assert MORE[3] in rendering  # the article's last paragraph
    assert markdown_headings(found.markdown) == ["Part 1", "Part 2", "Part 3"]
    whole = auto_learned.extract_body(Page.from_html(english_article(extra_body=SECTIONS + NEWSLETTER), url=URL),
                                      article_end=False)
    assert "Never miss a council vote" in whole.text  # the rules and the edge veto had kept it


def test_a_closing_section_of_the_article_stays():
    found = extract(english_article(extra_body=SECTIONS + CLOSING), url=URL)
    assert markdown_headings(found.markdown) == ["Part 1", "Part 2", "Part 3", "What happens next"]
    assert found.text.endswith("approve the council's plan for the libraries and parks.")


def test_only_headings_with_little_of_the_body_after_them_are_weighed():
    page = Page.from_html(english_article(extra_body=SECTIONS + CLOSING), url=URL)
    body = auto_learned.extract_body(page, article_end=False)
    rows = article_end.heading_rows(body)
    assert [article_end.dom.node_text(heading) for _line, _row, heading in rows] == ["What happens next"]
    line, row, _heading = rows[0]
    assert body.text_paragraphs()[line] == "What happens next"
    assert len(row) == len(article_end.FEATURES)
    after_share = row[article_end.FEATURES.index("after_share")]
    assert 0 < after_share <= article_end.MAX_SHARE


def test_the_cut_takes_the_heading_and_all_after_it_at_every_level():
    root = html.fragment_fromstring(
        "<div><p>First paragraph.</p><div><p>Second paragraph.</p><h3>Read more</h3><p>Teaser.</p></div>"
        "<p>Last line.</p></div>")
    body = Body(method="auto", root=root)
    lines = body.text_paragraphs()
    heading = root.find(".//h3")
    cut = article_end.without_tail(body, lines.index("Read more"), heading)
    assert cut.text_paragraphs() == ["First paragraph.", "Second paragraph."]
    assert article_end.dom.render_paragraphs(root, cut.skip) == ["First paragraph.", "Second paragraph."]
    assert not body.skip  # the body it was cut from is unchanged


def test_without_a_model_this_version_can_read_the_body_is_left_whole(tmp_path, monkeypatch, caplog):
    monkeypatch.setattr(models, "MODEL_DIR", tmp_path)
    monkeypatch.setattr(models, "SHIPPED_MODEL_DIR", tmp_path)
    page = Page.from_html(english_article(extra_body=SECTIONS + NEWSLETTER), url=URL)
    body = auto_learned.extract_body(page, article_end=False)
    assert article_end.cut(body) is body  # no file at all
    stale = article_end._load(str(Path(__file__).parents[1] / "data" / "models"))
    stale = dict(stale, features=[*article_end.FEATURES[:-1], "a feature of another version"])
    models.dump_plain(stale, tmp_path / article_end.ARTICLE_END_FILE)
    article_end._load.cache_clear()
    with caplog.at_level("WARNING"):
        assert article_end.cut(body) is body
    assert "trained on other features" in caplog.text
    article_end._load.cache_clear()


def test_a_model_directory_without_the_file_uses_the_shipped_model(tmp_path, monkeypatch):
    monkeypatch.setattr(models, "MODEL_DIR", tmp_path)  # what `scrapy train --out` writes holds no such file
    page = Page.from_html(english_article(extra_body=SECTIONS + NEWSLETTER), url=URL)
    body = auto_learned.extract_body(page, article_end=False)
    assert "Never miss a council vote" not in article_end.cut(body).text


def test_a_page_of_many_short_sections_at_its_end_weighs_only_the_last_few_headings():
    # Hundreds of headings in the body's last part: each candidate reads the words after it, so only
    # the last MAX_CANDIDATES are weighed and the work stays linear in the page.
    long_article = "".join(f"<p>{line} {n}</p>" for n in range(40) for line in MORE)
    tail = "".join(f"<h4>Note {n}</h4><p>See {n}.</p>" for n in range(300))
    page = Page.from_html(english_article(extra_body=long_article + tail), url=URL)
    body = auto_learned.extract_body(page, article_end=False)
    rows = article_end.heading_rows(body)
    assert len(rows) == article_end.MAX_CANDIDATES
    assert article_end.dom.node_text(rows[-1][2]) == "Note 299"
    lines = body.text_paragraphs()
    assert [lines[line] for line, _row, _heading in rows[:2]] == ["Note 236", "Note 237"]
