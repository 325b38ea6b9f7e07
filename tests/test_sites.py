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
    # coded spiders (not sites) are listed too, by name only
    out = subprocess.run([sys.executable, "-m", "scrapy", "list", "--details"], cwd=ROOT, capture_output=True,
                         text=True, check=True).stdout.splitlines()
    lines = {line.split()[0]: line for line in out}
    assert set(load_sites()) <= set(lines)
    assert all("catalogues" in lines[name] and "sitemaps" in lines[name] for name in load_sites())
    names = subprocess.run([sys.executable, "-m", "scrapy", "list", "--names"], cwd=ROOT, capture_output=True,
                           text=True, check=True).stdout.split()
    assert names == sorted(lines) and set(load_sites()) <= set(names)


def test_a_bad_sites_file_stops_scrapy_with_the_key_named(tmp_path):
    bad = tmp_path / "sites.toml"
    bad.write_text('[sites.x]\ndomains = ["x.org"]\ncatalogues = ["https://x.org/"]\nfeeds_url = []\n')
    done = subprocess.run([sys.executable, "-m", "scrapy", "list", "-s", f"NEWSCRAWL_SITES={bad}"], cwd=ROOT,
                          capture_output=True, text=True)
    assert done.returncode != 0
    assert "sites.x: unknown key 'feeds_url'" in done.stderr


# --- value ranges: nothing that passes validation may hang or silently break a crawl -------


@pytest.mark.parametrize(("politeness", "message"), [
    ({"concurrency": 0}, "concurrency: must be at least 1, got 0"),  # never downloads
    ({"concurrency": -2}, "concurrency: must be at least 1"),
    ({"concurrency": 2.0}, "concurrency: expected integer"),
    ({"download_delay": float("inf")}, "download_delay: must be a finite number, got inf"),
    ({"download_delay": float("nan")}, "download_delay: must be a finite number, got nan"),
    ({"download_delay": -1}, "download_delay: must be at least 0"),
    ({"download_delay": 86_400}, "download_delay: must be at most 3600"),
    ({"download_timeout": 0}, "download_timeout: must be more than 0"),  # every request would fail
    ({"download_timeout": float("nan")}, "download_timeout: must be a finite number"),
    ({"delay_jitter": 1.5}, "delay_jitter: must be at most 1"),
    ({"autothrottle": 1}, "autothrottle: expected boolean"),
])
def test_politeness_values_are_range_checked(politeness, message):
    with pytest.raises(SiteConfigError, match=__import__("re").escape(f"sites.example.politeness.{message}")):
        parse_one(politeness=politeness)


def test_nan_and_inf_from_toml_are_refused(tmp_path):
    path = tmp_path / "sites.toml"
    for value in ("nan", "inf", "-inf", "+nan"):
        path.write_text(f'[sites.x]\ndomains = ["x.org"]\ncatalogues = ["https://x.org/"]\n'
                        f"politeness = {{ download_delay = {value} }}\n")
        with pytest.raises(SiteConfigError, match="download_delay: must be a finite number"):
            load_sites(path)


def test_politeness_edges_are_accepted():
    site = parse_one(politeness={"concurrency": 1, "download_delay": 0, "download_timeout": 0.5,
                                 "delay_jitter": 1.0})
    assert site.scrapy_settings["CONCURRENT_REQUESTS_PER_DOMAIN"] == 1


@pytest.mark.parametrize("domain", ["com", "co.uk", "xn--p1ai", "рф", "github.io", "blogspot.com", "com.",
                                    "x.kawasaki.jp"])
def test_a_public_suffix_alone_is_not_a_domain(domain):
    with pytest.raises(SiteConfigError, match="is a public suffix"):
        parse_one(domains=[domain], catalogues=["https://www.example.com/news/"])


@pytest.mark.parametrize("domain", ["example.com", "bbc.co.uk", "пример.рф", "someone.github.io", "localhost",
                                    "127.0.0.1", "[::1]", "example.com:8080", "city.kawasaki.jp"])
def test_registrable_domains_hosts_and_ports_are_accepted(domain):
    assert parse_one(domains=[domain, "example.com"]).domains == (domain, "example.com")


@pytest.mark.parametrize(("domain", "message"), [
    ("example.com:0", "has an invalid port"),
    ("example.com:99999", "has an invalid port"),
    ("example.com:http", "has an invalid port"),
    ("user@example.com", "is not a bare domain"),
    ("example.com/news", "is not a bare domain"),
    (".", "is not a bare domain"),
])
def test_malformed_domains_are_refused(domain, message):
    with pytest.raises(SiteConfigError, match=message):
        parse_one(domains=[domain, "example.com"])


def test_a_domain_with_a_port_allows_that_port_only():
    site = parse_one(domains=["example.com:8080"], catalogues=["http://www.example.com:8080/news/"])
    assert site.allow_list.allows("http://example.com:8080/a") and site.allow_list.allows("https://a.example.com:8080/")
    assert not site.allow_list.allows("http://example.com/a")


# --- unreadable sites files: one line naming the file, no traceback ------------------------


def _unreadable(tmp_path, kind: str) -> Path:
    path = tmp_path / "sites.toml"
    if kind == "not UTF-8 text":
        path.write_bytes(b'[sites.x]\ndomains = ["x.org"]\n# caf\xe9\ncatalogues = ["https://x.org/"]\n')
    elif kind == "is a directory":
        path.mkdir()
    elif kind == "not valid TOML":
        path.write_text("[sites.x\n")
    return path


UNREADABLE = ["not UTF-8 text", "is a directory", "sites file not found", "not valid TOML"]


@pytest.mark.parametrize("kind", UNREADABLE)
def test_an_unreadable_sites_file_is_a_site_config_error(tmp_path, kind):
    path = _unreadable(tmp_path, kind)
    with pytest.raises(SiteConfigError, match=f"^{__import__('re').escape(str(path))}: {kind}"):
        load_sites(path)


@pytest.mark.parametrize("kind", UNREADABLE)
def test_an_unreadable_sites_file_stops_scrapy_with_one_line(tmp_path, kind):
    path = _unreadable(tmp_path, kind)
    done = subprocess.run([sys.executable, "-m", "scrapy", "list", "-s", f"NEWSCRAWL_SITES={path}"], cwd=ROOT,
                          capture_output=True, text=True)
    assert done.returncode == 1
    assert done.stderr.startswith(f"error: {path}: {kind}") and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize(("setting", "message"), [
    ("CONCURRENT_REQUESTS_PER_DOMAIN=0", "must be at least 1"),
    ("CONCURRENT_REQUESTS=0", "must be at least 1"),
    ("DOWNLOAD_DELAY=nan", "must be a finite number"),
    ("DOWNLOAD_TIMEOUT=inf", "must be a finite number"),
    ("DOWNLOAD_DELAY=slow", "expected int or float"),
])
def test_politeness_settings_given_with_s_are_checked_the_same_way(setting, message):
    done = subprocess.run([sys.executable, "-m", "scrapy", "crawl", "demo", "-s", setting], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    name, value = setting.split("=")
    assert done.returncode == 1
    assert done.stderr.startswith(f"error: setting {name}='{value}': {message}")
    assert len(done.stderr.strip().splitlines()) == 1


def test_politeness_settings_are_checked_when_a_crawler_creates_the_spider():
    from scrapy.utils.test import get_crawler

    from newscrawl.spiders.loader import spider_class

    cls = spider_class(parse_one())
    crawler = get_crawler(cls, {"CONCURRENT_REQUESTS_PER_DOMAIN": 0})
    with pytest.raises(SiteConfigError, match="CONCURRENT_REQUESTS_PER_DOMAIN=0: must be at least 1"):
        crawler._create_spider()
    assert get_crawler(cls, {"DOWNLOAD_DELAY": 0.25})._create_spider().allow_list.allows(GOOD["catalogues"][0])
