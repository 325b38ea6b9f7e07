"""End to end (issue #26): the real site spider on a local portal whose home page lists
columnists and channels next to its articles (tests/portal_pages.py).  The articles are all
exported; the columnists' and the channels' pages are never exported, and at most the one
channel link of an article-like URL (the book) is fetched."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import pytest
import pytest_twisted
from conftest import crawl_settings, read_jsonl, run_crawl, site_spider

from tests.portal_pages import HEADLINES, portal


def article_page(lang: str, i: int) -> str:
    title = HEADLINES[lang][i % 12]
    stop = "。" if lang == "zh" else ". "
    paragraphs = "".join(
        f"<p>{i}-{n} " + "".join(HEADLINES[lang][(i * 5 + n + k) % 12] + stop for k in range(4)) + "</p>"
        for n in range(8))  # each article's own body
    return (f"<html><head><title>{title}</title></head><body><article><h1>{title}</h1>{paragraphs}"
            "</article></body></html>")


def other_page(title: str) -> str:
    """A columnist's or a channel's page: a list of links, no article."""
    links = "".join(f'<li><a href="/elsewhere/{n}">Another item number {n} on this page</a></li>'
                    for n in range(30))
    return f"<html><head><title>{title}</title></head><body><h1>{title}</h1><ul>{links}</ul></body></html>"


@pytest.mark.parametrize("lang", ["zh", "ru", "en"])
@pytest_twisted.ensureDeferred
async def test_portal_crawl_exports_the_articles_and_not_the_columnists_or_channels(lang, http_server, tmp_path):
    s = http_server
    home, html, articles = portal(lang, s.base)
    s.add("/", html)
    for i, url in enumerate(articles):
        s.add(urlsplit(url).path, article_page(lang, i))
    others = ["/column/", "/columnist/", "/authors/", "/auto/", "/cars/", "/tousu/", "/complaints/", "/app",
              "/book"]
    for path in set(re.findall(r'href="' + re.escape(s.base) + r'(/[^"]*)"', html)):
        if any(path.startswith(prefix) for prefix in others) or path.count("/") == 2:
            s.add(path, other_page(path))
    feed = tmp_path / "out.jsonl"
    crawler = await run_crawl(site_spider(catalogues=[home]), crawl_settings(tmp_path, feed))
    exported = {item["url"] for item in read_jsonl(feed)}
    assert exported == set(articles)
    fetched = {path for path, hits in s.hits.items() if hits and path not in ("/", "/robots.txt")}
    not_articles = fetched - {urlsplit(url).path for url in articles}
    assert not_articles <= {p for p in not_articles if p.startswith("/book")}, sorted(not_articles)
    assert crawler.stats.get_value("item_scraped_count") == len(articles)
