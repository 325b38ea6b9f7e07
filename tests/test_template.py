"""Yan and Wang (2020) template library: near-identical leaves, batches of N1 pages, N2 threshold,
bounded size, SQLite persistence, and cleaning a page before extraction."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from newscrawl.extract import Page
from newscrawl.extract.methods.template import (
    LeafIndex,
    SiteTemplates,
    TemplateStore,
    block_features,
    blocks_of,
)

NAV = "<ul><li><a href='/'>Home</a></li><li><a href='/world'>World news</a></li></ul>"
FOOTER = "<div class='foot'>Copyright 2024 Example Media Group, all rights reserved worldwide.</div>"


WORDS = "river council harbour budget vote storm school bridge festival court farmers rail".split()


def words(i: int, n: int = 8) -> str:
    """Text that differs from every other ``i``'s by far more than an eighth of its length."""
    digest = hashlib.sha256(str(i).encode()).digest()
    return " ".join(WORDS[b % len(WORDS)] + str(b) for b in digest[:n])


def page_html(i: int, footer: str = FOOTER) -> str:
    return f"<html><body>{NAV}<div class='story'><p>Story {words(i)}</p></div>{footer}</body></html>"


def test_near_identical_texts_match_within_an_eighth_of_the_shorter_length():
    index = LeafIndex()
    text = "Copyright 2024 Example Media Group"  # 34 chars: 4 edits allowed
    index.add_entry("div", text)
    assert index.find("div", text.replace("2024", "2025")) == text
    assert index.find("div", "Copyright 1999 Example Mediums Grp") is None
    assert index.find("span", text) is None  # tag names must agree
    index.add_entry("a", "Home")
    assert index.find("a", "Home") == "Home"
    assert index.find("a", "Hone") is None  # length <= 8: must be equal


def test_leaves_seen_in_n2_pages_of_a_batch_become_the_template():
    site = SiteTemplates(n1=10, n2=3)
    for i in range(9):
        assert site.learn(Page.from_html(page_html(i)).root) == 0
    assert len(site.template) == 0  # nothing promoted before the batch is complete
    site.learn(Page.from_html(page_html(9)).root)
    texts = {text for _, text, _ in site.entries()}
    assert {"Home", "World news"} <= texts
    assert any(t.startswith("Copyright") for t in texts)
    assert not any(t.startswith("Story") for t in texts)  # each article paragraph is seen once
    assert site.pages_in_batch == 0 and len(site.cache) == 0  # the cache is emptied per batch


def test_footer_variants_count_as_one_leaf():
    site = SiteTemplates(n1=4, n2=3)
    for i in range(4):
        site.learn(Page.from_html(page_html(i, FOOTER.replace("2024", f"20{20 + i}"))).root)
    assert any(tag == "div" and text.startswith("Copyright") for tag, text, _ in site.entries())


def test_clean_removes_template_leaves_before_extraction():
    site = SiteTemplates(n1=10, n2=3)
    for i in range(10):
        site.learn(Page.from_html(page_html(i)).root)
    page = Page.from_html(page_html(99))
    assert "World news" in page.body.text_content()
    removed = site.clean(page)
    text = page.body.text_content()
    assert removed >= 3
    assert "World news" not in text and "Copyright" not in text
    assert words(99) in text


def test_library_is_bounded_on_sites_with_endless_unique_text():
    site = SiteTemplates(n1=3, n2=3, max_entries=5)
    for i in range(60):
        # every batch of 3 pages shares a different set of 4 leaves
        shared = "".join(f"<span>{words(1000 * (i // 3) + k, 3)}</span>" for k in range(4))
        site.learn(Page.from_html(f"<html><body>{shared}<p>{words(-i)}</p></body></html>").root)
        assert len(site.template) <= 5
        assert len(site.cache) <= 3 * 5
    assert len(site.template) == 5


def test_store_survives_a_restart(tmp_path):
    store = TemplateStore(tmp_path / "templates.sqlite3")
    site = store.site("example.com")
    for i in range(12):  # one full batch and two pages of the next
        site.learn(Page.from_html(page_html(i)).root)
    store.save("example.com")
    store.close()

    again = TemplateStore(tmp_path / "templates.sqlite3")
    restored = again.site("example.com")
    assert {t for _, t, _ in restored.entries()} == {t for _, t, _ in site.entries()}
    assert restored.pages_in_batch == 2 and len(restored.cache) == len(site.cache)
    assert again.sites() == ["example.com"]
    assert again.site("other.org").entries() == []


def test_block_features_follow_section_5_with_add_one_smoothing():
    # Yan and Wang's (2020) Figure 2 page 1 (block statistics in its Table 3).
    html = (
        "<html><body><div><ul><li><a>中国</a></li><li><a>国际</a></li></ul></div>"
        "<div><p>正文部分A</p><img src='x.png'></div><a>广告A</a><a>广告B</a></body></html>"
    )
    blocks = blocks_of(Page.from_html(html))
    assert [b.element.tag for b in blocks] == ["body", "div", "div"]
    body, nav, main = blocks
    assert (body.text, body.link_text, body.links) == (6, 6, 2)  # nested divs excluded
    assert (nav.text, nav.link_text, nav.links) == (4, 4, 2)
    assert (main.text, main.images) == (5, 1)
    X = block_features(blocks)
    outer = 6 + 4 + 5
    assert X[2] == pytest.approx([5 / (outer + 1), 0, 0, 1 / 2, 0])
    assert X[0] == pytest.approx([6 / (outer + 1), 6 / 11, 2 / 5, 0, 6 / 7])
    assert np.all(X <= 1)


def test_clean_drops_labels_left_without_their_template_text():
    tags = "<div class='tags'>Tags: <a href='/t/a'>Hardware</a>, <a href='/t/b'>Open source</a></div>"
    share = "<div><p>标签：<a href='/t/c'>江城经济</a> <a href='/t/d'>民生</a></p></div>"
    body = "<p>Said in the report: <a href='/t/a'>Hardware</a> prices fell across the region.</p>"

    def html_of(i: int) -> str:
        return f"<html><body>{NAV}<div class='story'><p>Story {words(i)}</p>{body}{tags}{share}</div></body></html>"

    site = SiteTemplates(n1=10, n2=3)
    for i in range(10):
        site.learn(Page.from_html(html_of(i)).root)
    assert {"Hardware", "江城经济"} <= {text for _, text, _ in site.entries()}
    page = Page.from_html(html_of(99))
    site.clean(page)
    text = page.body.text_content()
    assert "Tags" not in text and "标签" not in text  # the labels went with their links
    assert page.body.xpath("//div[@class='tags']") == []
    assert "Said in the report:" in text and "prices fell across the region." in text  # prose stays
    assert words(99) in text


def sentence_page(i: int) -> str:
    """An article whose paragraphs link one recurring topic word, emphasise a lead label and show
    a code sample, inside the running text; the layout around it is a menu and a tag line."""
    return (f"<html><body>{NAV}<div class='story'>"
            f"<p><strong>Summary:</strong> {words(i)} and the rest of the lead sentence.</p>"
            f"<p>Yesterday a divided <a href='/topic/us'>US</a> Supreme Court heard {words(i + 100)}.</p>"
            f"<p>As <a href='/agency'>the agency</a> reports, {words(i + 200)} today.</p>"
            "<pre><code>items.map { <span class='o'>|</span>x<span class='o'>|</span> x * 2 }</code></pre>"
            f"</div><div class='tags'>Tags: <a href='/t/1'>Courts</a>, <a href='/t/2'>Politics</a></div>"
            f"{FOOTER}</body></html>")


def test_inline_words_of_running_text_are_never_template_leaves():
    """Yan and Wang remove blocks of common noise: a link, a bold label or a code token inside a
    sentence is part of that sentence, however many pages repeat it (issue 29.1)."""
    site = SiteTemplates(n1=10, n2=3)
    for i in range(10):
        site.learn(Page.from_html(sentence_page(i)).root)
    texts = {text for _, text, _ in site.entries()}
    assert {"Home", "World news", "Courts", "Politics"} <= texts  # the layout is still learned
    assert not texts & {"US", "the agency", "Summary:", "|"}
    page = Page.from_html(sentence_page(42))
    assert site.clean(page) >= 4
    text = page.body.text_content()
    for kept in ("a divided US Supreme Court", "As the agency reports", "Summary:", "{ |x| x * 2 }"):
        assert kept in text
    assert "Home" not in text and "Tags:" not in text and "Copyright" not in text


def test_clean_after_a_body_method_leaves_no_stale_lengths_or_classes():
    """auto's Gain leaves each element's text lengths and the body's classes on the page
    (Page.lengths, the paywall check read them); cleaning the tree afterwards drops them with
    the other cached views, so the lengths are those of the cleaned tree."""
    from newscrawl.extract import dom
    from newscrawl.extract.methods import auto
    from newscrawl.extract.page import BODY_CLASSES

    site = SiteTemplates(n1=10, n2=3)
    for i in range(10):
        site.learn(Page.from_html(page_html(i)).root)
    page = Page.from_html(page_html(99))
    auto.Gain(page)
    before = page.lengths
    assert site.clean(page) >= 3
    assert BODY_CLASSES not in page.derived
    assert page.lengths == dom.text_and_link_lengths(page.body) != before


def test_clean_forgets_the_h1_read_before_it():
    """The headline's <h1> read before the clean-up is read again after it: a site-wide <h1> the
    template removed must not stand in for the page's own."""
    from newscrawl.extract.fields.title import _main_h1

    page = Page.from_html("<html><body><h1>Site-wide banner</h1><article><h1>The story's headline</h1>"
                          "<p>Text of the story.</p></article></body></html>")
    assert _main_h1(page) == "Site-wide banner"
    banner = next(page.root.iter("h1"))
    SiteTemplates().clean(page, leaves=[banner])
    assert _main_h1(page) == "The story's headline"
