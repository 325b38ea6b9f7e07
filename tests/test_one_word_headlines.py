"""One-word headlines on a catalogue page ("Breakthrough", "Обновлено") are crawled and exported
when the URL and the list say article, and the links a crawl's catalogue stage rejected for their
anchor text or place are named in one INFO line at the end (issue 38, item 4)."""

from __future__ import annotations

import logging

import pytest_twisted
from conftest import crawl_settings, read_jsonl, run_crawl, site_spider
from test_crawl_local import article_html

HEADLINES = ["City council approves the new budget for schools", "Storm closes the harbour for two days",
             "Library opens a new reading room downtown", "Local team wins the regional cup final",
             "Bakery on Main Street celebrates fifty years"]
ONE_WORD = {"Breakthrough": "breakthrough", "Обновлено": "obnovleno"}
NEWSLETTER = "/2026/11/17/sign-up-for-our-weekly-newsletter.html"


def slug(title: str) -> str:
    return "-".join(title.lower().split())


def serve_site(server) -> dict[str, str]:
    """A catalogue of slug-form article links, two of them one-word headlines with one-word slugs;
    returns path -> headline of every article."""
    articles = {f"/2026/11/{20 + i}/{slug(title)}.html": title for i, title in enumerate(HEADLINES)}
    articles.update({f"/2026/11/1{i}/{word}.html": title for i, (title, word) in enumerate(ONE_WORD.items())})
    for path, title in articles.items():
        server.add(path, article_html(title))
    server.add(NEWSLETTER, article_html("Sign up for our weekly newsletter"))
    items = "".join(f'<li class="story"><a href="{path}">{title}</a></li>' for path, title in articles.items())
    nav = '<nav class="menu"><a href="/world/">World</a></nav>'
    ad = f'<div class="ad-banner"><a href="{NEWSLETTER}">Sign up for our weekly newsletter</a></div>'
    server.add("/latest/", f"<html><body>{nav}<ul class='list'>{items}</ul>{ad}</body></html>")
    return articles


@pytest_twisted.ensureDeferred()
async def test_one_word_headlines_are_exported_and_near_misses_are_logged(http_server, tmp_path, caplog):
    articles = serve_site(http_server)
    feed = tmp_path / "out.jsonl"
    spider = site_spider(catalogues=[http_server.url("/latest/")])
    with caplog.at_level(logging.INFO):
        crawler = await run_crawl(spider, crawl_settings(tmp_path, feed))
    exported = {record["url"]: record["title"] for record in read_jsonl(feed)}
    assert exported == {http_server.url(path): title for path, title in articles.items()}
    stats = crawler.stats.get_stats()
    assert stats.get("newscrawl/catalogue/rejected/anchor_text", 0) == 0
    assert stats["newscrawl/catalogue/near_misses"] == 1
    lines = [r.getMessage() for r in caplog.records
             if r.levelno == logging.INFO and "rejected for their anchor text or place" in r.getMessage()]
    assert len(lines) == 1
    assert "1 catalogue links rejected" in lines[0] and "(advert 1)" in lines[0]
    assert http_server.url(NEWSLETTER) + " (advert)" in lines[0]
