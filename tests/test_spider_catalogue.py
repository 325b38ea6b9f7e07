# ruff: noqa: E501  (fixture HTML and feeds read better unwrapped)
"""Catalogue link scoring (newscrawl.discovery.links) without a configured pattern, and feed formats."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from newscrawl.discovery.links import (
    find_article_links,
    find_next_page,
    headline_like,
    parse,
    score_links,
    url_template,
)
from newscrawl.discovery.list_api import find_list_apis, links_from_json
from newscrawl.spiders.feeds import parse_feed

BASE = "https://news.example.com/world/"
DOMAINS = ["example.com"]

PAGE = """<html><body>
<header><a href="/">Home</a><a href="/world/">World</a><a href="/login">Sign in</a></header>
<nav class="main-nav"><a href="/2024/05/12/menu-item-that-looks-like-an-article-link">Our most popular stories this week</a></nav>
<div class="news-list">
  <div class="item"><h3><a href="/2024/05/12/leaders-meet-to-discuss-the-budget">Leaders meet to discuss the budget</a></h3></div>
  <div class="item"><h3><a href="/2024/05/12/storm-hits-the-coast-overnight">Storm hits the coast overnight, thousands without power</a></h3></div>
  <div class="item"><h3><a href="/article/1234567.html">Central bank keeps interest rates unchanged again</a></h3></div>
  <div class="item"><h3><a href="https://news.example.com/article/1234567.html">Read more</a></h3></div>
</div>
<div class="sidebar-ad"><a href="/promo/2024/05/buy-a-subscription-for-the-whole-family">Buy a subscription for the whole family now</a></div>
<a href="https://other.org/2024/05/12/a-story-on-another-site">A story on another site about something</a>
<a href="/world/">World news from every continent and country</a>
<div class="pager"><a href="/world/?page=2">Next</a></div>
<div id="feed" data-list-api="/api/list/world.json"></div>
</body></html>"""


def test_headline_like_text():
    assert headline_like("Leaders meet to discuss the budget")
    assert headline_like("国务院常务会议部署经济工作")
    assert not headline_like("Home") and not headline_like("更多") and not headline_like("Read more")


def test_article_links_found_navigation_ads_offsite_rejected():
    links = find_article_links(PAGE, BASE, DOMAINS)
    assert [link.url for link in links] == [
        "https://news.example.com/2024/05/12/leaders-meet-to-discuss-the-budget",
        "https://news.example.com/2024/05/12/storm-hits-the-coast-overnight",
        "https://news.example.com/article/1234567.html",
    ]
    assert links[2].title == "Central bank keeps interest rates unchanged again"


def test_pattern_decides_when_configured():
    links = find_article_links(PAGE, BASE, DOMAINS, pattern=r"/article/\d+\.html$")
    assert [link.url for link in links] == ["https://news.example.com/article/1234567.html"]


def test_next_page_and_list_api():
    root = parse(PAGE)
    assert find_next_page(root, BASE, DOMAINS) == "https://news.example.com/world/?page=2"
    assert find_list_apis(root, BASE) == ["https://news.example.com/api/list/world.json"]
    rel = parse('<html><head><link rel="next" href="/p/3"></head><body></body></html>')
    assert find_next_page(rel, BASE, DOMAINS) == "https://news.example.com/p/3"
    assert find_next_page(parse("<html><body><p>x</p></body></html>"), BASE, DOMAINS) is None


def test_links_from_json_endpoint():
    data = {"code": 0, "data": {"list": [
        {"title": "First story", "url": "/a/1.html", "time": "2024-05-12 08:00"},
        {"title": "Offsite", "url": "https://other.org/a/2.html"},
        {"name": "no url here"},
    ]}}
    import json

    entries = links_from_json(json.dumps(data), "https://news.example.com/api/list.json", DOMAINS)
    # a date without a zone is not guessed
    assert [(e.url, e.title, e.published) for e in entries] == [
        ("https://news.example.com/a/1.html", "First story", None)]
    timed = links_from_json('[{"title": "T", "url": "/b", "ctime": 1715500000}, '
                            '{"title": "U", "url": "/c", "date": "2024-05-12T10:00:00+08:00"}]', BASE, DOMAINS)
    assert [e.published for e in timed] == ["2024-05-12T07:46:40+00:00", "2024-05-12T10:00:00+08:00"]
    assert links_from_json(b"not json", BASE, DOMAINS) == []


FEEDS = {
    "rss091": """<?xml version="1.0"?><rss version="0.91"><channel><title>T</title><link>https://e.com/</link>
        <description>d</description><item><title>One</title><link>https://e.com/1</link>
        <description>First</description></item></channel></rss>""",
    "rss10": """<?xml version="1.0"?><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"
        xmlns="http://purl.org/rss/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/">
        <channel rdf:about="https://e.com/"><title>T</title><link>https://e.com/</link><description>d</description></channel>
        <item rdf:about="https://e.com/1"><title>One</title><link>https://e.com/1</link><description>First</description>
        <dc:date>2024-05-12T08:30:00+02:00</dc:date></item></rdf:RDF>""",
    "rss20": """<?xml version="1.0"?><rss version="2.0"><channel><title>T</title><item><title>One</title>
        <link>/1</link><description>&lt;b&gt;First&lt;/b&gt;</description>
        <pubDate>Sun, 12 May 2024 06:30:00 GMT</pubDate></item></channel></rss>""",
    "atom": """<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>T</title><id>x</id>
        <updated>2024-05-12T00:00:00Z</updated><entry><title>One</title><link href="https://e.com/1"/><id>1</id>
        <updated>2024-05-12T06:30:00Z</updated><summary>First</summary></entry></feed>""",
}


def test_feed_formats():
    for name, text in FEEDS.items():
        feed = parse_feed(text.encode(), "https://e.com/feed.xml")
        assert feed.error is None, name
        [entry] = feed.entries
        assert (entry.link, entry.title, entry.summary) == ("https://e.com/1", "One", "First"), name
        if name != "rss091":  # the same instant; a feed's own offset is kept
            assert datetime.fromisoformat(entry.published) == datetime(2024, 5, 12, 6, 30, tzinfo=UTC), name


def test_not_a_feed_gives_a_reason():
    feed = parse_feed(b"<html><body>nope</body></html>", "https://e.com/feed.xml")
    assert feed.entries == [] and feed.error


# -- signals on small listing pages (en, zh, ru) -------------------------------------------

EN_LIST = """<html><body>
<nav><a href="/">Home</a><a href="/business/">Business</a><a href="/2024/05/12/nav-link-to-a-story-page">Most read</a></nav>
<ul class="stories">
  <li><a href="/2024/05/12/council-approves-new-budget-after-long-debate">Council approves new budget after long debate</a></li>
  <li><a href="/2024/05/12/river-levels-fall-as-rain-eases-across-region">River levels fall as rain eases across region</a></li>
  <li><a href="/2024/05/11/school-opens-new-science-wing-for-pupils">School opens new science wing for its pupils</a></li>
  <li><a href="/2024/05/11/local-team-wins-cup-final-in-extra-time">Local team wins the cup final in extra time</a></li>
</ul>
<div class="featured"><p><a href="/2024/05/10/bakery-wins-award">Bakery wins award</a></p></div>
<div class="tags"><a href="/tag/weather">Weather</a><a href="/author/jane-doe">Jane Doe</a></div>
<a href="/video/2024/05/12/watch-the-storm-roll-in-over-the-bay">Watch the storm roll in over the bay tonight</a>
<a href="mailto:desk@example.com">Write to us</a>
</body></html>"""


def test_short_headline_lifted_by_the_page_article_template():
    urls = [link.url for link in find_article_links(EN_LIST, BASE, DOMAINS)]
    assert "https://news.example.com/2024/05/10/bakery-wins-award" in urls
    assert len(urls) == 5  # the four list items and the short headline, nothing else
    alone = EN_LIST.replace('<ul class="stories">', '<ul class="stories"><!--').replace("</ul>", "--></ul>")
    assert [link.url for link in find_article_links(alone, BASE, DOMAINS)] == []  # no template to learn from


def test_rejected_links_have_a_reason():
    scores = score_links(EN_LIST, BASE, DOMAINS)
    assert scores.rejected == {
        "https://news.example.com/": "site_root",
        "https://news.example.com/business/": "url_shape",
        "https://news.example.com/2024/05/12/nav-link-to-a-story-page": "navigation",
        "https://news.example.com/tag/weather": "not_article_path",
        "https://news.example.com/author/jane-doe": "not_article_path",
        "https://news.example.com/video/2024/05/12/watch-the-storm-roll-in-over-the-bay": "not_article_path",
        "mailto:desk@example.com": "not_web",
    }
    assert not set(scores.rejected) & {link.url for link in scores.accepted}


def test_pattern_keeps_a_matching_short_link_anywhere():
    scores = score_links(EN_LIST, BASE, DOMAINS, pattern=re.compile(r"/20\d\d/\d\d/\d\d/[a-z-]+$"))
    urls = [link.url for link in scores.accepted]
    assert "https://news.example.com/2024/05/10/bakery-wins-award" in urls
    assert "https://news.example.com/2024/05/12/nav-link-to-a-story-page" in urls  # in <nav>, but it matches
    assert scores.rejected["https://news.example.com/tag/weather"] == "pattern"


ZH_LIST = """<html><body>
<div class="nav"><a href="/">首页</a><a href="/domestic/">国内</a><a href="/world/">国际</a><a href="/photo/">图片</a></div>
<ul class="newsList">
  <li><a href="https://news.example.com/24/0512/08/J0AB12CD0001899O.html">国务院常务会议部署稳就业工作</a></li>
  <li><a href="https://news.example.com/24/0512/09/J0AB34EF0001899O.html">多地出台措施支持小微企业发展</a></li>
  <li><a href="https://news.example.com/24/0512/10/J0AB56GH0001899O.html">全国铁路迎来暑运客流高峰</a></li>
  <li><a href="https://news.example.com/24/0512/11/J0AB78IJ0001899O.html">科学家发现新的珊瑚礁生态系统</a></li>
  <li><a href="https://news.example.com/photoview/00AO0001/2309150.html">组图：各地民众欢度端午节假期</a></li>
</ul>
<div class="hot"><a href="https://news.example.com/24/0511/07/J0AA11KL0001899O.html">油价下调</a></div>
</body></html>"""


def test_chinese_listing():
    scores = score_links(ZH_LIST, "https://news.example.com/domestic/", DOMAINS)
    urls = [link.url for link in scores.accepted]
    assert len(urls) == 5 and all("/24/05" in url for url in urls)  # the four and the short 油价下调
    assert scores.rejected["https://news.example.com/photoview/00AO0001/2309150.html"] == "not_article_path"
    assert scores.rejected["https://news.example.com/world/"] == "url_shape"


RU_LIST = """<html><body>
<div class="allLinks"><h2><a href="/russia/">В России</a></h2><h2><a href="/world/">В мире</a></h2></div>
<div class="news">
  <div class="text"><h3><a href="/russia/461033">Активист получил три года за газ на концерте</a></h3></div>
  <div class="text"><h3><a href="/world/461061">Власти Таиланда определили исполнителя теракта в Бангкоке</a></h3></div>
  <div class="text"><h3><a href="/sport/461072">ЦСКА проиграл первый матч плей-офф Лиги чемпионов</a></h3></div>
  <div class="text"><h3><a href="/photo/2354">Владимир Путин совершил погружение у берегов Крыма</a></h3></div>
  <div class="text"><h3><a href="/sport/461036">"Спортинг" - ЦСКА. Онлайн</a></h3></div>
</div>
<a href="/news/">Все новости</a>
</body></html>"""


def test_russian_listing():
    links = find_article_links(RU_LIST, "https://www.example.ru/", ["example.ru"])
    assert [link.url.rsplit("/", 2)[-2:] for link in links] == [
        ["russia", "461033"], ["world", "461061"], ["sport", "461072"], ["sport", "461036"]]


def test_url_template():
    assert url_template("https://a.com/2024/05/12/world/europe/some-long-slug/index.html") == "D4/D2/D2/w/w/S/w.html"
    assert url_template("https://a.com/20/0703/13/FGK7NCOR0001899O.html") == "D2/D4/D2/I.html"
    assert url_template("https://a.com/story/what-the-markets-did-today/") == "w/S"
    assert url_template("https://a.com/?id=123&p=2") == "?id&p"


def test_media_subdomains_count_against_a_link():
    page = "".join(f'<li><a href="https://{host}.example.com/room/22505{i}.html">Live: the match as it happens, minute by minute</a></li>'
                   for i, host in enumerate(("live", "v", "news")))
    scores = score_links(f"<ul>{page}</ul>", BASE, DOMAINS)
    assert [link.url for link in scores.accepted] == ["https://news.example.com/room/225052.html"]
    assert scores.rejected["https://live.example.com/room/225050.html"] == "not_article_path"


def test_relative_links_resolve_against_the_base_element():
    page = ('<html><head><base href="https://news.example.com/archive/"></head><body><ul>'
            + "".join(f'<li><a href="2024/05/1{i}/story-number-{i}-about-the-long-budget.html">Story number {i} about the long budget</a></li>'
                      for i in range(3)) + '</ul><a href="javascript:void(0)">x</a></body></html>')
    links = find_article_links(page, "https://news.example.com/world/", DOMAINS)
    assert links[0].url == "https://news.example.com/archive/2024/05/10/story-number-0-about-the-long-budget.html"
    assert len(links) == 3
    assert find_next_page(parse('<base href="/p/"><a rel="next" href="2">n</a>'), BASE, DOMAINS) \
        == "https://news.example.com/p/2"
    assert find_next_page(parse('<base href="javascript:alert(1)"><a rel="next" href="p2">n</a>'), BASE, DOMAINS) \
        == "https://news.example.com/world/p2"  # a base that is no http(s) URL is ignored


def test_a_one_word_slug_takes_its_lists_slug_form_and_only_in_that_list():
    heads = ["City council approves the new budget for schools", "Storm closes the harbour for two days",
             "Library opens a new reading room downtown", "Local team wins the regional cup final"]
    items = "".join(f'<li><a href="/2026/11/2{i}/{"-".join(h.lower().split())}.html">{h}</a></li>'
                    for i, h in enumerate(heads))
    items += '<li><a href="/2026/11/19/breakthrough.html">Breakthrough</a></li>'
    elsewhere = '<p class="promo"><a href="/2026/11/18/subscribe.html">Subscribe</a></p>'
    page = f"<html><body><ul class='news'>{items}</ul>{elsewhere}</body></html>"
    scores = score_links(page, BASE, DOMAINS)
    taken = {link.url: link.title for link in scores.accepted}
    assert taken["https://news.example.com/2026/11/19/breakthrough.html"] == "Breakthrough"
    assert "https://news.example.com/2026/11/18/subscribe.html" in scores.rejected
