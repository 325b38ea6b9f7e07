"""Site configuration: the shipped file loads, bad keys are named, `scrapy list` shows every site."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from newscrawl.sites import PLACEHOLDER_HOST, SiteConfigError, load_sites, parse_sites

ROOT = Path(__file__).resolve().parent.parent
GOOD = {"domains": ["example.com"], "catalogues": ["https://www.example.com/news/"]}


def parse_one(**table):
    return parse_sites({"sites": {"example": {**GOOD, **table}}})["example"]


def test_shipped_sites_file_is_valid():
    sites = load_sites()
    assert "demo" in sites and "bbc" in sites
    for site in sites.values():
        assert site.catalogues or site.feeds or site.list_apis


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ({"feed": ["https://example.com/rss"]}, "unknown key 'feed'"),
        ({"domains": "example.com"}, "sites.example.domains: expected array"),
        ({"catalogues": ["ftp://example.com/"]}, "not an http(s) URL"),
        ({"catalogues": ["https://other.org/news/"]}, "not on the site's domains"),
        ({"article_pattern": "(unclosed"}, "article_pattern: invalid regular expression"),
        ({"politeness": {"delay": 1}}, "politeness: unknown key 'delay'"),
        ({"politeness": {"download_delay": "fast"}}, "politeness.download_delay: expected"),
        ({"max_pages": 0}, "max_pages: must be at least 1"),
        ({"max_pages": True}, "max_pages: expected integer"),
        ({"catalogues": []}, "needs at least one of"),
    ],
)
def test_bad_configuration_names_the_key(table, message):
    with pytest.raises(SiteConfigError, match=__import__("re").escape(message)):
        parse_one(**table)


def test_missing_domains_and_bad_names_are_reported():
    with pytest.raises(SiteConfigError, match="missing required key 'domains'"):
        parse_sites({"sites": {"x": {"catalogues": ["https://x.org/"]}}})
    with pytest.raises(SiteConfigError, match="site name must be"):
        parse_sites({"sites": {"Bad-Name": GOOD}})
    with pytest.raises(SiteConfigError, match="unknown top-level key 'site'"):
        parse_sites({"site": {}})


def test_toml_errors_name_the_file(tmp_path):
    path = tmp_path / "sites.toml"
    path.write_text("[sites.x\n")
    with pytest.raises(SiteConfigError, match="sites.toml: not valid TOML"):
        load_sites(path)


def test_politeness_becomes_scrapy_settings_and_placeholder_host_is_rewritten():
    site = parse_sites({"sites": {"d": {
        "domains": [PLACEHOLDER_HOST], "catalogues": [f"http://{PLACEHOLDER_HOST}/list/"],
        "politeness": {"download_delay": 0.0, "autothrottle": False, "concurrency": 8}}}})["d"]
    assert site.scrapy_settings == {"DOWNLOAD_DELAY": 0.0, "AUTOTHROTTLE_ENABLED": False,
                                    "CONCURRENT_REQUESTS_PER_DOMAIN": 8}
    local = site.with_host("127.0.0.1:8123")
    assert local.catalogues == ("http://127.0.0.1:8123/list/",) and local.domains == ("127.0.0.1:8123",)
    assert local.allow_list.allows("http://127.0.0.1:8123/news/1.html")
    assert not local.allow_list.allows("http://127.0.0.1:6379/")


def test_scrapy_list_shows_every_configured_site():
    out = subprocess.run([sys.executable, "-m", "scrapy", "list"], cwd=ROOT, capture_output=True, text=True,
                         check=True).stdout.split()
    assert sorted(out) == sorted(load_sites())


def test_a_bad_sites_file_stops_scrapy_with_the_key_named(tmp_path):
    bad = tmp_path / "sites.toml"
    bad.write_text('[sites.x]\ndomains = ["x.org"]\ncatalogues = ["https://x.org/"]\nfeeds_url = []\n')
    done = subprocess.run([sys.executable, "-m", "scrapy", "list", "-s", f"NEWSCRAWL_SITES={bad}"], cwd=ROOT,
                          capture_output=True, text=True)
    assert done.returncode != 0
    assert "sites.x: unknown key 'feeds_url'" in done.stderr
