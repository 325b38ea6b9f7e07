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

from newscrawl.discovery.patterns import nested_quantifier
from newscrawl.discovery.survey import site_entry, site_table
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


# -- hostile input (issue 30, items 2 and 3) --------------------------------------------------

SITES_WITH_COMMENTS = """# Our sites: reviewed by the desk every Monday
[sites.other]  # the partner site
domains = ["example.org"]
feeds = ["https://example.org/rss"]  # their only feed
"""


@pytest.fixture
def hostile():
    """The hostile site of test_discover_hostile, served from threads: a home page on 127.0.0.1
    naming an internal service on another port and on 127.0.0.2."""
    from test_discover_hostile import hostile_home, internal_service

    internals = [ThreadedRoutes("127.0.0.1"), ThreadedRoutes("127.0.0.2")]
    for server in internals:
        internal_service(server)
    site = ThreadedRoutes()
    hostile_home(site, internals)
    yield site, internals
    for server in [site, *internals]:
        server.httpd.shutdown()


def test_addsite_write_keeps_the_internal_service_out_of_the_sites_file(hostile, tmp_path):
    site, internals = hostile
    sites_file = tmp_path / "sites.toml"
    sites_file.write_text(SITES_WITH_COMMENTS)
    done = addsite(tmp_path, "hostile", site.url("/"), "--sites", str(sites_file), "--write")
    assert done.returncode == 0, done.stderr[-3000:]
    written = load_sites(sites_file)["hostile"]
    assert written.domains == (site.base.split("//")[1],)
    for url in written.feeds + written.sitemaps + written.catalogues + written.list_apis:
        assert url.startswith(site.base + "/"), url
    assert all(server.hits == {} for server in internals)
    # the next scheduled crawl of the written site does not reach the internal service either
    crawl = subprocess.run(
        [sys.executable, "-m", "scrapy", "crawl", "hostile", "-s", f"NEWSCRAWL_SITES={sites_file}",
         "-s", f"NEWSCRAWL_STATE_DIR={tmp_path / 'state'}", "-o", str(tmp_path / "out.jsonl")],
        cwd=ROOT, capture_output=True, text=True, timeout=180, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert crawl.returncode == 0, crawl.stderr[-3000:]
    assert all(server.hits == {} for server in internals), [server.hits for server in internals]
    exported = [line for line in (tmp_path / "out.jsonl").read_text().splitlines() if line.strip()]
    assert exported and all(site.base in line for line in exported)


def test_addsite_write_with_a_del_byte_in_a_robots_sitemap_leaves_a_loading_file(site, tmp_path):
    server, _ = site
    server.add("/robots.txt", f"User-agent: *\nAllow: /\nSitemap: {server.base}/site\x7fmap.xml\n",
               headers={"Content-Type": "text/plain"})
    sites_file = tmp_path / "sites.toml"
    sites_file.write_text(SITES_WITH_COMMENTS)
    done = addsite(tmp_path, "example_news", server.url("/"), "--sites", str(sites_file), "--write")
    assert done.returncode == 0, done.stderr[-3000:]
    sites = load_sites(sites_file)  # every later crawl reads it
    assert set(sites) == {"other", "example_news"}
    assert sites["example_news"].sitemaps == (server.url("/site%7Fmap.xml"),)  # as a request carries it
    text = sites_file.read_text()
    assert "# Our sites: reviewed by the desk every Monday" in text and "# their only feed" in text
    assert (tmp_path / "sites.toml.bak").read_text() == SITES_WITH_COMMENTS
    listed = subprocess.run([sys.executable, "-m", "scrapy", "list", "-s", f"NEWSCRAWL_SITES={sites_file}"],
                            cwd=ROOT, capture_output=True, text=True, timeout=120,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert listed.returncode == 0 and "example_news" in listed.stdout.split(), listed.stderr[-2000:]


def test_addsite_refuses_a_name_ending_in_a_newline(tmp_path):
    sites_file = tmp_path / "sites.toml"
    sites_file.write_text(SITES_WITH_COMMENTS)
    done = addsite(tmp_path, "news\n", "https://www.example.com/", "--sites", str(sites_file), "--write")
    assert done.returncode == 2 and "site name" in done.stderr
    assert sites_file.read_text() == SITES_WITH_COMMENTS


def test_the_sites_file_writer_never_leaves_a_file_that_does_not_load(tmp_path):
    from newscrawl.sites import SiteConfigError
    from newscrawl.siteswriter import add_site

    sites_file = tmp_path / "sites.toml"
    sites_file.write_text(SITES_WITH_COMMENTS)
    hostile_values = {"domains": ["example.com"], "feeds": ["https://example.com/rss\x7f\x01\"']\n[x]"],
                      "article_pattern": "^https?://[^/]+/a'b\\d+\x7f$", "language": "en\n[sites.evil]"}
    add_site(sites_file, "odd", hostile_values)
    loaded = load_sites(sites_file)
    assert loaded["odd"].feeds == (hostile_values["feeds"][0].strip(),)
    assert loaded["odd"].article_pattern == hostile_values["article_pattern"]
    assert "# the partner site" in sites_file.read_text()
    before = sites_file.read_text()
    for name, table in (("news\n", {"domains": ["example.com"], "feeds": ["https://example.com/"]}),
                        ("bad", {"domains": ["com"], "feeds": ["https://example.com/"]}),
                        ("odd", {"domains": ["example.com"], "feeds": ["https://example.com/"]})):
        with pytest.raises(SiteConfigError):
            add_site(sites_file, name, table)
        assert sites_file.read_text() == before  # left as it was
    assert not list(tmp_path.glob(".sites.toml.*.tmp"))
