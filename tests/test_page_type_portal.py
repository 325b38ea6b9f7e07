"""Listing and home pages of teaser items are not articles; articles with a long related-links
block stay articles (issue #26, synthetic pages written for the test)."""

from __future__ import annotations

import pytest

from newscrawl.extract import page_type
from tests.portal_pages import HEADLINES

LANGS = ("zh", "ru", "en")


def _stop(lang):
    return "。" if lang == "zh" else ". "


def teaser_listing(lang: str, og_article: bool = False) -> str:
    """24 items, each a headline link followed, in the same paragraph, by its teaser."""
    items = []
    for i in range(24):
        title = HEADLINES[lang][i % 12]
        teaser = (title + _stop(lang)) * 2
        items.append(f'<p><a href="/2026/11/27/{100 + i}.html">{title}</a> {teaser}</p>')
    meta = '<meta property="og:type" content="article">' if og_article else ""
    return f'<html><head>{meta}<title>News</title></head><body><div class="feed">{"".join(items)}</div></body></html>'


def article_with_related(lang: str) -> str:
    """Eight body paragraphs (one opening with a person's name as a link), then 25 related
    stories, each a headline link and a teaser."""
    body = []
    for i in range(8):
        sentence = "".join(title + _stop(lang) for title in HEADLINES[lang][i:i + 4])
        lead = '<a href="/people/jane-doe/">Jane Doe</a> ' if i == 2 else ""
        body.append(f"<p>{lead}{sentence}</p>")
    related = "".join(
        f'<li><a href="/2026/11/26/{200 + i}.html">{HEADLINES[lang][i % 12]}</a> '
        f'{HEADLINES[lang][(i + 5) % 12]}{_stop(lang)}</li>' for i in range(25))
    return (f"<html><head><title>{HEADLINES[lang][0]}</title></head><body><article><h1>{HEADLINES[lang][0]}</h1>"
            f'{"".join(body)}</article><aside><h2>Related</h2><ul>{related}</ul></aside></body></html>')


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("url", ["https://www.example.com/", "https://www.example.com/news/latest/"])
def test_teaser_items_do_not_make_a_run_of_prose(lang, url):
    assert page_type(teaser_listing(lang), url) == "listing"


@pytest.mark.parametrize("lang", LANGS)
def test_home_page_of_teasers_is_a_listing_whatever_its_og_type(lang):
    """A site-wide ``og:type`` of article does not make the home page an article."""
    assert page_type(teaser_listing(lang, og_article=True), "https://www.example.com/") == "listing"


@pytest.mark.parametrize("lang", LANGS)
def test_article_with_a_long_related_block_stays_an_article(lang):
    assert page_type(article_with_related(lang), "https://www.example.com/2026/11/27/story.html") == "article"
