"""WARC (#17): a crawl recorded with NEWSCRAWL_WARC, articles read back with the ``warc`` spider, and
hostile archives (each written here, in tmp_path) that cost counted skips, never the run."""

from __future__ import annotations

import gzip
import tracemalloc
import uuid
import zlib
from datetime import datetime
from pathlib import Path

import pytest
import pytest_twisted
from conftest import crawl_settings, read_jsonl, run_crawl, site_spider
from test_crawl_local import article_html, build_site, headline

from newscrawl.archives.warc_reader import ReadOptions, Skip, WarcPage, read_archive
from newscrawl.items import EXPORT_FIELDS
from newscrawl.spiders.warc import WarcSpider

DEMO = Path(__file__).resolve().parent.parent / "data" / "demo" / "manifest.json"
ARTICLE_URL = "http://news.example/2024/01/02/council-debates-the-budget.html"


# --- writing test archives ----------------------------------------------------------------------


def http_block(body: bytes, status: int = 200, headers: dict[str, str] | None = None) -> bytes:
    headers = {"Content-Type": "text/html; charset=utf-8"} if headers is None else headers
    head = f"HTTP/1.1 {status} X\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers.items()) + "\r\n"
    return head.encode("latin-1") + body


def warc_record(url: str, block: bytes, *, kind: str = "response", length: int | None = None,
                extra: dict[str, str] | None = None, content_type: str = "application/http; msgtype=response",
                record_id: str | None = None) -> bytes:
    """One WARC record (WARC 1.1 §4): header lines, block, two CRLFs; ``length`` overrides Content-Length."""
    fields = {"WARC-Type": kind, "WARC-Record-ID": record_id or f"<urn:uuid:{uuid.uuid4()}>",
              "WARC-Date": "2024-01-02T03:04:05Z", "WARC-Target-URI": url, "Content-Type": content_type,
              **(extra or {}), "Content-Length": str(len(block) if length is None else length)}
    head = "WARC/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in fields.items()) + "\r\n"
    return head.encode("utf-8") + block + b"\r\n\r\n"


def write_warc(path: Path, records: list[bytes], gzipped: bool = True) -> Path:
    path.write_bytes(b"".join(gzip.compress(r) if gzipped else r for r in records))
    return path


def article(title: str = "Council debates the budget") -> bytes:
    return article_html(title).encode("utf-8")


def outcomes(path: Path, **options) -> list[WarcPage | Skip]:
    return list(read_archive(path, ReadOptions(**options)))


def reasons(found: list) -> list[str]:
    return [o.reason if isinstance(o, Skip) else "page" for o in found]


async def read_warc(tmp_path: Path, paths: str, feed: Path, **settings):
    """The warc spider over ``paths`` (its own state directory), exporting to ``feed``."""
    state = tmp_path / f"state-{feed.stem}"
    return await run_crawl(WarcSpider, crawl_settings(tmp_path, feed, NEWSCRAWL_STATE_DIR=str(state),
                                                      **settings), path=paths)


def drops(crawler) -> dict[str, int]:
    prefix = "newscrawl/dropped/"
    return {k[len(prefix):]: v for k, v in crawler.stats.get_stats().items() if k.startswith(prefix)}


def warc_records(path: Path) -> list:
    from warcio.archiveiterator import ArchiveIterator

    found = []
    with path.open("rb") as fh:
        for record in ArchiveIterator(fh):
            found.append((record.rec_type, record.rec_headers, record.http_headers,
                          record.content_stream().read()))
    return found


def same_but_fetched_at(crawled: list[dict], extracted: list[dict]) -> None:
    """The round-trip check: every article of the crawl, field by field, except ``fetched_at`` (the
    crawl's clock when the spider parsed the page; the archive's is the WARC-Date of the record,
    taken when the response reached the recorder, a moment before)."""
    by_url = {item["url"]: item for item in extracted}
    assert sorted(by_url) == sorted(item["url"] for item in crawled)
    for item in crawled:
        again = by_url[item["url"]]
        assert list(again) == list(EXPORT_FIELDS)
        for name in EXPORT_FIELDS:
            if name != "fetched_at":
                assert again[name] == item[name], (item["url"], name)
        assert datetime.fromisoformat(again["fetched_at"]) <= datetime.fromisoformat(item["fetched_at"])


# --- round trips ---------------------------------------------------------------------------------


@pytest.mark.skipif(not DEMO.exists(), reason="data/demo not built")
@pytest_twisted.ensureDeferred
async def test_demo_crawl_recorded_then_read_back_exports_the_same_articles(tmp_path):
    from newscrawl.sites import load_sites
    from newscrawl.spiders.loader import spider_class

    archive = tmp_path / "demo.warc.gz"
    crawled_feed = tmp_path / "crawl.jsonl"
    await run_crawl(spider_class(load_sites()["demo"]),
                    crawl_settings(tmp_path, crawled_feed, NEWSCRAWL_WARC=str(archive)))
    crawled = read_jsonl(crawled_feed)
    assert len(crawled) >= 30

    records = warc_records(archive)
    assert records[0][0] == "warcinfo"
    info = records[0][3].decode("utf-8")
    assert "software: newscrawl/" in info and "isPartOf: demo" in info and "newscrawl-settings:" in info
    kinds = [r[0] for r in records]
    assert kinds.count("response") == kinds.count("request") > len(crawled)  # listing pages, robots.txt too
    assert kinds.count("metadata") >= len(crawled)
    urls = {r[1].get_header("WARC-Target-URI") for r in records if r[0] == "response"}
    assert any(u.endswith("/robots.txt") for u in urls) and any(u.endswith(".xml") for u in urls)

    extracted_feed = tmp_path / "warc.jsonl"
    crawler = await read_warc(tmp_path, str(archive), extracted_feed)
    same_but_fetched_at(crawled, read_jsonl(extracted_feed))
    assert crawler.stats.get_value("finish_reason") == "finished"
    assert drops(crawler).get("not_article", 0) >= 4  # the catalogue pages the crawl read


@pytest_twisted.ensureDeferred
async def test_recording_keeps_bodies_as_sent_rotates_files_and_reads_back(http_server, tmp_path):
    urls = build_site(http_server, pages=2, per_page=2)
    gzipped_path = "/news/2024/05/7/council-budget-story-gzip-7.html"
    http_server.add(gzipped_path, gzip.compress(article_html(headline(7)).encode("utf-8")),
                    headers={"Content-Type": "text/html; charset=utf-8", "Content-Encoding": "gzip"})
    cp1251_path = "/news/2024/05/8/council-budget-story-cyrillic-8.html"
    russian = "Городской совет обсудил бюджет на следующий год"
    http_server.add(cp1251_path, article_html(russian, charset=False).encode("cp1251"),
                    headers={"Content-Type": "text/html; charset=windows-1251"})
    links = "".join(f'<li class="story"><a href="{p}">{t}</a></li>'
                    for p, t in ((gzipped_path, headline(7)), (cp1251_path, russian)))
    http_server.add("/list/extra.html", f"<html><body><ul class='list'>{links}</ul></body></html>")
    spider = site_spider(catalogues=[http_server.url("/list/1.html"), http_server.url("/list/extra.html")])

    archives = tmp_path / "warc"
    crawled_feed = tmp_path / "crawl.jsonl"
    crawler = await run_crawl(spider, crawl_settings(tmp_path, crawled_feed, NEWSCRAWL_WARC=str(archives),
                                                     NEWSCRAWL_WARC_MAX_SIZE=3_000))
    crawled = read_jsonl(crawled_feed)
    assert sorted(i["url"] for i in crawled) == sorted([*urls, http_server.url(gzipped_path),
                                                         http_server.url(cp1251_path)])
    assert any(russian in i["title"] for i in crawled)

    files = sorted(archives.glob("*.warc.gz"))
    assert len(files) >= 2 and crawler.stats.get_value("newscrawl/warc/files") == len(files)
    responses = {}
    for path in files:
        records = warc_records(path)
        assert records[0][0] == "warcinfo"  # every rotated file opens with its own
        for kind, warc_headers, http, _payload in records:
            if kind == "response":
                responses[warc_headers.get_header("WARC-Target-URI")] = (warc_headers, http, path)
    assert http_server.url("/robots.txt") in responses  # a 404 is recorded too
    _, http, path = responses[http_server.url(gzipped_path)]
    assert http.get_header("Content-Encoding") == "gzip"  # stored compressed, as sent
    # Twisted sent it chunked and undid that: no claim of a chunked body, the stored length stated
    assert http.get_header("Transfer-Encoding") is None
    assert int(http.get_header("Content-Length")) == len(
        gzip.compress(article_html(headline(7)).encode("utf-8")))
    raw = [r for r in warc_records(path) if r[0] == "response"
           and r[1].get_header("WARC-Target-URI") == http_server.url(gzipped_path)]
    assert raw and b"council" in raw[0][3].lower()  # warcio's own reader undoes the coding
    requests = [r for p in files for r in warc_records(p) if r[0] == "request"]
    assert all(r[1].get_header("WARC-Concurrent-To") for r in requests)
    assert all(r[2].get_header("User-Agent") for r in requests)

    extracted_feed = tmp_path / "warc.jsonl"
    await read_warc(tmp_path, str(archives), extracted_feed)
    same_but_fetched_at(crawled, read_jsonl(extracted_feed))


@pytest_twisted.ensureDeferred
async def test_a_killed_crawl_leaves_an_archive_readable_up_to_its_cut_record(tmp_path):
    """A kill mid-write leaves the last gzip member cut short: every cut point reads the whole
    records before it and counts the cut one."""
    pages = [warc_record(f"http://news.example/2024/01/0{n}/story-number-{n}-here.html",
                         http_block(article(f"Story {n} of the council"))) for n in range(1, 4)]
    whole = write_warc(tmp_path / "whole.warc.gz", pages).read_bytes()
    last_member = len(gzip.compress(pages[-1]))
    path = tmp_path / "cut.warc.gz"
    for cut in range(1, last_member):  # every byte of the last member
        path.write_bytes(whole[: len(whole) - cut])
        found = reasons(outcomes(path))
        assert found[:2] == ["page", "page"] and len(found) == 3, cut
        if cut <= 12:  # in the gzip trailer (CRC, size) or the record's closing CRLFs: the block is whole
            assert found[2] in ("page", "truncated"), cut
        else:  # one counted skip; bad_http where the cut shortened the stated Content-Length
            assert found[2] in ("truncated", "bad_http"), cut
    for cut in (20, last_member // 2, last_member - 4):
        (tmp_path / f"cut{cut}.warc.gz").write_bytes(whole[: len(whole) - cut])
        assert reasons(outcomes(tmp_path / f"cut{cut}.warc.gz")) == ["page", "page", "truncated"], cut
    feed = tmp_path / "cut.jsonl"
    crawler = await read_warc(tmp_path, str(tmp_path / f"cut{last_member // 2}.warc.gz"), feed)
    assert len(read_jsonl(feed)) == 2 and drops(crawler) == {"truncated": 1}


# --- reading: decoding ---------------------------------------------------------------------------


def test_chunked_gzip_and_header_charsets_are_decoded(tmp_path):
    html = article_html("Совет обсудил бюджет", charset=False).encode("cp1251")
    compressed = gzip.compress(html)
    chunked = b"".join(b"%x\r\n%s\r\n" % (len(part), part)
                       for part in (compressed[:100], compressed[100:])) + b"0\r\n\r\n"
    headers = {"Content-Type": "text/html; charset=windows-1251", "Transfer-Encoding": "chunked",
               "Content-Encoding": "gzip"}
    plain = {"Content-Type": "text/html; charset=windows-1251"}
    path = write_warc(tmp_path / "codings.warc.gz", [
        warc_record(ARTICLE_URL, http_block(chunked, headers=headers)),
        warc_record(ARTICLE_URL + "?2", http_block(html, headers=plain)),
    ])
    found = outcomes(path)
    assert reasons(found) == ["page", "page"]
    assert found[0].body == found[1].body == html
    assert found[0].content_type == "text/html; charset=windows-1251"
    assert found[0].date == "2024-01-02T03:04:05+00:00"


def test_every_html_page_of_another_crawlers_archive_is_kept_for_the_page_type_to_judge(tmp_path):
    """No sniff before extraction: a page without og:type or an article-shaped URL may well be an
    article (1,301 of the 2,982 dataset pages are); the extraction's page type judges it."""
    section = b"<html><head><title>World</title></head><body><a href='/a'>A story</a></body></html>"
    og = b'<html><head><meta property="og:type" content="article"><title>T</title></head><body></body></html>'
    ld = b'<html><head><script type="application/ld+json">{"@type": "NewsArticle"}</script></head></html>'
    path = write_warc(tmp_path / "kinds.warc.gz", [
        warc_record("http://news.example/world/", http_block(section)),
        warc_record("http://news.example/world/", http_block(og)),
        warc_record("http://news.example/x", http_block(ld)),
        warc_record(ARTICLE_URL, http_block(section)),  # an article-shaped URL
    ])
    assert reasons(outcomes(path)) == ["page"] * 4
    assert reasons(outcomes(path, keep="html")) == ["page"] * 4


# --- hostile archives ----------------------------------------------------------------------------


def test_non_html_binary_revisit_status_and_unknown_coding_records_are_skipped(tmp_path):
    png = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 8
    path = write_warc(tmp_path / "mixed.warc.gz", [
        warc_record("http://news.example/logo.png", http_block(png, headers={"Content-Type": "image/png"})),
        warc_record("http://news.example/blob", http_block(png, headers={})),  # no type, not HTML
        warc_record("http://news.example/doc.pdf", http_block(b"%PDF-1.4", headers={"Content-Type": "application/pdf"})),
        warc_record(ARTICLE_URL, http_block(b"", headers={"WARC-Profile": "x"}), kind="revisit"),
        warc_record(ARTICLE_URL, http_block(b"moved", status=301, headers={"Location": "/"})),
        warc_record(ARTICLE_URL, http_block(article(), headers={"Content-Type": "text/html",
                                                                "Content-Encoding": "x-unknown"})),
        warc_record(ARTICLE_URL, b"not an HTTP response at all"),
        warc_record(ARTICLE_URL, b"GET / HTTP/1.1\r\nHost: news.example\r\n\r\n", kind="request"),
        warc_record("dns:news.example", b"news.example. 300 IN A 192.0.2.1", content_type="text/dns"),
        warc_record(ARTICLE_URL, http_block(article())),
    ])
    assert reasons(outcomes(path)) == ["not_html", "not_html", "not_html", "revisit", "http_status",
                                       "unsupported_encoding", "bad_http", "page"]


def test_files_that_are_not_warc(tmp_path):
    cases = {
        "page.html": article(),
        "empty.warc.gz": b"",
        "text.warc.gz": gzip.compress(b"just some text\n" * 100),
        "noise.warc": bytes(range(256)) * 100,
    }
    for name, data in cases.items():
        (tmp_path / name).write_bytes(data)
        assert reasons(outcomes(tmp_path / name)) == ["not_warc"], name
    assert reasons(outcomes(tmp_path / "missing.warc.gz")) == ["unreadable"]


@pytest.mark.parametrize("gzipped", [True, False])
def test_wrong_content_length_costs_that_record(tmp_path, gzipped):
    good = [warc_record(f"http://news.example/2024/01/0{n}/story-number-{n}-here.html",
                        http_block(article(f"Story {n}"))) for n in (1, 3)]
    short = warc_record(ARTICLE_URL, http_block(article()), length=40)
    path = write_warc(tmp_path / "short.warc", [good[0], short, good[1]], gzipped=gzipped)
    found = outcomes(path)
    assert reasons(found) == ["page", "bad_http", "unreadable", "page"]  # reading resumes after it
    assert found[-1].url == good[1].split(b"WARC-Target-URI: ")[1].split(b"\r\n")[0].decode()
    long = warc_record(ARTICLE_URL, http_block(article()), length=50_000)
    path = write_warc(tmp_path / "long.warc.gz", [good[0], long, good[1]])
    assert reasons(outcomes(path)) == ["page", "truncated", "page"]  # its gzip member ends it


def test_a_100_mb_record_is_skipped_by_its_length_without_being_held(tmp_path):
    path = tmp_path / "huge.warc.gz"
    size = 100 * 1024 * 1024
    head = http_block(b"", headers={"Content-Type": "text/html"})
    fields = (f"WARC/1.1\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:{uuid.uuid4()}>\r\n"
              f"WARC-Target-URI: {ARTICLE_URL}\r\nContent-Length: {len(head) + size}\r\n\r\n").encode()
    with path.open("wb") as out:
        compressor = zlib.compressobj(1, zlib.DEFLATED, zlib.MAX_WBITS + 16)
        out.write(compressor.compress(fields + head))
        chunk = b"<p>" + b"x" * (1024 * 1024 - 3)
        for _ in range(100):
            out.write(compressor.compress(chunk))
        out.write(compressor.compress(b"\r\n\r\n") + compressor.flush())
        out.write(gzip.compress(warc_record(ARTICLE_URL + "?after", http_block(article()))))
    tracemalloc.start()
    try:
        found = outcomes(path, max_bytes=16 * 1024 * 1024)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert reasons(found) == ["too_large", "page"]
    assert "104857" in found[0].detail  # the stated length
    # Streamed past, never held: what is alive at once is one read block of warcio (16 KB of
    # compressed input) decompressed, at most deflate's 1032:1 ratio (here ~13 MB of "x")
    assert peak < 20 * 1024 * 1024


def test_a_decompression_bomb_stops_at_the_limit(tmp_path):
    bomb = gzip.compress(b"<html>" + b" " * 5_000_000)
    path = write_warc(tmp_path / "bomb.warc.gz", [warc_record(ARTICLE_URL, http_block(
        bomb, headers={"Content-Type": "text/html", "Content-Encoding": "gzip"}))])
    found = outcomes(path, max_bytes=1_000_000)
    assert reasons(found) == ["too_large"]


@pytest_twisted.ensureDeferred
async def test_the_spider_counts_every_skip_and_exports_the_rest(tmp_path):
    good = [warc_record(f"http://news.example/2024/01/0{n}/story-number-{n}-here.html",
                        http_block(article(f"Council story number {n} of the week"))) for n in range(1, 5)]
    hostile = write_warc(tmp_path / "hostile.warc.gz", [
        good[0],
        warc_record("http://news.example/logo.png", http_block(b"\x89PNG", headers={"Content-Type": "image/png"})),
        warc_record(ARTICLE_URL, http_block(article()), length=40),
        good[1],
        warc_record(ARTICLE_URL, b"", kind="revisit"),
        good[0],  # the same URL again
        good[2],
    ])
    cut = write_warc(tmp_path / "cut.warc.gz", [good[3], good[3]])
    cut.write_bytes(cut.read_bytes()[:-30])
    (tmp_path / "notes.txt").write_text("not an archive")
    feed = tmp_path / "out.jsonl"
    paths = ",".join(str(p) for p in (hostile, cut, tmp_path / "notes.txt", tmp_path / "gone.warc.gz"))
    crawler = await read_warc(tmp_path, paths, feed, NEWSCRAWL_EXTRACT_BACKLOG=1)
    items = read_jsonl(feed)
    assert sorted(i["url"] for i in items) == sorted(
        f"http://news.example/2024/01/0{n}/story-number-{n}-here.html" for n in range(1, 5))
    assert all(i["site"] == "news.example" and i["fetched_at"] == "2024-01-02T03:04:05+00:00" for i in items)
    assert drops(crawler) == {"not_html": 1, "bad_http": 1, "unreadable": 2, "revisit": 1, "duplicate": 1,
                              "truncated": 1, "not_warc": 1}
    stats = crawler.stats.get_stats()
    assert stats["finish_reason"] == "finished"
    assert stats["newscrawl/warc/peak_in_flight"] <= 2  # NEWSCRAWL_EXTRACT_BACKLOG 1 × 1 worker (min 2)
    assert stats["newscrawl/warc/resyncs"] == 1


def test_spider_arguments_are_checked(tmp_path):
    with pytest.raises(ValueError, match="path"):
        WarcSpider()
    with pytest.raises(ValueError, match="keep"):
        WarcSpider(path=str(tmp_path), keep="everything")
    with pytest.raises(ValueError, match="no WARC file"):
        WarcSpider(path=str(tmp_path / "*.warc.gz"))
    with pytest.raises(ValueError, match="no such file"):
        WarcSpider(path=f"{tmp_path / 'gone.warc.gz'},{tmp_path / 'gone-too.warc'}")
    (tmp_path / "here.warc.gz").write_bytes(b"")
    assert len(WarcSpider(path=f"{tmp_path / 'gone.warc.gz'},{tmp_path / 'here.warc.gz'}").paths) == 2



@pytest_twisted.ensureDeferred
async def test_an_archive_that_cannot_be_written_stops_the_recording_not_the_crawl(http_server, tmp_path):
    urls = build_site(http_server, pages=1, per_page=2)
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("a file where the archive directory should be")
    feed = tmp_path / "crawl.jsonl"
    crawler = await run_crawl(site_spider(catalogues=[http_server.url("/list/1.html")]),
                              crawl_settings(tmp_path, feed, NEWSCRAWL_WARC=str(blocker / "warc")))
    assert sorted(i["url"] for i in read_jsonl(feed)) == sorted(urls)
    stats = crawler.stats.get_stats()
    assert stats["newscrawl/warc/write_failed"] and "newscrawl/warc/records" not in stats
    assert stats["finish_reason"] == "finished"


@pytest_twisted.ensureDeferred
async def test_pages_wait_while_the_bodies_in_the_pipelines_reach_the_byte_bound(tmp_path):
    pages = [warc_record(f"http://news.example/2024/01/0{n}/story-number-{n}-here.html",
                         http_block(article(f"Council story number {n} of the week"))) for n in range(1, 5)]
    archive = write_warc(tmp_path / "four.warc.gz", pages)
    feed = tmp_path / "out.jsonl"
    crawler = await read_warc(tmp_path, str(archive), feed, SCRAPER_SLOT_MAX_ACTIVE_SIZE=1)
    assert len(read_jsonl(feed)) == 4
    assert crawler.stats.get_value("newscrawl/warc/peak_in_flight") == 1  # one page at a time


def test_isal_and_zlib_read_every_archive_alike(tmp_path, monkeypatch):
    """ISA-L's inflate (when python-isal is installed) reads what zlib reads, damage included:
    cut members at every byte, wrong lengths, an uncompressed file, gzip that holds no WARC."""
    from warcio.bufferedreaders import DecompressingBufferedReader

    import newscrawl.archives.warc_reader as warc

    pytest.importorskip("isal", reason="python-isal is not installed: zlib is the only reader")
    assert warc._gzip_reader() is not DecompressingBufferedReader
    good = [warc_record(f"http://news.example/2024/01/0{n}/story-number-{n}-here.html",
                        http_block(article(f"Story {n}"))) for n in (1, 2, 3)]
    whole = write_warc(tmp_path / "whole.warc.gz", good).read_bytes()
    archives = {"plain.warc": b"".join(good), "text.warc.gz": gzip.compress(b"just some text\n" * 100),
                "short.warc.gz": b"".join(gzip.compress(r) for r in (
                    good[0], warc_record(ARTICLE_URL, http_block(article()), length=40), good[1])),
                "long.warc.gz": b"".join(gzip.compress(r) for r in (
                    good[0], warc_record(ARTICLE_URL, http_block(article()), length=50_000), good[1]))}
    for cut in range(0, len(gzip.compress(good[-1])), 7):
        archives[f"cut{cut}.warc.gz"] = whole[: len(whole) - cut]

    def read_all() -> list:
        found = []
        for name, data in archives.items():
            (tmp_path / name).write_bytes(data)
            found.append([(o.reason, o.detail) if isinstance(o, Skip) else (o.url, o.body)
                          for o in outcomes(tmp_path / name)])
        return found

    with_isal = read_all()
    monkeypatch.setattr(warc, "_gzip_reader", lambda: DecompressingBufferedReader)
    assert read_all() == with_isal
    assert sum(len(found) for found in with_isal) > len(archives)


# --- named pipes (issue 30, item 8) --------------------------------------------------------------


def test_a_named_pipe_is_refused_as_a_usage_error_not_waited_on(tmp_path):
    import os
    import subprocess
    import sys

    fifo = tmp_path / "pipe.warc.gz"
    os.mkfifo(fifo)
    write_warc(tmp_path / "good.warc.gz", [warc_record(ARTICLE_URL, http_block(article()))])
    for spec in (str(fifo), f"{tmp_path / 'good.warc.gz'},{fifo}", str(tmp_path), str(tmp_path / "*.warc.gz")):
        with pytest.raises(ValueError, match="not a regular file"):
            WarcSpider(path=spec)
    # a pipe put in a file's place after the check: read without waiting for a writer, counted
    assert reasons(outcomes(fifo)) == ["unreadable"]
    root = Path(__file__).resolve().parent.parent
    done = subprocess.run([sys.executable, "-m", "scrapy", "crawl", "warc", "-a", f"path={fifo}",
                           "-s", f"NEWSCRAWL_STATE_DIR={tmp_path / 'state'}"],
                          cwd=root, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
                          env={**os.environ, "PYTHONPATH": str(root)})
    assert done.returncode == 2, done.stderr[-3000:]
    assert "not a regular file" in done.stderr


# --- plain .warc files: a cut or lying record (issue 30, item 7) -----------------------------------


def test_a_cut_record_in_a_plain_file_costs_that_record_only(tmp_path):
    good = [warc_record(f"http://news.example/2024/01/0{n}/story-number-{n}-here.html",
                        http_block(article(f"Story {n} of the council"))) for n in range(1, 5)]
    whole = warc_record(ARTICLE_URL, http_block(article()))
    path = tmp_path / "cut.warc"
    urls = [r.split(b"WARC-Target-URI: ")[1].split(b"\r\n")[0].decode() for r in good]
    for cut in range(8, len(whole) - 4, 3):  # cut anywhere in the header or block, by a copy that stopped
        write_warc(path, [good[0], whole[:cut], *good[1:]], gzipped=False)
        found = outcomes(path)
        assert [o.url for o in found if isinstance(o, WarcPage)] == urls, cut
        assert [o.reason for o in found if isinstance(o, Skip)] == ["truncated"], cut
    # a header that claims 1 GB: the records after it are read, the liar is counted
    liar = warc_record(ARTICLE_URL, http_block(article()), length=1_000_000_000)
    write_warc(path, [good[0], liar, *good[1:]], gzipped=False)
    found = outcomes(path)
    assert reasons(found) == ["page", "truncated", "page", "page", "page"]
    assert f"byte {len(good[0])} " in found[1].detail and str(path) in found[1].detail  # where, which file
    write_warc(path, [good[0], good[1], liar], gzipped=False)  # the last record, cut by the file's end
    assert reasons(outcomes(path)) == ["page", "page", "truncated"]


def test_warc_version_text_inside_a_plain_record_is_no_record_start(tmp_path):
    """Only a version line followed by header fields is taken for a record start."""
    url = "http://news.example/2024/01/02/WARC/1.1/council-debates-the-budget.html"
    page = article_html("Council debates the budget", extra="<pre>WARC/1.1\r\nnot a header</pre>").encode()
    records = [warc_record(url, http_block(page)), warc_record(ARTICLE_URL, http_block(article()))]
    path = write_warc(tmp_path / "text.warc", records, gzipped=False)
    assert reasons(outcomes(path)) == ["page", "page"]
