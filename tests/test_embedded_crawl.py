"""An app-shell site whose articles are only in their ``__NEXT_DATA__`` (issue #39, "embedded data
first"), crawled end to end through ``scrapy crawl`` and the site spider: every article exported
with method ``embedded`` and its paragraphs in ``text`` and ``markdown``, no browser."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import urlsplit

from conftest import read_jsonl
from test_crawl_local import catalogue_html, headline
from test_exit_status import scrapy, site_table

ARTICLES = 3


def paragraphs(n: int) -> list[str]:
    return [f"Story {n}, part {part}: the council met late into the evening to weigh the cost of new "
            f"school buses against the repairs the old depot needs before winter sets in." for part in range(4)]


def shell_page(n: int, header: str = "") -> str:
    """A Next.js page as served: an empty mount point (after ``header``, markup the server
    renders), the story in the page data only."""
    body = "".join(f"<p>{p}</p>" for p in paragraphs(n)[:2]) + "<h2>The vote</h2>" + "".join(
        f"<p>{p}</p>" for p in paragraphs(n)[2:])
    data = {"props": {"pageProps": {"nav": [{"title": "Home", "href": "/"}],
                                    "story": {"headline": headline(n), "publishedAt": "2024-05-09T09:00:00+02:00",
                                              "author": {"name": "Ana Lopez"}, "bodyHtml": body}}},
            "page": "/news/[slug]", "buildId": "b1"}
    return (f"<html><head><title>{headline(n)} | Local Times</title></head><body>{header}<div id='__next'></div>"
            f'<script id="__NEXT_DATA__" type="application/json">{json.dumps(data)}</script>'
            "<script src='/_next/static/chunks/main.js'></script></body></html>")


def app_shell_site(root: Path, header: str = "") -> dict[str, int]:
    links, paths = [], {}
    for n in range(ARTICLES):
        path = f"/news/2024/05/{n}/council-budget-story-{n}.html"
        (root / path.lstrip("/")).parent.mkdir(parents=True, exist_ok=True)
        (root / path.lstrip("/")).write_text(shell_page(n, header), encoding="utf-8")
        links.append((path, headline(n)))
        paths[path] = n
    (root / "index.html").write_text(catalogue_html(links), encoding="utf-8")
    return paths


def crawled_shell_site(tmp_path: Path, header: str = "") -> tuple[dict[str, int], list[dict]]:
    """``scrapy crawl`` of the app-shell site: its article paths and the records, every article
    exported."""
    paths = app_shell_site(tmp_path / "shell", header)
    (tmp_path / "sites.toml").write_text(site_table("shell", serve="shell"))
    out = tmp_path / "shell.jsonl"
    done = scrapy(tmp_path, "crawl", "shell", "-o", str(out))
    assert done.returncode == 0, done.stderr[-3000:]
    records = read_jsonl(out)
    assert sorted(urlsplit(r["url"]).path for r in records) == sorted(paths)
    return paths, records


def test_every_article_of_an_app_shell_site_is_exported_from_its_next_data(tmp_path):
    paths, records = crawled_shell_site(tmp_path)
    for record in records:
        n = paths[urlsplit(record["url"]).path]
        assert record["method"] == "embedded"
        assert record["title"] == headline(n)
        assert record["authors"] == ["Ana Lopez"]
        lines = record["text"].splitlines()
        for paragraph in paragraphs(n):
            assert paragraph in lines and paragraph in record["markdown"]
        assert "## The vote" in record["markdown"]


def test_an_app_shell_whose_server_renders_a_header_link_is_still_an_article(tmp_path):
    """The page type reads the DOM, which holds nothing but a header link (a page of links):
    the article the page's data holds makes it an article."""
    header = "<header><a href='/'>The Local Times, news of the valley since 1921</a></header>"
    _, records = crawled_shell_site(tmp_path, header)
    assert {r["method"] for r in records} == {"embedded"} and {r["page_type"] for r in records} == {"article"}
