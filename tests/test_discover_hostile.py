"""A hostile home page against ``scrapy crawl discover`` (issue 30, item 1): it declares feeds,
sitemaps, sections and articles on an internal service (another port of 127.0.0.1, and a second
loopback address, 127.0.0.2).  Discovery stays on the origin it was given: the internal service
receives no request and nothing of it is exported; what was refused is counted."""

from __future__ import annotations

import pytest
import pytest_twisted
from conftest import RoutesServer, crawl_settings, read_jsonl, run_crawl
from scrapy.exceptions import IgnoreRequest
from scrapy.http import Request
from scrapy.utils.test import get_crawler
from test_crawl_local import article_html
from test_discover import article_path, build_site, headline, home_html, rss

from newscrawl.spiders.discover import DiscoverSpider


def internal_service(server) -> None:
    """What an internal service answers: a feed, a sitemap and pages it would rather keep."""
    base = server.base
    server.add("/feed.xml", rss(base), headers={"Content-Type": "application/rss+xml"})
    server.add("/sitemap.xml", '<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
               f"<url><loc>{base}/secret/2024/05/10/internal-report-number-1.html</loc></url></urlset>",
               headers={"Content-Type": "application/xml"})
    server.add("/news/", "<html><body><ul>" + "".join(
        f'<li><a href="{article_path("business", n)}">{headline("business", n)}</a></li>' for n in range(4))
        + "</ul></body></html>")
    for n in range(6):  # their own text: a copy of the main site's article would be a duplicate of it
        server.add(article_path("business", n), article_html(f"Internal memo {n}: " + headline("business", n)))


def hostile_home(site, internals) -> None:
    """The site of test_discover, whose home page and robots.txt point at ``internals``."""
    build_site(site)
    links = "".join(f'<link rel="alternate" type="application/rss+xml" href="{s.base}/feed.xml">'
                    for s in internals)
    anchors = "".join(f'<li><a href="{s.base}/news/">News</a></li><li><a href="{s.base}/feed.xml">RSS</a></li>'
                      f'<li><a href="{s.base}{article_path("business", 5)}">{headline("business", 5)}</a></li>'
                      for s in internals)
    home = home_html(site.base).replace("</head>", links + "</head>").replace(
        "<main>", f"<main><ul class='more'>{anchors}</ul>")
    site.add("/", home)
    sitemaps = "".join(f"Sitemap: {s.base}/sitemap.xml\n" for s in internals)
    site.add("/robots.txt", f"User-agent: *\nAllow: /\nSitemap: {site.base}/sitemap.xml\n{sitemaps}",
             headers={"Content-Type": "text/plain"})


@pytest.fixture
def internals():
    servers = [RoutesServer("127.0.0.1"), RoutesServer("127.0.0.2")]
    for server in servers:
        internal_service(server)
    yield servers
    for server in servers:
        server.stop()


@pytest_twisted.ensureDeferred
async def test_discover_stays_on_the_origin_it_was_given(http_server, internals, tmp_path):
    hostile_home(http_server, internals)
    feed = tmp_path / "out.jsonl"
    crawler = await run_crawl(DiscoverSpider, crawl_settings(tmp_path, feed), url=http_server.url("/"))
    for server in internals:
        assert server.hits == {}, server.base  # not one request reached the internal service
    items = read_jsonl(feed)
    assert items and all(item["url"].startswith(http_server.base + "/") for item in items)
    stats = crawler.stats.get_stats()
    assert stats["newscrawl/discover/off_origin/feed"] == 2  # declared feeds: reported, not followed
    assert stats["newscrawl/discover/off_origin/sitemap"] == 2
    assert crawler.spider.survey.feeds == [http_server.url("/rss/all.xml")]
    assert crawler.spider.survey.sitemaps == [http_server.url("/sitemap.xml")]


@pytest_twisted.ensureDeferred
async def test_discover_follows_another_origin_the_user_allows(http_server, internals, tmp_path):
    hostile_home(http_server, internals)
    allowed, refused = internals
    feed = tmp_path / "out.jsonl"
    await run_crawl(DiscoverSpider, crawl_settings(tmp_path, feed), url=http_server.url("/"),
                    allow=allowed.base.split("//")[1])
    assert allowed.hits.get("/feed.xml") == 1 and refused.hits == {}
    assert any(item["url"].startswith(allowed.base + "/") for item in read_jsonl(feed))


def test_private_addresses():
    from newscrawl.sites import private_address

    for url in ("http://127.0.0.2:8080/", "http://10.1.2.3/", "http://[::1]/", "http://169.254.169.254/latest",
                "http://192.168.0.1/", "http://localhost:6379/", "http://[fe80::1]/", "http://0.0.0.0/"):
        assert private_address(url), url
    for url in ("http://93.184.216.34/", "https://[2606:4700::1111]/"):
        assert not private_address(url), url


def test_private_addresses_are_refused_when_the_start_url_is_public():
    from newscrawl.middlewares.addresses import PrivateAddressMiddleware

    crawler = get_crawler(DiscoverSpider, {"NEWSCRAWL_DISCOVER_ALLOW": ["127.0.0.1:6379", "10.0.0.0"]})
    crawler.spider = DiscoverSpider.from_crawler(crawler, url="http://93.184.216.34/")
    middleware = PrivateAddressMiddleware.from_crawler(crawler)
    for url in ("http://127.0.0.1:6379/", "http://10.0.0.0/feed"):
        with pytest.raises(IgnoreRequest):
            middleware.process_request(Request(url))


@pytest_twisted.ensureDeferred
async def test_a_home_page_redirect_within_its_domain_is_followed_and_one_elsewhere_is_not(http_server, tmp_path):
    """``http://example.com/`` answering 301 to ``https://www.example.com/`` is the usual front door;
    discovery moves to where the home page lands, within the home page's registrable domain only."""
    build_site(http_server)
    entry = RoutesServer("127.0.0.1")  # another origin of the same host: the old front door
    elsewhere = RoutesServer("127.0.0.2")  # another site
    try:
        entry.add("/", "", status=301, headers={"Location": http_server.url("/")})
        feed = tmp_path / "out.jsonl"
        crawler = await run_crawl(DiscoverSpider, crawl_settings(tmp_path, feed), url=entry.url("/"))
        items = read_jsonl(feed)
        assert items and all(item["url"].startswith(http_server.base + "/") for item in items)
        stats = crawler.stats.get_stats()
        assert stats["newscrawl/discover/home_redirect"] == 1
        assert crawler.spider.survey.home == http_server.url("/")
        assert crawler.spider.survey.feeds == [http_server.url("/rss/all.xml")]

        elsewhere.add("/", "", status=302, headers={"Location": http_server.url("/")})
        feed = tmp_path / "elsewhere.jsonl"
        crawler = await run_crawl(DiscoverSpider, crawl_settings(tmp_path / "2", feed), url=elsewhere.url("/"))
        stats = crawler.stats.get_stats()
        assert stats["newscrawl/discover/home_redirect_offsite"] == 1
        assert http_server.hits.get("/", 0) == 1  # only the first crawl's visit
        assert not feed.exists() or read_jsonl(feed) == []
    finally:
        entry.stop()
        elsewhere.stop()
