"""``scrapy extract FILE_OR_URL`` (subprocess), on pages the tests write and serve on 127.0.0.1."""

import gzip
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from test_evaluate import PARAGRAPHS, article_html
from test_evaluate_command import scrapy

PAGE = article_html(
    "News about the harbour", PARAGRAPHS["harbour"], "2024-03-10T09:30:00+02:00", "Ann Writer"
)


def test_extract_a_gzipped_file(tmp_path):
    path = tmp_path / "page.html.gz"
    path.write_bytes(gzip.compress(PAGE.encode("utf-8")))
    proc = scrapy(tmp_path, "extract", str(path), "--url", "https://news.example/a.html")
    assert proc.returncode == 0, proc.stderr
    article = json.loads(proc.stdout)
    assert article["url"] == "https://news.example/a.html"
    assert article["title"] == "News about the harbour"
    assert PARAGRAPHS["harbour"][1] in article["text"]
    assert "All rights reserved" not in article["text"]
    assert article["published"].startswith("2024-03-10")


def test_extract_with_another_method_and_listing_title(tmp_path):
    path = tmp_path / "page.html"
    path.write_text(PAGE, encoding="utf-8")
    proc = scrapy(
        tmp_path, "extract", str(path), "--method", "decay", "--listing-title", "News about the harbour"
    )
    assert proc.returncode == 0, proc.stderr
    article = json.loads(proc.stdout)
    assert article["method"].startswith("decay")
    assert article["title"] == "News about the harbour"


def test_extract_reports_unusable_input(tmp_path):
    empty = tmp_path / "empty.html"
    empty.write_bytes(b"")
    proc = scrapy(tmp_path, "extract", str(empty))
    assert proc.returncode == 1
    assert "no article in" in proc.stderr and "empty" in proc.stderr

    proc = scrapy(tmp_path, "extract", str(tmp_path / "missing.html"))
    assert proc.returncode == 2
    assert "cannot read" in proc.stderr


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 - http.server's name
        if self.path != "/article.html":
            self.send_error(404)
            return
        body = PAGE.encode("utf-8")
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def server():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def test_extract_fetches_a_url(tmp_path, server):
    proc = scrapy(tmp_path, "extract", f"{server}/article.html")
    assert proc.returncode == 0, proc.stderr
    article = json.loads(proc.stdout)
    assert article["url"] == f"{server}/article.html"
    assert PARAGRAPHS["harbour"][0] in article["text"]


def test_extract_names_an_unreachable_url(tmp_path, server):
    proc = scrapy(tmp_path, "extract", f"{server}/missing.html")
    assert proc.returncode == 2
    assert "cannot fetch" in proc.stderr and "Not Found" in proc.stderr


@pytest.mark.parametrize("fmt", ["markdown", "html", "text"])
def test_extract_prints_the_body_in_the_format_asked(tmp_path, fmt):
    path = tmp_path / "page.html"
    path.write_text(PAGE, encoding="utf-8")
    asked = scrapy(tmp_path, "extract", str(path), "--url", "https://news.example/a.html", "--format", fmt)
    whole = scrapy(tmp_path, "extract", str(path), "--url", "https://news.example/a.html")
    assert asked.returncode == 0 == whole.returncode, asked.stderr
    article = json.loads(whole.stdout)
    assert asked.stdout == article[fmt] + "\n"
    assert PARAGRAPHS["harbour"][1] in asked.stdout
    assert article["markdown"] and article["html"].startswith("<")


@pytest.mark.parametrize(("param", "said"), [
    ("article_end=fals", "parameter 'article_end' is a switch: give true or false, not 'fals'"),
    ("artcle_end=false", "method 'auto' has no parameter 'artcle_end'"),
    ("lam=high", "parameter 'lam' is a number"),
])
def test_a_mistyped_parameter_is_a_usage_error_not_a_silent_default(tmp_path, param, said):
    path = tmp_path / "page.html"
    path.write_text(PAGE, encoding="utf-8")
    proc = scrapy(tmp_path, "extract", str(path), "--param", param)
    assert proc.returncode == 2, proc.stdout
    assert said in proc.stderr and proc.stdout == ""
    proc = scrapy(tmp_path, "extract", str(path), "--format", "text", "--param", "article_end=false")
    assert proc.returncode == 0 and PARAGRAPHS["harbour"][1] in proc.stdout
