"""The benchmarks' generated site and the crawl-cost baseline (``NEWSCRAWL_EXTRACT=0``).

The site of ``bench/site.py`` is crawled here with the real spider and pipelines, with and
without extraction: the benchmark's two crawls must export the same articles, and only
the full one may carry extracted text.  No timings are asserted.
"""

from __future__ import annotations

import socket
import sys
from pathlib import Path

import pytest_twisted
from conftest import crawl_settings, read_jsonl, run_crawl, site_spider

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import site  # noqa: E402


def test_generated_site_is_deterministic_and_complete():
    routes = site.build_routes(120, "http://127.0.0.1:1")
    assert routes == site.build_routes(120, "http://127.0.0.1:1")
    articles = [p for p in routes if p.startswith("/news/")]
    assert len(articles) == 120
    assert len([p for p in routes if p.startswith("/list/")]) == site.catalogue_pages(120) == 3
    assert b"/list/2.html" in routes["/list/1.html"][1] and b"/list/4.html" not in routes["/list/3.html"][1]
    assert routes["/feed.xml"][1].count(b"<item>") == site.FEED_ENTRIES
    assert len({routes[p][1] for p in articles}) == 120  # every article page differs


def _fetch(port: int, path: str) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
        conn.sendall(f"GET {path} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n".encode())
        chunks = []
        while chunk := conn.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def test_site_process_serves_and_reports_cpu():
    with site.SiteProcess(60) as served:
        page = _fetch(served.port, site.article_path(7))
        missing = _fetch(served.port, "/nope")
        assert page.startswith(b"HTTP/1.1 200") and site.article_title(7).encode() in page
        assert missing.startswith(b"HTTP/1.1 404")
        assert served.cpu_seconds() >= 0


async def _crawl(http_server, tmp_path, name: str, **settings):
    for path, (ctype, body) in site.build_routes(60, http_server.base).items():
        http_server.add(path, body, headers={"Content-Type": ctype.decode()})
    spider = site_spider(catalogues=[http_server.url("/list/1.html")], feeds=[http_server.url("/feed.xml")],
                         article_pattern=site.ARTICLE_RE, max_pages=5)
    feed = tmp_path / f"{name}.jsonl"
    crawler = await run_crawl(spider, crawl_settings(tmp_path / name, feed, **settings))
    return crawler, read_jsonl(feed)


@pytest_twisted.ensureDeferred
async def test_crawl_without_extraction_exports_the_same_articles_without_text(http_server, tmp_path):
    _, full = await _crawl(http_server, tmp_path, "full")
    crawler, bare = await _crawl(http_server, tmp_path, "bare", NEWSCRAWL_EXTRACT=False)
    expected = sorted(http_server.url(site.article_path(i)) for i in range(60))
    assert sorted(i["url"] for i in full) == expected
    assert sorted(i["url"] for i in bare) == expected
    assert all(i["text"] and i["method"] == "auto" for i in full)
    assert all(not i["text"] and i["method"] == "none" and i["title"] == i["listing_title"] for i in bare)
    # The feed's entries are also on the catalogue: each is fetched once, the second listing dropped.
    stats = crawler.stats
    assert stats.get_value("newscrawl/dropped/listed_twice", 0) == site.FEED_ENTRIES
    assert not stats.get_value("newscrawl/dropped/already_exported")  # a first run: nothing exported before
