"""Only articles are exported: :func:`newscrawl.extract.page_type` on small pages written here
(en, zh, ru, one per kind), its bars on the real pages of ../shared/datasets, and a listing page
reached as a detail page dropped by the crawl as ``not_article/listing``."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import pytest_twisted
from conftest import crawl_settings, read_jsonl, run_crawl, site_spider

from newscrawl.extract import page_type
from newscrawl.extract.page_signals import PROSE_RUN, page_signals

ROOT = Path(__file__).resolve().parents[1]
DATASETS = ROOT.parent / "shared" / "datasets"

PROSE = {
    "en": ("The council met on Tuesday evening to discuss the new budget for the coming year, and members "
           "argued for hours about how the money should be spent on schools, roads and the old library. "),
    "zh": "市议会周二晚间召开会议讨论明年的新预算，议员们就如何把资金用于学校、道路和老图书馆争论了好几个小时。",
    "ru": ("Городской совет во вторник вечером обсуждал новый бюджет на следующий год, и депутаты часами "
           "спорили о том, как потратить деньги на школы, дороги и старую библиотеку. "),
}
HEADLINES = {
    "en": "Council approves the new budget for schools and roads number {n}",
    "zh": "市议会通过学校和道路的新预算方案第{n}号",
    "ru": "Совет утвердил новый бюджет для школ и дорог номер {n}",
}
TEASER_CHARS = {"en": 90, "zh": 30, "ru": 90}  # a teaser about one and a half headlines long
ERRORS = {"en": "404 Page not found", "zh": "页面不存在", "ru": "Страница не найдена"}


def html(title: str, body: str, head: str = "") -> str:
    return (f"<html><head><meta charset='utf-8'><title>{title}</title>{head}</head>"
            f"<body><nav><a href='/'>Home</a> <a href='/world/'>World</a></nav>{body}"
            f"<footer><a href='/about'>About us</a></footer></body></html>")


def article(lang: str, paragraphs: int = 6, head: str = "", related: int = 0) -> str:
    body = "".join(f"<p>{PROSE[lang]}</p>" for _ in range(paragraphs))
    links = "".join(f"<li><a href='/news/{n}.html'>{HEADLINES[lang].format(n=n)}</a></li>" for n in range(related))
    return html(HEADLINES[lang].format(n=1), f"<article><h1>{HEADLINES[lang].format(n=1)}</h1>{body}</article>"
                f"<aside><ul>{links}</ul></aside>", head)


def listing(lang: str, items: int = 25, teaser: bool = True, head: str = "") -> str:
    rows = "".join(
        f"<li class='item'><h3><a href='/news/2024/05/{n}/story.html'>{HEADLINES[lang].format(n=n)}</a></h3>"
        + (f"<p>{PROSE[lang][:TEASER_CHARS[lang]]}</p>" if teaser else "") + "</li>"
        for n in range(items))
    return html("News", f"<h1>News</h1><ul class='list'>{rows}</ul>", head)


LANGS = ("en", "zh", "ru")


@pytest.mark.parametrize("lang", LANGS)
def test_an_article_is_an_article(lang):
    assert page_type(article(lang), "https://news.example/2024/05/12/council-budget.html") == "article"


@pytest.mark.parametrize("lang", LANGS)
def test_an_article_with_a_long_related_list_is_an_article(lang):
    page = article(lang, related=40)
    assert page_type(page, "https://news.example/2024/05/12/council-budget.html") == "article"
    assert page_type(page, "https://news.example/") == "article"  # its prose outweighs a home-page URL


@pytest.mark.parametrize("lang", LANGS)
def test_a_short_article_at_a_tag_like_url_is_kept(lang):
    page = article(lang, paragraphs=2)
    assert page_type(page, "https://news.example/video/2024/05/12/council-budget.html") == "article"


@pytest.mark.parametrize("lang", LANGS)
def test_a_section_page_is_a_listing(lang):
    assert page_type(listing(lang, teaser=False), "https://news.example/world/page-2.html") == "listing"
    assert page_type(listing(lang), "https://news.example/world/") == "listing"
    assert page_type(listing(lang), "https://news.example/") == "listing"


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize(("path", "kind"), [("/tag/budget/", "tag"), ("/author/jane-doe/", "author"),
                                            ("/category/politics/", "listing")])
def test_tag_author_and_category_pages(lang, path, kind):
    assert page_type(listing(lang), f"https://news.example{path}") == kind


@pytest.mark.parametrize("lang", LANGS)
def test_galleries_and_video_pages_by_their_metadata(lang):
    gallery = listing(lang, items=3, head="<script type='application/ld+json'>"
                                          '{"@type": "ImageGallery", "name": "Photos"}</script>')
    video = html(HEADLINES[lang].format(n=1), f"<h1>{HEADLINES[lang].format(n=1)}</h1><video></video>"
                 f"<p>{PROSE[lang]}</p>", "<meta property='og:type' content='video.other'>")
    profile = listing(lang, items=3, head="<script type='application/ld+json'>"
                                          '{"@type": "ProfilePage"}</script>')
    assert page_type(gallery, "https://news.example/2024/05/12/budget-in-pictures") == "gallery"
    # og:type video.other alone no longer makes a video page: in ../shared/datasets five articles
    # declare it and one non-article does, so a page with a paragraph of prose is an article.
    assert page_type(video, "https://news.example/2024/05/12/budget-explained") == "article"
    assert page_type(profile, "https://news.example/staff/jane") == "author"


@pytest.mark.parametrize("lang", LANGS)
def test_an_article_with_an_embedded_video_is_an_article(lang):
    head = ("<script type='application/ld+json'>[{\"@type\": \"NewsArticle\"}, {\"@type\": \"VideoObject\"}]"
            "</script><meta property='og:type' content='video.other'>")
    assert page_type(article(lang, paragraphs=1, head=head), "https://news.example/video/1") == "article"


@pytest.mark.parametrize("lang", LANGS)
def test_an_error_page_served_with_200(lang):
    page = html(ERRORS[lang], f"<h1>{ERRORS[lang]}</h1><p>{PROSE[lang][:60]}</p>")
    assert page_type(page, "https://news.example/2024/05/12/gone.html") == "error"


def test_an_article_about_an_error_is_an_article():
    title = "Why the page not found error haunts the council website"
    page = html(title, f"<h1>{title}</h1>" + f"<p>{PROSE['en']}</p>" * 8)
    assert page_type(page, "https://news.example/2024/05/12/404.html") == "article"


def test_a_long_run_of_prose_decides_whatever_the_metadata_says():
    head = "<script type='application/ld+json'>{\"@type\": \"CollectionPage\"}</script>"
    page = article("en", paragraphs=8, head=head)
    assert page_signals_of(page).longest_run >= PROSE_RUN
    assert page_type(page, "https://news.example/tag/budget/") == "article"


def page_signals_of(text: str):
    from newscrawl.extract import Page

    return page_signals(Page.from_html(text, url="https://news.example/x"))


def test_the_signals_separate_prose_from_headline_links():
    signals = page_signals_of(listing("en", items=30))
    assert signals.headline_links >= 30 and signals.longest_run < 200 and signals.link_share > 0.4


# --- the bars on real pages ----------------------------------------------------------------------


@pytest.mark.skipif(not DATASETS.is_dir(), reason="../shared/datasets not present: no real pages to measure")
def test_the_bars_on_the_real_pages():
    sys.path.insert(0, str(ROOT))
    from bench.page_type_eval import ARTICLE_BAR, evaluate

    sets, listings = evaluate(DATASETS)
    pages = sum(r.pages for r in sets)
    missed = sum(len(r.misses) for r in sets)
    assert pages > 2000  # every article set was read
    assert missed / pages <= ARTICLE_BAR, [m for r in sets for m in r.misses]
    assert listings.pages >= 13
    assert not listings.misses, listings.misses


# --- end to end ----------------------------------------------------------------------------------


@pytest_twisted.ensureDeferred
async def test_a_listing_page_reached_as_a_detail_page_is_dropped(http_server, tmp_path):
    story = http_server.add("/news/2024/05/12/council-budget.html", article("en"))
    section = http_server.add("/news/2024/05/12/world-roundup.html", listing("en", items=30, teaser=False))
    gone = http_server.add("/news/2024/05/11/council-vote.html",
                           html(ERRORS["zh"], f"<h1>{ERRORS['zh']}</h1><p>{PROSE['zh'][:20]}</p>"))
    links = (f"<li><a href='{story}'>{HEADLINES['en'].format(n=1)}</a></li>"
             f"<li><a href='{section}'>{HEADLINES['en'].format(n=2)} roundup</a></li>"
             f"<li><a href='{gone}'>{HEADLINES['en'].format(n=3)} vote</a></li>")
    catalogue = http_server.add("/list.html", html("List", f"<ul>{links}</ul>"))
    feed = tmp_path / "out.jsonl"
    crawler = await run_crawl(site_spider(catalogues=[catalogue]), crawl_settings(tmp_path, feed))
    assert [i["url"] for i in read_jsonl(feed)] == [story]
    stats = crawler.stats.get_stats()
    assert stats.get("newscrawl/dropped/not_article/listing") == 1
    assert stats.get("newscrawl/dropped/not_article/error") == 1  # a "page not found" served with 200
    assert http_server.hits["/news/2024/05/12/world-roundup.html"] == 1

    feed2 = tmp_path / "out2.jsonl"  # NEWSCRAWL_PAGE_TYPE_FILTER=False exports every page
    crawler = await run_crawl(site_spider(catalogues=[catalogue]), crawl_settings(
        tmp_path, feed2, NEWSCRAWL_PAGE_TYPE_FILTER=False, NEWSCRAWL_FRESH=True))
    assert {story, gone} <= {i["url"] for i in read_jsonl(feed2)}
    assert not [k for k in crawler.stats.get_stats() if "not_article" in k]
