"""Issue 29.2: a failed extraction is not a duplicate.  When a site's pages all extract to one body
(its footer, a stylesheet), the page is extracted again, and when that gives the same body again
under a third title, it is dropped as ``extraction_failed/shared_body``, a failure of the run, not as
``duplicate_content`` (two titles for one body may still be a retitled copy)."""

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


@pytest_twisted.ensureDeferred
async def test_pages_sharing_one_failed_body_are_extraction_failures_not_duplicates(http_server, tmp_path,
                                                                                      caplog):
    links = []
    for n in range(5):
        path = f"/valley/{n}.html"
        http_server.add(path, scripted_page(n))
        links.append((path, f"Valley story number {n}"))
    for n in range(3):
        path = f"/news/{n}.html"
        http_server.add(path, article_page(n))
        links.append((path, f"Council story number {n}"))
    http_server.add("/news/0-copy.html", article_page(0))  # a true copy: same title, same text
    links.append(("/news/0-copy.html", "Council story number 0 (copy)"))
    http_server.add("/list/1.html", catalogue_html(links))
    feed = tmp_path / "out.jsonl"
    with caplog.at_level(logging.WARNING):
        crawler = await run_crawl(site_spider(catalogues=[http_server.url("/list/1.html")]),
                                  crawl_settings(tmp_path, feed))
    items = read_jsonl(feed)
    dropped = drops(crawler)
    # The real copy, and the second valley page: two titles for one body may be a retitled copy.
    assert dropped.get("duplicate_content") == 2
    # From the third title on, the shared body is a failed extraction, not "duplicates".
    assert dropped.get("extraction_failed/shared_body") == 3
    assert crawler.stats.get_value("newscrawl/extract/shared_body_unrecovered") == 3
    exported = {item["url"].rsplit("/", 2)[-2] + "/" + item["url"].rsplit("/", 1)[-1] for item in items}
    assert {"news/1.html", "news/2.html"} <= exported
    assert len(exported & {"news/0.html", "news/0-copy.html"}) == 1  # whichever came first
    assert sum(u.startswith("valley/") for u in exported) == 1  # the first extracted, before any clash
    assert sum("a failed extraction" in r.getMessage() for r in caplog.records) == 3
    rate, failed, attempted = error_rate(crawler.stats.get_value("newscrawl/exported"), dropped)
    assert failed == 3 and attempted == 7  # they count against NEWSCRAWL_MAX_ERROR_RATE


def test_a_copy_with_its_title_is_a_duplicate_and_a_page_with_another_title_a_clash():
    bodies = SharedBodies()
    text = " ".join(s.format(n=1) for s in SENTENCES)
    bodies.add("site", "http://x/1", Body.of(text), "Council story")
    assert bodies.clash("site", Body.of(text), "Council story") is None  # syndication: the gate's business
    assert bodies.clash("site", Body.of(text), "Another story") == ("http://x/1", 1)
    bodies.add("site", "http://x/3", Body.of(text), "Another story")
    assert bodies.clash("site", Body.of(text), "Third story") == ("http://x/1", 2)
    assert bodies.clash("other-site", Body.of(text), "Another story") is None
    short = "Copyright Valley Evening Post"  # too short to fingerprint: compared as exact text
    bodies.add("site", "http://x/2", Body.of(short), "Story two")
    assert bodies.clash("site", Body.of(short), "Story three") == ("http://x/2", 1)
    assert bodies.clash("site", Body.of(" ".join(s.format(n=2) for s in SENTENCES)), "Another story") is None


def test_the_window_of_remembered_bodies_is_bounded():
    bodies = SharedBodies(window=10)
    for n in range(25):
        bodies.add("site", f"http://x/{n}", Body.of(" ".join(s.format(n=n) for s in SENTENCES)), f"Story {n}")
    state = bodies._sites["site"]
    assert len(state.titles) <= 10 and len(state.index) <= 10
    last = Body.of(" ".join(s.format(n=24) for s in SENTENCES))
    assert bodies.clash("site", last, "Other") == ("http://x/24", 1)


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
