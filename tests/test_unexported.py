"""Pages fetched and never exported (a video page, no text, not an article) are remembered with
their reason, not fetched again for NEWSCRAWL_RETRY_UNEXPORTED_DAYS, and a quiet site with such a
page does not fail its next run (issue 29, item 4).  End to end through `scrapy crawl`."""

from __future__ import annotations

import re
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

from test_crawl_local import article_html, catalogue_html, headline
from test_exit_status import scrapy, site_table

from newscrawl.state.seen_store import DB_NAME, SqliteSeenStore

VIDEO_PATH = "/news/2024/05/9/council-budget-video-report.html"
VIDEO_PAGE = ("<html><head><title>Budget debate: the video</title></head><body><h1>Budget debate</h1>"
              '<video src="/media/budget.mp4" controls></video></body></html>')


def video_site(root: Path, articles: int = 3) -> None:
    """A catalogue of ``articles`` articles and one video page without text."""
    links = []
    for n in range(articles):
        path = f"/news/2024/05/{n}/council-budget-story-{n}.html"
        (root / path.lstrip("/")).parent.mkdir(parents=True, exist_ok=True)
        (root / path.lstrip("/")).write_text(article_html(headline(n)), encoding="utf-8")
        links.append((path, headline(n)))
    (root / VIDEO_PATH.lstrip("/")).parent.mkdir(parents=True, exist_ok=True)
    (root / VIDEO_PATH.lstrip("/")).write_text(VIDEO_PAGE, encoding="utf-8")
    links.append((VIDEO_PATH, "Budget debate: watch the council video report"))
    (root / "index.html").write_text(catalogue_html(links), encoding="utf-8")


def fetched(done, path: str) -> bool:
    """Did the run download ``path`` (Scrapy's DEBUG line ``Crawled (200) <GET ...path>``)?"""
    return re.search(r"Crawled \(\d+\) <GET http://[^/>]+" + re.escape(path) + ">", done.stderr) is not None


def stat(done, key: str) -> int:
    found = re.search(rf"'{re.escape(key)}': (\d+)", done.stderr)
    return int(found.group(1)) if found else 0


def summary(done, site: str) -> str:
    lines = [line for line in done.stderr.splitlines() if f"[newscrawl.crawl] INFO: Crawl {site}: " in line
             or f"[newscrawl.crawl] ERROR: Crawl {site}: " in line]
    assert len(lines) == 1, done.stderr[-3000:]
    return lines[0]


def crawl(tmp_path: Path, *extra: str):
    return scrapy(tmp_path, "crawl", "quiet", "-o", str(tmp_path / "quiet.jsonl"), "-s", "LOG_LEVEL=DEBUG", *extra)


def test_an_unchanged_site_with_a_video_page_passes_its_rerun_without_fetching_it_again(tmp_path):
    video_site(tmp_path / "quiet")
    (tmp_path / "sites.toml").write_text(site_table("quiet", serve="quiet"))
    first = crawl(tmp_path)
    assert first.returncode == 0, first.stderr[-3000:]
    assert fetched(first, VIDEO_PATH)
    assert stat(first, "newscrawl/unexported/recorded") == 1
    assert len((tmp_path / "quiet.jsonl").read_text().splitlines()) == 3

    second = crawl(tmp_path)
    assert second.returncode == 0, summary(second, "quiet")
    assert not fetched(second, VIDEO_PATH)
    line = summary(second, "quiet")
    assert "quiet: ok;" in line and "already_exported=3" in line and "already_rejected=1" in line
    assert "nothing new" in second.stderr
    assert len((tmp_path / "quiet.jsonl").read_text().splitlines()) == 3

    # After NEWSCRAWL_RETRY_UNEXPORTED_DAYS the page is fetched again; rejected again, it is not
    # counted against NEWSCRAWL_MAX_ERROR_RATE (1 of 1 pages would be 100 %).
    db = sqlite3.connect(tmp_path / "state" / DB_NAME)
    long_ago = (datetime.now(UTC) - timedelta(days=31)).isoformat()
    with db:
        assert db.execute("UPDATE unexported SET fetched_at = ?", (long_ago,)).rowcount >= 1
    db.close()
    third = crawl(tmp_path)
    assert third.returncode == 0, summary(third, "quiet")
    assert fetched(third, VIDEO_PATH)
    assert stat(third, "newscrawl/unexported/retried") == 1
    assert sum(stat(third, f"newscrawl/unexported/again/{r}") for r in ("no_text", "not_article/video")) == 1

    # 0 switches the memory off: the page is fetched on every run
    fourth = crawl(tmp_path, "-s", "NEWSCRAWL_RETRY_UNEXPORTED_DAYS=0")
    assert fetched(fourth, VIDEO_PATH)


def test_an_older_sqlite_store_gets_the_unexported_table_and_keeps_its_urls(tmp_path):
    path = tmp_path / DB_NAME
    db = sqlite3.connect(path)  # the schema of a store written before unexported pages were kept
    db.execute("CREATE TABLE seen (site TEXT NOT NULL, url TEXT NOT NULL, exported_at TEXT NOT NULL, "
               "PRIMARY KEY (site, url)) WITHOUT ROWID")
    db.execute("INSERT INTO seen VALUES ('a', 'http://x.test/story', '2026-01-01T00:00:00+00:00')")
    db.execute("PRAGMA user_version = 1")
    db.commit()
    db.close()
    store = SqliteSeenStore(path)
    assert store.contains("a", "http://x.test/story")
    assert store.unexported("a", "http://x.test/video") is None
    store.add_unexported("a", ["http://x.test/video", "http://x.test/video"], "no_text")
    assert store.unexported("a", "http://x.test/video")[0] == "no_text"
    store.add_unexported("a", ["http://x.test/video"], "not_article/video")  # the latest reason wins
    assert store.unexported("a", "http://x.test/video")[0] == "not_article/video"
    assert store.count("a") == 1 and store.count_unexported("a") == 1
    store.close()
