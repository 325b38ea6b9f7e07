"""Issue 29.2: a failed extraction is not a duplicate.  When a site's pages all extract to one body
(its footer, a stylesheet), none is exported as an article and none is dropped as
``duplicate_content``: a body that is boilerplate not about its title is
``extraction_failed/boilerplate``, one shared by pages with titles it is not about
``extraction_failed/shared_body``, unless extracting the page again finds its article."""

from __future__ import annotations

import logging

import pytest_twisted
from conftest import crawl_settings, read_jsonl, run_crawl, site_spider
from test_crawl_local import catalogue_html

from newscrawl.commands.outcome import error_rate
from newscrawl.extract import Page, extract_page
from newscrawl.pipelines.shared_body import Body, SharedBodies

FOOTER = ("<footer><p>Copyright 2024 Valley Evening Post and its licensors. All rights reserved. No part of "
          "this site may be reproduced, stored or sent in any form without the written permission of the "
          "publisher, except for short quotations in reviews and articles about the newspaper itself.</p></footer>")
SENTENCES = [
    "The council of district {n} met on Tuesday {n} to discuss budget line {n} for the coming year, and "
    "members argued about road {n} and school {n} for hours.",
    "Residents of street {n} spoke during the comment period, and most asked that library {n} stay open on "
    "weekends because it is the quiet place {n} for children.",
    "The mayor said the final vote on plan {n} will take place next month after committee {n} has reviewed "
    "proposal {n} and published its findings.",
]


def scripted_page(n: int) -> str:
    """A page whose article is only in a script (rendered by JavaScript): no method can find it, and
    what is left to extract is the same footer on every page."""
    story = " ".join(s.format(n=n) for s in SENTENCES)
    return (f"<html><head><title>Valley story number {n}</title></head><body>"
            "<nav><a href='/'>Home</a> <a href='/valley'>Valley</a></nav>"
            f"<div id='app'></div><script type='application/json'>{{\"body\": \"{story}\"}}</script>"
            f"{FOOTER}</body></html>")


def article_page(n: int, title: str | None = None) -> str:
    paragraphs = "".join(f"<p>{s.format(n=n)}</p>" for s in SENTENCES)
    title = title or f"Council story number {n}"
    return (f"<html><head><title>{title}</title></head><body><nav><a href='/'>Home</a></nav>"
            f"<article><h1>{title}</h1>{paragraphs}</article>{FOOTER}</body></html>")


def drops(crawler) -> dict[str, int]:
    prefix = "newscrawl/dropped/"
    return {k[len(prefix):]: v for k, v in crawler.stats.get_stats().items() if k.startswith(prefix)}


def outlet_items(items: list[dict], folder: str) -> list[dict]:
    return [item for item in items if f"/{folder}/" in item["url"]]


def scripted_with(n: int, markup: str, title: str) -> str:
    """A page whose article is only in a script, with ``markup`` the only text left to extract."""
    story = " ".join(s.format(n=n) for s in SENTENCES)
    return (f"<html><head><title>{title}</title></head><body><nav><a href='/'>Home</a></nav>"
            f"<div id='app'></div><script type='application/json'>{{\"body\": \"{story}\"}}</script>"
            f"{markup}</body></html>")


async def crawl_catalogue(http_server, tmp_path, links):
    """Serve ``links`` as the site's one catalogue page and crawl it: ``(crawler, exported items)``."""
    http_server.add("/list/1.html", catalogue_html(links))
    feed = tmp_path / "out.jsonl"
    crawler = await run_crawl(site_spider(catalogues=[http_server.url("/list/1.html")]),
                              crawl_settings(tmp_path, feed))
    return crawler, read_jsonl(feed)


@pytest_twisted.ensureDeferred
async def test_an_outlet_whose_pages_extract_to_their_footer_exports_nothing_and_drops_nothing_as_duplicate(
        http_server, tmp_path, caplog):
    """Six articles whose text only a script holds: every page's body comes out as the copyright
    footer.  None is exported (not even the first), none is called a duplicate; the real articles
    of the site and a real copy (same title, same text) are handled as before."""
    links = []
    for n in range(6):
        path = f"/valley/{n}.html"
        http_server.add(path, scripted_page(n))
        links.append((path, f"Valley story number {n}"))
    for n in range(3):
        path = f"/news/{n}.html"
        http_server.add(path, article_page(n))
        links.append((path, f"Council story number {n}"))
    # a true copy (same title, same text) under the site's own URL form, as a portal republishes
    http_server.add("/news/9.html", article_page(0))
    links.append(("/news/9.html", "Council story number 0 (copy)"))
    with caplog.at_level(logging.WARNING):
        crawler, items = await crawl_catalogue(http_server, tmp_path, links)
    dropped = drops(crawler)
    assert outlet_items(items, "valley") == []  # no footer exported as an article
    assert not any("All rights reserved" in item["text"] for item in items)
    assert dropped.get("extraction_failed/boilerplate") == 6
    assert crawler.stats.get_value("newscrawl/extract/boilerplate_body_unrecovered") == 6
    assert dropped.get("duplicate_content") == 1  # the real copy only
    exported = {item["url"].rsplit("/", 1)[-1] for item in outlet_items(items, "news")}
    assert {"1.html", "2.html"} <= exported and len(exported & {"0.html", "9.html"}) == 1
    assert sum("a failed extraction" in r.getMessage() for r in caplog.records) == 6
    rate, failed, attempted = error_rate(crawler.stats.get_value("newscrawl/exported"), dropped)
    assert failed == 6 and attempted == 9  # they count against NEWSCRAWL_MAX_ERROR_RATE


CSS = "body { margin: 0; font-family: Georgia, serif } " + " ".join(
    f".col-{i} {{ width: {i * 4}%; float: left }}" for i in range(25))


@pytest_twisted.ensureDeferred
async def test_an_outlet_whose_pages_extract_to_a_stylesheet_exports_nothing_and_drops_nothing_as_duplicate(
        http_server, tmp_path):
    """The stylesheet printed as text (a template that lost its ``<style>`` tags) is all that is
    left to extract on six pages: no CSS exported, no page dropped as a duplicate."""
    links = []
    for n in range(6):
        path = f"/styled/{n}.html"
        title = f"Harbour master reports on the docks in week {n}"
        http_server.add(path, scripted_with(n, f"<div><p>{CSS}</p></div>", title))
        links.append((path, title))
    crawler, items = await crawl_catalogue(http_server, tmp_path, links)
    dropped = drops(crawler)
    assert not any("margin:" in item["text"] for item in items)
    assert outlet_items(items, "styled") == []
    assert dropped.get("extraction_failed/boilerplate") == 6
    assert "duplicate_content" not in dropped


ABOUT = ("<div class='about'><p>The Riverside Gazette is an independent weekly founded in 1921 by three "
         "printers of the lower town. Its reporters cover the harbour, the markets and the courts of the "
         "county, and its archive of ninety years is open to readers at the public library.</p></div>")
HEADLINES = ["Mayor approves new budget for schools", "Storm closes bridge over northern highway",
             "Local bakery wins national bread contest", "Hospital opens children's wing after delay",
             "Farmers protest water prices at city hall", "Teachers vote to end month-long strike"]


@pytest_twisted.ensureDeferred
async def test_one_body_under_titles_it_is_not_about_is_a_failed_extraction_a_retitled_copy_a_duplicate(
        http_server, tmp_path, caplog):
    """The pages of an outlet all extract to its "about" paragraph, text that no single page shows
    as boilerplate: from the second title on, a body that is about none of its titles is a failed
    extraction, not a duplicate.  A story republished under a new headline, whose body is about
    both headlines, is still a duplicate."""
    links = []
    for n, title in enumerate(HEADLINES):
        path = f"/gazette/{n}.html"
        http_server.add(path, scripted_with(n, ABOUT, title))
        links.append((path, title))
    original, retitled = "District 7 council argues over budget and roads", "Library 7 stays open, residents ask council"
    http_server.add("/news/7.html", article_page(7, original))
    http_server.add("/news/8.html", article_page(7, retitled))
    links += [("/news/7.html", original), ("/news/8.html", retitled)]
    with caplog.at_level(logging.WARNING):
        crawler, items = await crawl_catalogue(http_server, tmp_path, links)
    dropped = drops(crawler)
    # The first page's body cannot be told from an article on its own: it is exported, and the
    # warnings about the later pages name it.
    assert len(outlet_items(items, "gazette")) == 1
    assert dropped.get("extraction_failed/shared_body") == 5
    assert crawler.stats.get_value("newscrawl/extract/shared_body_unrecovered") == 5
    first = outlet_items(items, "gazette")[0]["url"]
    assert sum(f"the text exported for {first} is suspect" in r.getMessage() for r in caplog.records) == 5
    assert dropped.get("duplicate_content") == 1  # the retitled copy
    assert len(outlet_items(items, "news")) == 1


def comments_page(n: int) -> str:
    """An article in a container named like a comment section, and a legal notice outside
    ``<footer>``: the crawl's method takes the notice for the body, another method finds the story."""
    story = "".join(f"<p>{s.format(n=n)}</p>" for s in SENTENCES)
    legal = FOOTER.replace("<footer>", "<div class='legal'>").replace("</footer>", "</div>")
    return (f"<html><head><title>Council story number {n}</title></head><body><nav><a href='/'>Home</a></nav>"
            f"<div class='comments'>{story}</div>{legal}</body></html>")


@pytest_twisted.ensureDeferred
async def test_pages_whose_body_comes_out_as_their_footer_are_rescued_by_another_extraction(
        http_server, tmp_path):
    links = []
    for n in range(6):
        path = f"/rescued/{n}.html"
        http_server.add(path, comments_page(n))
        links.append((path, f"Council story number {n}"))
    crawler, items = await crawl_catalogue(http_server, tmp_path, links)
    assert drops(crawler) == {}
    assert len(items) == 6
    for item in items:
        n = int(item["url"].rsplit("/", 1)[-1].split(".")[0])
        assert f"The council of district {n} met on Tuesday {n}" in item["text"]
        assert f"committee {n} has reviewed proposal {n}" in item["text"]
        assert "All rights reserved" not in item["text"]
    assert crawler.stats.get_value("newscrawl/extract/boilerplate_body_recovered") == 6


def test_a_copy_with_its_title_is_a_duplicate_and_a_page_with_another_title_a_clash():
    bodies = SharedBodies()
    text = " ".join(s.format(n=1) for s in SENTENCES)
    bodies.add("site", "http://x/1", Body.of(text), "Council story")
    assert bodies.clash("site", Body.of(text), "Council story") is None  # syndication: the gate's business
    assert bodies.clash("site", Body.of(text), "Another story")[:2] == ("http://x/1", 1)
    bodies.add("site", "http://x/3", Body.of(text), "Another story")
    clash = bodies.clash("site", Body.of(text), "Third story")
    assert (clash.url, clash.count, clash.titles) == ("http://x/1", 2, {"council story", "another story"})
    assert bodies.clash("other-site", Body.of(text), "Another story") is None
    short = "Copyright Valley Evening Post"  # too short to fingerprint: compared as exact text
    bodies.add("site", "http://x/2", Body.of(short), "Story two")
    assert bodies.clash("site", Body.of(short), "Story three")[:2] == ("http://x/2", 1)
    assert bodies.clash("site", Body.of(" ".join(s.format(n=2) for s in SENTENCES)), "Another story") is None


def test_the_window_of_remembered_bodies_is_bounded():
    bodies = SharedBodies(window=10)
    for n in range(25):
        bodies.add("site", f"http://x/{n}", Body.of(" ".join(s.format(n=n) for s in SENTENCES)), f"Story {n}")
    state = bodies._sites["site"]
    assert len(state.titles) <= 10 and len(state.index) <= 10
    last = Body.of(" ".join(s.format(n=24) for s in SENTENCES))
    assert bodies.clash("site", last, "Other")[:2] == ("http://x/24", 1)


def test_a_self_closed_style_element_keeps_its_rules_out_of_the_text():
    """``<style type="text/css" />`` then the rules then ``</style>``: libxml2 closed the element at
    ``/>`` and let the CSS through as page text; the rules belong to the style element, as a browser reads it."""
    rules = "\n".join(f".rule{i} {{ margin: {i}px; color: #{i:03d} }}" for i in range(30))
    html = (f"<html><head><title>T</title><style type='text/css' />\n{rules}\n</style></head><body>"
            f"<article><h1>Council story</h1>{''.join(f'<p>{s.format(n=1)}</p>' for s in SENTENCES)}"
            "<STYLE/><p>The end of the story.</p></article></body></html>")
    page = Page.from_html(html)
    assert "margin" not in page.body.text_content()
    text = extract_page(Page.from_html(html)).text
    assert "margin" not in text and "The council of district 1" in text and "The end of the story." in text
