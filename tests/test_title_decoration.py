"""A site's title decoration, learned from its pages during the crawl (He 2019; Yan and Wang 2020).

The pages below have no headings and no headline metadata, and their site's suffix is longer
than their headline: the single-page rules take the suffix for the headline, what the crawl
learned cuts it.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest_twisted
from conftest import crawl_settings, read_jsonl, run_crawl, site_spider
from test_evaluate_command import scrapy

from newscrawl.extract import Page, extract, extract_page
from newscrawl.extract.fields.title_decoration import DecorationStore, SiteDecoration
from newscrawl.pipelines.templates import CrawlTemplates

SUFFIX = "The Daily Planet Online Newspaper of Record"
HEADLINES = ["Rain again", "Port reopens", "Mayor resigns", "Bridge closed", "Schools shut", "Tram delayed",
             "Budget passed", "Fire in mill"]


def page_html(i: int, title: str | None = None) -> str:
    title = title or f"{HEADLINES[i]} | {SUFFIX}"
    paragraphs = "".join(
        f"<p>Story {i}, paragraph {n}: the council met on Tuesday and residents spoke for an hour "
        f"about item {i * 7 + n} before the vote, which passed after a long debate.</p>" for n in range(3))
    return f"<html><head><title>{title}</title></head><body><div>{paragraphs}</div></body></html>"


def test_single_page_keeps_the_long_suffix_and_the_learned_decoration_cuts_it():
    assert extract(page_html(0), url="http://127.0.0.1/0").title == SUFFIX
    decoration = SiteDecoration()
    titles = []
    for i in range(5):
        page = Page.from_html(page_html(i), url=f"http://127.0.0.1/{i}")
        decoration.learn(page)
        decoration.apply(page)
        titles.append(extract_page(page).title)
    assert decoration.decoration() == {SUFFIX.casefold()}
    assert titles[:2] == [SUFFIX, SUFFIX]  # two pages teach nothing yet
    assert titles[2:] == HEADLINES[2:5]


def test_a_running_story_kicker_leading_a_few_titles_is_not_decoration():
    decoration = SiteDecoration()
    for i in range(8):
        kicker = "Election 2026 - " if i < 3 else ""
        decoration.learn(Page.from_html(page_html(i, f"{kicker}{HEADLINES[i]} | {SUFFIX}")))
    assert decoration.decoration() == {SUFFIX.casefold()}


def test_learned_decoration_cuts_only_whole_parts():
    decoration = SiteDecoration(counts={"news": 5}, pages=5)
    page = Page.from_html(page_html(0, "Newsroom strike ends after a week | News"), url="http://127.0.0.1/x")
    decoration.apply(page)
    assert extract_page(page).title == "Newsroom strike ends after a week"


def test_the_sqlite_store_round_trips_a_decoration(tmp_path):
    store = DecorationStore(tmp_path / "templates.sqlite3")
    for i in range(3):
        store.site("s").learn(Page.from_html(page_html(i)))
    store.save("s")
    store.close()
    again = DecorationStore(tmp_path / "templates.sqlite3")
    assert again.site("s").decoration() == {SUFFIX.casefold()}
    assert again.site("s").pages == 3
    again.close()


def crawl_templates(tmp_path, **settings) -> CrawlTemplates:
    from scrapy.settings import Settings
    from scrapy.statscollectors import MemoryStatsCollector

    crawler = SimpleNamespace(settings=Settings({"NEWSCRAWL_STATE_DIR": str(tmp_path / "state"), **settings}))
    crawler.stats = MemoryStatsCollector(crawler)
    return CrawlTemplates(crawler)


def test_two_workers_share_the_decoration_in_redis_and_the_command_prints_it(tmp_path, client, redis_url):
    settings = {"NEWSCRAWL_DISTRIBUTED": redis_url, "NEWSCRAWL_REDIS_PREFIX": "t"}
    one, two = crawl_templates(tmp_path, **settings), crawl_templates(tmp_path, **settings)
    for worker, pages in ((one, (0, 1)), (two, (2, 3))):
        for i in pages:
            page = Page.from_html(page_html(i), url=f"http://127.0.0.1/{i}")
            worker.apply("s", page)
            worker.titles.apply("s", page)
        worker.save("s")
    assert int(client.hget("t:template-titles:s", SUFFIX.casefold())) == 4
    third = crawl_templates(tmp_path, **settings)
    page = Page.from_html(page_html(4), url="http://127.0.0.1/4")
    third.apply("s", page)
    third.titles.apply("s", page)
    assert extract_page(page).title == HEADLINES[4]  # its first page, with what the others learned
    for worker in (one, two, third):
        worker.close()
    proc = scrapy(tmp_path, "templates", "s", "-s", f"NEWSCRAWL_DISTRIBUTED={redis_url}",
                  "-s", "NEWSCRAWL_REDIS_PREFIX=t")
    assert proc.returncode == 0, proc.stderr
    assert "title decoration: 1 parts learned from 5 pages" in proc.stdout
    assert SUFFIX.casefold() in proc.stdout


def _site(http_server, pages: range) -> str:
    items = "".join(f"<item><link>{http_server.add(f'/a{i}.html', page_html(i))}</link></item>" for i in pages)
    return http_server.add(f"/feed{pages[0]}.xml", '<?xml version="1.0" encoding="utf-8"?><rss version="2.0">'
                           f"<channel><title>F</title>{items}</channel></rss>",
                           headers={"Content-Type": "application/rss+xml"})


@pytest_twisted.ensureDeferred
async def test_the_crawl_learns_persists_and_prints_the_decoration(http_server, tmp_path):
    out = tmp_path / "out.jsonl"
    crawler = await run_crawl(site_spider(feeds=[_site(http_server, range(6))]), crawl_settings(tmp_path, out))
    titles = sorted(item["title"] for item in read_jsonl(out))
    assert crawler.stats.get_value("newscrawl/title_decoration/pages_learned") == 6
    assert crawler.stats.get_value("newscrawl/title_decoration/pages_decorated") == 4
    assert sum(t in HEADLINES for t in titles) == 4  # from the third page on, whichever came first
    assert titles.count(SUFFIX) == 2

    out2 = tmp_path / "out2.jsonl"  # the next run starts with what the first one learned
    await run_crawl(site_spider(feeds=[_site(http_server, range(6, 8))]), crawl_settings(tmp_path, out2))
    assert sorted(item["title"] for item in read_jsonl(out2)) == sorted(HEADLINES[6:8])

    proc = scrapy(tmp_path, "templates", "testsite", "--state-dir", str(tmp_path / "state"))
    assert proc.returncode == 0, proc.stderr
    assert "title decoration: 1 parts learned from 8 pages" in proc.stdout
    assert f"    8  {SUFFIX.casefold()}" in proc.stdout


def test_with_a_listing_title_he_rule_compares_against_the_title_less_its_decoration():
    html = (f"<html><head><title>{HEADLINES[0]} | {SUFFIX}</title></head><body><h1>{SUFFIX}</h1>"
            f"<div><p>{'Residents spoke for an hour about the rain before the vote. ' * 5}</p></div></body></html>")
    plain = Page.from_html(html, url="http://127.0.0.1/0")
    assert extract_page(plain, listing_title=HEADLINES[0]).title == SUFFIX  # the site's name is nearer <title>
    taught = Page.from_html(html, url="http://127.0.0.1/0")
    SiteDecoration(counts={SUFFIX.casefold(): 3}, pages=3).apply(taught)
    assert extract_page(taught, listing_title=HEADLINES[0]).title == HEADLINES[0]
