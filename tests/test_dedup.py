"""One article, one record: URL keys (tracking parameters, http/https, mobile and AMP variants),
the page's canonical URL and body fingerprints, in the library, the store and whole crawls."""

from __future__ import annotations

import sqlite3

import pytest
import pytest_twisted
from conftest import crawl_settings, read_jsonl, run_crawl, site_spider

from newscrawl.dedup import (
    SIMILARITY,
    ContentIndex,
    figures,
    fingerprint,
    from_bytes,
    page_canonical,
    to_bytes,
    url_key,
)
from newscrawl.extract import Page
from newscrawl.state.seen_store import SqliteSeenStore, legacy_url_key

BASE = "https://news.example/world/2024/05/12/council-budget.html"


@pytest.mark.parametrize("variant", [
    BASE + "?utm_source=rss&utm_medium=feed&utm_campaign=x",
    BASE + "?spm=a1.b2&from=timeline",
    BASE + "?fbclid=abc123&gclid=zz",
    "http://news.example/world/2024/05/12/council-budget.html",
    "https://www.news.example/world/2024/05/12/council-budget.html",
    "https://m.news.example/world/2024/05/12/council-budget.html",
    "https://amp.news.example/world/2024/05/12/council-budget.html",
    "https://news.example/amp/world/2024/05/12/council-budget.html",
    "https://news.example/world/2024/05/12/council-budget.html/amp",
    "https://news.example/world/2024/05/12/council-budget.amp.html",
    BASE + "?amp",
    BASE + "?amp=1",
    BASE + "#comments",
])
def test_variants_of_one_article_share_its_key(variant):
    assert url_key(variant) == url_key(BASE)


@pytest.mark.parametrize("other", [
    "https://news.example/world/2024/05/12/council-budget-2.html",
    "https://news.example/world/2024/05/12/council-budget.html?id=2",
    "https://news.example/article.php?story=12",
    "https://other.example/world/2024/05/12/council-budget.html",
    "https://news.example/world/2024/05/12/amplifier-review.html",
])
def test_other_articles_keep_their_own_key(other):
    assert url_key(other) != url_key(BASE)


def test_content_parameters_stay_in_the_key():
    assert url_key("https://e.example/a.php?story=12&utm_source=x") != url_key("https://e.example/a.php?story=13")
    assert "story=12" in url_key("https://e.example/a.php?story=12&utm_source=x")


def page(html: str, url: str = BASE) -> Page:
    return Page.from_html(html, url=url)


def test_the_canonical_url_on_the_same_site_only():
    same = page('<html><head><link rel="canonical" href="/world/2024/05/12/council-budget.html"></head></html>',
                "https://m.news.example/x?utm_source=a")
    assert page_canonical(same.root, same.url) == "https://m.news.example/world/2024/05/12/council-budget.html"
    og = page('<html><head><meta property="og:url" content="https://www.news.example/a/1.html"></head></html>')
    assert page_canonical(og.root, og.url) == "https://www.news.example/a/1.html"
    other = page('<html><head><link rel="canonical" href="https://aggregator.example/a/1.html"></head></html>')
    assert page_canonical(other.root, other.url) is None
    bad = page('<html><head><link rel="canonical" href="javascript:alert(1)"></head></html>')
    assert page_canonical(bad.root, bad.url) is None
    assert page_canonical(page("<html><body><p>x</p></body></html>").root, BASE) is None
    home = page('<html><head><link rel="canonical" href="https://news.example/"></head></html>')
    assert page_canonical(home.root, home.url) is None  # every page of a misconfigured site says so


WORDS = ("council budget library roads schools mayor vote residents evening committee finance proposal "
         "public hours money members comment weekend children quiet place recommendations month").split()


def story(seed: int, words: int = 300) -> str:
    """A text of ``words`` words drawn from a small vocabulary by a seeded generator."""
    import random

    rng = random.Random(seed)
    return " ".join(rng.choice(WORDS) for _ in range(words))


def test_fingerprints_find_the_same_text_with_some_chrome_and_not_another():
    index = ContentIndex()
    index.add("a", fingerprint(story(1)))
    assert index.match(fingerprint("Share this article. " + story(1) + " Read more from our partners.")) == "a"
    assert index.match(fingerprint(story(2))) is None
    assert fingerprint("Too short to say anything") is None


def test_fingerprints_survive_the_round_trip_through_bytes():
    minhash = fingerprint(story(3))
    data = to_bytes(minhash)
    assert len(data) == 4 * len(minhash.hashvalues)
    assert from_bytes(data).jaccard(minhash) == 1.0
    assert from_bytes(data[:8]) is None


def test_a_store_written_with_the_old_keys_finds_the_new_variants(tmp_path):
    path = tmp_path / "seen.sqlite3"
    tracked = "http://news.example/a/1.html?utm_source=x"
    store = SqliteSeenStore(path)
    store.close()
    db = sqlite3.connect(path)  # as an older newscrawl wrote it
    db.execute("INSERT INTO seen VALUES ('s', ?, '2024-01-01T00:00:00+00:00')", (legacy_url_key(tracked),))
    db.execute("PRAGMA user_version = 0")
    db.commit()
    db.close()
    store = SqliteSeenStore(path)  # re-keys the old rows once
    assert store.contains("s", tracked)
    assert store.contains("s", "https://www.news.example/a/1.html")
    assert store._db.execute("PRAGMA user_version").fetchone()[0] == 1
    store.add("s", ["https://news.example/a/2.html?utm_medium=rss"])
    assert store.contains("s", "http://m.news.example/a/2.html")
    store.close()


def test_the_store_keeps_the_newest_fingerprints_of_a_site(tmp_path):
    store = SqliteSeenStore(tmp_path / "seen.sqlite3")
    for n in range(5):
        store.add_fingerprint("s", f"https://e.example/{n}", to_bytes(fingerprint(story(n))), keep=3)
    store.add_fingerprint("t", "https://t.example/0", to_bytes(fingerprint(story(9))), keep=3)
    assert [url for url, _ in store.fingerprints("s")] == [f"https://e.example/{n}" for n in (2, 3, 4)]
    assert len(store.fingerprints("t")) == 1
    store.close()


# --- whole crawls ----------------------------------------------------------------------------------

PARAGRAPHS = [
    "The city council met on Tuesday evening to discuss the new budget for the coming year, and members "
    "argued for hours about how the money should be spent on schools, roads and the old library.",
    "Several residents spoke during the public comment period, and most of them asked the council to keep "
    "the library open on weekends because it is the only quiet place for their children to study.",
    "The mayor said that the final vote will take place next month after the finance committee has "
    "reviewed the proposal and published its recommendations for the public to read and discuss.",
    "Opposition members called the plan unrealistic and promised to table amendments that would move "
    "money from the planned car park to the bus routes that serve the northern districts of the city.",
]
OTHER = [
    "Heavy rain flooded the river delta overnight, and rescue teams moved hundreds of families from low "
    "villages to schools on higher ground while the water kept rising through the morning hours.",
    "Farmers said the harvest in the delta is lost for this year, and the regional government promised "
    "emergency payments once the damage to fields, roads and irrigation canals has been assessed.",
    "Forecasters expect more rain at the weekend and warned that the dikes near the estuary could fail "
    "if the tide and the flood peak arrive at the same time on Sunday evening as the models suggest.",
]


def article_page(title: str, paragraphs: list[str], *, canonical: str | None = None, chrome: str = "Local Times",
                 ) -> str:
    link = f'<link rel="canonical" href="{canonical}">' if canonical else ""
    body = "".join(f"<p>{p}</p>" for p in paragraphs)
    return (f"<html><head><meta charset='utf-8'><title>{title} | {chrome}</title>{link}</head><body>"
            f"<nav><a href='/'>{chrome} home</a> <a href='/about'>About {chrome}</a></nav>"
            f"<article><h1>{title}</h1>{body}</article>"
            f"<footer><p>Copyright {chrome}, all rights reserved.</p></footer></body></html>")


def feed_xml(links: list[str]) -> str:
    items = "".join(f"<item><title>Story {n}</title><link>{link.replace('&', '&amp;')}</link></item>"
                    for n, link in enumerate(links))
    return f'<?xml version="1.0"?><rss version="2.0"><channel><title>Local</title>{items}</channel></rss>'


def drops(crawler) -> dict[str, int]:
    prefix = "newscrawl/dropped/"
    return {k[len(prefix):]: v for k, v in crawler.stats.get_stats().items() if k.startswith(prefix)}


def serve_story(server) -> dict[str, str]:
    """One story under its own URL, an alias page declaring it canonical, and the other variants."""
    path = "/news/2024/05/12/council-budget.html"
    own = server.add(path, article_page("Council debates the budget", PARAGRAPHS, canonical=path))
    server.add("/amp" + path, article_page("Council debates the budget", PARAGRAPHS, canonical=path,
                                           chrome="Local Times AMP"))
    alias = server.add("/s/12345-council-budget", article_page("Council debates the budget", PARAGRAPHS,
                                                                canonical=path, chrome="Local Times Short"))
    return {"own": own, "tracking": own + "?utm_source=rss&utm_medium=feed", "https": own.replace("http:", "https:"),
            "amp": server.url("/amp" + path), "alias": alias}


def spider_for(server, feed_path: str):
    port = server.port.getHost().port
    return site_spider(feeds=[server.url(feed_path)], domains=[f"127.0.0.1:{port}"])


@pytest_twisted.ensureDeferred
async def test_one_article_under_five_urls_is_exported_once(http_server, tmp_path):
    urls = serve_story(http_server)
    other = http_server.add("/news/2024/05/12/river-delta-flood.html", article_page("Flood in the delta", OTHER))
    listed = [urls["own"], urls["tracking"], urls["https"], urls["amp"], urls["alias"], other]
    http_server.add("/feed.xml", feed_xml(listed), headers={"Content-Type": "application/rss+xml"})
    feed = tmp_path / "run1.jsonl"
    crawler = await run_crawl(spider_for(http_server, "/feed.xml"), crawl_settings(tmp_path, feed))
    exported = [i["url"] for i in read_jsonl(feed)]
    assert len(exported) == 2 and other in exported
    # the story once, under the URL it was fetched by: its own or the alias, whichever came back first
    assert len({urls["own"], urls["alias"]} & set(exported)) == 1
    # tracking, https and AMP variants share the story's key: listed twice; the alias is a duplicate
    assert drops(crawler) == {"listed_twice": 3, "duplicate": 1}
    # tracking, https and AMP variants are never fetched; the alias is, and its canonical gives it away
    assert http_server.hits.get("/amp/news/2024/05/12/council-budget.html") is None
    assert http_server.hits["/s/12345-council-budget"] == 1

    # a later run: a new alias of the exported story is known by its canonical URL
    alias2 = http_server.add("/s/999-budget", article_page("Council debates the budget", PARAGRAPHS,
                                                           canonical="/news/2024/05/12/council-budget.html"))
    http_server.add("/feed2.xml", feed_xml([*listed, alias2]), headers={"Content-Type": "application/rss+xml"})
    feed2 = tmp_path / "run2.jsonl"
    crawler = await run_crawl(spider_for(http_server, "/feed2.xml"), crawl_settings(tmp_path, feed2))
    assert read_jsonl(feed2) == []
    # alias2 is a duplicate by its canonical URL; the first alias is known from run 1 either way:
    # exported, or (when run 1 exported the story under its own URL) remembered as a copy
    assert drops(crawler).get("duplicate") == 1
    assert drops(crawler).get("already_rejected", 0) == (urls["own"] in exported)
    assert drops(crawler).get("already_exported") >= 2


@pytest_twisted.ensureDeferred
async def test_a_syndicated_copy_is_dropped_as_duplicate_content_also_in_a_later_run(http_server, tmp_path):
    original = http_server.add("/news/2024/05/12/council-budget.html",
                               article_page("Council debates the budget", PARAGRAPHS))
    copy = http_server.add("/partners/2024/05/13/city-budget-row-continues.html",
                           article_page("City budget row continues", PARAGRAPHS, chrome="Partner Wire Daily"))
    other = http_server.add("/news/2024/05/12/river-delta-flood.html", article_page("Flood in the delta", OTHER))
    http_server.add("/feed.xml", feed_xml([original, copy, other]), headers={"Content-Type": "application/rss+xml"})
    feed = tmp_path / "run1.jsonl"
    crawler = await run_crawl(spider_for(http_server, "/feed.xml"), crawl_settings(tmp_path, feed))
    exported = [i["url"] for i in read_jsonl(feed)]
    assert len(exported) == 2 and other in exported
    assert len({original, copy} & set(exported)) == 1  # whichever came back first
    assert drops(crawler) == {"duplicate_content": 1}

    mirror = http_server.add("/mirror/2024/05/14/budget-council-mirror.html",
                             article_page("Budget: the council debates", PARAGRAPHS, chrome="Mirror Site"))
    http_server.add("/feed2.xml", feed_xml([mirror]), headers={"Content-Type": "application/rss+xml"})
    feed2 = tmp_path / "run2.jsonl"
    crawler = await run_crawl(spider_for(http_server, "/feed2.xml"), crawl_settings(tmp_path, feed2))
    assert read_jsonl(feed2) == []
    assert drops(crawler) == {"duplicate_content": 1}

    feed3 = tmp_path / "run3.jsonl"  # NEWSCRAWL_FRESH forgets what earlier runs exported
    await run_crawl(spider_for(http_server, "/feed2.xml"), crawl_settings(tmp_path, feed3, NEWSCRAWL_FRESH=True))
    assert [i["url"] for i in read_jsonl(feed3)] == [mirror]

    mirror2 = http_server.add("/mirror/2024/05/15/budget-council-mirror-2.html",
                              article_page("Budget: the council debates", PARAGRAPHS, chrome="Mirror Two"))
    http_server.add("/feed3.xml", feed_xml([mirror2]), headers={"Content-Type": "application/rss+xml"})
    feed4 = tmp_path / "run4.jsonl"  # NEWSCRAWL_FINGERPRINTS_PER_SITE=0: no content check
    await run_crawl(spider_for(http_server, "/feed3.xml"),
                    crawl_settings(tmp_path, feed4, NEWSCRAWL_FINGERPRINTS_PER_SITE=0))
    assert [i["url"] for i in read_jsonl(feed4)] == [mirror2]


REPORT = [
    "The Valley Water Board publishes this report every morning for the farmers, boaters and families who "
    "depend on the river, and it is read out on the local radio station at seven o'clock as it has been for "
    "many years, so that everyone along the valley knows what the water will do during the coming day.",
    "The level at the northern gauge stood at {a} metres this morning, and the board expects the river to "
    "stay within its banks through the weekend unless heavy rain falls in the hills above the reservoir.",
    "Boaters are reminded that the locks open at eight and close at six, that life jackets must be worn "
    "on the lower stretch at all times, and that the harbour office answers questions by telephone during "
    "the same hours, including on public holidays and during the summer festival week in the town.",
    "The temperature of the water was {b} degrees at the southern weir, the board said in its note to "
    "anglers, who are asked to return every fish they catch in the protected reach below the old mill.",
    "Readers who farm along the lower valley can ask the board for a visit from its field officers, who "
    "advise on irrigation, on the drains that carry water back to the river and on the permits that the "
    "county requires for new pumps, wells and channels, and who keep a record of every request they answer.",
    "The board meets in public on the first Monday of every month in the hall beside the station, and its "
    "minutes, accounts and plans for the embankments are kept in the town library, where anyone may read "
    "them during the opening hours and ask the librarian for copies of the older reports of the board.",
]


def test_a_report_from_a_shared_template_with_other_figures_is_not_a_copy():
    """Issue 30.11: same boilerplate, other figures: another report, not a duplicate."""
    monday = "\n".join(REPORT).format(a="3.42", b="11.5")
    tuesday = "\n".join(REPORT).format(a="2.87", b="12.25")
    index = ContentIndex()
    index.add("monday", fingerprint(monday), figures(monday))
    assert fingerprint(monday).jaccard(fingerprint(tuesday)) >= SIMILARITY  # the words alone merge them
    assert index.match(fingerprint(tuesday), figures(tuesday)) is None
    copy = "Valley Courier, 12 May 2024\n" + monday + "\nShare this report"  # a copy with a date line
    assert index.match(fingerprint(copy), figures(copy)) == "monday"
    assert index.match(fingerprint(tuesday)) == "monday"  # figures unknown (a stored fingerprint): words only


@pytest_twisted.ensureDeferred
async def test_reports_from_one_template_are_exported_and_their_copy_dropped(http_server, tmp_path):
    monday = http_server.add("/reports/monday.html", article_page(
        "River report for Monday", [p.format(a="3.42", b="11.5") for p in REPORT]))
    tuesday = http_server.add("/reports/tuesday.html", article_page(
        "River report for Tuesday", [p.format(a="2.87", b="12.25") for p in REPORT]))
    copy = http_server.add("/partners/monday-copy.html", article_page(
        "River report for Monday", [p.format(a="3.42", b="11.5") for p in REPORT], chrome="Partner Wire"))
    http_server.add("/feed.xml", feed_xml([monday, tuesday, copy]), headers={"Content-Type": "application/rss+xml"})
    feed = tmp_path / "run.jsonl"
    crawler = await run_crawl(spider_for(http_server, "/feed.xml"), crawl_settings(tmp_path, feed))
    exported = {i["url"] for i in read_jsonl(feed)}
    assert tuesday in exported and len(exported & {monday, copy}) == 1
    assert drops(crawler) == {"duplicate_content": 1}
