"""The allow-list is by origin (scheme, host, port): a link or a redirect to the same host
on another port is never requested, whatever the configuration or spider arguments."""

from __future__ import annotations

import pytest
import pytest_twisted
from conftest import RoutesServer, crawl_settings, read_jsonl, run_crawl, site_spider
from test_crawl_local import article_html, catalogue_html, feed_xml

from newscrawl.sites import AllowList

RSS = {"Content-Type": "application/rss+xml"}


@pytest.mark.parametrize(("url", "allowed"), [
    ("http://example.com/a", True),
    ("https://example.com/a", True),
    ("http://example.com:80/a", True),
    ("https://news.example.com:443/a", True),  # subdomains, as Scrapy's allowed_domains
    ("http://example.com:443/a", False),  # 443 is https's default port, not http's
    ("https://example.com:80/a", False),
    ("http://example.com:6379/", False),
    ("http://notexample.com/a", False),
    ("ftp://example.com/a", False),
    ("http://example.com:99999/a", False),  # not a port
    ("http://media.example.org:8080/a", True),  # "example.org:8080": that port only
    ("http://example.org/a", False),
    ("https://example.org:8443/a", False),
    ("http://127.0.0.1:8123/feed.xml", True),  # a configured URL's origin
    ("http://127.0.0.1:8124/feed.xml", False),
    ("https://127.0.0.1:8123/feed.xml", False),
    ("http://sub.127.0.0.1:8123/", False),  # an origin does not cover subdomains
    ("http://xn--e1afmkfd.xn--p1ai/a", True),  # IDNA form of the Unicode domain below
])
def test_allow_list_is_by_origin(url, allowed):
    allow = AllowList.of(["example.com", "example.org:8080", "пример.рф"], ["http://127.0.0.1:8123/feed.xml"])
    assert allow.allows(url) is allowed
    assert set(allow.hosts) == {"example.com", "example.org", "xn--e1afmkfd.xn--p1ai", "127.0.0.1"}


@pytest.fixture
def other_port():
    """A second local server on another port: nothing may ever reach it."""
    server = RoutesServer()
    server.add("/robots.txt", "User-agent: *\nAllow: /\n", headers={"Content-Type": "text/plain"})
    for n in range(3):
        server.add(f"/a/{n}.html", article_html(f"An article on the other port number {n}"))
    yield server
    server.stop()


def _site(http_server, other_port) -> list[str]:
    """Pages on ``http_server`` that link, list and redirect to ``other_port``; returns the good URLs."""
    s, o = http_server, other_port
    good = [s.add(f"/a/{n}.html", article_html(f"An article about the harbour works part {n}")) for n in range(2)]
    s.add("/a/moved.html", "", status=301, headers={"Location": o.url("/a/0.html")})
    links = [(good[0], "An article about the harbour works part 0"),
             (good[1], "An article about the harbour works part 1"),
             (s.url("/a/moved.html"), "An article that moved to the other port"),
             (o.url("/a/1.html"), "An article on the other port")]
    s.add("/feed.xml", feed_xml(links), headers=RSS)
    s.add("/list.html", catalogue_html([(good[0], "An article about the harbour works part 0"),
                                        (o.url("/a/2.html"), "An article on the other port number two")],
                                       next_href=o.url("/list/2.html")))
    return good


@pytest_twisted.ensureDeferred
async def test_links_and_redirects_to_another_port_are_never_requested(http_server, other_port, tmp_path):
    good = _site(http_server, other_port)
    spider = site_spider(domains=["127.0.0.1"], feeds=[http_server.url("/feed.xml")],
                         catalogues=[http_server.url("/list.html")], max_pages=3)
    out = tmp_path / "out.jsonl"
    crawler = await run_crawl(spider, crawl_settings(tmp_path, out))

    assert other_port.hits == {}
    assert sorted(i["url"] for i in read_jsonl(out)) == sorted(good)
    stats = crawler.stats.get_stats()
    # the feed's and the catalogue's links to the other port, and the redirect there
    assert stats["newscrawl/dropped/offsite"] == 3


@pytest.mark.parametrize("argument", ["feed_url", "start_url"])
@pytest_twisted.ensureDeferred
async def test_spider_arguments_allow_their_own_origin_only(http_server, other_port, tmp_path, argument):
    good = _site(http_server, other_port)
    # the configured site is elsewhere: the argument alone allows the local server's origin
    spider = site_spider(domains=["example.com"], catalogues=["https://example.com/news/"])
    out = tmp_path / "out.jsonl"
    path = "/feed.xml" if argument == "feed_url" else "/list.html"
    crawler = await run_crawl(spider, crawl_settings(tmp_path, out), **{argument: http_server.url(path)})

    assert other_port.hits == {}
    exported = sorted(i["url"] for i in read_jsonl(out))
    assert exported == (sorted(good) if argument == "feed_url" else [good[0]])
    assert crawler.stats.get_value("newscrawl/dropped/offsite") == (2 if argument == "feed_url" else 1)
