"""End to end: the real spider and pipelines against a local server with pages written here."""

from __future__ import annotations

import pytest_twisted
from conftest import crawl_settings, read_jsonl, run_crawl, site_spider

from newscrawl.items import EXPORT_FIELDS

PARAGRAPHS = [
    "The city council met on Tuesday evening to discuss the new budget for the coming year, "
    "and members argued for hours about how the money should be spent on schools and roads.",
    "Several residents spoke during the public comment period, and most of them asked the council "
    "to keep the library open on weekends because it is the only quiet place for their children.",
    "The mayor said that the final vote will take place next month after the finance committee "
    "has reviewed the proposal and published its recommendations for the public to read.",
]
AD_PATH = "/promo/2024/05/buy-our-premium-plan-today-now"


def article_html(title: str, charset: bool = True, extra: str = "") -> str:
    meta = '<meta charset="utf-8">' if charset else ""
    body = "".join(f"<p>{p} {title}.</p>" for p in PARAGRAPHS)
    return (
        f"<html><head>{meta}<title>{title} | Local Times</title></head><body>"
        f'<nav><a href="/">Home</a> <a href="/about">About us</a></nav>'
        f"<article><h1>{title}</h1>{extra}{body}</article>"
        f"<footer><a href='/contact'>Contact</a></footer></body></html>"
    )


def catalogue_html(links: list[tuple[str, str]], next_href: str | None = None) -> str:
    items = "".join(f'<li class="story"><a href="{href}">{text}</a></li>' for href, text in links)
    nav = '<nav class="menu"><a href="/world/">World news section</a><a href="/sport/">Sport</a></nav>'
    ads = (f'<div class="ad-banner"><a href="{AD_PATH}">Buy our premium plan today now</a></div>')
    nxt = f'<a class="next" href="{next_href}">Next</a>' if next_href else ""
    offsite = ('<a href="https://elsewhere.example/2024/05/12/an-article-on-another-site">'
               "An article on another site entirely</a>")
    return f"<html><body>{nav}<ul class='list'>{items}</ul>{ads}{offsite}{nxt}</body></html>"


def headline(n: int) -> str:
    return f"Council debates the city budget for year {2000 + n} in long meeting"


def build_site(server, pages: int = 2, per_page: int = 3) -> list[str]:
    """A paginated catalogue of articles; returns the article URLs."""
    urls = []
    for page in range(1, pages + 1):
        links = []
        for i in range(per_page):
            n = page * 100 + i
            path = f"/news/2024/05/{n}/council-budget-story-{n}.html"
            server.add(path, article_html(headline(n)))
            links.append((path, headline(n)))
            urls.append(server.url(path))
        next_href = f"/list/{page + 1}.html" if page < pages else None
        server.add(f"/list/{page}.html", catalogue_html(links, next_href))
    return urls


@pytest_twisted.ensureDeferred
async def test_catalogue_crawl_exports_each_article_once_then_nothing_new(http_server, tmp_path):
    urls = build_site(http_server, pages=2, per_page=3)
    spider = site_spider(catalogues=[http_server.url("/list/1.html")])

    feed1 = tmp_path / "run1.jsonl"
    crawler = await run_crawl(spider, crawl_settings(tmp_path, feed1))
    items = read_jsonl(feed1)
    assert sorted(i["url"] for i in items) == sorted(urls)
    for item in items:
        assert list(item) == list(EXPORT_FIELDS)  # stable columns, raw body never exported
        assert item["site"] == "testsite"
        assert item["listing_title"] and item["listing_title"] in item["title"]
        assert "city council met" in item["text"]
        assert "Contact" not in item["text"] and item["method"]
        assert item["fetched_at"].endswith("+00:00")
    assert all(http_server.hits[u.removeprefix(http_server.base)] == 1 for u in urls)
    assert "/about" not in http_server.hits and AD_PATH not in http_server.hits
    stats = crawler.stats.get_stats()
    assert stats["newscrawl/exported"] == len(urls)

    feed2 = tmp_path / "run2.jsonl"
    crawler = await run_crawl(spider, crawl_settings(tmp_path, feed2))
    assert read_jsonl(feed2) == []
    assert crawler.stats.get_value("newscrawl/dropped/already_exported") == len(urls)
    assert all(http_server.hits[u.removeprefix(http_server.base)] == 1 for u in urls)  # not refetched

    feed3 = tmp_path / "run3.jsonl"
    await run_crawl(spider, crawl_settings(tmp_path, feed3, NEWSCRAWL_FRESH=True))
    assert sorted(i["url"] for i in read_jsonl(feed3)) == sorted(urls)


@pytest_twisted.ensureDeferred
async def test_max_pages_limits_pagination(http_server, tmp_path):
    build_site(http_server, pages=3, per_page=2)
    spider = site_spider(catalogues=[http_server.url("/list/1.html")])
    feed = tmp_path / "out.jsonl"
    await run_crawl(spider, crawl_settings(tmp_path, feed), max_pages="2")
    assert len(read_jsonl(feed)) == 4
    assert "/list/3.html" not in http_server.hits


def feed_xml(entries: list[tuple[str, str]]) -> str:
    items = "".join(
        f"<item><title>{title}</title><link>{link}</link><description>&lt;p&gt;Summary of {title}&lt;/p&gt;"
        f"</description><pubDate>Sun, 12 May 2024 08:30:00 +0200</pubDate></item>"
        for link, title in entries
    )
    return f'<?xml version="1.0"?><rss version="2.0"><channel><title>Local</title>{items}</channel></rss>'


@pytest_twisted.ensureDeferred
async def test_feed_crawl_with_failures_and_odd_pages(http_server, tmp_path):
    s = http_server
    ok = s.add("/a/ok.html", article_html("A normal article about the budget vote"))
    nocharset_title = "Résumé of the café owners’ meeting"
    nocharset = s.add(
        "/a/nocharset.html",
        article_html(nocharset_title, charset=False).encode("utf-8"),
        headers={"Content-Type": "text/html"},
    )
    target = s.add("/a/moved-here.html", article_html("An article that moved to a new address"))
    redirect = s.add("/a/old-address.html", "", status=301, headers={"Location": target})
    missing = s.url("/a/missing.html")
    broken = s.add("/a/broken.html", "oops", status=500)
    slow = s.add("/a/slow.html", article_html("A very slow article"), delay=60)
    empty = s.add("/a/empty.html", "", headers={"Content-Type": "text/html"})
    image = s.add("/a/photo.html", b"\x89PNG\r\n\x1a\n" + bytes(200), headers={"Content-Type": "image/png"})
    entries = [
        (ok, "A normal article about the budget vote"),
        (nocharset, nocharset_title),
        (redirect, "An article that moved"),
        (missing, "A missing article"),
        (broken, "A broken article"),
        (slow, "A very slow article"),
        (empty, "An empty article"),
        (image, "A photo, not an article"),
        ("https://other-host.example/a/offsite.html", "An article on another host"),
        ("ftp://127.0.0.1/a/file.html", "Not http"),
    ]
    s.add("/feed.xml", feed_xml(entries), headers={"Content-Type": "application/rss+xml"})
    spider = site_spider(feeds=[s.url("/feed.xml")])
    feed = tmp_path / "out.jsonl"
    crawler = await run_crawl(spider, crawl_settings(tmp_path, feed, DOWNLOAD_TIMEOUT=3))

    items = {i["url"]: i for i in read_jsonl(feed)}
    assert set(items) == {ok, nocharset, target}
    assert items[nocharset]["title"] == nocharset_title  # decoded without a declared charset
    assert "city council met" in items[nocharset]["text"]
    assert items[ok]["feed_title"] == "A normal article about the budget vote"
    assert items[ok]["feed_summary"] == "Summary of A normal article about the budget vote"
    assert items[ok]["feed_published"] == "2024-05-12T08:30:00+02:00"  # the feed's own offset, kept
    stats = crawler.stats.get_stats()
    drops = {k.rsplit("/", 1)[1]: v for k, v in stats.items() if k.startswith("newscrawl/dropped/")}
    assert drops == {"http_error": 2, "timeout": 1, "offsite": 2, "empty_body": 1, "binary": 1}
    assert "/a/offsite.html" not in http_server.hits


@pytest_twisted.ensureDeferred
async def test_start_url_and_feed_url_arguments_override_the_configuration(http_server, tmp_path):
    urls = build_site(http_server, pages=1, per_page=2)
    spider = site_spider(catalogues=[http_server.url("/nonexistent-catalogue.html")])
    feed = tmp_path / "out.jsonl"
    await run_crawl(spider, crawl_settings(tmp_path, feed), start_url=http_server.url("/list/1.html"))
    assert sorted(i["url"] for i in read_jsonl(feed)) == sorted(urls)
    assert "/nonexistent-catalogue.html" not in http_server.hits


@pytest_twisted.ensureDeferred
async def test_list_api_rendered_catalogue(http_server, tmp_path):
    s = http_server
    urls = [s.add(f"/tech/{n}.html", article_html(headline(n))) for n in range(3)]
    listing = {"data": {"list": [{"title": headline(n), "url": f"/tech/{n}.html", "time": "2024-05-12"}
                                 for n in range(3)]}}
    import json

    s.add("/api/list/tech.json", json.dumps(listing), headers={"Content-Type": "application/json"})
    s.add("/tech/", '<html><body><div id="list" data-list-api="/api/list/tech.json"></div></body></html>')
    spider = site_spider(catalogues=[s.url("/tech/")])
    feed = tmp_path / "out.jsonl"
    await run_crawl(spider, crawl_settings(tmp_path, feed))
    assert sorted(i["url"] for i in read_jsonl(feed)) == sorted(urls)


@pytest_twisted.ensureDeferred
async def test_csv_export_has_stable_columns_and_json_links(http_server, tmp_path):
    import csv

    s = http_server
    link = '<p>See <a href="/more.html">the full committee report</a> for details.</p>'
    url = s.add("/news/2024/05/1/budget-report-1.html", article_html(headline(1), extra=link))
    s.add("/list.html", catalogue_html([("/news/2024/05/1/budget-report-1.html", headline(1))]))
    spider = site_spider(catalogues=[s.url("/list.html")])
    out = tmp_path / "out.csv"
    settings = crawl_settings(tmp_path, out, FEEDS={str(out): {"format": "csv"}})
    await run_crawl(spider, settings)
    with out.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    assert rows[0] == list(EXPORT_FIELDS)
    row = dict(zip(rows[0], rows[1], strict=True))
    assert row["url"] == url
    import json

    assert isinstance(json.loads(row["links"]), list)  # link values: see test_pipeline_export.py
    assert "city council met" in row["text"]
