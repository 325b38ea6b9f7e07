"""The date window (issue 14): ``-a since`` and the site keys ``since``/``max_age_days`` drop older
articles as ``too_old``: before fetching where the listing gives a date, after extraction otherwise;
an article with no date is kept."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
import pytest_twisted
from conftest import crawl_settings, read_jsonl, run_crawl, site_spider
from scrapy.http import TextResponse
from scrapy.utils.test import get_crawler
from test_crawl_local import article_html

from newscrawl.commands.outcome import outcome_of
from newscrawl.items import ArticleItem
from newscrawl.pipelines.stages import SinceFilterStage
from newscrawl.run.drops import Dropped
from newscrawl.sites import SiteConfigError, parse_sites

SINCE = "2026-11-01"
BEFORE, AFTER = "2026-10-15T08:00:00+00:00", "2026-11-10T08:00:00+00:00"
XML = {"Content-Type": "application/xml"}


def dated_article(title: str, published: str | None) -> str:
    meta = f'<meta property="article:published_time" content="{published}">' if published else ""
    return article_html(title).replace("<head>", f"<head>{meta}", 1)


def rss(entries: list[tuple[str, str, str]]) -> str:
    items = "".join(f"<item><title>{title}</title><link>{link}</link><pubDate>{date}</pubDate></item>"
                    for link, title, date in entries)
    return f'<?xml version="1.0"?><rss version="2.0"><channel><title>Local</title>{items}</channel></rss>'


def spider_of(cls, settings: dict | None = None, **args):
    crawler = get_crawler(cls, settings or {})
    crawler.spider = cls.from_crawler(crawler, **args)
    return crawler.spider


def drops(crawler) -> dict[str, int]:
    stats = crawler.stats.get_stats()
    return {k.rsplit("/", 1)[1]: v for k, v in stats.items() if k.startswith("newscrawl/dropped/")}


@pytest_twisted.ensureDeferred
async def test_since_drops_older_articles_before_fetching_and_after_extraction(http_server, tmp_path):
    s = http_server
    feed_old = [s.add(f"/feed/old-{n}.html", dated_article(f"Old ferry timetable story {n}", None)) for n in range(2)]
    feed_new = s.add("/feed/new.html", dated_article("New ferry timetable published", None))
    s.add("/rss.xml", rss([(feed_old[0], "Old ferry timetable story 0", "Thu, 15 Oct 2026 08:00:00 +0000"),
                           (feed_old[1], "Old ferry timetable story 1", "Sat, 31 Oct 2026 23:59:59 +0000"),
                           (feed_new, "New ferry timetable published", "Tue, 10 Nov 2026 08:00:00 +0000")]),
          headers={"Content-Type": "application/rss+xml"})
    # sitemap entries without dates: the extracted date decides, no date keeps the article
    undated_old = s.add("/sm/old.html", dated_article("Harbour festival of last month", BEFORE))
    undated_new = s.add("/sm/new.html", dated_article("Harbour festival opens today", AFTER))
    no_date = s.add("/sm/none.html", dated_article("Harbour festival programme", None))
    entries = "".join(f"<url><loc>{u}</loc></url>" for u in (undated_old, undated_new, no_date))
    s.add("/sitemap.xml", f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{entries}</urlset>',
          headers=XML)
    spider = site_spider(feeds=[s.url("/rss.xml")], sitemaps=[s.url("/sitemap.xml")])
    feed = tmp_path / "out.jsonl"
    crawler = await run_crawl(spider, crawl_settings(tmp_path, feed), since=SINCE)

    items = {i["url"]: i for i in read_jsonl(feed)}
    assert set(items) == {feed_new, undated_new, no_date}
    assert items[no_date]["published"] is None
    assert all(path not in s.hits for path in ("/feed/old-0.html", "/feed/old-1.html"))  # never requested
    assert s.hits["/sm/old.html"] == 1  # fetched (the listing has no date), dropped after extraction
    assert drops(crawler) == {"too_old": 3}
    assert outcome_of(crawler).ok


@pytest_twisted.ensureDeferred
async def test_a_run_with_nothing_in_the_window_is_not_a_failed_crawl(http_server, tmp_path):
    s = http_server
    s.add("/rss.xml", rss([(s.url("/a/old.html"), "Old ferry timetable story", "Thu, 15 Oct 2026 08:00:00 +0000")]),
          headers={"Content-Type": "application/rss+xml"})
    crawler = await run_crawl(site_spider(feeds=[s.url("/rss.xml")]), crawl_settings(tmp_path, tmp_path / "o.jsonl"),
                              since=SINCE)
    assert drops(crawler) == {"too_old": 1} and "/a/old.html" not in s.hits
    assert outcome_of(crawler).ok


@pytest_twisted.ensureDeferred
async def test_site_key_max_age_days_drops_old_feed_entries(http_server, tmp_path):
    s = http_server
    now = datetime.now(UTC)
    recent, old = now - timedelta(days=1), now - timedelta(days=10)
    urls = [s.add(f"/a/{n}.html", dated_article(f"Quay repairs report number {n}", None)) for n in range(2)]
    s.add("/rss.xml", rss([(urls[0], "Quay repairs report number 0", recent.strftime("%a, %d %b %Y %H:%M:%S +0000")),
                           (urls[1], "Quay repairs report number 1", old.strftime("%a, %d %b %Y %H:%M:%S +0000"))]),
          headers={"Content-Type": "application/rss+xml"})
    spider = site_spider(feeds=[s.url("/rss.xml")], max_age_days=3)
    crawler = await run_crawl(spider, crawl_settings(tmp_path, tmp_path / "out.jsonl"))
    assert [i["url"] for i in read_jsonl(tmp_path / "out.jsonl")] == [urls[0]]
    assert "/a/1.html" not in s.hits and drops(crawler) == {"too_old": 1}


def test_list_api_dates_are_checked_before_fetching():
    spider = spider_of(site_spider(list_apis=["http://127.0.0.1/api.json"]), since=SINCE)
    body = json.dumps({"data": {"list": [
        {"title": "Old quay repairs report", "url": "/2026/old-quay-repairs.html", "time": "2026-10-20 08:00:00+08:00"},
        {"title": "Older quay repairs report", "url": "/2026/older-quay-repairs.html", "ctime": 1790000000},  # 2026-09
        {"title": "New quay repairs report", "url": "/2026/new-quay-repairs.html", "time": "2026-11-02 08:00:00+08:00"},
        {"title": "Undated quay repairs report", "url": "/2026/undated-quay-repairs.html"},
    ]}})
    response = TextResponse("http://127.0.0.1/api.json", body=body.encode(), headers={"Content-Type": "application/json"})
    listed = [item.url for item in spider.parse_list_api(response)]
    assert listed == ["http://127.0.0.1/2026/new-quay-repairs.html", "http://127.0.0.1/2026/undated-quay-repairs.html"]
    assert spider.crawler.stats.get_value("newscrawl/dropped/too_old") == 2


def test_the_window_comes_from_the_argument_else_the_site():
    now = datetime(2026, 11, 24, 12, tzinfo=UTC)
    cls = site_spider(feeds=["http://127.0.0.1/rss.xml"], since="2026-11-20", max_age_days=7)
    spider = spider_of(cls)
    spider._set_date_windows(spider.crawler.settings, now)
    assert spider.date_cutoff == datetime(2026, 11, 20, tzinfo=UTC)  # the later of the two
    assert spider.sitemap_cutoff == spider.date_cutoff
    spider = spider_of(cls, since="2026-01-01T06:00:00+02:00")  # the argument replaces the site's window
    assert spider.date_cutoff == datetime(2026, 1, 1, 4, tzinfo=UTC) == spider.sitemap_cutoff
    plain = spider_of(site_spider(feeds=["http://127.0.0.1/rss.xml"]), {"NEWSCRAWL_SITEMAP_MAX_AGE_DAYS": 2})
    plain._set_date_windows(plain.crawler.settings, now)
    assert plain.date_cutoff is None and plain.sitemap_cutoff == now - timedelta(days=2)
    plain = spider_of(site_spider(feeds=["http://127.0.0.1/rss.xml"]), {"NEWSCRAWL_SITEMAP_MAX_AGE_DAYS": 0})
    assert plain.sitemap_cutoff is None


@pytest.mark.parametrize("value", ["last week", "2026-11-31", "1700000000"])
def test_a_bad_since_is_refused(value):
    with pytest.raises(ValueError, match="since: expected an ISO 8601 date"):
        spider_of(site_spider(feeds=["http://127.0.0.1/rss.xml"]), since=value)
    with pytest.raises(SiteConfigError, match=r"sites\.x\.since: expected an ISO 8601 date"):
        parse_sites({"sites": {"x": {"domains": ["x.org"], "feeds": ["https://x.org/rss"], "since": value}}})


@pytest.mark.parametrize("days", [0, -1, True, 1.5])
def test_a_bad_max_age_days_is_refused(days):
    with pytest.raises(SiteConfigError, match=r"sites\.x\.max_age_days"):
        parse_sites({"sites": {"x": {"domains": ["x.org"], "feeds": ["https://x.org/rss"], "max_age_days": days}}})


def test_the_stage_judges_only_articles_whose_listing_gave_no_date():
    spider = spider_of(site_spider(feeds=["http://127.0.0.1/rss.xml"]), since=SINCE)
    stage = SinceFilterStage(spider.crawler)

    def article(**fields):
        return ArticleItem(url="http://127.0.0.1/a.html", site="testsite", **fields)

    with pytest.raises(Dropped) as dropped:
        stage.process_item(article(published="2026-10-31T23:00:00"))  # no offset: read as UTC
    assert dropped.value.reason == "too_old"
    with pytest.raises(Dropped):
        stage.process_item(article(published="2026-10-31"))  # a whole day before the window
    kept = [article(published=AFTER), article(published=None), article(published="not a date"),
            article(published=BEFORE, feed_published=AFTER),  # the listing's date was checked already
            article(published="2026-11-01")]  # a day-only date is not midnight: its day is in the window
    assert [stage.process_item(item) for item in kept] == kept


def test_a_day_only_date_on_the_cutoffs_day_is_kept_whatever_the_cutoffs_time():
    spider = spider_of(site_spider(feeds=["http://127.0.0.1/rss.xml"]), since=SINCE)
    spider.date_cutoff = datetime(2026, 11, 18, 14, 0, tzinfo=UTC)  # as max_age_days sets it: now minus N days
    stage = SinceFilterStage(spider.crawler)
    same_day = ArticleItem(url="http://127.0.0.1/a.html", site="testsite", published="2026-11-18")
    assert stage.process_item(same_day) is same_day
    with pytest.raises(Dropped):
        stage.process_item(ArticleItem(url="http://127.0.0.1/b.html", site="testsite", published="2026-11-17"))


@pytest.mark.parametrize("args", [["-a", "since=garbage"], ["-a", "since=2026-13-45"], ["-a", "max_pages=x"],
                                  ["-a", "start_url=not-a-url"]])
def test_a_bad_argument_is_a_usage_error_with_one_line(tmp_path, args):
    """``-a since=<garbage>`` exited 1 with a traceback (issue 30, item 10): now exit status 2 and
    one line, as the other argument checks, for a configured site and for discover."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    sites = tmp_path / "sites.toml"
    sites.write_text('[sites.local]\ndomains = ["127.0.0.1"]\nfeeds = ["http://127.0.0.1:9/rss.xml"]\n')
    for spider in (["local"], ["discover", "-a", "url=http://127.0.0.1:9/"]):
        done = subprocess.run([sys.executable, "-m", "scrapy", "crawl", *spider, *args,
                               "-s", f"NEWSCRAWL_SITES={sites}", "-s", f"NEWSCRAWL_STATE_DIR={tmp_path / 'state'}"],
                              cwd=root, capture_output=True, text=True, timeout=120,
                              env={**os.environ, "PYTHONPATH": str(root)})
        assert done.returncode == 2, (spider, done.stderr[-2000:])
        assert "Traceback" not in done.stderr
        errors = [line for line in done.stderr.splitlines() if "error" in line.lower()]
        assert len(errors) == 1 and args[1].split("=")[0] in errors[0], done.stderr[-2000:]
