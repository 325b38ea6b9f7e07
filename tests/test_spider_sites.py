"""Every shipped site: a catalogue page and a feed written here in the site's real URL shapes,
fed to that site's spider (no network): article links are found, the rest is ignored."""

from __future__ import annotations

import re

import pytest
from scrapy.http import HtmlResponse, XmlResponse
from scrapy.utils.test import get_crawler

from newscrawl.items import ListingItem
from newscrawl.sites import load_sites
from newscrawl.spiders.loader import spider_class

SITES = load_sites()

# site -> (article URLs, same-site non-article URLs) in the site's real shapes
SHAPES = {
    "sina_news": (["https://news.sina.com.cn/c/2024-05-12/doc-inaurxyz1234567.shtml",
                   "https://finance.sina.com.cn/jjxw/2024-05-12/doc-inaurabc7654321.shtml"],
                  ["https://news.sina.com.cn/china/", "https://news.sina.com.cn/roll/#pageid=153"]),
    "netease_news": (["https://www.163.com/news/article/J1ABCDEF000189FH.html",
                      "https://www.163.com/dy/article/J1ABCDEF05129QAF.html"],
                     ["https://news.163.com/domestic/", "https://www.163.com/special/0001386F/rank_news.html"]),
    "sohu_news": (["https://www.sohu.com/a/778899001_121123456"],
                  ["https://news.sohu.com/guonei/", "https://www.sohu.com/xchannel/tag?key=news"]),
    "ifeng_news": (["https://news.ifeng.com/c/8ZabcDEF123"],
                   ["https://news.ifeng.com/world/", "https://v.ifeng.com/"]),
    "qq_news": (["https://news.qq.com/rain/a/20240512A01ABC00",
                 "https://new.qq.com/omn/20240512/20240512A01XYZ00.html"],
                ["https://news.qq.com/ch/world/", "https://news.qq.com/"]),
    "xinhua_news": (["https://www.news.cn/politics/20240512/0123456789abcdef0123456789abcdef/c.html",
                     "http://www.xinhuanet.com/politics/2019-05/12/c_1124482345.htm"],
                    ["https://www.news.cn/politics/", "https://www.news.cn/world/index.htm"]),
    "cctv_news": (["https://news.cctv.com/2024/05/12/ARTIabcDEF1234567890AB24.shtml"],
                  ["https://news.cctv.com/world/", "https://tv.cctv.com/live/cctv13/"]),
    "huanqiu_news": (["https://world.huanqiu.com/article/4HabcDEF123"],
                     ["https://world.huanqiu.com/", "https://china.huanqiu.com/gangao"]),
    "cnblogs": (["https://www.cnblogs.com/someone/p/18123456",
                 "https://www.cnblogs.com/other-user/p/18123457.html"],
                ["https://www.cnblogs.com/someone/", "https://www.cnblogs.com/pick/"]),
    "segmentfault": (["https://segmentfault.com/a/1190000045123456"],
                     ["https://segmentfault.com/blogs", "https://segmentfault.com/u/someone"]),
    "csdn_blog": (["https://blog.csdn.net/someone/article/details/138123456"],
                  ["https://blog.csdn.net/nav/python", "https://blog.csdn.net/someone"]),
    "bbc": (["https://www.bbc.com/news/articles/c4ngk17zzkpo",
             "https://www.bbc.co.uk/news/world-europe-68912345"],
            ["https://www.bbc.com/news/world", "https://www.bbc.com/news/topics/c2vdnvdg6xxt"]),
    "reuters": (["https://www.reuters.com/world/europe/leaders-meet-to-discuss-budget-plans-2024-05-12/"],
                ["https://www.reuters.com/world/", "https://www.reuters.com/markets/us/"]),
    "nypost": (["https://nypost.com/2024/05/12/us-news/city-council-debates-the-budget/"],
               ["https://nypost.com/news/", "https://nypost.com/tag/election-2024/"]),
    "guardian": (["https://www.theguardian.com/world/2024/may/12/leaders-meet-to-discuss-budget-plans"],
                 ["https://www.theguardian.com/world/europe-news", "https://www.theguardian.com/profile/someone"]),
    "npr": (["https://www.npr.org/2024/05/12/1250123456/leaders-meet-to-discuss-budget-plans"],
            ["https://www.npr.org/sections/news/", "https://www.npr.org/podcasts/"]),
    "apnews": (["https://apnews.com/article/leaders-budget-plans-0123456789abcdef0123456789abcdef"],
               ["https://apnews.com/world-news", "https://apnews.com/hub/ukraine"]),
    "cnn": (["https://edition.cnn.com/2024/05/12/world/leaders-meet-budget-plans/index.html"],
            ["https://edition.cnn.com/world", "https://edition.cnn.com/videos"]),
    "lenta": (["https://lenta.ru/news/2024/05/12/pravitelstvo_utverdilo_plan/"],
              ["https://lenta.ru/rubrics/world/", "https://lenta.ru/parts/news/2/"]),
    "ria": (["https://ria.ru/20240512/pravitelstvo-plan-1945123456.html"],
            ["https://ria.ru/world/", "https://ria.ru/location_rossiya/"]),
    "interfax": (["https://www.interfax.ru/russia/958123"],
                 ["https://www.interfax.ru/russia/", "https://www.interfax.ru/news/"]),
    "newsru": (["https://www.newsru.com/russia/12may2024/pravitelstvo_plan.html"],
               ["https://www.newsru.com/russia/", "https://www.newsru.com/arch/"]),
}
HEADLINES = {
    "zh": ["国务院常务会议部署下一阶段经济工作重点任务", "多地出台新政策支持中小企业稳定发展和扩大就业"],
    "en": ["Leaders meet in the capital to discuss next year's budget plans",
           "City council approves new funding for schools and public libraries"],
    "ru": ["Правительство утвердило новый план развития регионов страны",
           "Центробанк сохранил ключевую ставку на прежнем уровне до осени"],
}
OFFSITE = "https://elsewhere.example/2024/05/12/an-article-on-another-site.html"
LIVE_SITES = [name for name, site in SITES.items() if site.serve is None]


def test_every_shipped_site_has_url_shapes():
    assert sorted(SHAPES) == sorted(LIVE_SITES)
    required = {"sina_news", "netease_news", "sohu_news", "ifeng_news", "qq_news", "xinhua_news",
                "cctv_news", "huanqiu_news", "cnblogs", "bbc", "reuters", "nypost", "lenta", "ria",
                "interfax", "newsru", "demo"}
    assert required <= set(SITES)
    assert len([s for s in SITES.values() if s.kind == "blog" and s.language == "zh"]) >= 2
    assert len([s for s in SITES.values() if s.language == "en" and s.serve is None]) >= 5


def make_spider(name: str, **kwargs):
    crawler = get_crawler(spider_class(SITES[name]))
    crawler.spider = crawler._create_spider(**kwargs)
    return crawler.spider


def headline(site: str, i: int) -> str:
    titles = HEADLINES[SITES[site].language]
    return f"{titles[i % len(titles)]} {i}" if i >= len(titles) else titles[i]


def catalogue_page(site: str) -> str:
    articles, others = SHAPES[site]
    nav = "".join(f'<a href="{u}">{"Section" if i else "首页"}</a>' for i, u in enumerate(others))
    items = "".join(f'<li><a href="{u}">{headline(site, i)}</a></li>' for i, u in enumerate(articles))
    # A same-site non-article link with headline-like text must still be rejected by the URL shape.
    decoy = f'<li><a href="{others[0]}">{headline(site, 7)}</a></li>'
    offsite = f'<li><a href="{OFFSITE}">{headline(site, 8)}</a></li>'
    return (f"<html><head><meta charset='utf-8'></head><body><nav>{nav}</nav>"
            f"<ul class='news-list'>{items}{decoy}{offsite}</ul></body></html>")


@pytest.mark.parametrize("site", LIVE_SITES)
def test_catalogue_page_in_the_sites_url_shapes(site):
    config = SITES[site]
    spider = make_spider(site)
    start = (config.catalogues or config.feeds or config.list_apis)[0]
    response = HtmlResponse(url=start, body=catalogue_page(site).encode("utf-8"), encoding="utf-8")
    items = [x for x in spider.parse_catalogue(response) if isinstance(x, ListingItem)]
    articles = SHAPES[site][0]
    assert [i.url for i in items] == articles
    assert [i.listing_title for i in items] == [headline(site, n) for n in range(len(articles))]
    assert all(i.site == site and i.source == "catalogue" for i in items)


def rss(site: str, links: list[str]) -> bytes:
    entries = "".join(
        f"<item><title>{headline(site, i)}</title><link>{u}</link><guid>{u}</guid>"
        f"<description>&lt;p&gt;Summary {i}&lt;/p&gt;</description>"
        f"<pubDate>Sun, 12 May 2024 0{i}:30:00 +0800</pubDate></item>"
        for i, u in enumerate(links)
    )
    return (f'<?xml version="1.0" encoding="utf-8"?><rss version="2.0"><channel><title>{site}</title>'
            f"<link>https://example.org/</link>{entries}</channel></rss>").encode()


def atom(site: str, links: list[str]) -> bytes:
    entries = "".join(
        f'<entry><title>{headline(site, i)}</title><link rel="alternate" href="{u}"/><id>{u}</id>'
        f"<summary type='html'>&lt;p&gt;Summary {i}&lt;/p&gt;</summary>"
        f"<published>2024-05-12T0{i}:30:00+08:00</published><updated>2024-05-12T0{i}:30:00+08:00</updated>"
        "</entry>"
        for i, u in enumerate(links)
    )
    return (f'<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom">'
            f"<title>{site}</title><id>urn:x</id><updated>2024-05-12T00:00:00Z</updated>{entries}</feed>").encode()


FEED_SITES = [name for name in LIVE_SITES if SITES[name].feeds]


@pytest.mark.parametrize("site", FEED_SITES)
def test_feed_in_the_sites_format(site):
    config = SITES[site]
    spider = make_spider(site)
    articles = SHAPES[site][0]
    body = (atom if site == "cnblogs" else rss)(site, [*articles, OFFSITE])  # feed.cnblogs.com serves Atom
    items = list(spider.parse_feed(XmlResponse(url=config.feeds[0], body=body)))
    assert [i.url for i in items] == articles  # the entry on another host is not followed
    assert all(i.source == "feed" and i.feed_summary == f"Summary {n}" for n, i in enumerate(items))
    assert items[0].feed_published == "2024-05-12T00:30:00+08:00"  # the feed's own offset, kept
    assert spider.crawler.stats.get_value("newscrawl/dropped/offsite") == 1
    pattern = config.article_pattern
    assert pattern is None or all(re.search(pattern, u) for u in articles)
