# ruff: noqa: E501  (fixture HTML and feeds read better unwrapped)
"""Catalogue link scoring (newscrawl.catalogue) without a configured pattern, and feed formats."""

from __future__ import annotations

from newscrawl.catalogue import (
    find_article_links,
    find_list_apis,
    find_next_page,
    headline_like,
    links_from_json,
    parse,
)
from newscrawl.spiders.feeds import parse_feed

BASE = "https://news.example.com/world/"
DOMAINS = ["example.com"]

PAGE = """<html><body>
<header><a href="/">Home</a><a href="/world/">World</a><a href="/login">Sign in</a></header>
<nav class="main-nav"><a href="/2024/05/12/menu-item-that-looks-like-an-article-link">Our most popular stories this week</a></nav>
<div class="news-list">
  <div class="item"><h3><a href="/2024/05/12/leaders-meet-to-discuss-the-budget">Leaders meet to discuss the budget</a></h3></div>
  <div class="item"><h3><a href="/2024/05/12/storm-hits-the-coast-overnight">Storm hits the coast overnight, thousands without power</a></h3></div>
  <div class="item"><h3><a href="/article/1234567.html">Central bank keeps interest rates unchanged again</a></h3></div>
  <div class="item"><h3><a href="https://news.example.com/article/1234567.html">Read more</a></h3></div>
</div>
<div class="sidebar-ad"><a href="/promo/2024/05/buy-a-subscription-for-the-whole-family">Buy a subscription for the whole family now</a></div>
<a href="https://other.org/2024/05/12/a-story-on-another-site">A story on another site about something</a>
<a href="/world/">World news from every continent and country</a>
<div class="pager"><a href="/world/?page=2">Next</a></div>
<div id="feed" data-list-api="/api/list/world.json"></div>
</body></html>"""


def test_headline_like_text():
    assert headline_like("Leaders meet to discuss the budget")
    assert headline_like("国务院常务会议部署经济工作")
    assert not headline_like("Home") and not headline_like("更多") and not headline_like("Read more")


def test_article_links_found_navigation_ads_offsite_rejected():
    links = find_article_links(PAGE, BASE, DOMAINS)
    assert [link.url for link in links] == [
        "https://news.example.com/2024/05/12/leaders-meet-to-discuss-the-budget",
        "https://news.example.com/2024/05/12/storm-hits-the-coast-overnight",
        "https://news.example.com/article/1234567.html",
    ]
    assert links[2].title == "Central bank keeps interest rates unchanged again"


def test_pattern_decides_when_configured():
    links = find_article_links(PAGE, BASE, DOMAINS, pattern=r"/article/\d+\.html$")
    assert [link.url for link in links] == ["https://news.example.com/article/1234567.html"]


def test_next_page_and_list_api():
    root = parse(PAGE)
    assert find_next_page(root, BASE, DOMAINS) == "https://news.example.com/world/?page=2"
    assert find_list_apis(root, BASE) == ["https://news.example.com/api/list/world.json"]
    rel = parse('<html><head><link rel="next" href="/p/3"></head><body></body></html>')
    assert find_next_page(rel, BASE, DOMAINS) == "https://news.example.com/p/3"
    assert find_next_page(parse("<html><body><p>x</p></body></html>"), BASE, DOMAINS) is None


def test_links_from_json_endpoint():
    data = {"code": 0, "data": {"list": [
        {"title": "First story", "url": "/a/1.html", "time": "2024-05-12 08:00"},
        {"title": "Offsite", "url": "https://other.org/a/2.html"},
        {"name": "no url here"},
    ]}}
    import json

    entries = links_from_json(json.dumps(data), "https://news.example.com/api/list.json", DOMAINS)
    # a date without a zone is not guessed
    assert [(e.url, e.title, e.published) for e in entries] == [
        ("https://news.example.com/a/1.html", "First story", None)]
    timed = links_from_json('[{"title": "T", "url": "/b", "ctime": 1715500000}, '
                            '{"title": "U", "url": "/c", "date": "2024-05-12T10:00:00+08:00"}]', BASE, DOMAINS)
    assert [e.published for e in timed] == ["2024-05-12T07:46:40+00:00", "2024-05-12T10:00:00+08:00"]
    assert links_from_json(b"not json", BASE, DOMAINS) == []


FEEDS = {
    "rss091": """<?xml version="1.0"?><rss version="0.91"><channel><title>T</title><link>https://e.com/</link>
        <description>d</description><item><title>One</title><link>https://e.com/1</link>
        <description>First</description></item></channel></rss>""",
    "rss10": """<?xml version="1.0"?><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"
        xmlns="http://purl.org/rss/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/">
        <channel rdf:about="https://e.com/"><title>T</title><link>https://e.com/</link><description>d</description></channel>
        <item rdf:about="https://e.com/1"><title>One</title><link>https://e.com/1</link><description>First</description>
        <dc:date>2024-05-12T08:30:00+02:00</dc:date></item></rdf:RDF>""",
    "rss20": """<?xml version="1.0"?><rss version="2.0"><channel><title>T</title><item><title>One</title>
        <link>/1</link><description>&lt;b&gt;First&lt;/b&gt;</description>
        <pubDate>Sun, 12 May 2024 06:30:00 GMT</pubDate></item></channel></rss>""",
    "atom": """<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>T</title><id>x</id>
        <updated>2024-05-12T00:00:00Z</updated><entry><title>One</title><link href="https://e.com/1"/><id>1</id>
        <updated>2024-05-12T06:30:00Z</updated><summary>First</summary></entry></feed>""",
}


def test_feed_formats():
    for name, text in FEEDS.items():
        feed = parse_feed(text.encode(), "https://e.com/feed.xml")
        assert feed.error is None, name
        [entry] = feed.entries
        assert (entry.link, entry.title, entry.summary) == ("https://e.com/1", "One", "First"), name
        if name != "rss091":
            assert entry.published == "2024-05-12T06:30:00+00:00", name


def test_not_a_feed_gives_a_reason():
    feed = parse_feed(b"<html><body>nope</body></html>", "https://e.com/feed.xml")
    assert feed.entries == [] and feed.error
