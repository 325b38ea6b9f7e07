"""Articles over several pages (issue #39), crawled end to end through the site spider.

Real Chinese, Russian and English articles of ``../shared/datasets`` are split at test time:
the article's page is served as 2–5 pages, page k holding the k-th part of its body paragraphs
and a real-looking pager (Sina's ``_2.shtml`` with 上一页 / 1 2 3 / 下一页, 163's ``?page=2`` with
下页, a Russian ``?page=2`` pager with «Следующая страница», a ``/2/`` one with «Далее», an English
``rel="next"`` pager with "Next page").  Every page also links the other article of its site as
"next article" (下一篇, «Следующая статья», "Next article").  The joined record must score body F1
≥ 0.98 against the whole article's truth text (the project's Zyte metric), hold no line of the
other article, and no continuation page may be exported alone, also when a catalogue lists one.
"""

from __future__ import annotations

import copy
import gzip
import json
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import pytest_twisted
from conftest import crawl_settings, read_jsonl, run_crawl, site_spider
from lxml import html

from newscrawl.evaluation.metrics import zyte_prf
from newscrawl.extract import Page, dom, extract_page

DATASETS = Path(__file__).resolve().parents[1] / ".." / "shared" / "datasets"
pytestmark = pytest.mark.skipif(not DATASETS.is_dir(), reason=f"needs the real datasets in {DATASETS}")
CHARSET_METAS = "//meta[@charset or translate(@http-equiv, 'CONTENYP', 'contenyp')='content-type']"
LINES_A_PAGE = 4  # paragraphs each page holds at least: a continuation page is a page of text


def _norm(text: str) -> str:
    return " ".join(text.split())


def real_articles(folder: str, parts: list[int], han: bool, english: bool = False) -> list[dict]:
    """The first articles of a set, one for each page count in ``parts``, whose every truth line
    is one ``<p>`` of the page and that the extraction reads whole (F1 ≥ 0.99) as one page: they
    can be cut at paragraphs into pages of :data:`LINES_A_PAGE` paragraphs or more."""
    found = []
    for line in (DATASETS / folder / "truth.jsonl").open(encoding="utf-8"):
        row = json.loads(line)
        text = row.get("text") or ""
        lines = [_norm(t) for t in text.split("\n") if _norm(t)]
        if len(lines) < LINES_A_PAGE * parts[len(found)] or row.get("weak") or len(set(lines)) < len(lines):
            continue
        if english and sum(c.isascii() for c in text) < 0.98 * len(text):
            continue
        raw = gzip.open(DATASETS / folder / row["file"]).read()
        root = dom.parse_html(dom.decode_html(raw))
        paragraphs = {}
        for p in root.iter("p"):
            paragraphs.setdefault(_norm(p.text_content()), p)
        if not all(t in paragraphs for t in lines):
            continue
        whole = extract_page(Page.from_html(raw, url="http://127.0.0.1/a.html"))
        if zyte_prf(text, whole.text, han_chars=han).f1 < 0.99:
            continue
        found.append({"id": row["id"], "text": text, "lines": lines, "root": root, "han": han})
        if len(found) == len(parts):
            return found
    pytest.skip(f"{folder}: fewer than {len(parts)} articles to split")


def split_page(article: dict, parts: int, page: int, pager: str, next_article: str, repeat_lead: bool) -> str:
    """Page ``page`` (1-based) of ``article`` cut into ``parts``: the other parts' paragraphs
    removed, the pager after this part's last paragraph and a "next article" link after it."""
    root = copy.deepcopy(article["root"])
    lines = article["lines"]
    size = -(-len(lines) // parts)
    mine = set(lines[(page - 1) * size:page * size])
    lead = None
    kept = []
    for p in list(root.iter("p")):
        text = _norm(p.text_content())
        if text not in lines:
            continue
        if text == lines[0]:
            lead = p
        if text in mine:
            kept.append(p)
            mine.discard(text)
        else:
            p.getparent().remove(p)
    if repeat_lead and page > 1:  # the portal repeats the article's lead at the top of every page
        kept[0].addprevious(copy.deepcopy(lead))
    kept[-1].addnext(html.fragment_fromstring(f"<div class='pager'>{pager}{next_article}</div>"))
    for meta in root.xpath(CHARSET_METAS):  # served as UTF-8
        meta.getparent().remove(meta)
    return "<!DOCTYPE html>" + html.tostring(root, encoding="unicode")


# --- page URLs and pagers as the portals write them -------------------------------------------

def underscore_form(url, i):  # doc-x.shtml, doc-x_2.shtml
    return url if i == 1 else url.replace(".shtml", f"_{i}.shtml")


def query_form(url, i):  # x.html, x.html?page=2
    return url if i == 1 else f"{url}?page={i}"


def slash_form(url, i):  # /x/, /x/2/
    return url if i == 1 else f"{url}{i}/"


def sina_pager(page, n, k):
    links = "".join(f"<span>{i}</span>" if i == k else f"<a href='{page(i)}'>{i}</a>" for i in range(1, n + 1))
    prev = f"<a href='{page(k - 1)}'>上一页</a>" if k > 1 else ""
    nxt = f"<a href='{page(k + 1)}'>下一页</a>" if k < n else ""
    return f"<p class='page'><span>共{n}页</span>{prev}{links}{nxt}</p>"


def netease_pager(page, n, k):
    links = "".join(f"<em>第{i}页</em>" if i == k else f"<a href='{page(i)}'>第{i}页</a>" for i in range(1, n + 1))
    nxt = f"<a class='next' href='{page(k + 1)}'>下页</a>" if k < n else ""
    return f"<div class='ep-pages'>{links}{nxt}</div>"


def russian_pager(page, n, k):
    prev = f"<a href='{page(k - 1)}'>← Предыдущая страница</a> " if k > 1 else ""
    nxt = f" <a href='{page(k + 1)}'>Следующая страница →</a>" if k < n else ""
    return f"<div class='pagination'>{prev}Страница {k} из {n}{nxt}</div>"


def russian_numbers_pager(page, n, k):
    links = " ".join(f"<b>{i}</b>" if i == k else f"<a href='{page(i)}'>{i}</a>" for i in range(1, n + 1))
    nxt = f" <a href='{page(k + 1)}'>Далее</a>" if k < n else ""
    return f"<div class='pages'>{links}{nxt}</div>"


def english_pager(page, n, k, loop=False):  # loop: the last page's "next" leads back to page 2
    target = k + 1 if k < n else (2 if loop else None)
    prev = f"<a rel='prev' href='{page(k - 1)}'>Previous page</a> " if k > 1 else ""
    nxt = f"<a rel='next' href='{page(target)}'>Next page »</a>" if target else ""
    return f"<nav class='pagination'>{prev}Page {k} of {n} {nxt}</nav>"


def looping_english_pager(page, n, k):
    return english_pager(page, n, k, loop=True)


def serve_split(server, article, path, parts, form, pager, next_link, repeat_lead=False) -> list[str]:
    """Serve ``article`` over ``parts`` pages at ``path``'s page forms; the URLs of its pages."""
    url = server.url(path)
    urls = [form(url, k) for k in range(1, parts + 1)]
    for k, page_url in enumerate(urls, 1):
        server.add(page_url[len(server.base):],
                   split_page(article, parts, k, pager(lambda i: form(url, i), parts, k), next_link, repeat_lead))
    return urls


# language: (set, Han characters, English only, [(path, pages, URL form, pager, next-article text, repeat lead)])
SITES = {
    "zh": ("daniel-zh", True, False, [
        ("/roll/2012-01-12/doc-ifxabcde.shtml", 3, underscore_form, sina_pager, "下一篇：", True),
        ("/12/0112/17/7NJ94AFR00014JB5.html", 2, query_form, netease_pager, "下一篇", False)]),
    "ru": ("daniel-ru", False, False, [
        ("/articles/354612/", 2, slash_form, russian_numbers_pager, "Следующая статья", False),
        ("/news/2012/01/06/budget.html", 4, query_form, russian_pager, "Следующая статья →", False)]),
    "en": ("wcxb", False, True, [
        ("/2024/05/01/council-budget-story/", 5, slash_form, english_pager, "Next article", False),
        ("/2024/05/02/school-bus-story/", 3, slash_form, looping_english_pager, "Next article", False)]),
}


def build_site(server, lang):
    """Two real articles of ``lang`` split over pages, each page linking the other as "next
    article"; a catalogue listing both and the first one's page 2.  (articles, page URLs, pattern)"""
    folder, han, english, plans = SITES[lang]
    articles = real_articles(folder, [plan[1] for plan in plans], han, english)
    first_urls = [server.url(plan[0]) for plan in plans]
    pages = []
    for i, (article, (path, parts, form, pager, next_text, lead)) in enumerate(zip(articles, plans, strict=True)):
        next_link = f"<a href='{first_urls[(i + 1) % len(plans)]}'>{next_text} the other story</a>"
        pages.append(serve_split(server, article, path, parts, form, pager, next_link, lead))
    listed = [pages[0][0], pages[1][0], pages[0][1]]  # a continuation page listed too
    server.add("/list.html", "<html><body><ul>" + "".join(
        f"<li><a href='{u}'>A story listed on the front page number {i}</a></li>" for i, u in enumerate(listed))
        + "</ul></body></html>")
    pattern = "|".join(urlsplit(u).path.split(".")[0].rstrip("/") for u in first_urls)
    return articles, pages, pattern


@pytest.mark.parametrize("lang", ["zh", "ru", "en"])
@pytest_twisted.ensureDeferred
async def test_a_real_article_split_over_pages_is_one_record_with_the_whole_text(http_server, tmp_path, lang):
    articles, pages, pattern = build_site(http_server, lang)
    spider = site_spider(catalogues=[http_server.url("/list.html")], article_pattern=pattern)
    out = tmp_path / "out.jsonl"
    crawler = await run_crawl(spider, crawl_settings(tmp_path, out))
    records = read_jsonl(out)
    assert sorted(r["url"] for r in records) == sorted(p[0] for p in pages)  # first pages only
    for article, urls in zip(articles, pages, strict=True):
        record = next(r for r in records if r["url"] == urls[0])
        assert record["pages"] == len(urls)
        assert zyte_prf(article["text"], record["text"], han_chars=article["han"]).f1 >= 0.98
        other = next(a for a in articles if a is not article)
        assert not set(other["lines"]) & {_norm(t) for t in record["text"].split("\n")}  # no next article
        assert record["text"].count(article["lines"][0]) == 1  # a repeated lead joined once
    stats = crawler.stats.get_stats()
    assert stats["newscrawl/pages/articles"] == 2
    assert stats["newscrawl/dropped/continuation_page"] == 1  # the listed page 2 is its article's
    if lang == "en":
        assert stats["newscrawl/pages/loop"] == 1  # the second article's pager leads back to its page 2

    # The next run finds the continuation listed again: exported with its article, not alone.
    out2 = tmp_path / "out2.jsonl"
    await run_crawl(site_spider(catalogues=[http_server.url("/list.html")], article_pattern=pattern),
                    crawl_settings(tmp_path, out2))
    assert read_jsonl(out2) == []


@pytest_twisted.ensureDeferred
async def test_an_article_over_more_pages_than_the_cap_stops_at_the_cap(http_server, tmp_path):
    articles, pages, pattern = build_site(http_server, "en")
    spider = site_spider(catalogues=[http_server.url("/list.html")], article_pattern=pattern)
    out = tmp_path / "out.jsonl"
    # extracted in the crawl process (the other tests: in a worker), the same join
    crawler = await run_crawl(spider, crawl_settings(tmp_path, out, NEWSCRAWL_MAX_ARTICLE_PAGES=2,
                                                     NEWSCRAWL_EXTRACT_PROCESSES=0))
    records = {r["url"]: r for r in read_jsonl(out)}
    assert sorted(records) == sorted(p[0] for p in pages)
    assert [records[p[0]]["pages"] for p in pages] == [2, 2]
    for article, urls in zip(articles, pages, strict=True):  # the first two pages' paragraphs, in order
        size = -(-len(article["lines"]) // len(urls))
        assert [_norm(t) for t in records[urls[0]]["text"].split("\n")] == article["lines"][:2 * size]
    assert crawler.stats.get_value("newscrawl/pages/capped") == 2
    assert urlsplit(pages[0][2]).path not in http_server.hits  # page 3 never fetched


@pytest_twisted.ensureDeferred
async def test_an_all_on_one_page_link_is_read_instead_of_the_pager(http_server, tmp_path):
    (article,) = real_articles("daniel-zh", [3], han=True)
    url = http_server.url("/roll/2012-01-12/doc-ifxwhole.shtml")
    single = url.replace(".shtml", "_all.shtml")
    pages = serve_split(http_server, article, urlsplit(url).path, 3, underscore_form,
                        lambda page, n, k: sina_pager(page, n, k) + f"<a href='{single}'>单页阅读</a>",
                        "<a href='/roll/other.shtml'>下一篇</a>")
    whole = copy.deepcopy(article["root"])
    for meta in whole.xpath(CHARSET_METAS):
        meta.getparent().remove(meta)
    http_server.add(urlsplit(single).path, "<!DOCTYPE html>" + html.tostring(whole, encoding="unicode"))
    spider = site_spider(catalogues=[http_server.url("/list.html")], article_pattern="doc-ifxwhole")
    http_server.add("/list.html", f"<html><body><a href='{url}'>The whole story on one page</a></body></html>")
    out = tmp_path / "out.jsonl"
    await run_crawl(spider, crawl_settings(tmp_path, out))
    (record,) = read_jsonl(out)
    assert record["url"] == url and record["pages"] == 1
    assert zyte_prf(article["text"], record["text"], han_chars=True).f1 >= 0.98
    assert not any(urlsplit(p).path in http_server.hits for p in pages[1:])  # the pager was not followed


@pytest_twisted.ensureDeferred
async def test_a_continuation_redirected_off_the_article_ends_it_there(http_server, tmp_path):
    (article,) = real_articles("daniel-zh", [3], han=True)
    url = http_server.url("/roll/2012-01-12/doc-ifxmoved.shtml")
    pages = serve_split(http_server, article, urlsplit(url).path, 3, underscore_form, sina_pager,
                        "<a href='/roll/other.shtml'>下一篇</a>")
    http_server.add(urlsplit(pages[1]).path, status=302, headers={"Location": "/"})  # a removed page 2
    http_server.add("/", "<html><body><h1>首页</h1><p>今日要闻与热点推荐，欢迎访问本站首页。</p></body></html>")
    http_server.add("/list.html", f"<html><body><a href='{url}'>A story split over three pages</a></body></html>")
    spider = site_spider(catalogues=[http_server.url("/list.html")], article_pattern="doc-ifxmoved")
    out = tmp_path / "out.jsonl"
    crawler = await run_crawl(spider, crawl_settings(tmp_path, out))
    (record,) = read_jsonl(out)
    assert record["url"] == url and record["pages"] == 1
    assert "首页" not in record["text"] and article["lines"][0] in record["text"]
    assert crawler.stats.get_value("newscrawl/pages/failed/redirected") == 1


@pytest_twisted.ensureDeferred
async def test_a_next_page_that_repeats_the_article_is_not_joined(http_server, tmp_path):
    # A Drupal-style pager under the article that pages something else (older publications):
    # its "page 2" is the same article again, which must neither be joined nor thin the body.
    (article,) = real_articles("wcxb", [2], han=False, english=True)
    url = http_server.url("/2024/05/03/garden-story/")
    whole = copy.deepcopy(article["root"])
    for meta in whole.xpath(CHARSET_METAS):
        meta.getparent().remove(meta)
    body = whole.xpath("//body")[0]
    body.append(html.fragment_fromstring(f"<ul class='pager'><li><a rel='next' href='{url}?page=1'>Next »</a></li></ul>"))
    page = "<!DOCTYPE html>" + html.tostring(whole, encoding="unicode")
    http_server.add(urlsplit(url).path, page)
    http_server.add(urlsplit(url).path + "?page=1", page)
    http_server.add("/list.html", f"<html><body><a href='{url}'>A garden story with a list pager</a></body></html>")
    spider = site_spider(catalogues=[http_server.url("/list.html")], article_pattern="garden-story")
    out = tmp_path / "out.jsonl"
    crawler = await run_crawl(spider, crawl_settings(tmp_path, out))
    (record,) = read_jsonl(out)
    assert record["url"] == url and record["pages"] == 1
    assert zyte_prf(article["text"], record["text"]).f1 >= 0.98
    assert crawler.stats.get_value("newscrawl/pages/failed/same_text") == 1


# --- the scan before the parse: pages that cannot have a pager are not parsed for one -------------

ARTICLE = "https://news.example/roll/2012-01-12/doc-ifxabcde.shtml"
PLAIN = ("<html><head><link rel='canonical' href='{url}'><meta property='og:url' content='{url}'></head>"
         "<body><h1>Story</h1><p>Text of the story.</p><a href='https://share.example/?u={url}'>Share</a>"
         "<a href='/roll/2012-01-12/doc-other.shtml'>Another story</a><a href='/about'>About</a>"
         "<a href='/section/?sort=new'>Section</a></body></html>")


@pytest.mark.parametrize("url, href", [
    (ARTICLE, "/roll/2012-01-12/doc-ifxabcde_2.shtml"),  # root-relative, _N
    (ARTICLE, "doc-ifxabcde_2.shtml"),  # relative
    (ARTICLE, "https://news.example/roll/2012-01-12/doc-ifxabcde_all.shtml"),  # all on one page
    ("https://a.example/news/budget.html", "budget.html?page=2"),  # a page parameter
    ("https://a.example/news/budget.html", "?page=2"),  # a relative query
    ("https://a.example/articles/354612/", "/articles/354612/2/"),  # a page segment
    ("https://a.example/articles/354612/", "2/"),  # relative to a slash-ended URL
    ("https://a.example/2024/05/01/council-budget/", "/2024/05/01/council-budget/?page=2"),
    ("https://ru.example/статья/бюджет.html", "/статья/бюджет-2.html"),  # an unquoted segment
    ("https://ru.example/%D0%B1%D1%8E%D0%B4%D0%B6%D0%B5%D1%82.html", "/бюджет_2.html"),
])
def test_a_page_with_a_pager_link_of_any_form_is_parsed_for_it(url, href):
    from newscrawl.extract.fields.pager import may_have_pages

    page = PLAIN.format(url=url).replace("</body>", f"<div class='pages'><a href='{href}'>2</a></div></body>")
    assert may_have_pages(page, url)
    assert may_have_pages(PLAIN.format(url=url), url.replace(".html", "_2.html").replace(".shtml", "_2.shtml")
                          if "." in url.rsplit("/", 1)[-1] else url + "2/")  # a continuation itself


@pytest.mark.parametrize("url", [ARTICLE, "https://a.example/2024/05/01/council-budget/",
                                 "https://a.example/news/budget.html"])
def test_an_article_with_no_link_of_a_continuations_form_is_not_parsed_for_a_pager(url):
    from newscrawl.extract.fields.pager import may_have_pages

    assert not may_have_pages(PLAIN.format(url=url), url)
