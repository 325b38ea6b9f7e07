"""An article URL that answers with a redirect to the site's home page or a section (a removed
article) is no article (issue 30, item 12): a counted drop ``redirected_to_listing``; a redirect
to another article URL is still exported."""

from __future__ import annotations

import pytest_twisted
from conftest import crawl_settings, read_jsonl, run_crawl, site_spider
from test_crawl_local import article_html

HOME = ("<html><head><title>Example News</title></head><body><nav><a href='/world/'>World</a></nav>"
        "<ul><li><a href='/world/'>World news</a></li></ul><p>Welcome to the front page of the news.</p>"
        + "".join(f"<p>Front page paragraph number {n} with enough words to read as text.</p>" for n in range(20))
        + "</body></html>")


def story(n: int) -> str:
    return f"/world/2024/05/1{n}/leaders-agree-on-plan-number-{n}.html"


@pytest_twisted.ensureDeferred
async def test_a_redirect_to_the_home_page_or_a_section_is_dropped(http_server, tmp_path):
    s = http_server
    s.add("/", HOME)
    s.add("/world/", HOME.replace("Example News", "World"))
    titles = {n: f"Leaders agree on plan number {n} after long talks" for n in range(5)}
    s.add("/news/", "<html><body><ul>" + "".join(
        f'<li><a href="{story(n)}">{titles[n]}</a></li>' for n in range(4)) + "</ul></body></html>")
    s.add(story(0), article_html(titles[0]))
    s.add(story(1), b"", status=301, headers={"Location": s.url("/")})  # removed: the home page
    s.add(story(2), b"", status=301, headers={"Location": s.url("/world/")})  # removed: its section
    s.add(story(3), b"", status=301, headers={"Location": s.url(story(4))})  # moved: another article
    s.add(story(4), article_html(titles[4]))
    spider = site_spider(catalogues=[s.url("/news/")], domains=["127.0.0.1"])
    feed = tmp_path / "out.jsonl"
    crawler = await run_crawl(spider, crawl_settings(tmp_path, feed))
    assert sorted(item["url"] for item in read_jsonl(feed)) == sorted([s.url(story(0)), s.url(story(4))])
    assert crawler.stats.get_value("newscrawl/dropped/redirected_to_listing") == 2
