"""``scrapy addsite NAME URL``: discovery of a site the test serves, turned into a sites-file entry
that load_sites accepts (subprocess, as a person runs it)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import tomllib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import pytest_twisted
import test_discover
from conftest import crawl_settings, run_crawl
from test_discover import SECTIONS, build_site

from newscrawl.discovery import nested_quantifier, site_entry, site_table
from newscrawl.sites import load_sites
from newscrawl.spiders.discover import DiscoverSpider

ROOT = Path(__file__).resolve().parents[1]


class ThreadedRoutes:
    """The site of test_discover served from a thread (the subprocess cannot use the test's reactor)."""

    def __init__(self, interface: str = "127.0.0.1"):
        self.routes: dict[str, tuple[bytes, str]] = {}
        self.hits: dict[str, int] = {}
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                outer.hits[self.path] = outer.hits.get(self.path, 0) + 1
                body, kind = outer.routes.get(self.path, (b"not found", "text/plain"))
                self.send_response(200 if self.path in outer.routes else 404)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer((interface, 0), Handler)
        self.base = f"http://{interface}:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def url(self, path: str) -> str:
        return self.base + path

    def add(self, path: str, body: str, headers: dict | None = None) -> str:
        kind = (headers or {}).get("Content-Type", "text/html; charset=utf-8")
        self.routes[path] = (body.encode("utf-8"), kind)
        return self.url(path)


@pytest.fixture
def site():
    server = ThreadedRoutes()
    articles = build_site(server)
    yield server, articles
    server.httpd.shutdown()


def addsite(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "scrapy", "addsite", *args, "-s", f"NEWSCRAWL_STATE_DIR={tmp_path / 'state'}"]
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})


def test_addsite_prints_a_valid_entry_and_writes_it_only_when_asked(site, tmp_path):
    server, articles = site
    sites_file = tmp_path / "sites.toml"
    sites_file.write_text('[sites.other]\ndomains = ["example.org"]\nfeeds = ["https://example.org/rss"]\n')
    done = addsite(tmp_path, "example_news", server.url("/"), "--sites", str(sites_file))
    assert done.returncode == 0, done.stderr[-3000:]
    entry = done.stdout
    table = tomllib.loads(entry)["sites"]["example_news"]
    assert table["feeds"] == [server.url("/rss/all.xml")]
    assert table["sitemaps"] == [server.url("/sitemap.xml")]
    assert table["catalogues"] == [server.url("/")] + [server.url(f"/{s}/") for s in SECTIONS]
    assert table["language"] == "en"
    pattern = re.compile(table["article_pattern"])
    assert all(pattern.search(url) for url in articles)
    assert not any(pattern.search(url) for url in table["catalogues"])
    assert not any(path.startswith(("/world/2024", "/business/2024")) for path in server.hits)  # no article fetched
    assert "example_news" not in load_sites(sites_file)  # printed, not written

    entry_file = tmp_path / "entry.toml"
    entry_file.write_text(entry)
    assert load_sites(entry_file)["example_news"].article_pattern == table["article_pattern"]

    written = addsite(tmp_path, "example_news", server.url("/"), "--sites", str(sites_file), "--write")
    assert written.returncode == 0, written.stderr[-3000:]
    assert set(load_sites(sites_file)) == {"other", "example_news"}
    again = addsite(tmp_path, "example_news", server.url("/"), "--sites", str(sites_file), "--write")
    assert again.returncode != 0 and "already has a site 'example_news'" in again.stderr
    assert set(load_sites(sites_file)) == {"other", "example_news"}  # never overwritten


def test_addsite_refuses_a_bad_name(tmp_path):
    done = addsite(tmp_path, "Bad-Name", "https://www.example.com/", "--sites", str(tmp_path / "none.toml"))
    assert done.returncode != 0 and "site name" in done.stderr



@pytest_twisted.ensureDeferred
async def test_survey_of_a_served_site_becomes_an_entry_load_sites_accepts(http_server, tmp_path):
    """The same discovery in process (RoutesServer): the entry's pattern matches every article
    URL and none of the catalogue (section) URLs."""
    articles = test_discover.build_site(http_server)
    crawler = await run_crawl(DiscoverSpider, crawl_settings(tmp_path, tmp_path / "out.jsonl"),
                              url=http_server.url("/"), survey="1")
    entry = site_entry("served", site_table(crawler.spider.survey))
    (tmp_path / "sites.toml").write_text(entry, encoding="utf-8")
    site = load_sites(tmp_path / "sites.toml")["served"]
    pattern = re.compile(site.article_pattern)
    assert all(pattern.search(url) for url in articles)
    assert site.catalogues and not any(pattern.search(url) for url in site.catalogues)
    assert site.feeds == (http_server.url("/rss/all.xml"),) and site.language == "en"
    assert not nested_quantifier(site.article_pattern)
