"""Zero-configuration discovery: ``scrapy crawl discover -a url=...`` against a site the test serves,
and the discovery helpers (newscrawl.discovery) on small pages."""

from __future__ import annotations

import logging
import re

import pytest_twisted
from conftest import crawl_settings, read_jsonl, run_crawl
from test_crawl_local import article_html

from newscrawl.discovery import links, patterns
from newscrawl.discovery.survey import feed_links, registrable_domain, section_links, site_name
from newscrawl.spiders.discover import DiscoverSpider

SECTIONS = ("world", "business")


def headline(section: str, n: int) -> str:
    return f"{section.title()} leaders agree on plan number {n} after long talks"


def article_path(section: str, n: int) -> str:
    return f"/{section}/2024/05/{10 + n}/leaders-agree-on-plan-number-{n}.html"


def home_html(base: str) -> str:
    nav = "".join(f'<li><a href="/{s}/">{s.title()}</a></li>' for s in SECTIONS)
    top = "".join(f'<li class="top"><a href="{article_path("world", n)}">{headline("world", n)}</a></li>'
                  for n in range(3))
    return (f'<html lang="en"><head><title>Example News</title>'
            f'<link rel="alternate" type="application/rss+xml" title="All" href="/rss/all.xml"></head><body>'
            f'<header><nav class="main-nav"><ul><li><a href="/">Home</a></li>{nav}'
            f'<li><a href="/about/">About us</a></li><li><a href="/tag/weather/">Weather</a></li></ul></nav></header>'
            f"<main><ul class='top-stories'>{top}</ul></main>"
            f'<footer><a href="/privacy">Privacy</a></footer></body></html>')


def section_html(section: str) -> str:
    items = "".join(f'<li class="story"><a href="{article_path(section, n)}">{headline(section, n)}</a></li>'
                    for n in range(4))
    return f"<html><body><nav><a href='/'>Home</a></nav><ul class='stories'>{items}</ul></body></html>"


def rss(base: str) -> str:
    items = "".join(f"<item><title>{headline('business', n)}</title><link>{base}{article_path('business', n)}</link>"
                    f"</item>" for n in (4, 5))
    return f'<?xml version="1.0"?><rss version="2.0"><channel><title>All</title>{items}</channel></rss>'


def build_site(server) -> set[str]:
    """Home page with navigation and an RSS link, robots.txt with a sitemap, two sections; the
    article URLs."""
    base = server.base
    server.add("/", home_html(base))
    server.add("/robots.txt", f"User-agent: *\nAllow: /\nSitemap: {base}/sitemap.xml\n",
               headers={"Content-Type": "text/plain"})
    server.add("/sitemap.xml", '<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
               f"<url><loc>{base}{article_path('world', 9)}</loc></url></urlset>",
               headers={"Content-Type": "application/xml"})
    server.add("/rss/all.xml", rss(base), headers={"Content-Type": "application/rss+xml"})
    articles = {article_path("world", 9), article_path("business", 4), article_path("business", 5)}
    for section in SECTIONS:
        server.add(f"/{section}/", section_html(section))
        articles |= {article_path(section, n) for n in range(4)}
    for path in articles:
        section = path.split("/")[1]
        n = int(path.split("-")[-1].split(".")[0])
        server.add(path, article_html(headline(section, n)))
    return {server.url(path) for path in articles}


@pytest_twisted.ensureDeferred
async def test_discover_crawls_a_site_nobody_configured(http_server, tmp_path):
    articles = build_site(http_server)
    feed = tmp_path / "out.jsonl"
    crawler = await run_crawl(DiscoverSpider, crawl_settings(tmp_path, feed, LOG_LEVEL="DEBUG"),
                              url=http_server.url("/"))
    items = read_jsonl(feed)
    assert {item["url"] for item in items} == articles  # home, sections, feed and sitemap, each once
    assert len(items) == len(articles)
    assert {item["site"] for item in items} == {site_name(http_server.url("/"))}  # its own name
    sources = {item["url"]: item for item in items}
    assert "city council met" in sources[http_server.url(article_path("business", 5))]["text"]
    survey = crawler.spider.survey
    assert survey.feeds == [http_server.url("/rss/all.xml")]
    assert survey.sitemaps == [http_server.url("/sitemap.xml")]
    assert survey.sections == [http_server.url(f"/{s}/") for s in SECTIONS]
    assert survey.language == "en"
    assert "/about/" not in http_server.hits and "/tag/weather/" not in http_server.hits
    stats = crawler.stats.get_stats()
    assert stats["newscrawl/discover/sections"] == 2
    assert stats.get("newscrawl/discover/feed_probes") is None  # the home page names its feed
    assert stats[links.REJECTED_STATS + "site_root"] >= 1  # the links not taken are counted
    assert stats[links.REJECTED_STATS + "url_shape"] >= 1


@pytest_twisted.ensureDeferred
async def test_feed_paths_probed_when_the_home_page_names_none(http_server, tmp_path):
    build_site(http_server)
    http_server.add("/", home_html(http_server.base).replace('rel="alternate"', 'rel="x"'))
    http_server.add("/feed", rss(http_server.base), headers={"Content-Type": "application/rss+xml"})
    feed = tmp_path / "out.jsonl"
    crawler = await run_crawl(DiscoverSpider, crawl_settings(tmp_path, feed), url=http_server.url("/"),
                              survey="1")
    assert read_jsonl(feed) == []  # surveying lists nothing for fetching
    assert crawler.spider.survey.feeds == [http_server.url("/feed")]
    stats = crawler.stats.get_stats()
    assert stats["newscrawl/discover/feed_probes"] == 4
    assert stats["newscrawl/discover/feed_probe_found"] == 1
    assert "/rss.xml" in http_server.hits and "/atom.xml" not in http_server.hits  # bounded: 4 paths


# -- helpers on small pages ------------------------------------------------------------------

HOME = """<html lang="zh-CN"><head>
<link rel="alternate" type="application/atom+xml" href="https://feeds.example.org/atom.xml">
<link rel="stylesheet" href="/s.css"></head><body>
<div class="menu"><a href="/">首页</a><a href="/guonei/">国内</a><a href="/guoji/">国际</a><a href="https://money.example.com/">财经</a>
<a href="/photo/">图片</a><a href="/login">登录</a></div>
<p><a href="/rss/index.xml">RSS</a> <a href="https://other.org/rss.xml">Other feed</a></p>
<ul class="list"><li><a href="/24/0512/08/J0AB12CD0001899O.html">国务院常务会议部署稳就业工作</a></li></ul>
</body></html>"""


def test_feeds_and_sections_of_a_home_page():
    root = links.parse(HOME)
    base, domains = "https://www.example.com/", ["example.com"]
    assert feed_links(root, base, domains) == [
        "https://feeds.example.org/atom.xml", "https://www.example.com/rss/index.xml"]
    assert section_links(root, base, domains) == [
        "https://www.example.com/guonei/", "https://www.example.com/guoji/", "https://money.example.com/",
        "https://www.example.com/photo/"]  # not /login, not the home page


@pytest_twisted.ensureDeferred
async def test_discover_follows_section_pagination(http_server, tmp_path):
    """Section pages are read with their pagination, as the site spider reads a catalogue."""
    articles = build_site(http_server)
    older = {article_path("world", n) for n in range(20, 24)}
    page2 = "".join(f'<li class="story"><a href="{p}">{headline("world", int(p.split("-")[-1][:-5]))}</a></li>'
                    for p in sorted(older))
    http_server.add("/world/", section_html("world").replace("</ul>", '</ul><a rel="next" href="/world/?page=2">Next</a>'))
    http_server.add("/world/?page=2", f"<html><body><ul class='stories'>{page2}</ul></body></html>")
    for path in older:
        http_server.add(path, article_html(headline("world", int(path.split("-")[-1][:-5]))))
    feed = tmp_path / "out.jsonl"
    await run_crawl(DiscoverSpider, crawl_settings(tmp_path, feed), url=http_server.url("/"))
    assert {item["url"] for item in read_jsonl(feed)} == articles | {http_server.url(p) for p in older}


@pytest_twisted.ensureDeferred
async def test_each_discovered_site_has_its_own_name_and_state(http_server, tmp_path):
    """Two discovered sites: each its own name, seen store and templates (nothing pooled under
    "discover"); the second run of one site finds its own earlier exports."""
    from conftest import RoutesServer

    other = RoutesServer()
    try:
        build_site(http_server)
        build_site(other)
        first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
        one = await run_crawl(DiscoverSpider, crawl_settings(tmp_path, first), url=http_server.url("/"))
        two = await run_crawl(DiscoverSpider, crawl_settings(tmp_path, second), url=other.url("/"))
    finally:
        other.stop()
    names = {one.spider.name, two.spider.name}
    assert len(names) == 2 and "discover" not in names
    assert {item["site"] for item in read_jsonl(first)} == {one.spider.name}
    assert len(read_jsonl(second)) == len(read_jsonl(first))  # not "already exported" by the other site
    assert not two.stats.get_value("newscrawl/dropped/already_exported")
    assert all((tmp_path / "state" / f"{name}.lock").exists() for name in names)  # state of its own


def test_site_names_of_discovered_sites():
    assert site_name("https://www.example.co.uk/news/") == "example_co_uk"
    assert site_name("https://news.163.com/") == "site_163_com"
    assert site_name("http://127.0.0.1:8080/") == "site_127_0_0_1_8080"
    assert site_name("https://пример.рф/") == "xn_e1afmkfd_xn_p1ai"


def test_registrable_domain():
    assert registrable_domain("https://news.163.com/world/") == "163.com"
    assert registrable_domain("https://www.bbc.co.uk/news") == "bbc.co.uk"
    assert registrable_domain("http://127.0.0.1:8080/") == "127.0.0.1"


def test_inferred_pattern_matches_articles_not_sections():
    base = "https://www.example.com"
    articles = [f"{base}/story/{slug}/" for slug in ("a-b-c-d", "leaders-meet-on-budget", "rain-falls-again-today")]
    articles += [f"{base}/review/phone-x-is-good-value/", f"{base}/story/one-more-story-here"]
    sections = [f"{base}/story/", f"{base}/category/business/", base + "/"]
    pattern = patterns.infer_article_pattern(articles, sections)
    compiled = re.compile(pattern)
    assert all(compiled.search(url) for url in articles)
    assert not any(compiled.search(url) for url in sections)
    assert not patterns.nested_quantifier(pattern)
    assert patterns.infer_article_pattern(articles[:2], sections) is None  # no template shared by 3


def test_nested_quantifiers_are_found():
    assert patterns.nested_quantifier(r"(a+)+b") and patterns.nested_quantifier(r"^(?:[\w-]+\.)*x")
    assert not patterns.nested_quantifier(r"^https?://[^/?#]+/\d{4}/(?:a|b)/[\w.-]+\.html(?:[?#]|$)")


def test_sections_from_link_runs_and_headings_without_tracking_queries():
    page = """<html><body>
    <ul><li><a href="http://us.example.com/?hpt=ed_US">U.S.</a></li><li><a href="http://intl.example.com/?hpt=ed">International</a></li>
    <li><a href="http://cnn.com/?hpt=x">Elsewhere</a></li><li><a href="/espanol/">Español</a></li></ul>
    <div class="block"><h4><a href="/SPORT/?hpt=hp_bn2">SPORT</a></h4>
    <ul><li><a href="/2014/07/24/sport/a-long-story-about-the-match/index.html">A long story about the match</a></li></ul></div>
    <p><a href="/weather/">Weather</a> and <a href="/tv/">TV</a></p>
    </body></html>"""
    assert section_links(links.parse(page), "http://www.example.com/", ["example.com"]) == [
        "http://us.example.com/", "http://intl.example.com/", "http://www.example.com/espanol/",
        "http://www.example.com/SPORT/"]  # not the article, not the links in running text


@pytest_twisted.ensureDeferred
async def test_rejected_catalogue_links_are_logged_at_debug(http_server, tmp_path, caplog):
    build_site(http_server)
    caplog.set_level(logging.DEBUG)
    await run_crawl(DiscoverSpider, crawl_settings(tmp_path, tmp_path / "out.jsonl", LOG_LEVEL="DEBUG"),
                    url=http_server.url("/"), survey="1")
    messages = [record.getMessage() for record in caplog.records]
    assert f"Catalogue {http_server.url('/')}: link {http_server.url('/about/')} rejected (menu_text)" in messages
    assert f"Catalogue {http_server.url('/')}: link {http_server.url('/tag/weather/')} rejected (not_article_path)" \
        in messages


@pytest_twisted.ensureDeferred
async def test_a_home_page_with_too_many_links_is_not_explored(http_server, tmp_path):
    build_site(http_server)
    crawler = await run_crawl(DiscoverSpider, crawl_settings(tmp_path, tmp_path / "out.jsonl",
                                                            NEWSCRAWL_MAX_LISTING_LINKS=5), url=http_server.url("/"))
    assert crawler.stats.get_value("newscrawl/listing_error/too_many_links") == 1
    assert crawler.spider.survey.sections == [] and "/world/" not in http_server.hits
    assert "/rss/all.xml" not in http_server.hits


@pytest_twisted.ensureDeferred
async def test_a_feeds_page_linked_from_the_home_page_is_read_for_its_feeds(http_server, tmp_path):
    build_site(http_server)
    home = home_html(http_server.base).replace('rel="alternate"', 'rel="x"').replace(
        "<footer>", '<footer><a href="/services/rss/">RSS</a>')
    http_server.add("/", home)
    http_server.add("/services/rss/", '<html><body><h1>Our feeds</h1><ul><li><a href="/rss/all.xml">All</a></li>'
                    '<li><a href="/rss/world.xml">World</a></li><li><a href="/about/">About</a></li></ul></body></html>')
    http_server.add("/rss/world.xml", rss(http_server.base).replace("business", "world"),
                    headers={"Content-Type": "application/rss+xml"})
    crawler = await run_crawl(DiscoverSpider, crawl_settings(tmp_path, tmp_path / "out.jsonl"),
                              url=http_server.url("/"), survey="1")
    assert sorted(crawler.spider.survey.feeds) == [http_server.url("/rss/all.xml"), http_server.url("/rss/world.xml")]
    stats = crawler.stats.get_stats()
    assert stats["newscrawl/discover/feed_index_pages"] == 1 and "newscrawl/discover/feed_probes" not in stats
