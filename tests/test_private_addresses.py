"""Private addresses in scheduled crawls (issue 38, item 8): a configured site whose host names
are public reaches no address that is not globally routable, whether a link, a redirect or
its own re-pointed name (DNS rebinding) leads there; a site on a private network says so
(``private_network = true``), and one configured on private IP addresses may anyway.

The crawl resolves names with :class:`GuardedResolver`, as ``scrapy crawl`` installs it
(``TWISTED_DNS_RESOLVER``), over a table of names the test sets instead of the system's DNS.
No traffic leaves the machine: a name the test makes "public" is fetched through an HTTP
proxy on 127.0.0.2 (the address it resolves to is judged, never connected to), and every
other answer is a loopback, private or link-local address the guard must refuse before
connecting (a request that got through would reach a local server and count a hit there).
"""

from __future__ import annotations

import json
import logging

import pytest
import pytest_twisted
from conftest import RoutesServer, crawl_settings, read_jsonl, run_crawl, site_spider
from scrapy.http import Request
from scrapy.resolver import dnscache
from scrapy.utils.test import get_crawler
from test_crawl_local import article_html, feed_xml
from twisted.internet import defer
from twisted.internet.base import ThreadedResolver

from newscrawl.middlewares.addresses import GuardedResolver, PrivateAddressMiddleware
from newscrawl.sites import private_address
from newscrawl.spiders.discover import DiscoverSpider

PUBLIC = "93.184.216.34"  # what the test's public names resolve to: judged, never connected to
RSS = {"Content-Type": "application/rss+xml"}
PRIVATE = "newscrawl/dropped/private_address"


def test_addresses_that_are_not_globally_routable():
    refused = ["http://127.0.0.1/", "http://10.1.2.3/", "http://169.254.169.254/latest/meta-data/",
               "http://100.100.100.200/latest/meta-data/", "http://100.64.0.1/", "http://0.0.0.0/",
               "http://198.18.0.1/", "http://[::1]/", "http://[fc00::1]/", "http://[fe80::1]/",
               "http://[::ffff:127.0.0.1]/", "http://[::ffff:a9fe:a9fe]/",  # IPv4-mapped
               "http://[2002:7f00:1::]/", "http://[2002:a9fe:a9fe::1]/",  # 6to4 of 127.0.0.1, 169.254.169.254
               "http://[64:ff9b::7f00:1]/", "http://[64:ff9b::6464:64c8]/",  # NAT64 of 127.0.0.1, 100.100.100.200
               "http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/",  # Teredo
               "http://[::7f00:1]/", "http://localhost:6379/"]
    public = ["http://93.184.216.34/", "https://[2606:4700::1111]/", "http://[::ffff:93.184.216.34]/",
              "http://[2002:5db8:d822::1]/", "http://[64:ff9b::5db8:d822]/"]
    assert [url for url in refused if not private_address(url)] == []
    assert [url for url in public if private_address(url) is not False] == []


def test_discover_from_a_public_start_url_refuses_shared_and_6to4_addresses():
    crawler = get_crawler(DiscoverSpider, {"NEWSCRAWL_DISCOVER_ALLOW": ["100.100.100.200", "[2002:7f00:1::]"]})
    crawler.spider = DiscoverSpider.from_crawler(crawler, url="http://93.184.216.34/")
    middleware = PrivateAddressMiddleware.from_crawler(crawler)
    refused = []
    for url in ("http://100.100.100.200/latest/meta-data/", "http://[2002:7f00:1::]/"):
        try:
            middleware.process_request(Request(url))
        except Exception as exc:  # noqa: BLE001 - the refusal is what is looked at
            refused.append(getattr(exc, "reason", repr(exc)))
    assert refused == ["private_address", "private_address"]


class _Table(ThreadedResolver):
    """The system's resolver, except for the names in :attr:`names`."""

    names: dict[str, str] = {}

    def getHostByName(self, name, timeout=()):  # noqa: N802 - Twisted's interface
        if name in self.names:
            return defer.succeed(self.names[name])
        return super().getHostByName(name, timeout)


@pytest.fixture
def names():
    """The crawl's resolver, :class:`GuardedResolver` over the test's table (name -> address),
    installed on the reactor as ``scrapy crawl`` installs it; the old one is put back after."""
    from twisted.internet import reactor

    table: dict[str, str] = {}

    class TestResolver(GuardedResolver, _Table):
        names = table

    previous = reactor.resolver
    reactor.installResolver(TestResolver(reactor, dnscache.limit, 60))
    yield table
    reactor.installResolver(previous)
    for name in table:
        dnscache.pop(name, None)


def repoint(names: dict[str, str], name: str, address: str) -> None:
    """``name`` now resolves to ``address`` (a new run's first look-up: nothing cached)."""
    names[name] = address
    dnscache.pop(name, None)


def _loopback_site(server: RoutesServer, host: str) -> str:
    """A feed and three articles on ``server``, as the site ``host`` lists them; returns the feed URL."""
    base = f"http://{host}:{server.port.getHost().port}"
    links = [(f"{base}/2024/05/1{n}/harbour-works-story-{n}.html", f"The harbour works story number {n}")
             for n in range(3)]
    for url, title in links:
        server.add(url.removeprefix(base), article_html(title))
    server.add("/robots.txt", "User-agent: *\nAllow: /\n", headers={"Content-Type": "text/plain"})
    server.add("/feed.xml", feed_xml(links), headers=RSS)
    return f"{base}/feed.xml"


@pytest.mark.parametrize(("checks", "feed_failure"), [("both", "private_address"),
                                                      ("resolver_only", "robots_unreachable")])
@pytest_twisted.ensureDeferred
async def test_a_public_name_re_pointed_to_loopback_gets_no_request(names, tmp_path, caplog, checks, feed_failure):
    """The site's own host name resolves to 127.0.0.1 (DNS rebinding of a public site): the
    loopback service there gets no request and nothing of it is exported.  ``resolver_only``:
    without the check before each request, the resolver alone refuses the connection (the
    first one is robots.txt's, which then counts as unreachable, RFC 9309)."""
    service = RoutesServer()
    try:
        feed = _loopback_site(service, "news.example.test")
        names["news.example.test"] = "127.0.0.1"
        spider = site_spider("rebound", domains=["example.test"], feeds=[feed])
        out = tmp_path / "out.jsonl"
        settings = crawl_settings(tmp_path, out, RETRY_TIMES=2)
        if checks == "resolver_only":
            middlewares = dict(settings.getdict("DOWNLOADER_MIDDLEWARES"))
            middlewares["newscrawl.middlewares.addresses.PrivateAddressMiddleware"] = None
            settings.set("DOWNLOADER_MIDDLEWARES", middlewares, priority="cmdline")
        with caplog.at_level(logging.INFO):
            crawler = await run_crawl(spider, settings)
    finally:
        service.stop()
    assert service.hits == {}
    assert read_jsonl(out) == []
    assert crawler.stats.get_value(f"newscrawl/listing_error/{feed_failure}") == 1
    assert "news.example.test (127.0.0.1) is not a globally routable address" in caplog.text


@pytest_twisted.ensureDeferred
async def test_a_site_on_a_private_network_says_so_and_is_crawled(names, tmp_path):
    service = RoutesServer()
    try:
        feed = _loopback_site(service, "news.intranet.test")
        names["news.intranet.test"] = "127.0.0.1"
        spider = site_spider("intranet", domains=["intranet.test"], feeds=[feed], private_network=True)
        out = tmp_path / "out.jsonl"
        crawler = await run_crawl(spider, crawl_settings(tmp_path, out))
    finally:
        service.stop()
    assert len(read_jsonl(out)) == 3
    assert crawler.stats.get_value(PRIVATE) is None

    # discover from that name: its start URL is on the private network, so it is crawled too
    service = RoutesServer()
    try:
        home = _loopback_site(service, "news.intranet.test").removesuffix("feed.xml")
        service.add("/", '<html><head><link rel="alternate" type="application/rss+xml" href="/feed.xml">'
                    "</head><body><p>The intranet news</p></body></html>")
        crawler = await run_crawl(DiscoverSpider, crawl_settings(tmp_path / "discover", tmp_path / "d.jsonl"),
                                  url=home)
    finally:
        service.stop()
    assert service.hits.get("/", 0) == 1 and crawler.stats.get_value(PRIVATE) is None


@pytest.fixture
def proxy(monkeypatch):
    """An HTTP proxy on 127.0.0.2 serving the "public" site by absolute URL: the crawl's only
    way out.  Its hits are the URLs requested through it."""
    server = RoutesServer("127.0.0.2")
    for name in ("http_proxy", "HTTP_PROXY", "no_proxy", "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("http_proxy", server.base)
    yield server
    server.stop()


@pytest_twisted.ensureDeferred
async def test_links_and_redirects_to_private_addresses_are_refused_before_any_connection(
        names, proxy, tmp_path, caplog):
    """A public site (its name resolves to a public address) whose feed lists, whose sitemap
    index names, and whose article redirects to, its sub-domains on 127.0.0.1, 169.254.169.254 (cloud metadata) and
    100.100.100.200, and private IP literals its allow-list lets through: none is requested
    (not even robots.txt), each is a counted ``private_address`` drop with a log line.  Then
    its own name is re-pointed to 127.0.0.1: the next run requests nothing."""
    site = "http://news.example.test"
    names.update({"news.example.test": PUBLIC, "internal.example.test": "127.0.0.1",
                  "metadata.example.test": "169.254.169.254", "cloud.example.test": "100.100.100.200"})
    private = ["http://metadata.example.test/latest/meta-data/iam.html",
               "http://cloud.example.test/latest/meta-data/ram.html",
               "http://127.0.0.1/2024/05/10/internal-report.html",
               "http://169.254.169.254/latest/meta-data/token.html",
               "http://100.100.100.200/latest/meta-data/token.html",
               "http://[::ffff:127.0.0.1]/2024/05/10/mapped-report.html",
               "http://[2002:7f00:1::]/2024/05/10/sixtofour-report.html"]
    good = f"{site}/2024/05/10/harbour-works-begin.html"
    proxy.add(f"{site}/robots.txt", "User-agent: *\nAllow: /\n", headers={"Content-Type": "text/plain"})
    proxy.add(good, article_html("The harbour works begin on Monday"))
    proxy.add(f"{site}/2024/05/10/moved.html", "", status=301,
              headers={"Location": "http://internal.example.test/2024/05/10/secret.html"})
    for n, url in enumerate([*private, "http://internal.example.test/2024/05/10/secret.html"]):
        proxy.add(url, article_html(f"An internal page that must stay inside number {n}"))
        proxy.add(url.split("/2024/")[0].split("/latest/")[0] + "/robots.txt", "User-agent: *\nAllow: /\n",
                  headers={"Content-Type": "text/plain"})
    links = [(good, "The harbour works begin on Monday"), (f"{site}/2024/05/10/moved.html", "A page that moved")]
    links += [(url, f"An internal page number {n}") for n, url in enumerate(private)]
    proxy.add(f"{site}/feed.xml", feed_xml(links), headers=RSS)
    secret_sitemap = "http://internal.example.test/sitemap-secret.xml"
    proxy.add(f"{site}/sitemap.xml", '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
              f"<sitemap><loc>{secret_sitemap}</loc></sitemap></sitemapindex>", headers={"Content-Type": "text/xml"})
    proxy.add(secret_sitemap, '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url>'
              "<loc>http://internal.example.test/2024/05/10/listed.html</loc></url></urlset>",
              headers={"Content-Type": "text/xml"})
    spider = site_spider("harbour", feeds=[f"{site}/feed.xml"], sitemaps=[f"{site}/sitemap.xml"],
                         domains=["example.test", "127.0.0.1", "169.254.169.254", "100.100.100.200",
                                  "[::ffff:127.0.0.1]", "[2002:7f00:1::]"])
    out = tmp_path / "out.jsonl"
    with caplog.at_level(logging.INFO, logger="newscrawl"):
        crawler = await run_crawl(spider, crawl_settings(tmp_path, out))

    assert [item["url"] for item in read_jsonl(out)] == [good]
    assert sorted(proxy.hits) == sorted([f"{site}/robots.txt", f"{site}/feed.xml", f"{site}/sitemap.xml", good,
                                         f"{site}/2024/05/10/moved.html"])
    assert crawler.stats.get_value(PRIVATE) == len(private) + 1  # and the redirect
    assert crawler.stats.get_value("newscrawl/listing_error/private_address") == 1  # the index's child
    refusals = [r.getMessage() for r in caplog.records if "private_address" in r.getMessage()]
    assert any("internal.example.test (127.0.0.1) is not a globally routable address" in m for m in refusals)

    # the site's own name re-pointed to loopback (DNS rebinding): the next run sends nothing
    repoint(names, "news.example.test", "127.0.0.1")
    proxy.add(f"{site}/feed.xml", feed_xml([(f"{site}/2024/05/11/new-story.html", "A new story today")]),
              headers=RSS)
    proxy.add(f"{site}/2024/05/11/new-story.html", article_html("A new story today"))
    hits = dict(proxy.hits)
    crawler = await run_crawl(spider, crawl_settings(tmp_path, tmp_path / "second.jsonl"))
    assert proxy.hits == hits
    assert read_jsonl(tmp_path / "second.jsonl") == []
    assert crawler.stats.get_value("newscrawl/listing_error/private_address") == 2  # the feed, the sitemap


APP_SHELL = """<html><head><title>Harbour news</title></head><body><div id='app'></div><script>
fetch('http://internal.example.test/secret.json').catch(() => null);
fetch('http://169.254.169.254/latest/meta-data/').catch(() => null);
fetch('/2024/05/10/data.json').then(r => r.json()).then(d => {
  document.getElementById('app').innerHTML = '<article><h1>' + d.title + '</h1><p>' + d.text + '</p></article>';
});</script></body></html>"""


@pytest_twisted.ensureDeferred
async def test_a_rendered_page_of_a_public_site_makes_the_browser_request_no_private_address(
        names, proxy, tmp_path):
    """The browser's own requests are guarded too: a public site's app shell, rendered in
    Chromium, fetches its article data from its own host and tries a sub-domain on 127.0.0.1
    and the cloud metadata address; the article is exported, and neither private request leaves
    the browser (counted as ``newscrawl/render/blocked_private``)."""
    from chromium import chromium

    pytest.importorskip("scrapy_playwright", reason="scrapy-playwright is not installed")
    if chromium() is None:
        pytest.skip("no chromium binary on PATH (apt-get install -y chromium; .ci/run installs it)")
    site = "http://news.example.test"
    names.update({"news.example.test": PUBLIC, "internal.example.test": "127.0.0.1"})
    page = f"{site}/2024/05/10/harbour-works-begin.html"
    text = ("The harbour works begin on Monday, the council said, and the quay will stay closed to "
            "traffic for the eight months the engineers need to rebuild the old stone wall. ") * 3
    proxy.add(f"{site}/robots.txt", "User-agent: *\nAllow: /\n", headers={"Content-Type": "text/plain"})
    proxy.add(page, APP_SHELL)
    proxy.add(f"{site}/2024/05/10/data.json", json.dumps({"title": "The harbour works begin", "text": text}),
              headers={"Content-Type": "application/json"})
    for url in ("http://internal.example.test/secret.json", "http://169.254.169.254/latest/meta-data/"):
        proxy.add(url, '{"secret": 1}', headers={"Content-Type": "application/json"})
    proxy.add(f"{site}/feed.xml", feed_xml([(page, "The harbour works begin")]), headers=RSS)
    spider = site_spider("harbour", feeds=[f"{site}/feed.xml"], domains=["example.test"], render="always")
    out = tmp_path / "out.jsonl"
    crawler = await run_crawl(spider, crawl_settings(
        tmp_path, out, PLAYWRIGHT_LAUNCH_OPTIONS={"proxy": {"server": proxy.base}}))

    records = read_jsonl(out)
    assert [r["url"] for r in records] == [page] and "eight months" in records[0]["text"]
    assert f"{site}/2024/05/10/data.json" in proxy.hits  # the browser went out, through the proxy
    assert not {"http://internal.example.test/secret.json", "http://169.254.169.254/latest/meta-data/"} & set(
        proxy.hits)
    assert crawler.stats.get_value("newscrawl/render/blocked_private") == 2
