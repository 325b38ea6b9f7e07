"""Yan and Wang's (2020) template library shared in Redis by the workers of a distributed crawl.

A real redis-server on 127.0.0.1 (the fixtures of ``test_redis``; skipped without one):
the store round-trips a library, two workers learning one site end with one merged and
bounded library, ``CrawlTemplates`` picks the Redis store in the distributed mode (and a
second worker cleans its first page with what the first learned), ``scrapy templates``
prints it, and a two-worker crawl builds the site's template in Redis.
"""

from __future__ import annotations

import json
import random
from types import SimpleNamespace

import pytest_twisted
import test_redis
from conftest import read_jsonl, run_crawl, site_spider
from test_evaluate_command import scrapy

from newscrawl.extract import Page
from newscrawl.pipelines.templates import CrawlTemplates
from newscrawl.state.redis_templates import RedisTemplateStore

FOOTER = "Copyright Harbour Media Group, all rights reserved"
SENTENCES = (
    "The harbour committee said on Monday that the new bridge will open in the spring.",
    "Engineers explained how the work was planned around the busy summer season.",
    "The council voted to keep the library open on Sundays after a long debate.",
    "Farmers gathered outside the town hall to protest against the new land rules.",
    "River levels kept rising across the valley, and several roads were closed.",
    "The mayor unveiled the museum's new wing in front of a large crowd of visitors.",
    "Students will pay lower rail fares from September, the court ruled on Friday.",
    "The tram line is being extended north so that it reaches the hospital by winter.",
    "Record crowds came to the festival in the park despite the heavy rain.",
    "Local shops reported that business had improved since the market reopened.",
    "A spokesperson for the school said the new building would be ready in autumn.",
    "Residents were asked to share their views on the plans at a public meeting.",
)


def story(i: int, paragraphs: int = 3) -> list[str]:
    """Paragraphs of article ``i``: other sentences on every page (never template material)."""
    rng = random.Random(i)
    return [" ".join(rng.sample(SENTENCES, 4)) + f" ({i}.{n})" for n in range(paragraphs)]


def page_html(i: int, nav: tuple[str, ...] = ("Home", "World", "Sport")) -> str:
    links = "".join(f'<li><a href="/{label.lower()}/">{label}</a></li>' for label in nav)
    paragraphs = "".join(f"<p>{p}</p>" for p in story(i))
    return (f"<html><head><title>Story {i}</title></head><body><nav><ul>{links}</ul></nav>"
            f"<article><h1>{story(i + 1000, 1)[0]}</h1>{paragraphs}</article>"
            f"<footer><p>{FOOTER}</p></footer></body></html>")


def learn(store: RedisTemplateStore, pages: range, site: str = "s", **layout) -> None:
    library = store.site(site)
    for i in pages:
        library.learn(Page.from_html(page_html(i, **layout), url=f"http://site.test/{i}").root)


def texts(store: RedisTemplateStore, site: str = "s") -> set[str]:
    return {text for _, text, _ in store.site(site).entries()}


def test_store_round_trips_a_library_and_hands_an_unfinished_batch_over(client):
    first = RedisTemplateStore(client, prefix="t")
    assert first.sites() == [] and first.site("s").entries() == []
    learn(first, range(10))  # one batch of N1 pages: nav and footer become the template
    first.save("s")
    learned = first.site("s").entries()
    assert {"Home", "World", "Sport", FOOTER} == {text for _, text, _ in learned}
    assert all(count == 10 for _, _, count in learned)
    learn(first, range(10, 13))  # an unfinished batch: 3 pages counted
    first.close()

    peek = RedisTemplateStore(client, prefix="t", readonly=True)
    assert peek.site("s").entries() == learned and peek.site("s").pages_in_batch == 3
    peek.close()  # read-only: takes nothing
    second = RedisTemplateStore(client, prefix="t")
    assert second.sites() == ["s"]
    assert second.site("s").entries() == learned
    assert second.site("s").pages_in_batch == 3  # resumed: the 3 pages still count
    assert RedisTemplateStore(client, prefix="t").site("s").pages_in_batch == 0  # resumed once only
    assert RedisTemplateStore(client, prefix="other").site("s").entries() == []  # prefixes are separate


def test_two_workers_learning_one_site_end_with_one_merged_library(client, redis_url):
    one = RedisTemplateStore(client, prefix="t")
    other_client = test_redis.redis.Redis.from_url(redis_url)
    two = RedisTemplateStore(other_client, prefix="t", owns_client=True)
    for worker in (one, two):  # both load the empty library before either has learned
        worker.site("s")
    learn(one, range(10), nav=("Home", "World", "Sport"))
    learn(two, range(100, 110), nav=("Home", "Business", "Culture"))
    one.save("s")
    two.save("s")  # merges, then reloads: worker two now holds worker one's entries too
    union = {"Home", "World", "Sport", "Business", "Culture", FOOTER}
    assert texts(two) == union
    assert texts(one) == {"Home", "World", "Sport", FOOTER}  # until its next save
    one.save("s")
    assert texts(one) == union
    assert one.site("s").entries() == two.site("s").entries()
    # Counts are per batch of N1 pages: the maximum, not the sum of two workers' batches.
    assert {count for _, _, count in one.site("s").entries()} == {10}
    # Worker two cleans with what worker one learned.
    page = Page.from_html(page_html(5, nav=("World", "Sport")), url="http://site.test/5")
    assert {el.text_content() for el in two.site("s").noise_leaves(page.root)} == {"World", "Sport", FOOTER}
    two.close()
    assert texts(RedisTemplateStore(client, prefix="t")) == union


def test_shared_library_is_bounded_dropping_the_least_recently_hit(client):
    one = RedisTemplateStore(client, prefix="t", max_entries=4)
    two = RedisTemplateStore(client, prefix="t", max_entries=4)
    for worker in (one, two):
        worker.site("s")
    learn(one, range(10), nav=("A1", "A2", "A3"))  # 4 entries with the footer
    one.save("s")
    learn(two, range(100, 110), nav=("B1", "B2"))
    used = Page.from_html(page_html(7, nav=("B1", "B2")), url="http://site.test/7")
    assert len(two.site("s").noise_leaves(used.root)) == 3  # B1, B2 and the footer: hit just now
    two.save("s")  # 6 distinct entries for 4 places: two of the unused A's go
    kept = texts(two)
    assert len(kept) == 4 and {"B1", "B2", FOOTER} <= kept
    assert client.hlen("t:template:s") == client.zcard("t:template-hits:s") == 4
    one.save("s")  # worker one's unchanged entries are not pushed back in
    assert texts(one) == kept


def crawl_templates(tmp_path, redis_url: str) -> CrawlTemplates:
    from scrapy.settings import Settings
    from scrapy.statscollectors import MemoryStatsCollector

    settings = Settings({"NEWSCRAWL_STATE_DIR": str(tmp_path / "state"), "NEWSCRAWL_DISTRIBUTED": redis_url,
                         "NEWSCRAWL_REDIS_PREFIX": "t"})
    crawler = SimpleNamespace(settings=settings)
    crawler.stats = MemoryStatsCollector(crawler)
    return CrawlTemplates(crawler)


def test_crawl_templates_share_the_redis_library_and_the_command_prints_it(tmp_path, client, redis_url):
    first = crawl_templates(tmp_path, redis_url)
    removed = [first.apply("s", Page.from_html(page_html(i), url=f"http://site.test/{i}")) for i in range(12)]
    assert removed == [0] * 9 + [4] * 3  # cleaning starts on the page that ends the first batch
    assert isinstance(first.store, RedisTemplateStore)
    first.close()
    assert not (tmp_path / "state" / "templates.sqlite3").exists()

    second = crawl_templates(tmp_path, redis_url)  # another worker, starting now
    assert second.apply("s", Page.from_html(page_html(50), url="http://site.test/50")) == 4
    assert second.store.site("s").pages_in_batch == 3  # first's 2 leftover pages + this one
    second.close()

    proc = scrapy(tmp_path, "templates", "s", "-s", f"NEWSCRAWL_DISTRIBUTED={redis_url}",
                  "-s", "NEWSCRAWL_REDIS_PREFIX=t")
    assert proc.returncode == 0, proc.stderr
    assert "s: 4 template entries, 3/10 pages in the current batch" in proc.stdout
    assert f"<p>  {FOOTER}" in proc.stdout and "<a>  Home" in proc.stdout
    assert client.llen("t:template-batches:s") == 1  # printing took nothing
    listing = scrapy(tmp_path, "templates", "-s", f"NEWSCRAWL_DISTRIBUTED={redis_url}", "-s",
                     "NEWSCRAWL_REDIS_PREFIX=t")
    assert listing.stdout.split() == ["s", "4", "entries"]


def _layout_site(http_server, articles: int, per_page: int) -> dict[str, list[str]]:
    """A catalogue of article pages that all carry the same navigation and footer."""
    paragraphs = {}
    for page in range((articles + per_page - 1) // per_page):
        links = []
        for i in range(page * per_page, min(articles, (page + 1) * per_page)):
            path = f"/news/2024/{i:02d}/story-{i:02d}.html"  # one URL form: ids of one width
            http_server.add(path, page_html(i), delay=0.02)
            links.append(f'<li><a href="{path}">Story {i} of the harbour</a></li>')
            paragraphs[http_server.url(path)] = story(i)
        following = (f'<a class="next" href="/list/{page + 2}.html">Next</a>'
                     if (page + 1) * per_page < articles else "")
        http_server.add(f"/list/{page + 1}.html", f"<html><body><ul>{''.join(links)}</ul>{following}</body></html>")
    return paragraphs


@pytest_twisted.ensureDeferred
async def test_two_worker_crawl_builds_one_template_in_redis(http_server, tmp_path, client, redis_url):
    from twisted.internet import defer

    paragraphs = _layout_site(http_server, articles=30, per_page=10)
    spider = site_spider(catalogues=[http_server.url("/list/1.html")], max_pages=10)
    results = await defer.DeferredList([
        defer.ensureDeferred(run_crawl(spider, test_redis._worker_settings(tmp_path, name, redis_url)))
        for name in ("w1", "w2")
    ], fireOnOneErrback=True, consumeErrors=True)
    crawlers = [crawler for _, crawler in results]
    exported = [item for name in ("w1", "w2") for item in read_jsonl(tmp_path / f"{name}.jsonl")]
    assert sorted(i["url"] for i in exported) == sorted(paragraphs)
    learned = [c.stats.get_value("newscrawl/template/pages_learned", 0) for c in crawlers]
    assert sum(learned) == 30  # every page counted once, by the worker that extracted it
    assert all(c.stats.get_value("newscrawl/template/errors", 0) == 0 for c in crawlers)
    assert not any((tmp_path / name / "state" / "templates.sqlite3").exists() for name in ("w1", "w2"))

    store = RedisTemplateStore(client, readonly=True)  # the crawl's default prefix
    assert store.sites() == ["testsite"]
    library = store.site("testsite")
    assert {"Home", "World", "Sport", FOOTER} <= {text for _, text, _ in library.entries()}
    article_text = {p for ps in paragraphs.values() for p in ps}
    assert not article_text & {text for _, text, _ in library.entries()}
    # No page's evidence is lost: each is in a finished batch or in one left for the next worker.
    waiting = [json.loads(b)["pages_in_batch"] for b in client.lrange("newscrawl:template-batches:testsite", 0, -1)]
    assert all(0 < n < 10 for n in waiting) and (sum(learned) - sum(waiting)) % 10 == 0
