"""Article links on portal home pages of sites never seen (issue #26), on synthetic pages
(tests/portal_pages.py): columnists linked by name or with a teaser line, channel links (books,
complaints, car models, app download) and a foreign-language edition block in a side column."""

from __future__ import annotations

import pytest

from newscrawl.discovery.links import score_links
from newscrawl.extract import page_type
from tests.portal_pages import DOMAINS, portal

LANGS = ("zh", "ru", "en")


def _scores(lang):
    url, html, articles = portal(lang)
    return score_links(html, url, [DOMAINS[lang]]), articles


@pytest.mark.parametrize("lang", LANGS)
def test_every_article_of_the_portal_is_found(lang):
    scores, articles = _scores(lang)
    assert set(articles) <= {link.url for link in scores.accepted}


@pytest.mark.parametrize("lang", LANGS)
def test_foreign_edition_block_in_a_side_column_is_content(lang):
    """Eight headline links of one article form in an ``aside``: a list, not navigation."""
    scores, articles = _scores(lang)
    edition = [url for url in articles if "/news/7003" in url]
    assert len(edition) == 8 and set(edition) <= {link.url for link in scores.accepted}


@pytest.mark.parametrize("lang", LANGS)
def test_columnists_are_not_articles(lang):
    """By name (``/zhangsan/``, ``/authors/ivanov``, ``/columnist/40100/``) or with their latest
    column's teaser as anchor text (``/column/zhangsan/``: a URL with no article evidence)."""
    scores, _ = _scores(lang)
    taken = [link.url for link in scores.accepted if "/column" in link.url or "/authors/" in link.url]
    assert taken == []
    assert any("/column/" in url for url in scores.rejected)


@pytest.mark.parametrize("lang", LANGS)
def test_channel_links_are_not_articles(lang):
    """Complaints, car models and the app download: each a shape of its own (or one it shares
    with no headline link) on a page whose articles share theirs."""
    scores, _ = _scores(lang)
    channels = [link.url for link in scores.accepted
                if any(word in link.url for word in ("auto.", "cars.", "complaints", "tousu.", "/app", "app."))]
    assert channels == []


@pytest.mark.parametrize("lang", LANGS)
def test_portal_home_page_is_a_listing(lang):
    url, html, _ = portal(lang)
    assert page_type(html, url) == "listing"
