"""Sitemaps (issue 14): indexes, gzip and Google News sitemaps, robots.txt ``Sitemap:`` lines,
the recency window, and hostile sitemaps that cost a counted drop, never the crawl."""

from __future__ import annotations

import gc
import gzip
import os
import subprocess
import sys
import threading
import tracemalloc
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import pytest_twisted
from conftest import crawl_settings, read_jsonl, run_crawl, site_spider
from scrapy.http import Response, TextResponse, XmlResponse
from test_crawl_local import article_html

from newscrawl.commands.list import describe
from newscrawl.commands.outcome import outcome_of
from newscrawl.sites import parse_sites
from newscrawl.spiders.site import page_kind
from newscrawl.spiders.sitemaps import (
    MAX_BYTES,
    MAX_URLS,
    SitemapError,
    parse_sitemap,
    parse_w3c_datetime,
    sitemap_body,
)

ROOT = Path(__file__).resolve().parent.parent
NOW = datetime.now(UTC).replace(microsecond=0)
RECENT = (NOW - timedelta(days=1)).isoformat()
OLD = (NOW - timedelta(days=60)).isoformat()
SM = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'
NEWS = 'xmlns:news="http://www.google.com/schemas/sitemap-news/0.9"'
XML = {"Content-Type": "application/xml"}
GZIP = {"Content-Type": "application/x-gzip"}


def url_entry(loc: str, lastmod: str | None = None, title: str | None = None, published: str | None = None) -> str:
    news = ""
    if title or published:
        news = ("<news:news><news:publication><news:name>Local Times</news:name>"
                "<news:language>en</news:language></news:publication>"
                + (f"<news:publication_date>{published}</news:publication_date>" if published else "")
                + (f"<news:title>{title}</news:title>" if title else "") + "</news:news>")
    mod = f"<lastmod>{lastmod}</lastmod>" if lastmod else ""
    return f"<url><loc>{loc}</loc>{mod}{news}</url>"


def urlset(*entries: str) -> str:
    return f'<?xml version="1.0" encoding="UTF-8"?><urlset {SM} {NEWS}>{"".join(entries)}</urlset>'


def index(*children: tuple[str, str | None]) -> str:
    items = "".join(f"<sitemap><loc>{loc}</loc>" + (f"<lastmod>{mod}</lastmod>" if mod else "") + "</sitemap>"
                    for loc, mod in children)
    return f'<?xml version="1.0" encoding="UTF-8"?><sitemapindex {SM}>{items}</sitemapindex>'


def drops(crawler) -> dict[str, int]:
    stats = crawler.stats.get_stats()
    return {k.rsplit("/", 1)[1]: v for k, v in stats.items() if k.startswith("newscrawl/dropped/")}


# --- parsing ------------------------------------------------------------------------------


def test_news_sitemap_entries_carry_title_publication_date_and_lastmod():
    body = urlset(url_entry("https://x.org/a", "2026-11-02", " Harbour\n bridge reopens ", "2026-11-01T08:30:00+01:00"),
                  url_entry("https://x.org/b"), "<url><lastmod>2026-11-01</lastmod></url>").encode()
    parsed = parse_sitemap(body)
    assert parsed.kind == "urlset" and not parsed.capped
    first, second = parsed.entries  # the entry without <loc> is no entry
    assert first.news_title == "Harbour bridge reopens"
    assert first.news_published == datetime(2026, 11, 1, 7, 30, tzinfo=UTC)
    assert first.lastmod == datetime(2026, 11, 2, tzinfo=UTC)
    assert first.date == first.news_published  # the publication date says how old the article is
    assert second.date is None


@pytest.mark.parametrize(("text", "expected"), [
    ("2026", datetime(2026, 1, 1, tzinfo=UTC)),
    ("2026-11", datetime(2026, 11, 1, tzinfo=UTC)),
    ("2026-11-05", datetime(2026, 11, 5, tzinfo=UTC)),
    ("2026-11-05T10:20+02:00", datetime(2026, 11, 5, 8, 20, tzinfo=UTC)),
    ("2026-11-05T10:20:30.5Z", datetime(2026, 11, 5, 10, 20, 30, 500000, tzinfo=UTC)),
    ("yesterday", None), ("2026-13", None), ("", None), ("2" * 100, None),
])
def test_w3c_datetime(text, expected):
    assert parse_w3c_datetime(text) == expected


def test_gzip_sitemaps_are_unpacked_and_bombs_stop_at_the_protocols_50_mb():
    body = urlset(url_entry("https://x.org/a")).encode()
    assert sitemap_body(gzip.compress(body)) == body
    assert sitemap_body(body) == body
    bomb = gzip.compress(b"<urlset>" + b" " * (MAX_BYTES + 1), compresslevel=1)
    assert len(bomb) < MAX_BYTES // 100
    with pytest.raises(SitemapError) as raised:
        sitemap_body(bomb)
    assert raised.value.reason == "too_large"
    with pytest.raises(SitemapError, match="invalid"):
        sitemap_body(b"\x1f\x8b\x08 not really gzip")
    with pytest.raises(SitemapError, match="invalid"):
        sitemap_body(b"just text")


@pytest.mark.parametrize("body", [b"<html><body>Not a sitemap</body></html>", b"<<<", b""])
def test_documents_that_are_no_sitemap_are_invalid(body):
    with pytest.raises(SitemapError, match="invalid"):
        parse_sitemap(body)


def test_declared_entities_are_not_expanded():
    laughs = "".join(f'<!ENTITY l{n} "{f"&l{n - 1};" * 10}">' for n in range(1, 9))
    body = (f'<?xml version="1.0"?><!DOCTYPE urlset [<!ENTITY l0 "ha">{laughs}]>'
            f"<urlset {SM}><url><loc>https://x.org/&l8;</loc></url></urlset>").encode()
    assert all(len(e.loc) < 100 for e in parse_sitemap(body).entries)


def test_a_sitemap_is_read_to_its_50000th_entry():
    body = urlset(*(f"<url><loc>https://x.org/{n}</loc></url>" for n in range(MAX_URLS + 1))).encode()
    parsed = parse_sitemap(body)
    assert parsed.capped and len(parsed.entries) == MAX_URLS
    assert parsed.entries[-1].loc == f"https://x.org/{MAX_URLS - 1}"
    assert not parse_sitemap(body, max_urls=MAX_URLS + 1).capped


def test_scrapy_parse_reads_sitemaps_as_sitemaps():
    url = "https://x.org/sitemap.xml"
    assert page_kind(XmlResponse(url, body=urlset().encode())) == "sitemap"
    assert page_kind(XmlResponse(url, body=index().encode())) == "sitemap"
    assert page_kind(Response(url + ".gz", body=gzip.compress(b"<urlset/>"))) == "sitemap"
    assert page_kind(XmlResponse(url, body=b'<?xml version="1.0"?><rss><channel/></rss>')) == "feed"
    assert page_kind(TextResponse(url, body=b"<html><p>&lt;urlset</p></html>")) == "html"


# --- configuration and `scrapy list` ------------------------------------------------------


def test_sitemaps_are_validated_like_feeds():
    from newscrawl.sites import SiteConfigError

    site = parse_sites({"sites": {"x": {"domains": ["x.org"], "sitemaps": ["https://news.x.org/sm.xml"]}}})["x"]
    assert site.sitemaps == ("https://news.x.org/sm.xml",) and site.robots_sitemaps
    assert "sitemaps 1 + robots.txt" in describe(site)
    with pytest.raises(SiteConfigError, match=r"sites\.x\.sitemaps: 'https://y.org/sm.xml' is not on the site"):
        parse_sites({"sites": {"x": {"domains": ["x.org"], "sitemaps": ["https://y.org/sm.xml"]}}})


def test_scrapy_list_shows_language_and_sources(tmp_path):
    sites = tmp_path / "sites.toml"
    sites.write_text('[sites.alpha]\nlanguage = "de"\ndomains = ["alpha.example"]\n'
                     'catalogues = ["https://alpha.example/", "https://alpha.example/welt/"]\n'
                     'sitemaps = ["https://alpha.example/news-sitemap.xml"]\nrobots_sitemaps = false\n'
                     'max_age_days = 3\n'
                     '[sites.beta]\ndomains = ["beta.example"]\nfeeds = ["https://beta.example/rss"]\n')
    command = [sys.executable, "-m", "scrapy", "list", "-s", f"NEWSCRAWL_SITES={sites}"]
    out = subprocess.run([*command, "--details"], cwd=ROOT, capture_output=True, text=True,
                         check=True).stdout.splitlines()
    details = [line for line in out if line.startswith(("alpha", "beta"))]
    assert [" ".join(line.split()) for line in details] == [
        "alpha de catalogues 2, feeds 0, list APIs 0, sitemaps 1, max age 3 days",
        "beta - catalogues 0, feeds 1, list APIs 0, sitemaps 0 + robots.txt"]
    piped = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    assert {"alpha", "beta"} <= set(piped) and "catalogues" not in piped  # names only, one a line


# --- crawls -------------------------------------------------------------------------------

TITLES = ["Harbour bridge reopens after repairs", "Library extends its opening hours",
          "Tram line seven gets new carriages", "Market square gets new trees"]


def add_article(server, n: int) -> str:
    return server.add(f"/story/{n}.html", article_html(TITLES[n % len(TITLES)] + f" {n}"))


@pytest_twisted.ensureDeferred
async def test_a_news_sitemap_index_with_a_gzip_child_lists_the_site(http_server, tmp_path):
    s = http_server
    fresh = [add_article(s, n) for n in range(3)]
    old_article = add_article(s, 3)
    news = urlset(*(url_entry(u, RECENT, f"{TITLES[n]} {n}", RECENT) for n, u in enumerate(fresh)),
                  url_entry(old_article, RECENT, "An old story", OLD))  # modified lately, published long ago
    s.add("/sitemaps/news.xml.gz", gzip.compress(news.encode()), headers=GZIP)
    s.add("/sitemaps/archive-2020.xml", urlset(url_entry(s.url("/story/2020.html"))), headers=XML)
    s.add("/sitemap_index.xml", index((s.url("/sitemaps/news.xml.gz"), RECENT),
                                      (s.url("/sitemaps/archive-2020.xml"), OLD)), headers=XML)
    spider = site_spider(sitemaps=[s.url("/sitemap_index.xml")], language="en")
    feed = tmp_path / "out.jsonl"
    crawler = await run_crawl(spider, crawl_settings(tmp_path, feed))

    items = {i["url"]: i for i in read_jsonl(feed)}
    assert set(items) == set(fresh)
    for n, url in enumerate(fresh):
        assert items[url]["listing_title"] == f"{TITLES[n]} {n}"
        assert items[url]["feed_published"] == RECENT
        assert items[url]["title"] == f"{TITLES[n]} {n}" and "city council met" in items[url]["text"]
    assert "/story/3.html" not in s.hits  # older than the recency window: never fetched
    assert "/sitemaps/archive-2020.xml" not in s.hits  # an index child not modified since: never read
    assert drops(crawler) == {}  # the old entry is filtered out, not dropped
    assert crawler.stats.get_value("newscrawl/sitemap/outside_window") == 1
    assert crawler.stats.get_value("newscrawl/sitemap/skipped_old") == 1
    assert outcome_of(crawler).ok

    # The next run skips what it exported before fetching: no article page is requested again.
    crawler = await run_crawl(spider, crawl_settings(tmp_path, tmp_path / "again.jsonl"))
    assert drops(crawler) == {"already_exported": 3}
    assert crawler.stats.get_value("newscrawl/sitemap/outside_window") == 1
    assert all(s.hits[u.removeprefix(s.base)] == 1 for u in fresh)


@pytest_twisted.ensureDeferred
async def test_robots_txt_sitemap_lines_are_read(http_server, tmp_path):
    s = http_server
    articles = [add_article(s, n) for n in range(2)]
    s.add("/robots.txt", "User-agent: *\nDisallow: /private/\n\nSitemap: /sitemap-from-robots.xml\n"
                         "Sitemap: https://elsewhere.example/sitemap.xml\n", headers={"Content-Type": "text/plain"})
    s.add("/sitemap-from-robots.xml", urlset(*(url_entry(u) for u in articles)), headers=XML)  # undated: kept
    s.add("/", "<html><body><p>Front page without article links</p></body></html>")
    spider = site_spider(catalogues=[s.url("/")])
    feed = tmp_path / "out.jsonl"
    crawler = await run_crawl(spider, crawl_settings(tmp_path, feed))
    assert sorted(i["url"] for i in read_jsonl(feed)) == sorted(articles)
    assert all(i["listing_title"] is None for i in read_jsonl(feed))
    assert s.hits["/robots.txt"] == 1  # the robots.txt middleware's download, read once
    assert drops(crawler) == {"sitemap_offsite": 1}

    off = site_spider(catalogues=[s.url("/")], robots_sitemaps=False)
    crawler = await run_crawl(off, crawl_settings(tmp_path / "off", tmp_path / "off.jsonl"))
    assert read_jsonl(tmp_path / "off.jsonl") == []
    assert s.hits["/sitemap-from-robots.xml"] == 1


@pytest_twisted.ensureDeferred
async def test_hostile_sitemaps_cost_a_counted_drop_and_the_rest_is_exported(http_server, tmp_path):
    s = http_server
    good = [add_article(s, n) for n in range(2)]
    s.add("/good.xml", urlset(*(url_entry(u, RECENT) for u in good)), headers=XML)
    # a gzip bomb: 50 MB of spaces and one more byte in about 50 KB
    s.add("/bomb.xml.gz", gzip.compress(b"<urlset>" + b" " * (MAX_BYTES + 1), compresslevel=1), headers=GZIP)
    # two indexes listing each other, and a chain of indexes deeper than NEWSCRAWL_SITEMAP_MAX_DEPTH (3)
    s.add("/loop-a.xml", index((s.url("/loop-b.xml"), None)), headers=XML)
    s.add("/loop-b.xml", index((s.url("/loop-a.xml"), None)), headers=XML)
    for level in range(4):
        s.add(f"/deep-{level}.xml", index((s.url(f"/deep-{level + 1}.xml"), None)), headers=XML)
    s.add("/deep-4.xml", urlset(url_entry(s.url("/story/44.html"))), headers=XML)
    # other hosts' URLs (and another port of this host) beside one of the site's own
    mixed = add_article(s, 5)
    other_port = s.url("/story/6.html").replace(str(s.port.getHost().port), "1")
    s.add("/mixed.xml", urlset(url_entry("https://elsewhere.example/story.html"), url_entry(other_port),
                               url_entry(mixed)), headers=XML)
    # 50,001 entries: two new articles, then 49,999 entries older than the recency window
    big_new = [add_article(s, n) for n in (7, 8)]
    big = urlset(*(url_entry(u, RECENT) for u in big_new),
                 *(f"<url><loc>{s.url(f'/old/{n}.html')}</loc><lastmod>{OLD}</lastmod></url>"
                   for n in range(MAX_URLS - 1)))
    s.add("/big.xml", big, headers=XML)
    sitemaps = ["/good.xml", "/bomb.xml.gz", "/loop-a.xml", "/deep-0.xml", "/mixed.xml", "/big.xml"]
    spider = site_spider(sitemaps=[s.url(p) for p in sitemaps])
    feed = tmp_path / "out.jsonl"
    crawler = await run_crawl(spider, crawl_settings(tmp_path, feed))

    assert sorted(i["url"] for i in read_jsonl(feed)) == sorted([*good, mixed, *big_new])
    assert drops(crawler) == {"sitemap_too_large": 1, "sitemap_loop": 1, "sitemap_too_deep": 1,
                              "sitemap_offsite": 2, "sitemap_too_many_urls": 1}
    assert crawler.stats.get_value("newscrawl/sitemap/outside_window") == MAX_URLS - 2
    assert s.hits["/loop-a.xml"] == 1 and s.hits["/loop-b.xml"] == 1
    assert "/deep-4.xml" not in s.hits and "/story/44.html" not in s.hits
    assert not any(path.startswith("/old/") for path in s.hits)
    assert crawler.stats.get_value("finish_reason") == "finished"
    assert crawler.stats.get_value("newscrawl/listing_error/sitemap") == 1  # the bomb: one page gave nothing
    assert outcome_of(crawler).ok


@pytest_twisted.ensureDeferred
async def test_an_index_with_nothing_new_is_not_a_failed_crawl(http_server, tmp_path):
    s = http_server
    s.add("/index.xml", index((s.url("/2020.xml"), OLD), (s.url("/2021.xml"), OLD)), headers=XML)
    crawler = await run_crawl(site_spider(sitemaps=[s.url("/index.xml")]),
                              crawl_settings(tmp_path, tmp_path / "out.jsonl"))
    assert crawler.stats.get_value("newscrawl/sitemap/skipped_old") == 2 and "/2020.xml" not in s.hits
    assert outcome_of(crawler).ok
    s.add("/broken.xml", "<html><body>Not found, but with status 200</body></html>")
    crawler = await run_crawl(site_spider(sitemaps=[s.url("/broken.xml")]),
                              crawl_settings(tmp_path, tmp_path / "out2.jsonl"))
    assert drops(crawler) == {"sitemap_invalid": 1}
    assert outcome_of(crawler).problems == ["every listing page failed (1/1)"]


@pytest_twisted.ensureDeferred
async def test_sitemap_files_per_run_are_capped(http_server, tmp_path):
    s = http_server
    article = add_article(s, 0)
    s.add("/index.xml", index(*((s.url(f"/part-{n}.xml"), None) for n in range(5))), headers=XML)
    for n in range(5):
        s.add(f"/part-{n}.xml", urlset(url_entry(article)), headers=XML)
    spider = site_spider(sitemaps=[s.url("/index.xml")])
    crawler = await run_crawl(spider, crawl_settings(tmp_path, tmp_path / "out.jsonl", NEWSCRAWL_SITEMAP_MAX_FILES=3))
    assert [i["url"] for i in read_jsonl(tmp_path / "out.jsonl")] == [article]
    assert sum(1 for path in s.hits if path.startswith("/part-")) == 2  # the index is the first of three
    assert drops(crawler)["sitemap_capped"] == 3


@pytest_twisted.ensureDeferred
async def test_a_50000_entry_sitemap_is_parsed_off_the_reactor_so_other_downloads_go_on(http_server, tmp_path):
    """While the big sitemap is read, the small child sitemaps of an index are in flight with a short
    DOWNLOAD_TIMEOUT: they all arrive and are read (a reactor held by the parse times them out)."""
    s = http_server
    children = [add_article(s, n) for n in range(5)]
    for n, url in enumerate(children):
        s.add(f"/child-{n}.xml", urlset(url_entry(url, RECENT)), headers=XML, delay=0.5)
    s.add("/index.xml", index(*((s.url(f"/child-{n}.xml"), RECENT) for n in range(5))), headers=XML)
    big = urlset(*(url_entry(s.url(f"/old/{n}.html"), OLD, f"An old story number {n}", OLD)
                   for n in range(MAX_URLS)))
    s.add("/big.xml", big, headers=XML, delay=0.2)
    spider = site_spider(sitemaps=[s.url("/big.xml"), s.url("/index.xml")])
    feed = tmp_path / "out.jsonl"
    crawler = await run_crawl(spider, crawl_settings(tmp_path, feed, DOWNLOAD_TIMEOUT=1, DOWNLOAD_MAXSIZE=MAX_BYTES,
                                                     CONCURRENT_REQUESTS_PER_DOMAIN=8))
    assert sorted(i["url"] for i in read_jsonl(feed)) == sorted(children)
    stats = crawler.stats.get_stats()
    assert not any(key.startswith("newscrawl/listing_error/") for key in stats), stats
    assert drops(crawler) == {}  # the big sitemap's old entries are filtered, not dropped
    assert stats.get("newscrawl/sitemap/outside_window") == MAX_URLS
    assert all(s.hits[f"/child-{n}.xml"] == 1 for n in range(5))


@pytest_twisted.ensureDeferred
async def test_a_sitemap_declaring_entities_is_counted_and_its_other_entries_read(http_server, tmp_path, caplog):
    """Entities are never expanded or fetched; a sitemap that declares some is counted and logged,
    its plain entries are read, and an entry whose <loc> needs an entity is a counted drop (its
    text before the reference is not taken for the URL)."""
    s = http_server
    articles = [add_article(s, n) for n in range(4)]
    laughs = "".join(f'<!ENTITY lol{n} "{f"&lol{n - 1};" * 10}">' for n in range(1, 10))
    s.add("/laughs.xml", f'<?xml version="1.0"?><!DOCTYPE urlset [<!ENTITY lol0 "lol">{laughs}]>'
                         f"<urlset {SM}><url><loc>{s.url('/story/')}&lol9;</loc></url>"
                         + "".join(url_entry(u) for u in articles[:2]) + "</urlset>", headers=XML)
    s.add("/xxe.xml", f'<?xml version="1.0"?><!DOCTYPE urlset [<!ENTITY site "{s.base}">'
                      f'<!ENTITY secret SYSTEM "{s.url("/secret.txt")}">]>'
                      f"<urlset {SM}>" + "".join(url_entry(u) for u in articles[2:])
                      + "<url><loc>&site;/story/9.html</loc></url><url><loc>&secret;</loc></url></urlset>",
          headers=XML)
    s.add("/secret.txt", "http://127.0.0.1:1/leaked", headers={"Content-Type": "text/plain"})
    spider = site_spider(sitemaps=[s.url("/laughs.xml"), s.url("/xxe.xml")])
    feed = tmp_path / "out.jsonl"
    with caplog.at_level("WARNING"):
        crawler = await run_crawl(spider, crawl_settings(tmp_path, feed))
    assert sorted(i["url"] for i in read_jsonl(feed)) == sorted(articles)
    assert drops(crawler) == {"sitemap_entity": 3}
    assert crawler.stats.get_value("newscrawl/sitemap/entities") == 2
    warned = [r.getMessage() for r in caplog.records if "declares XML entities" in r.getMessage()]
    assert len(warned) == 2 and any(s.url("/laughs.xml") in m for m in warned)
    assert "/secret.txt" not in s.hits and "/story/9.html" not in s.hits and "/story/" not in s.hits
    assert outcome_of(crawler).ok


def test_entity_references_are_never_read_as_urls():
    body = (f'<?xml version="1.0"?><!DOCTYPE urlset [<!ENTITY base "https://x.org">]><urlset {SM}>'
            "<url><loc>https://x.org/&base;</loc></url><url><loc>https://x.org/a&amp;b</loc></url>"
            "<url><loc>https://x.org/&undeclared;</loc></url></urlset>").encode()
    parsed = parse_sitemap(body)
    assert [e.loc for e in parsed.entries] == ["https://x.org/a&b"]
    assert parsed.entities == ("base",) and parsed.entity_locs == 2 and parsed.stopped is None


# --- gzip bombs: what a crawl holds -------------------------------------------------------


def test_a_gzip_bomb_sitemap_is_refused_holding_64_kib_of_its_output_not_50_mb():
    """Decompression is measured before it is kept: a bomb is refused having held one 64 KiB
    chunk of its output, where materialising it to the 50 MB limit held 50 MB (issue 38, 11)."""
    bomb = gzip.compress(b"<urlset>" + b" " * (MAX_BYTES + 1), compresslevel=1)
    tracemalloc.start()
    try:
        with pytest.raises(SitemapError, match="too_large"):
            sitemap_body(bomb)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 4 * 1024 * 1024


def test_a_content_encoding_bomb_lets_go_of_its_decoded_output_when_refused():
    """A ``Content-Encoding: gzip`` bomb stops at ``DOWNLOAD_MAXSIZE``; the refusal (which the
    crawl's failure keeps until the errback has run) must not keep the 16 MiB decoded so far."""
    from scrapy.exceptions import IgnoreRequest
    from scrapy.http import Request
    from scrapy.utils.test import get_crawler

    from newscrawl.middlewares.decompression import DecompressionMiddleware

    crawler = get_crawler(settings_dict={"DOWNLOAD_MAXSIZE": 16 * 1024 * 1024})
    middleware = DecompressionMiddleware.from_crawler(crawler)
    bomb = gzip.compress(b" " * (32 * 1024 * 1024), compresslevel=1)
    response = Response("http://127.0.0.1/sitemap.xml", body=bomb, headers={"Content-Encoding": "gzip"})
    gc.disable()  # what the refusal itself holds, not what a later collection would find
    tracemalloc.start()
    try:
        with pytest.raises(IgnoreRequest) as refused:
            middleware.process_response(Request(response.url), response)
        held, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        gc.enable()
    assert refused.value is not None and held < 4 * 1024 * 1024


class _BombServer:
    """A sitemap index of ``children`` gzip children served from a thread (the crawl runs in a
    subprocess); the odd ones as ``.xml.gz`` files, the even ones with ``Content-Encoding: gzip``."""

    def __init__(self, children: int, child: bytes):
        index_body = ""

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                headers = {"Content-Type": "application/xml"}
                if self.path == "/index.xml":
                    body = index_body.encode()
                elif self.path.startswith("/child-"):
                    body = child
                    if int(self.path.split("-")[1].split(".")[0]) % 2:
                        headers = {"Content-Type": "application/x-gzip"}
                    else:
                        headers["Content-Encoding"] = "gzip"
                else:
                    body, headers = b"User-agent: *\nAllow: /\n", {"Content-Type": "text/plain"}
                self.send_response(200)
                for name, value in {**headers, "Content-Length": str(len(body))}.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        index_body = index(*((f"{self.base}/child-{n}.xml.gz", None) for n in range(children)))
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()


def _peak_rss_of_crawl(tmp_path: Path, child: bytes, children: int = 20) -> tuple[int, str]:
    """Peak resident memory (KiB) of ``scrapy crawl`` on a sitemap index of ``children`` copies
    of ``child``, measured by a parent process of its own (ru_maxrss of its only child)."""
    tmp_path.mkdir()
    server = _BombServer(children, child)
    try:
        (tmp_path / "sites.toml").write_text(
            f'[sites.bombs]\ndomains = ["127.0.0.1"]\nsitemaps = ["{server.base}/index.xml"]\n'
            "politeness = { download_delay = 0.0, autothrottle = false }\n")
        measure = ("import resource, subprocess, sys; done = subprocess.run(sys.argv[1:], capture_output=True, "
                   "text=True); print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss); "
                   "print(done.stderr, file=sys.stderr)")
        done = subprocess.run(
            [sys.executable, "-c", measure, sys.executable, "-m", "scrapy", "crawl", "bombs",
             "-s", f"NEWSCRAWL_SITES={tmp_path / 'sites.toml'}", "-s", f"NEWSCRAWL_STATE_DIR={tmp_path / 'state'}",
             "-o", str(tmp_path / "out.jsonl")],
            cwd=ROOT, capture_output=True, text=True, timeout=300, env={**os.environ, "PYTHONPATH": str(ROOT)})
    finally:
        server.httpd.shutdown()
    return int(done.stdout.split()[-1]), done.stderr


def test_a_sitemap_index_of_gzip_bombs_costs_the_crawl_no_more_memory_than_small_children(tmp_path):
    """Twenty gzip bombs (50 MB of output each, half as files, half as a content coding) cost
    the crawl about what twenty tiny gzip children cost: before, the bombs' decoded output
    stayed in memory (826 MiB peak against 160 MiB)."""
    small = gzip.compress(urlset().encode())
    control, _ = _peak_rss_of_crawl(tmp_path / "control", small)
    bombs, log = _peak_rss_of_crawl(tmp_path / "bombs", gzip.compress(b"<urlset>" + b" " * (MAX_BYTES + 1), 1))
    assert "'newscrawl/dropped/sitemap_too_large': 10" in log, log[-3000:]
    assert "'newscrawl/listing_error/too_large': 10" in log, log[-3000:]
    assert bombs - control < 100 * 1024, (bombs, control)
