"""Rejections that remember their cause (issue 38, items 2 and 3).

A page fetched and not exported is remembered with its reason and a cause class: *lasting* (a
video page: not fetched again for NEWSCRAWL_RETRY_UNEXPORTED_DAYS) or *degraded* (the site's own
failure: a wall in front of every article, a body shared by pages of other titles), fetched again
as soon as the site is healthy.  Through the real spider, pipelines and commands against sites
served on 127.0.0.1; the Redis store is checked on a real redis-server."""

from __future__ import annotations

import html
import re
import sqlite3
from pathlib import Path

import pytest
import pytest_twisted
from conftest import crawl_settings, read_jsonl, run_crawl, site_spider, started_redis
from test_crawl_local import article_html, catalogue_html, feed_xml, headline
from test_exit_status import scrapy, site_table

from newscrawl.commands.outcome import outcome_of
from newscrawl.state.seen_store import DB_NAME, SqliteSeenStore, canonical_url

DATASETS = Path(__file__).resolve().parents[2] / "shared" / "datasets"
ARTICLE_FETCH = re.compile(r"Crawled \(\d+\) <GET http://[^/>]+/news/")

# A consent interstitial served at every article URL while the site is broken: its notice is
# prose, so the extraction takes it for a body (one shared by every article: a failed extraction).
NOTICE = ("<div class='interstitial'><h2>Before you continue reading</h2>"
          "<p>The Riverside Gazette and its partners store and read information on your device to show you "
          "the stories of the county, measure how our reporting is read and keep the newsroom independent. "
          "Our journalists have covered the harbour, the markets and the courts since 1921, and the archive "
          "of ninety years stays open to every reader who accepts these terms.</p>"
          "<p>You can change your choice at any time on the privacy page of the Gazette, where the list of "
          "partners and the purposes of each are explained in plain words by our editors.</p>"
          "<button>Accept and continue</button></div>")
# The same wall as a cookie banner of buttons and links: no body at all (no_text, a lasting reason by
# name, degraded here because the whole site fails).
BANNER = ("<div class='consent'><h2>Before you continue</h2><p>We use cookies.</p>"
          + "".join(f"<a href='/privacy/{i}'>Partner {i}</a> " for i in range(40))
          + "<button>Accept all</button><button>Reject all</button></div>")


def article_path(n: int) -> str:
    return f"/news/2024/05/{n}/council-budget-story-{n}.html"


def walled(n: int, wall: str) -> str:
    return (f"<html><head><title>{headline(n)}</title></head><body><nav><a href='/'>Home</a></nav>"
            f"{wall}</body></html>")


def serve(server, count: int, wall: str | None) -> None:
    """Articles 0..count-1 on the catalogue, each behind ``wall`` (None: the site works)."""
    for n in range(count):
        server.add(article_path(n), walled(n, wall) if wall else article_html(headline(n)))
    server.add("/list/1.html", catalogue_html([(article_path(n), headline(n)) for n in range(count)]))


def fetched(server, before: dict[str, int]) -> list[int]:
    """The article numbers the run downloaded."""
    return sorted(int(path.split("/")[4]) for path, hits in server.hits.items()
                  if path.startswith("/news/") and hits > before.get(path, 0))


def adds_up(outcome) -> None:
    """The closing line's numbers reconcile: listed = exported + skipped + dropped (+ unfinished)."""
    skipped, dropped, _, unfinished = outcome.accounts()
    assert unfinished == 0, outcome.line()
    assert outcome.listed == outcome.exported + sum(skipped.values()) + sum(dropped.values()), outcome.line()
    line = outcome.line()
    assert f"skipped {sum(skipped.values())}" in line and f"dropped {sum(dropped.values())}" in line, line


async def broken_then_fixed(server, tmp_path, wall: str, **settings):
    """Three articles exported; then a wall on every article for two runs, three new articles each
    run; then the site fixed, with no new article.  Returns the four runs' outcomes and fetches."""
    spider = site_spider(catalogues=[server.url("/list/1.html")])
    feed = tmp_path / "out.jsonl"
    runs = []
    for count, broken in ((3, False), (6, True), (9, True), (9, False)):
        serve(server, count, wall if broken else None)
        before = dict(server.hits)
        crawler = await run_crawl(spider, crawl_settings(tmp_path, feed, NEWSCRAWL_EXTRACT_PROCESSES=0,
                                                         **settings))
        runs.append((outcome_of(crawler), fetched(server, before), crawler))
    return runs, read_jsonl(feed)


@pytest.mark.parametrize("wall", [NOTICE, BANNER], ids=["prose-notice", "cookie-banner"])
@pytest_twisted.ensureDeferred
async def test_a_site_behind_a_wall_for_two_runs_exports_every_article_in_the_run_after_the_fix(
        http_server, tmp_path, wall):
    runs, items = await broken_then_fixed(http_server, tmp_path, wall)
    (first, _, _), (broken1, got1, _), (broken2, got2, crawler2), (fixed, got3, _) = runs
    assert first.ok and first.exported == 3
    assert not broken1.ok and got1 == [3, 4, 5]  # the break is a failure, on the run it shows
    # still broken: the new articles are fetched, the walled ones of the run before are not,
    # except one probe that finds the site still failing (not a new failure)
    assert not broken2.ok and set(got2) >= {6, 7, 8} and len(set(got2) & {3, 4, 5}) == 1, got2
    assert crawler2.stats.get_value("newscrawl/unexported/probed") == 1
    # fixed, with nothing new listed and no option given: every article left behind is exported
    assert fixed.ok, fixed.line()
    assert got3 == [3, 4, 5, 6, 7, 8]
    real = {item["url"].rsplit("/", 2)[-2] for item in items if "city council met" in item["text"]}
    assert real == {str(n) for n in range(9)}
    assert not any("Riverside Gazette" in item["text"] for item in items[-6:])
    for outcome, _, _ in runs:
        adds_up(outcome)


@pytest_twisted.ensureDeferred
async def test_an_unchanged_site_does_not_fetch_its_wall_pages_again_until_it_is_healthy(http_server, tmp_path):
    """The run after a broken one lists nothing new and the site is still walled: only the probe is
    fetched, and the run is not a failure (its one rejection is the known one)."""
    spider = site_spider(catalogues=[http_server.url("/list/1.html")])
    feed = tmp_path / "out.jsonl"
    serve(http_server, 3, None)
    await run_crawl(spider, crawl_settings(tmp_path, feed, NEWSCRAWL_EXTRACT_PROCESSES=0))
    serve(http_server, 6, BANNER)
    await run_crawl(spider, crawl_settings(tmp_path, feed, NEWSCRAWL_EXTRACT_PROCESSES=0))
    before = dict(http_server.hits)
    crawler = await run_crawl(spider, crawl_settings(tmp_path, feed, NEWSCRAWL_EXTRACT_PROCESSES=0))
    outcome = outcome_of(crawler)
    assert len(fetched(http_server, before)) == 1  # the probe
    assert outcome.ok and outcome.again == 1, outcome.line()
    adds_up(outcome)


def article_fetches(done) -> int:
    """How many article pages the ``scrapy crawl`` run downloaded (Scrapy's DEBUG lines)."""
    return len(ARTICLE_FETCH.findall(done.stderr))


def walled_site(root: Path) -> None:
    (root / "index.html").parent.mkdir(parents=True, exist_ok=True)
    links = []
    for n in range(3):
        target = root / article_path(n).lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(walled(n, BANNER), encoding="utf-8")
        links.append((article_path(n), headline(n)))
    (root / "index.html").write_text(catalogue_html(links), encoding="utf-8")


def test_recheck_fetches_a_sites_remembered_rejections_on_its_next_run(tmp_path):
    walled_site(tmp_path / "walled")
    (tmp_path / "sites.toml").write_text(site_table("walled", serve="walled"))
    crawl = ("crawl", "walled", "-o", str(tmp_path / "walled.jsonl"), "-s", "LOG_LEVEL=DEBUG")
    first = scrapy(tmp_path, *crawl)
    assert first.returncode == 1  # every article behind the wall
    assert article_fetches(scrapy(tmp_path, *crawl)) == 1  # the probe
    done = scrapy(tmp_path, "recheck", "walled")
    assert done.returncode == 0, done.stderr[-2000:]
    assert "walled: 3 remembered rejection(s)" in done.stdout and "next run" in done.stdout
    again = scrapy(tmp_path, *crawl)
    assert article_fetches(again) == 3
    assert again.returncode == 0, again.stderr[-2000:]  # rejected again the same way: no new failure
    assert "3 of the dropped failed again as before" in again.stderr
    unknown = scrapy(tmp_path, "recheck", "nowhere")  # a typo is a usage error, not "0 remembered"
    assert unknown.returncode == 2 and "unknown site 'nowhere'" in unknown.stderr, unknown.stderr[-2000:]


def dataset_site(root: Path) -> int:
    """Real pages served as one site: goose3's pages (some extract to one shared body, some are
    copies of each other) and daniel-ru's nr2.ru pages.  Returns the number of pages."""
    from newscrawl.evaluation.datasets import load_dataset

    links = []
    for name, keep in (("goose3", lambda record: True), ("daniel-ru", lambda record: "nr2.ru" in record.id)):
        for record in load_dataset(DATASETS / name):
            if not keep(record):
                continue
            path = f"/news/2024/05/{len(links)}/story-{len(links)}.html"
            (root / path.lstrip("/")).parent.mkdir(parents=True, exist_ok=True)
            (root / path.lstrip("/")).write_bytes(record.html)
            links.append(f'<li><a href="{path}">{html.escape(record.truth.get("title") or path)}</a></li>')
    (root / "index.html").write_text(f"<html><head><meta charset='utf-8'><title>Latest</title></head><body>"
                                     f"<ul>{''.join(links)}</ul></body></html>", encoding="utf-8")
    return len(links)


@pytest.mark.skipif(not (DATASETS / "goose3").is_dir() or not (DATASETS / "daniel-ru").is_dir(),
                    reason="../shared/datasets (goose3, daniel-ru) is not here")
def test_an_unchanged_site_of_real_pages_passes_its_second_run_without_fetching_any_page_again(tmp_path):
    pages = dataset_site(tmp_path / "real")
    (tmp_path / "sites.toml").write_text(site_table("real", serve="real"))
    crawl = ("crawl", "real", "-o", str(tmp_path / "real.jsonl"), "-s", "LOG_LEVEL=DEBUG")
    first = scrapy(tmp_path, *crawl)
    assert "extraction_failed/shared_body=" in first.stderr  # the case of the issue is in the sample
    assert article_fetches(first) == pages
    second = scrapy(tmp_path, *crawl)
    line = [x for x in second.stderr.splitlines() if "[newscrawl.crawl]" in x and " real: " in x][0]
    assert second.returncode == 0, line
    assert article_fetches(second) == 0, line
    listed = int(re.search(r"listed (\d+)", line).group(1))
    skipped = int(re.search(r"skipped (\d+)", line).group(1))
    assert listed == skipped and "dropped 0" in line, line


def test_an_older_store_opens_with_its_rejections_lasting(tmp_path):
    path = tmp_path / DB_NAME
    db = sqlite3.connect(path)  # the schema of a store from before cause classes
    db.execute("CREATE TABLE seen (site TEXT NOT NULL, url TEXT NOT NULL, exported_at TEXT NOT NULL, "
               "PRIMARY KEY (site, url)) WITHOUT ROWID")
    db.execute("CREATE TABLE unexported (site TEXT NOT NULL, url TEXT NOT NULL, reason TEXT NOT NULL, "
               "fetched_at TEXT NOT NULL, PRIMARY KEY (site, url)) WITHOUT ROWID")
    db.execute("INSERT INTO unexported VALUES ('a', ?, 'no_text', '2026-11-30T00:00:00+00:00')",
               (canonical_url("http://x.test/video"),))
    db.execute("PRAGMA user_version = 1")
    db.commit()
    db.close()
    store = SqliteSeenStore(path)
    assert store.unexported("a", "http://x.test/video") == ("no_text", "2026-11-30T00:00:00+00:00", "lasting")
    check_store_contract(store)
    store.close()
    SqliteSeenStore(path).close()  # opened again: the migration is done once


def check_store_contract(store) -> None:
    """What both stores must do alike (SQLite here, Redis in the test below)."""
    store.add_unexported("a", ["http://x.test/wall"], "extraction_failed/shared_body", "degraded")
    assert store.unexported("a", "http://x.test/wall")[::2] == ("extraction_failed/shared_body", "degraded")
    assert store.degraded("a") is None
    store.set_degraded("a", True)
    since = store.degraded("a")
    store.set_degraded("a", True)
    assert store.degraded("a") == since and store.degraded("b") is None
    store.set_degraded("a", False)
    assert store.degraded("a") is None
    store.add("a", ["http://x.test/first"])
    store.forget("a", ["http://x.test/first"])
    assert not store.contains("a", "http://x.test/first")
    assert store.recheck("a") == 2 and store.recheck("b") == 0
    assert store.unexported("a", "http://x.test/video")[2] == "recheck"
    assert store.unexported("a", "http://x.test/video")[0] == "no_text"


@pytest.fixture
def redis_client(tmp_path):
    with started_redis(tmp_path) as (port, client):
        yield client, f"redis://127.0.0.1:{port}/0"


def test_the_redis_store_keeps_causes_as_the_sqlite_one_and_reads_older_records(redis_client):
    from newscrawl.state.redis_seen import RedisSeenStore

    client, _ = redis_client
    older = '["no_text", "2026-11-30T00:00:00+00:00"]'  # as versions before cause classes wrote it
    client.hset("t:unexported:a", canonical_url("http://x.test/video"), older)
    store = RedisSeenStore(client, prefix="t")
    assert store.unexported("a", "http://x.test/video") == ("no_text", "2026-11-30T00:00:00+00:00", "lasting")
    check_store_contract(store)


@pytest_twisted.ensureDeferred
async def test_a_distributed_crawl_behind_a_wall_exports_every_article_in_the_run_after_the_fix(
        http_server, tmp_path, redis_client):
    pytest.importorskip("scrapy_redis", reason="scrapy-redis is not installed")
    _, url = redis_client
    runs, items = await broken_then_fixed(http_server, tmp_path, NOTICE, NEWSCRAWL_DISTRIBUTED=url,
                                          NEWSCRAWL_IDLE_CLOSE=1)
    (_, _, _), (broken1, _, _), (_, got2, _), (fixed, got3, _) = runs
    # Redis keeps no content fingerprints across runs: the probe's wall may pass for an article
    # (taken back when the next page shows the same body), and one more page is probed then
    assert not broken1.ok and 1 <= len(set(got2) & {3, 4, 5}) <= 2, got2
    assert fixed.ok and got3 == [3, 4, 5, 6, 7, 8], fixed.line()
    real = {item["url"].rsplit("/", 2)[-2] for item in items if "city council met" in item["text"]}
    assert real == {str(n) for n in range(9)}


@pytest_twisted.ensureDeferred
async def test_the_closing_line_accounts_for_every_listed_link(http_server, tmp_path):
    """listed = exported + skipped + dropped: off-site feed entries (never listed links) are shown
    apart, an article redirected off-site is a dropped listed link, a link listed twice is skipped."""
    s = http_server
    # A dated article URL: a lone /a/ok.html on a listing page is no article link to the link model.
    ok = s.add("/2024/05/12/ok.html", article_html("A normal article about the budget vote"))
    away = s.add("/a/away.html", "", status=301, headers={"Location": "http://other-host.example/a/x.html"})
    entries = [(ok, "A normal article about the budget vote"), (s.url("/a/missing.html"), "A missing article"),
               (s.add("/a/empty.html", "", headers={"Content-Type": "text/html"}), "An empty article"),
               (away, "An article that moved away"),
               ("http://other-host.example/a/1.html", "One on another host"),
               ("http://other-host.example/a/2.html", "Two on another host")]
    s.add("/feed.xml", feed_xml(entries), headers={"Content-Type": "application/rss+xml"})
    s.add("/list/1.html", catalogue_html([("/2024/05/12/ok.html", "A normal article about the budget vote")]))
    spider = site_spider(feeds=[s.url("/feed.xml")], catalogues=[s.url("/list/1.html")])
    feed = tmp_path / "out.jsonl"
    first = outcome_of(await run_crawl(spider, crawl_settings(tmp_path, feed, NEWSCRAWL_EXTRACT_PROCESSES=0)))
    skipped, dropped, unlisted, unfinished = first.accounts()
    assert first.exported == 1 and skipped == {"listed_twice": 1}, first.line()
    assert dropped.get("offsite") == 1 and {"http_error", "empty_body"} <= set(dropped), first.line()
    assert unlisted == {"offsite": 2}, first.line()
    assert "not listed: offsite=2" in first.line()
    adds_up(first)
    second = outcome_of(await run_crawl(spider, crawl_settings(tmp_path, feed, NEWSCRAWL_EXTRACT_PROCESSES=0)))
    assert second.accounts()[0].get("already_exported") == 2, second.line()  # the feed and the catalogue
    adds_up(second)
