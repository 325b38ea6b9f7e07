"""The learned page type (issue #36): a kind and its probability for every page, in every record,
and a site's ``accept_kinds`` to export kinds other than articles.

Small pages written in :mod:`page_type_samples` (no real page): a short news article on a
WordPress site (``og:type=article`` on every page), a WordPress service page, a shop's product
page, a forum thread.  The shipped model is loaded in a clean process as a user's program would.
End to end: a local site whose catalogue links the article and the service page, crawled by the
real spider and pipelines, with and without ``accept_kinds``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import page_type_samples as samples
import pytest
import pytest_twisted
from conftest import crawl_settings, read_jsonl, run_crawl, site_spider

from newscrawl.extract import Page, page_kind, page_type
from newscrawl.extract.page_type import MODEL_KINDS, kind_probabilities
from newscrawl.sites import SiteConfigError, parse_sites

ROOT = Path(__file__).resolve().parents[1]
SITE = "https://acme.example"


def page(html: str, path: str) -> Page:
    return Page.from_html(html, url=SITE + path)


def test_a_short_news_article_on_a_wordpress_site_is_an_article_with_its_probability():
    kind, probability = page_kind(page(samples.NEWS_PAGE, samples.NEWS_URL))
    assert kind == "article"
    assert 0.5 < probability <= 1


def test_an_article_its_json_ld_declares_is_one_without_the_model():
    assert page_kind(page(samples.DECLARED_NEWS_PAGE, samples.NEWS_URL)) == ("article", None)


def test_a_wordpress_service_page_declaring_og_article_is_not_an_article():
    kind, probability = page_kind(page(samples.SERVICE_PAGE, samples.SERVICE_URL))
    assert kind != "article" and kind in MODEL_KINDS
    assert 0 < probability <= 1
    assert page_type(samples.SERVICE_PAGE, SITE + samples.SERVICE_URL) == kind  # the old call, same kind


@pytest.mark.parametrize(("html", "path", "expected"), [
    (samples.PRODUCT_PAGE, samples.PRODUCT_URL, "product"),
    (samples.FORUM_PAGE, samples.FORUM_URL, "forum"),
], ids=["product", "forum"])
def test_the_model_names_the_kind_of_a_product_page_and_a_forum_thread(html, path, expected):
    probabilities = kind_probabilities(page(html, path))
    assert set(probabilities) == set(MODEL_KINDS)
    assert sum(probabilities.values()) == pytest.approx(1, abs=0.01)
    others = {kind: p for kind, p in probabilities.items() if kind != "article"}
    assert max(others, key=others.get) == expected
    news = kind_probabilities(page(samples.NEWS_PAGE, samples.NEWS_URL))
    assert probabilities["article"] < news["article"]


def test_the_shipped_model_loads_in_a_clean_process_and_gives_a_probability():
    program = ("import json, sys\nfrom newscrawl.extract import Page, page_kind\n"
               "html, url = json.load(sys.stdin)\nprint(json.dumps(page_kind(Page.from_html(html, url=url))))\n")
    done = subprocess.run([sys.executable, "-c", program], input=json.dumps([samples.NEWS_PAGE, SITE + samples.NEWS_URL]),
                          capture_output=True, text=True, timeout=120, cwd=ROOT,
                          env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr[-2000:]
    kind, probability = json.loads(done.stdout)
    assert kind == "article" and 0.5 < probability <= 1


WARMED_FIRST_PAGE = """\
import json, sys
from newscrawl.extract import Page, models, page_kind
from newscrawl.pipelines.extraction import warm_up

warm_up("auto")
def refuse(path, *args, **kwargs):
    raise AssertionError(f"{path} loaded after the warm-up")
models.load = models.load_plain = refuse
html, url = json.load(sys.stdin)
print(json.dumps([page_kind(Page.from_html(html, url=url)), "sklearn" in sys.modules]))
"""


def test_the_warm_up_loads_the_model_so_the_first_page_pays_no_load_in_its_time_limit():
    # An extraction worker warms up before its first page; the page-type model's load (2-5 s
    # when it went through skops and scikit-learn) used to fall inside the first page's limit.
    done = subprocess.run([sys.executable, "-c", WARMED_FIRST_PAGE],
                          input=json.dumps([samples.NEWS_PAGE, SITE + samples.NEWS_URL]),
                          capture_output=True, text=True, timeout=120, cwd=ROOT,
                          env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr[-2000:]
    (kind, probability), sklearn_imported = json.loads(done.stdout)
    assert kind == "article" and 0.5 < probability <= 1
    assert not sklearn_imported  # the forest is plain arrays: scikit-learn is not needed to use it


def test_accept_kinds_names_known_kinds_only():
    table = {"domains": ["acme.example"], "catalogues": [SITE + "/"]}
    assert parse_sites({"sites": {"docs": {**table, "accept_kinds": ["documentation"]}}})["docs"].accept_kinds \
        == ("documentation",)
    with pytest.raises(SiteConfigError, match="accept_kinds: unknown kind 'manual'"):
        parse_sites({"sites": {"docs": {**table, "accept_kinds": ["manual"]}}})


def serve_site(server) -> tuple[str, str]:
    article = server.add(samples.NEWS_URL, samples.NEWS_PAGE)
    service = server.add(samples.SERVICE_URL, samples.SERVICE_PAGE)
    links = "".join(f"<li><a href='{url}'>{text}</a></li>" for url, text in (
        (article, "Council moves road money to schools in the north"),
        (service, "Plumbing services we offer to every home owner today")))
    server.add("/list.html", f"<html><body><ul>{links}</ul></body></html>")
    return article, service


@pytest_twisted.ensureDeferred
async def test_the_crawl_exports_articles_with_their_kind_and_a_site_may_accept_other_kinds(http_server, tmp_path):
    article, service = serve_site(http_server)
    pattern = "/(news|services)/"
    only_articles = site_spider(catalogues=[http_server.url("/list.html")], article_pattern=pattern)
    feed = tmp_path / "articles.jsonl"
    crawler = await run_crawl(only_articles, crawl_settings(tmp_path / "one", feed))
    records = read_jsonl(feed)
    assert [r["url"] for r in records] == [article]
    assert records[0]["page_type"] == "article" and 0.5 < records[0]["page_type_probability"] <= 1
    kind = page_kind(Page.from_html(samples.SERVICE_PAGE, url=service))[0]
    assert crawler.stats.get_value(f"newscrawl/dropped/not_article/{kind}") == 1

    accepting = site_spider(catalogues=[http_server.url("/list.html")], article_pattern=pattern,
                            accept_kinds=[kind])
    feed = tmp_path / "accepted.jsonl"
    crawler = await run_crawl(accepting, crawl_settings(tmp_path / "two", feed))
    by_url = {r["url"]: r for r in read_jsonl(feed)}
    assert set(by_url) == {article, service}
    assert by_url[service]["page_type"] == kind and 0 < by_url[service]["page_type_probability"] <= 1
    assert not crawler.stats.get_value(f"newscrawl/dropped/not_article/{kind}")
