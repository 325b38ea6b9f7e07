"""robots.txt per RFC 9309 §2.3.1: a robots.txt that cannot be read (5xx, too large, timeout)
disallows its host for the run; one that is missing (4xx) allows everything."""

from __future__ import annotations

import pytest
import pytest_twisted
from conftest import crawl_settings, read_jsonl, run_crawl, site_spider
from test_crawl_local import article_html, feed_xml

TEXT = {"Content-Type": "text/plain"}
TITLES = ["A public article about the new tram line", "A page the robots.txt would forbid"]
ROBOTS_MAXSIZE = 64 * 1024


def _serve(server, robots_route: dict) -> list[str]:
    """A feed listing one allowed and one forbidden article; robots.txt as ``robots_route`` says."""
    public = server.add("/news/1.html", article_html(TITLES[0]))
    private = server.add("/private/2.html", article_html(TITLES[1]))
    server.add("/feed.xml", feed_xml([(public, TITLES[0]), (private, TITLES[1])]),
               headers={"Content-Type": "application/rss+xml"})
    server.add("/robots.txt", **robots_route)
    return [public, private]


async def _crawl(server, tmp_path, **settings):
    out = tmp_path / "out.jsonl"
    settings = crawl_settings(tmp_path, out, NEWSCRAWL_ROBOTSTXT_MAXSIZE=ROBOTS_MAXSIZE, **settings)
    assert settings.getbool("ROBOTSTXT_OBEY")
    crawler = await run_crawl(site_spider(feeds=[server.url("/feed.xml")]), settings)
    return crawler, [i["url"] for i in read_jsonl(out)]


FORBIDDING = "User-agent: *\nDisallow: /private/\n"
# The file that would forbid /private/ is padded past the size limit: it cannot be read.
OVERSIZE = FORBIDDING + "# " + "x" * (ROBOTS_MAXSIZE + 10) + "\n"


@pytest.mark.parametrize(("route", "settings", "reason"), [
    ({"body": FORBIDDING, "status": 500, "headers": TEXT}, {}, "HTTP 500"),
    ({"body": FORBIDDING, "status": 503, "headers": TEXT}, {"RETRY_TIMES": 1}, "HTTP 503"),
    ({"body": OVERSIZE, "headers": TEXT}, {}, "too_large"),
    ({"body": FORBIDDING, "headers": TEXT, "delay": 30}, {"DOWNLOAD_TIMEOUT": 1}, "timeout"),
])
@pytest_twisted.ensureDeferred
async def test_an_unreachable_robots_txt_disallows_the_host(http_server, tmp_path, caplog, route, settings, reason):
    _serve(http_server, route)
    crawler, exported = await _crawl(http_server, tmp_path, **settings)

    assert exported == []
    assert "/private/2.html" not in http_server.hits and "/news/1.html" not in http_server.hits
    assert "/feed.xml" not in http_server.hits  # the feed is on the same host: not read either
    # retried by Scrapy's retry middleware (RETRY_TIMES, 0 in these crawls), then given up
    assert http_server.hits["/robots.txt"] == 1 + settings.get("RETRY_TIMES", 0)
    stats = crawler.stats.get_stats()
    assert stats["newscrawl/robots_unreachable"] == 1  # once for the host
    assert stats["newscrawl/listing_error/robots_unreachable"] == 1  # the feed, dropped with its reason
    warnings = [r.getMessage() for r in caplog.records if r.name == "newscrawl.middlewares.robots"]
    assert len(warnings) == 1 and reason in warnings[0]


@pytest_twisted.ensureDeferred
async def test_each_blocked_article_is_counted(http_server, other_server, tmp_path):
    """The feed is on a host whose robots.txt works; the articles' host answers 500.  Its
    three articles are requested together, while its robots.txt downloads."""
    o = other_server
    o.add("/robots.txt", FORBIDDING, status=500, headers=TEXT)
    links = [(o.add(f"/news/{n}.html", article_html(f"{TITLES[0]} {n}")), f"{TITLES[0]} {n}") for n in range(3)]
    http_server.add("/feed.xml", feed_xml(links), headers={"Content-Type": "application/rss+xml"})
    spider = site_spider(feeds=[http_server.url("/feed.xml")], domains=["127.0.0.1", f"localhost:{o.port_number}"])
    out = tmp_path / "out.jsonl"
    crawler = await run_crawl(spider, crawl_settings(tmp_path, out))

    assert read_jsonl(out) == []
    assert set(o.hits) == {"/robots.txt"}
    stats = crawler.stats.get_stats()
    assert stats["newscrawl/dropped/robots_unreachable"] == 3
    assert stats["newscrawl/robots_unreachable"] == 1


@pytest.fixture
def other_server():
    """A second local server, reached as ``localhost``: another host for robots.txt."""
    from conftest import RoutesServer

    server = RoutesServer()
    server.port_number = server.port.getHost().port
    server.base = f"http://localhost:{server.port_number}"
    yield server
    server.stop()


@pytest.mark.parametrize("status", [404, 403, 410])
@pytest_twisted.ensureDeferred
async def test_a_missing_robots_txt_allows_everything(http_server, tmp_path, status):
    # whatever the error page says, a 4xx robots.txt is "unavailable": no rules (RFC 9309 2.3.1.3)
    urls = _serve(http_server, {"body": FORBIDDING, "status": status, "headers": TEXT})
    crawler, exported = await _crawl(http_server, tmp_path)
    assert sorted(exported) == sorted(urls)
    assert crawler.stats.get_value("newscrawl/robots_unreachable") is None


@pytest_twisted.ensureDeferred
async def test_a_readable_robots_txt_under_the_limit_is_obeyed(http_server, tmp_path):
    body = FORBIDDING + "# " + "x" * (ROBOTS_MAXSIZE // 2) + "\n"
    public, _ = _serve(http_server, {"body": body, "headers": TEXT})
    crawler, exported = await _crawl(http_server, tmp_path)
    assert exported == [public]
    assert "/private/2.html" not in http_server.hits
    assert crawler.stats.get_value("newscrawl/dropped/robots") == 1
    assert crawler.stats.get_value("newscrawl/robots_unreachable") is None


@pytest_twisted.ensureDeferred
async def test_requests_waiting_for_a_robots_txt_all_get_its_rules(http_server, other_server, tmp_path):
    """Scrapy 2.19 let the third and later requests to a host, sent while its robots.txt
    downloaded, through unchecked; the rules hold for every one of them."""
    o = other_server
    o.add("/robots.txt", FORBIDDING, headers=TEXT, delay=0.5)
    links = [(o.add(f"/private/{n}.html", article_html(f"{TITLES[1]} {n}")), f"{TITLES[1]} {n}") for n in range(6)]
    http_server.add("/feed.xml", feed_xml(links), headers={"Content-Type": "application/rss+xml"})
    spider = site_spider(feeds=[http_server.url("/feed.xml")], domains=["127.0.0.1", f"localhost:{o.port_number}"])
    out = tmp_path / "out.jsonl"
    crawler = await run_crawl(spider, crawl_settings(tmp_path, out, CONCURRENT_REQUESTS_PER_DOMAIN=8))

    assert read_jsonl(out) == []
    assert set(o.hits) == {"/robots.txt"}
    assert crawler.stats.get_value("newscrawl/dropped/robots") == 6
