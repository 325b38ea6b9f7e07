"""Content codings (issue 30, items 5 and 6): every coding the crawl accepts round-trips through
its own WARC archive, and a body cut short is a counted ``truncated`` drop, on the crawl path and
on the WARC path, never a shorter article."""

from __future__ import annotations

import gzip
import zlib

import brotli
import pytest
import pytest_twisted
from conftest import crawl_settings, read_jsonl, run_crawl, site_spider
from scrapy.downloadermiddlewares.httpcompression import ACCEPTED_ENCODINGS
from test_crawl_local import article_html
from test_warc import (
    ARTICLE_URL,
    drops,
    http_block,
    outcomes,
    read_warc,
    reasons,
    same_but_fetched_at,
    warc_record,
    write_warc,
)

from newscrawl.codings import Truncated, decode

try:
    from compression import zstd
except ImportError:
    from backports import zstd

SM = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'
XML = {"Content-Type": "application/xml"}


def raw_deflate(data: bytes) -> bytes:
    compressor = zlib.compressobj(6, zlib.DEFLATED, -zlib.MAX_WBITS)
    return compressor.compress(data) + compressor.flush()


ENCODERS = {"gzip": gzip.compress, "deflate": zlib.compress, "br": brotli.compress, "zstd": zstd.compress}


def test_the_codings_are_the_ones_scrapy_asks_for():
    assert {c.decode() for c in ACCEPTED_ENCODINGS} == set(ENCODERS)


@pytest.mark.parametrize("coding", sorted(ENCODERS))
def test_a_cut_stream_is_truncated_at_every_length(coding):
    html = article_html("Harbour bridge reopens after repairs").encode()
    coded = ENCODERS[coding](html)
    assert decode(coded, coding) == html
    for cut in range(1, len(coded)):
        with pytest.raises(Truncated):
            decode(coded[:cut], coding)
    assert decode(raw_deflate(html), "deflate") == html  # as some servers send deflate


def sitemap_site(server, pages: dict[str, tuple[bytes, dict[str, str]]]) -> type:
    """Article pages at ``/story/<name>.html`` served as given, listed by one sitemap."""
    urls = [server.add(f"/story/{name}.html", body, headers=headers) for name, (body, headers) in pages.items()]
    server.add("/sitemap.xml", f"<urlset {SM}>" + "".join(f"<url><loc>{u}</loc></url>" for u in urls)
               + "</urlset>", headers=XML)
    return site_spider(sitemaps=[server.url("/sitemap.xml")])


def coded(title: str, coding: str | None) -> tuple[bytes, dict[str, str]]:
    body = article_html(title).encode()
    headers = {"Content-Type": "text/html; charset=utf-8"}
    if coding:
        body = ENCODERS[coding](body)
        headers["Content-Encoding"] = coding
    return body, headers


@pytest_twisted.ensureDeferred
async def test_every_accepted_coding_round_trips_through_the_crawls_own_archive(http_server, tmp_path):
    pages = {f"{coding or 'identity'}-{n}": coded(f"Harbour bridge story {n} sent as {coding or 'identity'}", coding)
             for coding in (None, *sorted(ENCODERS)) for n in range(2)}
    archive = tmp_path / "crawl.warc.gz"
    crawled_feed = tmp_path / "crawl.jsonl"
    await run_crawl(sitemap_site(http_server, pages), crawl_settings(tmp_path, crawled_feed,
                                                                     NEWSCRAWL_WARC=str(archive)))
    crawled = read_jsonl(crawled_feed)
    assert sorted(i["url"].rsplit("/", 1)[1] for i in crawled) == sorted(f"{name}.html" for name in pages)

    extracted_feed = tmp_path / "warc.jsonl"
    crawler = await read_warc(tmp_path, str(archive), extracted_feed)
    same_but_fetched_at(crawled, read_jsonl(extracted_feed))
    assert "unreadable" not in drops(crawler) and "bad_http" not in drops(crawler)


@pytest_twisted.ensureDeferred
async def test_a_body_cut_short_is_a_counted_drop_in_the_crawl_and_in_its_archive(http_server, tmp_path):
    pages = {"whole": coded("Harbour bridge reopens after repairs", "gzip")}
    for coding in sorted(ENCODERS):
        body, headers = coded(f"Library story cut short, sent as {coding}", coding)
        pages[f"cut-{coding}"] = (body[: len(body) // 2], headers)  # Content-Length states the cut length
    archive = tmp_path / "crawl.warc.gz"
    feed = tmp_path / "crawl.jsonl"
    crawler = await run_crawl(sitemap_site(http_server, pages),
                              crawl_settings(tmp_path, feed, NEWSCRAWL_WARC=str(archive)))
    assert [i["url"].rsplit("/", 1)[1] for i in read_jsonl(feed)] == ["whole.html"]
    assert drops(crawler) == {"truncated": len(ENCODERS)}

    extracted = tmp_path / "warc.jsonl"
    crawler = await read_warc(tmp_path, str(archive), extracted, NEWSCRAWL_FRESH=True)
    assert [i["url"].rsplit("/", 1)[1] for i in read_jsonl(extracted)] == ["whole.html"]
    assert drops(crawler).get("truncated") == len(ENCODERS)


def test_archived_bodies_cut_short_are_truncated_skips(tmp_path):
    html = article_html("Council debates the budget").encode()
    whole = gzip.compress(html)
    headers = {"Content-Type": "text/html", "Content-Encoding": "gzip"}
    path = write_warc(tmp_path / "cut.warc", [
        warc_record(ARTICLE_URL, http_block(whole[:200], headers=headers)),
        # the HTTP head states more than the record holds (an archive that kept the sent length)
        warc_record(ARTICLE_URL + "?2", http_block(html[:300], headers={"Content-Type": "text/html",
                                                                         "Content-Length": str(len(html))})),
        # the archiver says it stored part of the payload
        warc_record(ARTICLE_URL + "?3", http_block(html[:300]), extra={"WARC-Truncated": "length"}),
        warc_record(ARTICLE_URL + "?4", http_block(whole, headers=headers)),
    ], gzipped=False)
    found = outcomes(path)
    assert reasons(found) == ["truncated", "truncated", "truncated", "page"]
    assert found[-1].body == html


class CutServer:
    """A server on 127.0.0.1 whose answers state a Content-Length, send ``sent`` bytes of the body
    (all when None) and close the connection: a download cut short."""

    def __init__(self, pages: dict[str, tuple[bytes, int | None]]):
        from twisted.internet import protocol, reactor

        outer = self
        self.pages = pages

        class Cut(protocol.Protocol):
            def dataReceived(self, data):
                path = data.split(b" ", 2)[1].decode()
                body, sent = outer.pages.get(path, (b"not found", None))
                status = b"200 OK" if path in outer.pages else b"404 Not Found"
                kind = b"application/xml" if path.endswith(".xml") else b"text/html; charset=utf-8"
                head = (b"HTTP/1.1 %s\r\nContent-Type: %s\r\nContent-Length: %d\r\nConnection: close\r\n\r\n"
                        % (status, kind, len(body)))
                self.transport.write(head + body[:sent])
                self.transport.loseConnection()

        factory = protocol.ServerFactory()
        factory.protocol = Cut
        self.port = reactor.listenTCP(0, factory, interface="127.0.0.1")
        self.base = f"http://127.0.0.1:{self.port.getHost().port}"


@pytest_twisted.ensureDeferred
async def test_a_download_cut_before_its_content_length_is_truncated_whatever_dataloss_says(tmp_path):
    html = article_html("Harbour bridge reopens after repairs").encode()
    server = CutServer({"/story/cut.html": (html, len(html) // 2), "/story/whole.html": (html, None)})
    server.pages["/sitemap.xml"] = (f"<urlset {SM}>".encode() + b"".join(
        f"<url><loc>{server.base}/story/{name}.html</loc></url>".encode() for name in ("cut", "whole"))
        + b"</urlset>", None)
    try:
        for fail in (True, False):  # Scrapy fails the download, or flags the response "dataloss"
            feed = tmp_path / f"crawl-{fail}.jsonl"
            archive = tmp_path / f"crawl-{fail}.warc.gz"
            crawler = await run_crawl(site_spider(sitemaps=[server.base + "/sitemap.xml"]),
                                      crawl_settings(tmp_path / str(fail), feed, DOWNLOAD_FAIL_ON_DATALOSS=fail,
                                                     NEWSCRAWL_WARC=str(archive)))
            assert [i["url"] for i in read_jsonl(feed)] == [server.base + "/story/whole.html"], fail
            assert drops(crawler) == {"truncated": 1}, fail
        # the flagged response was recorded with WARC-Truncated: read back, it is a skip again
        crawler = await read_warc(tmp_path, str(tmp_path / "crawl-False.warc.gz"), tmp_path / "warc.jsonl")
        assert [i["url"] for i in read_jsonl(tmp_path / "warc.jsonl")] == [server.base + "/story/whole.html"]
        assert drops(crawler).get("truncated") == 1
    finally:
        server.port.stopListening()
