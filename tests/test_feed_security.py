"""Hostile feeds (issue 6): no entity is expanded or resolved, entries per feed are capped,
truncated and non-feed documents are handled, and only http(s) links are followed."""

from __future__ import annotations

import pytest
import pytest_twisted
from conftest import crawl_settings, read_jsonl, run_crawl, site_spider
from test_crawl_local import article_html

from newscrawl.spiders.feeds import parse_feed

FEED_URL = "http://example.com/feed.xml"


def rss(items: str, doctype: str = "") -> bytes:
    return (f'<?xml version="1.0"?>{doctype}<rss version="2.0"><channel><title>Local</title>'
            f"{items}</channel></rss>").encode()


def item(link: str, title: str) -> str:
    return f"<item><title>{title}</title><link>{link}</link></item>"


def billion_laughs(levels: int = 9) -> bytes:
    decls = '<!ENTITY lol0 "lol">' + "".join(f'<!ENTITY lol{i} "{f"&lol{i - 1};" * 10}">'
                                              for i in range(1, levels + 1))
    return rss(f"<item><title>&lol{levels};</title><link>http://example.com/a</link></item>",
               f"<!DOCTYPE rss [{decls}]>")


def xxe(system_id: str) -> bytes:
    return rss("<item><title>&xxe;</title><link>http://example.com/a</link><description>&xxe;</description>"
               "</item>", f'<!DOCTYPE rss [<!ENTITY xxe SYSTEM "{system_id}">]>')


def many_entries(n: int, base: str = "http://example.com") -> bytes:
    return rss("".join(item(f"{base}/s/{i}.html", f"Story number {i}") for i in range(n)))


def test_billion_laughs_is_refused_before_parsing():
    feed = parse_feed(billion_laughs(), FEED_URL)
    assert feed.entries == [] and "declares XML entities" in feed.error


def test_external_entities_are_refused_and_never_read(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET-MARKER")
    for system_id in (secret.as_uri(), "http://127.0.0.1:9/evil.dtd"):
        feed = parse_feed(xxe(system_id), FEED_URL)
        assert feed.entries == [] and "xxe" in feed.error
    param = rss(item("http://example.com/a", "A"), f'<!DOCTYPE rss [<!ENTITY % p SYSTEM "{secret.as_uri()}"> %p;]>')
    assert parse_feed(param, FEED_URL).entries == []


def test_an_external_dtd_without_entity_declarations_is_still_read():
    doctype = ('<!DOCTYPE rss PUBLIC "-//Netscape Communications//DTD RSS 0.91//EN" '
               '"http://my.netscape.com/publish/formats/rss-0.91.dtd">')
    feed = parse_feed(rss(item("http://example.com/a", "Caf&#233; opens"), doctype), FEED_URL)
    assert [(e.link, e.title) for e in feed.entries] == [("http://example.com/a", "Café opens")]


def test_entries_per_feed_are_capped_in_document_order():
    feed = parse_feed(many_entries(100_000), FEED_URL, max_entries=50)
    assert feed.capped and feed.error is None
    assert [e.title for e in feed.entries] == [f"Story number {i}" for i in range(50)]
    exact = parse_feed(many_entries(50), FEED_URL, max_entries=50)
    assert not exact.capped and len(exact.entries) == 50


def test_a_truncated_feed_gives_its_complete_entries():
    body = many_entries(10)
    cut = body[: body.index(b"Story number 6")]
    titles = [e.title for e in parse_feed(cut, FEED_URL).entries]
    assert titles[:6] == [f"Story number {i}" for i in range(6)]


def test_an_html_page_is_not_a_feed():
    page = article_html("An article, not a feed").encode()
    feed = parse_feed(page, FEED_URL, "text/html; charset=utf-8")
    assert feed.entries == [] and feed.error.startswith("not a feed")


@pytest_twisted.ensureDeferred
async def test_crawl_of_hostile_feeds_follows_only_http_links_on_the_site(http_server, tmp_path):
    s = http_server
    good = s.add("/a/good.html", article_html("A good article about the harbour bridge"))
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET-MARKER")
    links = [
        (good, "A good article about the harbour bridge"),
        (secret.as_uri(), "A local file"),
        ("ftp://127.0.0.1/a/file.html", "An FTP link"),
        ("javascript:alert(1)", "A script link"),
        ("data:text/html,<p>hi</p>", "A data link"),
        ("gopher://127.0.0.1:70/1", "A gopher link"),
    ]
    feeds = {
        "/links.xml": rss("".join(item(link, title) for link, title in links)),
        "/bomb.xml": billion_laughs(),
        "/xxe-file.xml": xxe(secret.as_uri()),
        "/xxe-http.xml": xxe(s.url("/entity-target")),
        "/many.xml": many_entries(100_000, s.base),
        "/page.xml": article_html("An HTML page served as a feed").encode(),
    }
    for path, body in feeds.items():
        s.add(path, body, headers={"Content-Type": "application/rss+xml"})
    spider = site_spider(feeds=[s.url(p) for p in feeds])
    out = tmp_path / "out.jsonl"
    crawler = await run_crawl(spider, crawl_settings(tmp_path, out, NEWSCRAWL_MAX_FEED_ENTRIES=6))

    assert [i["url"] for i in read_jsonl(out)] == [good]
    assert "TOP-SECRET-MARKER" not in out.read_text()
    assert "/entity-target" not in s.hits  # the entity's URL was never requested
    fetched_stories = sorted(p for p in s.hits if p.startswith("/s/"))
    assert fetched_stories == sorted(f"/s/{i}.html" for i in range(6))  # the cap, not 100,000
    stats = crawler.stats.get_stats()
    assert stats["newscrawl/feed_capped"] == 1
    assert stats["newscrawl/listing_error/feed"] == 4  # bomb, two XXE, the HTML page
    assert stats["newscrawl/dropped/offsite"] == 5  # every non-http(s) link
    assert stats["newscrawl/dropped/http_error"] == 6  # the six stories read are 404s here


# --- invalid character references ---------------------------------------------------------


@pytest.mark.parametrize(("reference", "title"), [
    ("&#55357;&#56832;", "Launch day \ufffd\ufffd"),  # a surrogate pair as two references: U+FFFD each
    ("&#xD83D;", "Launch day \ufffd"),  # a lone surrogate
    ("&#0;", "Launch day \ufffd"),
    ("&#1;", "Launch day \ufffd"),  # a control character XML does not allow
    ("&#x110000;", "Launch day \ufffd"),  # past U+10FFFF
    ("&#99999999999999999999999999;", "Launch day \ufffd"),
    ("&#x1F600;", "Launch day \U0001F600"),  # valid references are kept
    ("&#0000233;", "Launch day é"),
    ("<![CDATA[&#55357;]]>", "Launch day &#55357;"),  # CDATA is text, not a reference
])
def test_an_invalid_character_reference_costs_that_character_only(reference, title):
    titles = [f"Story number {i}" for i in range(5)]
    titles[2] = f"Launch day {reference}"
    body = rss("".join(item(f"http://example.com/s/{i}.html", t) for i, t in enumerate(titles)))
    feed = parse_feed(body, FEED_URL)
    assert feed.error is None
    assert [e.title for e in feed.entries] == [*titles[:2], title, *titles[3:]]


@pytest_twisted.ensureDeferred
async def test_crawl_lists_every_entry_of_a_feed_with_a_surrogate_reference(http_server, tmp_path):
    s = http_server
    titles = [f"A harbour story about the new ferry line part {i}" for i in range(5)]
    urls = [s.add(f"/a/{i}.html", article_html(t)) for i, t in enumerate(titles)]
    titles[3] += " &#55357;&#56832;"
    s.add("/feed.xml", rss("".join(item(u, t) for u, t in zip(urls, titles, strict=True))),
          headers={"Content-Type": "application/rss+xml"})
    out = tmp_path / "out.jsonl"
    crawler = await run_crawl(site_spider(feeds=[s.url("/feed.xml")]), crawl_settings(tmp_path, out))

    exported = {i["url"]: i for i in read_jsonl(out)}
    assert sorted(exported) == sorted(urls)
    assert exported[urls[3]]["feed_title"].endswith("part 3 \ufffd\ufffd")
    assert crawler.stats.get_value("newscrawl/listing_error/feed") is None


def test_an_entry_with_an_impossible_offset_is_read():
    feed = parse_feed(b'<?xml version="1.0"?><rss version="2.0"><channel><title>F</title><item><title>Story 0'
                      b'</title><link>http://example.com/s/0</link><pubDate>Sun, 12 May 2024 08:30:00 +8200'
                      b'</pubDate></item></channel></rss>', FEED_URL, "application/rss+xml")
    # feedparser reads "+8200" as 82 hours and normalises to UTC; the written value is no zone (was a crash)
    assert [(e.link, e.published) for e in feed.entries] == [("http://example.com/s/0", "2024-05-08T22:30:00+00:00")]
