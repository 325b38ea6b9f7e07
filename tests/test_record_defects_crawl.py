"""The record's smaller defects that a newcomer trial found on real pages, end to end through
``scrapy crawl`` (issue 38, item 4): a Chinese site's tags declared as one string, a photo agency
taken as an author, a copyright notice exported as body lines.  Each field has its unit tests
(tests/test_rich_fields.py, tests/test_authors.py, tests/test_body_edges.py); this one checks that
the crawl's record carries the fix.  Pages written here.
"""

from __future__ import annotations

from conftest import read_jsonl
from test_body_edges import NOTICE_EN, NOTICE_ZH, STORY_EN, STORY_ZH
from test_crawl_local import catalogue_html
from test_exit_status import scrapy, site_table

ZH_PATH, ZH_TITLE = "/news/2024/05/1/budget.html", "市议会通过新预算"
EN_PATH, EN_TITLE = "/news/2024/05/2/council-approves-the-budget.html", "Council approves the budget"


def article(title: str, lines: list[str], head: str) -> str:
    paragraphs = "".join(f"<p>{line}</p>" for line in lines)
    return (f"<html><head><meta charset='utf-8'><title>{title}</title>{head}</head><body>"
            "<nav><a href='/'>Home</a> <a href='/news/'>News</a></nav>"
            f"<div class='content'><h1>{title}</h1>{paragraphs}</div></body></html>")


ZH_PAGE = article(ZH_TITLE, STORY_ZH + NOTICE_ZH,
                  '<meta name="keywords" content="公园 城市绿化 市民">'
                  '<meta property="article:tag" content="城市建设、环境保护；民生">')
EN_PAGE = article(EN_TITLE, STORY_EN + NOTICE_EN, '<meta name="author" content="Jane Doe/AFP via Getty Images">')


def test_a_crawl_exports_split_tags_people_as_authors_and_no_copyright_notice(tmp_path):
    root = tmp_path / "gazette"
    for path, html in ((ZH_PATH, ZH_PAGE), (EN_PATH, EN_PAGE)):
        (root / path.lstrip("/")).parent.mkdir(parents=True, exist_ok=True)
        (root / path.lstrip("/")).write_text(html, encoding="utf-8")
    (root / "index.html").write_text(catalogue_html([(ZH_PATH, ZH_TITLE), (EN_PATH, EN_TITLE)]),
                                     encoding="utf-8")
    (tmp_path / "sites.toml").write_text(site_table("gazette", serve="gazette"))
    feed = tmp_path / "out.jsonl"
    done = scrapy(tmp_path, "crawl", "gazette", "-o", str(feed))
    assert done.returncode == 0, done.stderr[-3000:]
    items = {item["title"]: item for item in read_jsonl(feed)}
    assert set(items) == {ZH_TITLE, EN_TITLE}, done.stderr[-3000:]
    zh, en = items[ZH_TITLE], items[EN_TITLE]
    assert zh["keywords"] == ["公园", "城市绿化", "市民"]
    assert zh["tags"] == ["城市建设", "环境保护", "民生"]
    assert zh["text"].split("\n") == STORY_ZH
    assert "版权" not in zh["markdown"]
    assert en["authors"] == ["Jane Doe"]
    assert en["text"].split("\n") == STORY_EN
    assert "Creative Commons" not in en["markdown"]
