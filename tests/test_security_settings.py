"""Security defaults (issue 6): no remote control or telnet console, polite and bounded
downloads, only http(s), validated spider arguments and sites files, robots.txt obeyed."""

from __future__ import annotations

import os

import pytest
import pytest_twisted
from conftest import crawl_settings, read_jsonl, run_crawl, site_spider
from scrapy.extensions.remote_control import RemoteControl
from scrapy.extensions.telnet import TelnetConsole
from scrapy.settings import Settings, default_settings
from test_crawl_local import article_html, feed_xml
from twisted.internet import reactor
from twisted.web import resource, server

from newscrawl.sites import SiteConfigError, parse_sites


@pytest.fixture
def project():
    settings = Settings()
    settings.setmodule("newscrawl.settings", priority="project")
    return settings


def test_remote_control_and_telnet_console_are_off(project):
    # Both are on in Scrapy's own defaults; the project turns them off.
    for name in ("scrapy.extensions.remote_control.RemoteControl", "scrapy.extensions.telnet.TelnetConsole"):
        assert name in default_settings.EXTENSIONS_BASE
    assert default_settings.REMOTE_CONTROL_ENABLED and default_settings.TELNETCONSOLE_ENABLED
    assert project.getbool("REMOTE_CONTROL_ENABLED") is False
    assert project.getbool("TELNETCONSOLE_ENABLED") is False


def test_politeness_defaults(project):
    assert project.getbool("ROBOTSTXT_OBEY")
    ua = project.get("USER_AGENT")
    assert ua != default_settings.USER_AGENT and ua.startswith("newscrawl/") and "+http" in ua
    assert project.getfloat("DOWNLOAD_DELAY") >= 1
    assert project.getbool("AUTOTHROTTLE_ENABLED")
    assert 1 <= project.getint("CONCURRENT_REQUESTS_PER_DOMAIN") <= 4


def test_download_limits_are_bounded(project):
    maxsize, warnsize = project.getint("DOWNLOAD_MAXSIZE"), project.getint("DOWNLOAD_WARNSIZE")
    assert 0 < warnsize < maxsize < default_settings.DOWNLOAD_MAXSIZE  # Scrapy's default is 1 GiB
    assert 0 < project.getint("DOWNLOAD_TIMEOUT") < default_settings.DOWNLOAD_TIMEOUT
    assert project.getint("NEWSCRAWL_MAX_FEED_ENTRIES") > 0


def test_only_http_download_handlers(project):
    handlers = project.getwithbase("DOWNLOAD_HANDLERS")
    assert {scheme for scheme, path in handlers.items() if path} == {"http", "https"}


@pytest.mark.parametrize("value", ["file:///etc/passwd", "ftp://127.0.0.1/list.html", "javascript:alert(1)",
                                   "data:text/html,hi", "//127.0.0.1/list.html", "list.html",
                                   "http://127.0.0.1/ok.html,file:///etc/passwd"])
@pytest.mark.parametrize("argument", ["start_url", "feed_url"])
def test_spider_arguments_accept_only_http_urls(argument, value):
    spider = site_spider(catalogues=["http://127.0.0.1/list.html"])
    with pytest.raises(ValueError, match=f"{argument} must be an absolute http"):
        spider(**{argument: value})
    assert spider(**{argument: "https://127.0.0.1/ok.html"})


def sites(**table):
    table.setdefault("domains", ["example.com"])
    table.setdefault("catalogues", ["https://example.com/news/"])
    return {"sites": {"example": table}}


@pytest.mark.parametrize(("table", "message"), [
    ({"catalogues": ["file:///etc/passwd"]}, "not an http"),
    ({"feeds": ["https://evil.example.org/rss.xml"]}, "not on the site's domains"),
    ({"domains": ["example.com/path"]}, "not a bare domain"),
    ({"politeness": {"robotstxt_obey": False}}, "unknown key"),
    ({"serve": "../../etc"}, "leaves the sites file's directory"),
    ({"headers": "/etc/passwd"}, "relative to the sites file"),
])
def test_sites_file_is_validated(tmp_path, table, message):
    with pytest.raises(SiteConfigError, match=message):
        parse_sites(sites(**table), base_dir=tmp_path)


def test_sites_file_paths_cannot_escape_through_a_symlink(tmp_path):
    data = tmp_path / "data"
    (data / "demo").mkdir(parents=True)
    os.symlink(tmp_path, data / "demo" / "up")
    assert parse_sites(sites(serve="demo"), base_dir=data)["example"].serve == data / "demo"
    with pytest.raises(SiteConfigError, match="leaves"):
        parse_sites(sites(serve="demo/up"), base_dir=data)


class RecordingSite(resource.Resource):
    """Pages by path; records each request's path and User-Agent."""

    isLeaf = True

    def __init__(self, pages: dict[str, tuple[int, dict[str, str], str]]):
        super().__init__()
        self.pages = pages
        self.requests: list[tuple[str, str]] = []

    def render_GET(self, request):
        path = request.path.decode()
        self.requests.append((path, (request.getHeader("User-Agent") or "")))
        status, headers, body = self.pages.get(path, (404, {}, "not found"))
        request.setResponseCode(status)
        for name, value in headers.items():
            request.setHeader(name, value)
        return body.encode()


@pytest_twisted.ensureDeferred
async def test_crawl_obeys_robots_txt_stays_on_the_allowed_domain_and_says_who_it_is(tmp_path, project):
    html = {"Content-Type": "text/html; charset=utf-8"}
    pages = {
        "/robots.txt": (200, {"Content-Type": "text/plain"}, "User-agent: *\nDisallow: /private/\n"),
        "/news/1.html": (200, html, article_html("A public article about the new tram line")),
        "/private/2.html": (200, html, article_html("A page robots.txt disallows")),
        "/news/3.html": (302, {"Location": "http://localhost:{port}/elsewhere.html"}, ""),
        "/news/4.html": (302, {"Location": "file:///etc/passwd"}, ""),
        "/elsewhere.html": (200, html, article_html("A page on a host outside the allow-list")),
    }
    site = RecordingSite(pages)
    port = reactor.listenTCP(0, server.Site(site), interface="127.0.0.1")
    number = port.getHost().port
    loc = pages["/news/3.html"][1]
    loc["Location"] = loc["Location"].format(port=number)
    links = [("/news/1.html", "A public article about the new tram line"), ("/private/2.html", "Disallowed"),
             ("/news/3.html", "Redirected off the site"), ("/news/4.html", "Redirected to a file")]
    base = f"http://127.0.0.1:{number}"
    pages["/feed.xml"] = (200, {"Content-Type": "application/rss+xml"}, feed_xml([(base + p, t) for p, t in links]))
    try:
        spider = site_spider(feeds=[base + "/feed.xml"])
        out = tmp_path / "out.jsonl"
        settings = crawl_settings(tmp_path, out, DOWNLOAD_DELAY=0)  # robots.txt as the project sets it
        assert settings.getbool("ROBOTSTXT_OBEY")
        crawler = await run_crawl(spider, settings)
    finally:
        await port.stopListening()

    assert [i["url"] for i in read_jsonl(out)] == [f"http://127.0.0.1:{number}/news/1.html"]
    paths = [p for p, _ in site.requests]
    assert paths[0] == "/robots.txt" and "/private/2.html" not in paths and "/elsewhere.html" not in paths
    assert {ua for _, ua in site.requests} == {project.get("USER_AGENT")}
    drops = {k.removeprefix("newscrawl/dropped/"): v for k, v in crawler.stats.get_stats().items()
             if k.startswith("newscrawl/dropped/")}
    # the disallowed page; the redirect to another host; the redirect to file://, which Scrapy
    # does not follow, so the 302 itself fails
    assert drops == {"robots": 1, "offsite": 1, "http_error": 1}
    assert crawler.get_extension(RemoteControl) is None and crawler.get_extension(TelnetConsole) is None


def test_request_limits_are_set(project):
    assert project.getint("URLLENGTH_LIMIT") == default_settings.URLLENGTH_LIMIT
    assert 1 <= project.getint("NEWSCRAWL_MAX_LIST_APIS") <= 100
    assert project.getint("NEWSCRAWL_ROBOTSTXT_MAXSIZE") >= 500 * 1024  # RFC 9309 2.5
    middlewares = project.getwithbase("DOWNLOADER_MIDDLEWARES")
    assert middlewares["scrapy.downloadermiddlewares.robotstxt.RobotsTxtMiddleware"] is None
    assert middlewares["newscrawl.middlewares.robots.RobotsTxtMiddleware"] == 100
    # no private addresses: before each request, and at connection time by the resolver the
    # commands install (after Scrapy's retry at 550, so a refused connection is not retried)
    assert middlewares["newscrawl.middlewares.addresses.PrivateAddressMiddleware"] == 53
    assert 550 < middlewares["newscrawl.middlewares.addresses.ResolvedAddressMiddleware"] < 600
    assert project.get("TWISTED_DNS_RESOLVER") == "newscrawl.middlewares.addresses.GuardedResolver"


@pytest_twisted.ensureDeferred
async def test_every_request_is_held_to_the_url_length_limit(http_server, tmp_path):
    # Long enough for URLLENGTH_LIMIT (2083), short enough for Twisted's request line limit:
    # sent, it would reach the server and count a hit.
    s = http_server
    good = s.add("/a/good.html", article_html("A good article about the harbour bridge"))
    long_path = "/a/" + "x" * 3000 + ".html"
    s.add(long_path, article_html("An article behind a very long address"))
    moved = s.add("/a/moved.html", "", status=301, headers={"Location": s.url(long_path + "?moved")})
    entries = [(good, "A good article about the harbour bridge"), (s.url(long_path), "A very long address"),
               (moved, "An article that moved to a very long address")]
    s.add("/feed.xml", feed_xml(entries), headers={"Content-Type": "application/rss+xml"})
    out = tmp_path / "out.jsonl"
    crawler = await run_crawl(site_spider(feeds=[s.url("/feed.xml")]), crawl_settings(tmp_path, out))

    assert [i["url"] for i in read_jsonl(out)] == [good]
    assert not any(len(path) > 2083 for path in s.hits)  # neither the listed URL nor the redirect's target
    assert crawler.stats.get_value("newscrawl/dropped/url_too_long") == 2


@pytest_twisted.ensureDeferred
async def test_list_endpoints_per_catalogue_page_are_capped(http_server, tmp_path):
    s = http_server
    apis = "".join(f'<div data-list-api="/api/{n}.json"></div>' for n in range(30))
    s.add("/tech/", f"<html><body>{apis}</body></html>")
    for n in range(30):
        s.add(f"/api/{n}.json", '{"list": []}', headers={"Content-Type": "application/json"})
    out = tmp_path / "out.jsonl"
    crawler = await run_crawl(site_spider(catalogues=[s.url("/tech/")]),
                              crawl_settings(tmp_path, out, NEWSCRAWL_MAX_LIST_APIS=5))

    assert sorted(p for p in s.hits if p.startswith("/api/")) == sorted(f"/api/{n}.json" for n in range(5))
    assert crawler.stats.get_value("newscrawl/dropped/list_api_capped") == 25


@pytest.mark.parametrize("content_length", [True, False])
@pytest_twisted.ensureDeferred
async def test_a_body_over_download_maxsize_is_too_large(http_server, tmp_path, content_length):
    s = http_server
    body = article_html("A very long article about everything").encode() + b" " * 200_000
    headers = {"Content-Type": "text/html; charset=utf-8"}
    if content_length:
        headers["Content-Length"] = str(len(body))  # without it, Twisted sends the body chunked
    big = s.add("/a/big.html", body, headers=headers)
    s.add("/feed.xml", feed_xml([(big, "A very long article")]), headers={"Content-Type": "application/rss+xml"})
    out = tmp_path / "out.jsonl"
    crawler = await run_crawl(site_spider(feeds=[s.url("/feed.xml")]),
                              crawl_settings(tmp_path, out, DOWNLOAD_MAXSIZE=100_000, DOWNLOAD_WARNSIZE=50_000))

    assert read_jsonl(out) == []
    drops = {k: v for k, v in crawler.stats.get_stats().items() if k.startswith("newscrawl/dropped/")}
    assert drops == {"newscrawl/dropped/too_large": 1}
