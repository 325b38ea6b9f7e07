"""Pages without prose are not articles, and walls are their own drop reasons (issue 38, item 5).

A tag page of one link and a consent interstitial of links were exported as articles: the headline
grew into a body of link text.  Small pages written here (en, ru, zh): a tag page, consent
interstitials (a consent service's form, a consent manager's markup, a consent title), a login
wall, and a paywall teaser that stays an article.  End to end: a WARC of tag pages read by the
``warc`` spider, and a crawl where an article URL first serves a consent interstitial and the
next run finds the article there.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import pytest_twisted
from conftest import read_jsonl
from test_crawl_local import article_html, catalogue_html, headline
from test_exit_status import scrapy, site_table
from test_warc import drops, http_block, read_warc, warc_record, write_warc

from newscrawl.extract import Page, extract_page, page_type

ARTICLE_URL = "http://news.example/2024/05/12/council-budget-story.html"
NAV = "<nav><a href='/'>Home</a> <a href='/world/'>World</a> <a href='/sport/'>Sport</a></nav>"


def tag_page(n: int) -> str:
    return (f"<html><head><title>tag {n}</title></head><body>{NAV}<h1>tag {n}</h1>"
            f"<ul><li><a href='/2024/05/{n}/story-{n}.html'>article {n}</a></li></ul></body></html>")


def links(count: int, word: str = "link") -> str:
    return " ".join(f"<a href='/l/{i}'>{word} {i}</a>" for i in range(count))


# Google's interstitial: its title and a form posting to the consent service, 40 links.
CONSENT_EN = ("<html><head><title>Before you continue</title></head><body><h1>Before you continue</h1>"
              f"<div>{links(40)}</div><form action='https://consent.google.com/save' method='post'>"
              "<input type='hidden' name='set_eom' value='true'><button>Accept all</button></form></body></html>")
# A consent manager's markup (Didomi), a Russian notice inside it, a site's menu around it.
CONSENT_RU = ("<html lang='ru'><head><title>Новости города</title></head><body>"
              f"{NAV}<div id='didomi-host'><div class='didomi-popup'><h2>Мы ценим вашу конфиденциальность</h2>"
              "<p>Мы и наши партнёры храним и используем информацию на вашем устройстве, например файлы cookie, "
              "чтобы показывать персонализированную рекламу и измерять её эффективность.</p>"
              f"<button>Согласиться</button></div></div><div>{links(30, 'раздел')}</div></body></html>")
# A consent title only (zh), a notice and links.
CONSENT_ZH = ("<html lang='zh'><head><title>隐私与 Cookie 同意</title></head><body><h1>隐私与 Cookie 同意</h1>"
              "<p>我们使用 Cookie 来改进您的体验。继续使用即表示您同意我们使用 Cookie。</p>"
              f"<div>{links(25, '栏目')}</div></body></html>")
# OneTrust's banner beside a real article: an article.
ARTICLE_WITH_BANNER = article_html(headline(3)).replace(
    "</body>", "<div id='onetrust-consent-sdk'><div id='onetrust-banner-sdk'><p>We use cookies to improve "
               "your experience and to show you personalised ads.</p></div></div></body>")

LOGIN_WALLS = {
    "en": ("<html><head><title>Sign in</title></head><body>" + NAV + "<h1>Sign in to continue</h1>"
           "<form action='/login' method='post'><input name='user'><input type='password' name='pw'>"
           "<button>Sign in</button></form><a href='/register'>Create an account</a></body></html>"),
    "ru": ("<html lang='ru'><head><title>Вход</title></head><body>" + NAV + "<h1>Войдите, чтобы продолжить</h1>"
           "<form action='/login' method='post'><input name='login'><input type=\"password\" name='p'>"
           "<button>Войти</button></form></body></html>"),
    "zh": ("<html lang='zh'><head><title>登录</title></head><body>" + NAV + "<h1>请登录后继续阅读</h1>"
           "<form action='/login' method='post'><input name='u'><input type=password name='p'>"
           "<button>登录</button></form></body></html>"),
}
LEAD = ("The city council approved a budget on Tuesday that moves money from road repairs to the "
        "schools of the northern districts, after a debate that lasted until midnight.")
PAYWALL_TEASER = (
    "<html><head><title>Council moves road money to schools | Local Times</title>"
    "<meta property='og:type' content='article'></head><body>" + NAV
    + "<article><h1>Council moves road money to schools</h1><p>" + LEAD + "</p>"
    "<div class='paywall'><h2>Subscribe to keep reading</h2><p>Subscribers read every story.</p>"
    "<form action='/login' method='post'><input name='email'><input type='password' name='pw'>"
    "<button>Log in</button></form></div></article></body></html>")


def test_a_tag_page_of_one_link_has_no_body_and_is_not_an_article():
    page = tag_page(7)
    assert page_type(page, url="http://news.example/t7.html") != "article"
    assert not extract_page(Page.from_html(page, url="http://news.example/t7.html")).text


@pytest.mark.parametrize("html", [CONSENT_EN, CONSENT_RU, CONSENT_ZH], ids=["en", "ru", "zh"])
def test_consent_interstitials_are_consent_walls_and_a_banner_beside_an_article_is_not(html):
    assert page_type(html, url=ARTICLE_URL) == "consent_wall"
    assert page_type(ARTICLE_WITH_BANNER, url=ARTICLE_URL) == "article"


@pytest.mark.parametrize("lang", sorted(LOGIN_WALLS))
def test_login_forms_with_little_prose_are_login_walls_and_a_paywall_teaser_is_an_article(lang):
    assert page_type(LOGIN_WALLS[lang], url=ARTICLE_URL) == "login_wall"
    assert page_type(PAYWALL_TEASER, url=ARTICLE_URL) == "article"
    article = extract_page(Page.from_html(PAYWALL_TEASER, url=ARTICLE_URL))
    assert article.paywalled is True
    assert LEAD in article.text


@pytest_twisted.ensureDeferred
async def test_a_warc_of_tag_pages_and_walls_exports_only_its_articles_a_paywall_teaser_among_them(tmp_path):
    records = [warc_record(f"http://news.example/tag/{n}.html", http_block(tag_page(n).encode()))
               for n in range(40)]
    records.append(warc_record("http://news.example/2024/05/1/a.html", http_block(CONSENT_EN.encode())))
    records.append(warc_record("http://news.example/2024/05/2/b.html",
                               http_block(LOGIN_WALLS["en"].encode())))
    records.append(warc_record(ARTICLE_URL, http_block(article_html(headline(1)).encode())))
    teaser_url = "http://news.example/2024/05/3/council-moves-road-money.html"
    records.append(warc_record(teaser_url, http_block(PAYWALL_TEASER.encode())))
    archive = write_warc(tmp_path / "tags.warc.gz", records)
    feed = tmp_path / "out.jsonl"
    crawler = await read_warc(tmp_path, str(archive), feed)
    exported = {item["url"]: item for item in read_jsonl(feed)}
    assert sorted(exported) == sorted([ARTICLE_URL, teaser_url])
    assert exported[teaser_url]["paywalled"] is True and LEAD in exported[teaser_url]["text"]
    assert not exported[ARTICLE_URL]["paywalled"]
    dropped = drops(crawler)
    assert dropped.get("consent_wall") == 1 and dropped.get("login_wall") == 1, dropped
    assert sum(n for reason, n in dropped.items() if reason.startswith("not_article/") or reason == "no_text") == 40


# --- a crawl through the real spider: the wall first, the article on the next run ---------------

WALLED = "/news/2024/05/1/council-budget-story-1.html"


def walled_site(root: Path, wall: str) -> None:
    """A catalogue of three articles; the first serves ``wall`` (a consent interstitial)."""
    listed = []
    for n in range(3):
        path = f"/news/2024/05/{n}/council-budget-story-{n}.html"
        (root / path.lstrip("/")).parent.mkdir(parents=True, exist_ok=True)
        (root / path.lstrip("/")).write_text(wall if path == WALLED else article_html(headline(n)), encoding="utf-8")
        listed.append((path, headline(n)))
    (root / "index.html").write_text(catalogue_html(listed), encoding="utf-8")


def exported_urls(feed: Path) -> list[str]:
    return [item["url"] for item in read_jsonl(feed)] if feed.exists() else []


def stat(done, key: str) -> int:
    found = re.search(rf"'{re.escape(key)}': (\d+)", done.stderr)
    return int(found.group(1)) if found else 0


def test_an_article_url_that_served_a_consent_wall_is_exported_when_the_article_is_back(tmp_path):
    root = tmp_path / "walled"
    walled_site(root, CONSENT_EN)
    (tmp_path / "sites.toml").write_text(site_table("walled", serve="walled"))
    first_feed, second_feed = tmp_path / "first.jsonl", tmp_path / "second.jsonl"
    first = scrapy(tmp_path, "crawl", "walled", "-o", str(first_feed))
    assert first.returncode == 0, first.stderr[-3000:]
    assert stat(first, "newscrawl/dropped/consent_wall") == 1, first.stderr[-3000:]
    assert not any(url.endswith(WALLED) for url in exported_urls(first_feed))
    assert len(exported_urls(first_feed)) == 2

    (root / WALLED.lstrip("/")).write_text(article_html(headline(1)), encoding="utf-8")  # the site is fixed
    second = scrapy(tmp_path, "crawl", "walled", "-o", str(second_feed))
    assert second.returncode == 0, second.stderr[-3000:]
    again = read_jsonl(second_feed)
    assert [item["url"].endswith(WALLED) for item in again] == [True], second.stderr[-3000:]
    assert again[0]["title"] == headline(1) and "Council" in again[0]["text"]
    assert stat(second, "newscrawl/dropped/already_exported") == 2
