"""`scrapy parse --spider SITE URL`: the spider's ``parse`` reads a catalogue page as a listing, an
article page as an extracted article, a feed or a JSON list as listing entries."""

from __future__ import annotations

import ast
import functools
import os
import subprocess
import sys
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from scrapy.http import HtmlResponse, TextResponse
from test_crawl_local import article_html, catalogue_html, headline

from newscrawl.spiders.site import page_kind

ROOT = Path(__file__).resolve().parent.parent
ARTICLE = "/news/2024/05/7/council-budget-story-7.html"


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture
def site_dir(tmp_path):
    """A catalogue and an article served from ``tmp_path/www`` by a thread of this process."""
    www = tmp_path / "www"
    (www / ARTICLE.lstrip("/")).parent.mkdir(parents=True)
    (www / ARTICLE.lstrip("/")).write_text(article_html(headline(7)), encoding="utf-8")
    (www / "index.html").write_text(catalogue_html([(ARTICLE, headline(7))]), encoding="utf-8")
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(QuietHandler, directory=str(www)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    (tmp_path / "sites.toml").write_text(f'[sites.local]\ndomains = ["127.0.0.1"]\n'
                                         f'catalogues = ["{base}/index.html"]\n')
    yield base
    server.shutdown()
    server.server_close()


def scrapy_parse(tmp_path: Path, url: str, *options: str) -> list[dict]:
    """The items ``scrapy parse`` prints for ``url``."""
    done = subprocess.run(
        [sys.executable, "-m", "scrapy", "parse", "--spider", "local", url, *options,
         "-s", f"NEWSCRAWL_SITES={tmp_path / 'sites.toml'}", "-s", f"NEWSCRAWL_STATE_DIR={tmp_path / 'state'}"],
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "NotImplementedError" not in done.stderr
    printed = done.stdout.split("# Scraped Items")[1].split("\n", 1)[1].split("# Requests")[0]
    return ast.literal_eval(printed.strip())


def test_scrapy_parse_reads_a_catalogue_as_listing_items(tmp_path, site_dir):
    items = scrapy_parse(tmp_path, f"{site_dir}/index.html")
    assert [(i["url"], i["listing_title"], i["source"]) for i in items] == [
        (site_dir + ARTICLE, headline(7), "catalogue")]


def test_scrapy_parse_extracts_an_article_page(tmp_path, site_dir):
    [item] = scrapy_parse(tmp_path, site_dir + ARTICLE)
    assert item["url"] == site_dir + ARTICLE and item["site"] == "local"
    assert item["title"] == headline(7)
    assert "library open on weekends" in item["text"] and item["body"] is None
    # -c names the reading: the same page as a catalogue lists no article
    assert scrapy_parse(tmp_path, site_dir + ARTICLE, "-c", "parse_catalogue") == []


def response(url: str, body: bytes, content_type: str | None) -> TextResponse:
    headers = {"Content-Type": content_type} if content_type else {}
    return HtmlResponse(url, body=body, headers=headers)


@pytest.mark.parametrize(("content_type", "body", "kind"), [
    ("application/rss+xml", b"<rss/>", "feed"),
    ("text/xml; charset=utf-8", b"<?xml version='1.0'?><feed/>", "feed"),
    ("application/atom+xml", b"<feed/>", "feed"),
    (None, b"  <?xml version='1.0'?>\n<rss version='2.0'><channel/></rss>", "feed"),
    ("application/json", b"{}", "json"),
    (None, b'[{"url": "/a"}]', "json"),
    ("text/html", b"<html><body>rss</body></html>", "html"),
    ("application/xhtml+xml", b"<?xml version='1.0'?><html/>", "html"),
    (None, b"<!doctype html><html></html>", "html"),
])
def test_page_kind_by_content_type_else_by_the_first_bytes(content_type, body, kind):
    assert page_kind(response("http://x.test/p", body, content_type)) == kind
