"""Yan and Wang's (2020) template library in the crawl: the demo site's first crawl learns its common
noise (navigation, footers); the next crawl removes those leaves before extraction."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path
from types import SimpleNamespace

import pytest
import pytest_twisted
from conftest import crawl_settings, read_jsonl, run_crawl
from test_evaluate_command import scrapy

from newscrawl.extract import Page, dom
from newscrawl.extract.methods.template import TemplateStore, iter_leaves
from newscrawl.pipelines import extraction as stages
from newscrawl.pipelines.templates import CrawlTemplates
from newscrawl.sites import load_sites
from newscrawl.spiders.loader import spider_class

MANIFEST = Path(__file__).resolve().parent.parent / "data" / "demo" / "manifest.json"
pytestmark = pytest.mark.skipif(not MANIFEST.exists(), reason="data/demo not built yet")

# Navigation links of the demo's Russian and Chinese layouts (data/demo/demo_templates.py).
NAV = {("a", "Главная"), ("a", "首页")}


def spy_on_extraction(monkeypatch) -> list[set[tuple[str, str]]]:
    """Record the (tag, text) leaves of every page as it reaches ``extract_page``."""
    seen: list[set[tuple[str, str]]] = []
    real = stages.extract_page

    def recording(page, *args, **kwargs):
        if page.url and "127.0.0.1" in page.url:  # not the stage's warm-up page
            seen.append({(el.tag, text) for el, text in iter_leaves(dom.body_of(page.root))})
        return real(page, *args, **kwargs)

    monkeypatch.setattr(stages, "extract_page", recording)
    return seen


async def crawl_demo(tmp_path: Path, feed: Path, **settings):
    # In the crawl process: the spy above sees no page a worker process extracts.
    settings.setdefault("NEWSCRAWL_EXTRACT_PROCESSES", 0)
    return await run_crawl(spider_class(load_sites()["demo"]), crawl_settings(tmp_path, feed, **settings))


def stat(crawler, name: str) -> int:
    return crawler.stats.get_value(f"newscrawl/template/{name}", 0)


@pytest_twisted.ensureDeferred
async def test_first_crawl_learns_the_template_and_the_next_removes_it_before_extraction(tmp_path, monkeypatch):
    extracted = spy_on_extraction(monkeypatch)
    first = await crawl_demo(tmp_path, tmp_path / "demo1.jsonl")
    items = read_jsonl(tmp_path / "demo1.jsonl")
    assert stat(first, "pages_learned") == len(items) >= 30
    store = TemplateStore.in_dir(tmp_path / "state")
    template = {(tag, text) for tag, text, _ in store.site("demo").entries()}
    store.close()
    assert NAV <= template
    assert any(NAV & leaves for leaves in extracted)  # the raw pages carried the navigation

    proc = scrapy(tmp_path, "templates", "demo", "--state-dir", str(tmp_path / "state"), "--limit", "1000")
    assert proc.returncode == 0, proc.stderr
    assert f"demo: {len(template)} template entries" in proc.stdout
    assert all(f"<{tag}>  {text}" in proc.stdout for tag, text in NAV)

    extracted.clear()
    second = await crawl_demo(tmp_path, tmp_path / "demo2.jsonl", NEWSCRAWL_FRESH=True)
    exported = read_jsonl(tmp_path / "demo2.jsonl")
    assert len(exported) == len(items)
    assert stat(second, "leaves_removed") > 0 and stat(second, "pages_cleaned") == len(exported)
    assert len(extracted) == len(exported)
    for leaves in extracted:  # every learned entry is gone before extraction starts
        assert not leaves & template
    assert not any(text in item["text"] for item in exported for _, text in NAV)


@pytest_twisted.ensureDeferred
async def test_templates_off_leaves_pages_untouched(tmp_path, monkeypatch):
    extracted = spy_on_extraction(monkeypatch)
    crawler = await crawl_demo(tmp_path, tmp_path / "demo.jsonl", NEWSCRAWL_TEMPLATES=False)
    assert stat(crawler, "pages_learned") == 0 and stat(crawler, "leaves_removed") == 0
    assert sum(bool(NAV & leaves) for leaves in extracted) >= 12  # every ru/zh page keeps its navigation
    library = tmp_path / "state" / "templates.sqlite3"  # may hold the title decoration, learned apart
    if library.exists():
        with closing(sqlite3.connect(library)) as db:
            tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            assert "entries" not in tables or not db.execute("SELECT COUNT(*) FROM entries").fetchone()[0]


def templates_for(tmp_path: Path, **settings) -> CrawlTemplates:
    from scrapy.settings import Settings
    from scrapy.statscollectors import MemoryStatsCollector

    crawler = SimpleNamespace(settings=Settings({"NEWSCRAWL_STATE_DIR": str(tmp_path / "state"), **settings}))
    crawler.stats = MemoryStatsCollector(crawler)
    return CrawlTemplates(crawler)


FOOTER = "<footer><p>Copyright Example Media Group, all rights reserved</p></footer>"
STORIES = ["Storm closes the harbour for a second day", "Budget vote delayed again after long debate",
           "School bridge opens early to cheers", "Festival draws record crowds to the park",
           "Court rules on rail fares for students", "Farmers protest at council over land",
           "River levels keep rising across the valley", "New museum wing unveiled by the mayor",
           "Tram line extended north to the hospital", "Library hours cut in winter months"]


def test_a_page_made_mostly_of_template_text_is_left_whole(tmp_path):
    """Near-duplicate pages (a republished story) must not be emptied by their own copies."""
    templates = templates_for(tmp_path)
    for story in STORIES:  # one batch: footer and the repeated story both become template
        html = f"<html><body><p>{STORIES[0]} and more words</p><p>{story}</p>{FOOTER}</body></html>"
        templates.apply("example", Page.from_html(html, url="http://example.com/"))
    duplicate = Page.from_html(f"<html><body><p>{STORIES[0]} and more words</p>{FOOTER}</body></html>")
    assert templates.apply("example", duplicate) == 0
    assert "Copyright" in duplicate.body.text_content()
    article = Page.from_html(f"<html><body><p>{'A long new story. ' * 10}</p>{FOOTER}</body></html>")
    assert templates.apply("example", article) == 1
    assert "Copyright" not in article.body.text_content()
    stats = templates.crawler.stats
    # the duplicate, and the batch's 10th page: its shared paragraph had just become template
    assert stats.get_value("newscrawl/template/pages_skipped") == 2
    assert stats.get_value("newscrawl/template/leaves_removed") == 1
    templates.close()
    reopened = TemplateStore.in_dir(tmp_path / "state").site("example")  # saved on close
    assert reopened.pages_in_batch == 2 and len(reopened.template) == 2


@pytest_twisted.ensureDeferred
async def test_a_template_library_that_cannot_be_saved_stops_the_run(tmp_path, monkeypatch):
    """A full disk under templates.sqlite3 stops the crawl like any crawl-state write
    (state_write_failed).  In a worker the same counter reaches the crawl process through
    the replayed stats, which the extract stage checks after every page."""
    import sqlite3

    def full_disk(self, site):
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(TemplateStore, "save", full_disk)
    feed = tmp_path / "demo.jsonl"
    crawler = await crawl_demo(tmp_path, feed)
    exported = read_jsonl(feed) if feed.exists() else []
    assert crawler.stats.get_value("finish_reason") == "state_write_failed"
    assert "template library" in crawler.stats.get_value("newscrawl/state_write_failed")
    assert len(exported) < 36  # the run stopped at the first failed save (after a 10-page batch)


def test_the_date_line_and_byline_are_read_before_the_template_removes_them(tmp_path):
    """A site prints its date line and byline in the same words on every page, so its library learns
    them as noise; the page's date and authors must still come from them, whatever the crawl order."""
    templates = templates_for(tmp_path)

    def page_html(story: str) -> bytes:
        return (f"<html><head><meta property='article:published_time' content='2026-11-19T12:45:00Z'>"
                f"<title>{story}</title></head><body><h1>{story}</h1>"
                "<p class='byline'>By Dana Ford</p>"
                "<time class='published' datetime='2026-11-19T07:45:00-05:00'>November 19, 2026, 7:45 a.m. EST</time>"
                f"<p>{' '.join(f'{story}: the {n} reading of the plan.' for n in ('first', 'second', 'third'))}</p>"
                f"{FOOTER}</body></html>").encode()

    for story in STORIES:  # one batch of ten: the byline, the date line and the footer become template
        stages.extract_fields(templates, "auto", site="example", body=page_html(story),
                              url="http://example.com/a", content_type="text/html", listing_title=None,
                              feed_entry={})
    learned = {text for _, text, _ in templates._store().site("example").entries()}
    assert {"By Dana Ford", "November 19, 2026, 7:45 a.m. EST"} <= learned
    fields = stages.extract_fields(templates, "auto", site="example",
                                   body=page_html("Ferry fares rise by a dollar"),
                                   url="http://example.com/b", content_type="text/html",
                                   listing_title=None, feed_entry={})
    assert templates.crawler.stats.get_value("newscrawl/template/leaves_removed") >= 2
    assert "Copyright" not in fields["text"]  # the template did clean the page
    assert fields["published"] == "2026-11-19T07:45:00-05:00"  # the date line's own zone, not the meta's UTC
    assert fields["authors"] == ["Dana Ford"]
    templates.close()


def topic_article(n: int) -> str:
    """Article ``n`` of a small site: each links the recurring topic word inside a sentence."""
    from test_crawl_local import headline
    from test_template import words

    title = headline(n)
    paragraphs = [f"<p>The council heard that {words(n * 10 + k, 24)} before the vote.</p>" for k in range(3)]
    paragraphs.insert(1, f"<p>On day {n} of the session a divided <a href='/topic/court'>Supreme Court</a> "
                         f"sent the budget case number {n} back to the city, as "
                         f"<a href='/agency'>City Wire</a> reported.</p>")
    return (f"<html><head><meta charset='utf-8'><title>{title}</title></head><body>"
            "<nav><ul><li><a href='/'>Home</a></li><li><a href='/city'>City hall</a></li></ul></nav>"
            f"<article><h1>{title}</h1>{''.join(paragraphs)}</article>"
            "<footer><p>Copyright Local Times Media, all rights reserved</p></footer></body></html>")


@pytest_twisted.ensureDeferred
async def test_a_small_site_linking_one_topic_word_in_a_sentence_keeps_every_word(http_server, tmp_path):
    """Issue 29.1, end to end: 16 articles each link one recurring word inside a sentence; the site's
    library learns its layout from the first ten and cleans the rest, and no article loses the word,
    neither in the first crawl nor in a second one cleaned by the saved library from its first page."""
    from conftest import site_spider
    from test_crawl_local import catalogue_html

    links = []
    for n in range(16):
        path = f"/news/2024/05/{n}/court-story-{n}.html"
        http_server.add(path, topic_article(n))
        links.append((path, f"Court story number {n} of the session"))
    http_server.add("/list/1.html", catalogue_html(links))
    spider = site_spider(catalogues=[http_server.url("/list/1.html")])
    for run in (1, 2):
        feed = tmp_path / f"run{run}.jsonl"
        crawler = await run_crawl(spider, crawl_settings(tmp_path, feed, NEWSCRAWL_FRESH=run == 2))
        items = read_jsonl(feed)
        assert len(items) == 16
        assert stat(crawler, "leaves_removed") > 0  # the library did clean pages
        for item in items:
            n = item["url"].split("court-story-")[1].split(".")[0]
            assert (f"On day {n} of the session a divided Supreme Court sent the budget case number {n} "
                    "back to the city, as City Wire reported.") in item["text"], item["url"]
            assert "Copyright" not in item["text"]
    store = TemplateStore.in_dir(tmp_path / "state")
    learned = {text for _, text, _ in store.site("testsite").entries()}
    store.close()
    assert {"Home", "City hall"} <= learned and not learned & {"Supreme Court", "City Wire"}


@pytest_twisted.ensureDeferred
async def test_the_demo_read_back_from_its_warc_with_the_learned_library_gives_the_same_articles(tmp_path):
    """Issue 29.3: the demo crawled with NEWSCRAWL_WARC, then its archive read by the ``warc`` spider in
    the same state directory, as a user runs the two commands.  The crawl extracted its first pages
    before the library had learned anything; the read-back cleans every page with the saved library
    from the start.  Template removal takes out only blocks the extraction leaves out anyway, so the
    arrival order changes no article: title, text, date and authors agree for all 36."""
    from newscrawl.spiders.warc import WarcSpider

    archive = tmp_path / "warc"
    await crawl_demo(tmp_path, tmp_path / "crawl.jsonl", NEWSCRAWL_WARC=str(archive),
                     NEWSCRAWL_EXTRACT_PROCESSES=1)
    crawler = await run_crawl(WarcSpider, crawl_settings(tmp_path, tmp_path / "warc.jsonl"), path=str(archive))
    crawled = {item["url"]: item for item in read_jsonl(tmp_path / "crawl.jsonl")}
    read_back = {item["url"]: item for item in read_jsonl(tmp_path / "warc.jsonl")}
    assert len(crawled) == 36 and sorted(read_back) == sorted(crawled)
    assert stat(crawler, "pages_cleaned") >= 36  # every page of the read-back was cleaned
    for url, item in crawled.items():
        for name in ("title", "text", "published", "authors"):
            assert read_back[url][name] == item[name], (url, name)
