"""The crawl's title when the listing, the ``<h1>`` and ``og:title`` agree (issue 38, item 4a).

The crawl passes a catalogue link's anchor text as the listing title; He's (2019) LCS then scored
every heading against ``<title>``, and a teaser's heading that shares the site's long decoration
outscored the headline all three sources state.  End to end through ``scrapy crawl``.
"""

from __future__ import annotations

from conftest import read_jsonl
from test_crawl_local import catalogue_html
from test_exit_status import scrapy, site_table

from newscrawl.extract import Page, extract_page

HEADLINE = "Council approves the budget"
TEASER = "The Riverside Gazette wins the river towns news award"
PATH = "/news/2024/05/1/council-approves-the-budget.html"
PAGE = (
    f"<html><head><title>{HEADLINE} | The Riverside Gazette: news of the river towns</title>"
    f"<meta property='og:title' content='{HEADLINE}'></head><body>"
    "<nav><a href='/'>Home</a> <a href='/world/'>World</a></nav>"
    f"<article><h1>{HEADLINE}</h1>"
    + "<p>The council met on Tuesday and approved the budget after a long debate about schools, "
      "roads and the old library, which needs a new roof before the winter.</p>" * 5
    + f"</article><aside><h3><a href='/news/2024/05/2/award.html'>{TEASER}</a></h3>"
      "<p>Read more about the award and the people behind it.</p></aside></body></html>"
)


def test_the_listing_title_stated_by_the_h1_and_og_title_is_the_title():
    article = extract_page(Page.from_html(PAGE, url="http://x.test" + PATH), listing_title=HEADLINE)
    assert article.title == HEADLINE


def test_a_crawl_exports_the_headline_not_a_teaser_that_shares_the_site_decoration(tmp_path):
    root = tmp_path / "gazette"
    (root / PATH.lstrip("/")).parent.mkdir(parents=True)
    (root / PATH.lstrip("/")).write_text(PAGE, encoding="utf-8")
    (root / "index.html").write_text(catalogue_html([(PATH, HEADLINE)]), encoding="utf-8")
    (tmp_path / "sites.toml").write_text(site_table("gazette", serve="gazette"))
    feed = tmp_path / "out.jsonl"
    done = scrapy(tmp_path, "crawl", "gazette", "-o", str(feed))
    assert done.returncode == 0, done.stderr[-3000:]
    items = read_jsonl(feed)
    assert [(item["listing_title"], item["title"]) for item in items] == [(HEADLINE, HEADLINE)]
