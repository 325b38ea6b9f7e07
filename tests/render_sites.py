"""One set of real articles (``../shared/datasets/fundus``: title and body truth) served four ways on
a :class:`~conftest.RoutesServer`, for the rendering tests and ``bench/render_memory.py``:

- ``static`` — the article in the HTML;
- ``next`` — an app shell carrying the article in ``__NEXT_DATA__``;
- ``spa`` — an app shell whose script fetches the listing and the article as JSON and writes them;
- ``scroll`` — a catalogue page whose script adds two items on load and two more at each scroll to the
  bottom; the article pages are static.

The pages are read from the datasets at run time, never stored in the repository.
"""

from __future__ import annotations

import html
import json
from pathlib import Path

DATASETS = Path(__file__).resolve().parents[2] / "shared" / "datasets"
FUNDUS = DATASETS / "fundus" / "truth.jsonl"
WAYS = ("static", "next", "spa", "scroll")


def articles(count: int, min_chars: int = 1500) -> list[dict]:
    """``count`` fundus articles (title, text paragraphs), the first by id with a long enough body."""
    rows = [json.loads(line) for line in FUNDUS.read_text(encoding="utf-8").splitlines() if line.strip()]
    rows = sorted((r for r in rows if r.get("title") and len(r.get("text") or "") >= min_chars),
                  key=lambda r: r["id"])
    return [{"slug": f"story-{n}", "title": r["title"], "lang": r.get("lang"),
             "paragraphs": [p for p in r["text"].splitlines() if p.strip()]} for n, r in enumerate(rows[:count])]


def _path(way: str, article: dict) -> str:
    return f"/{way}/2026/11/20/{article['slug']}.html"


def _page(title: str, body: str, scripts: str = "") -> str:
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title></head>"
            f"<body>{body}{scripts}</body></html>")


def _article_html(article: dict) -> str:
    return (f"<article><h1>{html.escape(article['title'])}</h1>"
            + "".join(f"<p>{html.escape(p)}</p>" for p in article["paragraphs"]) + "</article>")


def _listing_html(way: str, items: list[dict]) -> str:
    return "".join(f"<li><a href='{_path(way, a)}'>{html.escape(a['title'])}</a></li>" for a in items)


_APP_JS = """
const root = document.getElementById('app');
const path = location.pathname;
const url = path.endsWith('/') ? path + 'api/list.json' : path.replace('.html', '.json').replace('/spa/', '/spa/api/');
fetch(url).then(r => r.json()).then(data => {
  if (data.items) {
    root.innerHTML = '<ul>' + data.items.map(i => '<li><a href="' + i.href + '">' + i.title + '</a></li>').join('') + '</ul>';
  } else {
    root.innerHTML = '<article><h1>' + data.title + '</h1>' + data.paragraphs.map(p => '<p>' + p + '</p>').join('') + '</article>';
  }
});
"""

_SCROLL_JS = """
const list = document.getElementById('feed');
let page = 0, loading = false;
function more() {
  if (loading) return;
  loading = true;
  fetch('/scroll/api/list.json?page=' + page).then(r => r.json()).then(data => {
    list.insertAdjacentHTML('beforeend', data.items.map(i => '<li style="height:600px"><a href="' + i.href + '">' + i.title + '</a></li>').join(''));
    page += 1;
    loading = !data.items.length;
  });
}
more();
window.addEventListener('scroll', () => {
  if (window.innerHeight + window.scrollY >= document.body.scrollHeight - 50) more();
});
"""


def _escaped(article: dict) -> dict:
    return {"title": html.escape(article["title"]), "paragraphs": [html.escape(p) for p in article["paragraphs"]]}


def serve(server, way: str, items: list[dict]) -> str:
    """Add the site ``way`` to ``server`` (a RoutesServer); returns its catalogue URL."""
    json_type = {"Content-Type": "application/json"}
    js_type = {"Content-Type": "application/javascript"}
    if way == "static":
        server.add("/static/", _page("Latest news", f"<ul>{_listing_html(way, items)}</ul>"))
        for a in items:
            server.add(_path(way, a), _page(a["title"], _article_html(a)))
    elif way == "next":
        server.add("/next/", _page("Latest news", f"<ul>{_listing_html(way, items)}</ul>"))
        for a in items:
            body = "".join(f"<p>{html.escape(p)}</p>" for p in a["paragraphs"])
            data = {"props": {"pageProps": {"story": {"headline": a["title"], "bodyHtml": body}}},
                    "page": "/news/[slug]", "buildId": "b1"}
            blob = json.dumps(data).replace("</", "<\\/")
            server.add(_path(way, a), _page(a["title"], "<div id='__next'></div>",
                                            f'<script id="__NEXT_DATA__" type="application/json">{blob}</script>'
                                            "<script src='/next/main.js'></script>"))
        server.add("/next/main.js", "", headers=js_type)
    elif way == "spa":
        shell = _page("News app", "<div id='app'>Loading…</div>", "<script src='/spa/app.js'></script>")
        server.add("/spa/", shell)
        server.add("/spa/app.js", _APP_JS, headers=js_type)
        server.add("/spa/api/list.json", json.dumps(
            {"items": [{"href": _path(way, a), "title": html.escape(a["title"])} for a in items]}), headers=json_type)
        for a in items:
            server.add(_path(way, a), shell)
            server.add(_path(way, a).replace(".html", ".json").replace("/spa/", "/spa/api/"),
                       json.dumps(_escaped(a)), headers=json_type)
    elif way == "scroll":
        server.add("/scroll/", _page("Latest news", "<ul id='feed'></ul>", "<script src='/scroll/feed.js'></script>"))
        server.add("/scroll/feed.js", _SCROLL_JS, headers=js_type)
        for page in range(len(items) // 2 + 2):
            chunk = items[2 * page:2 * page + 2]
            server.add(f"/scroll/api/list.json?page={page}", json.dumps(
                {"items": [{"href": _path(way, a), "title": html.escape(a["title"])} for a in chunk]}),
                headers=json_type)
        for a in items:
            server.add(_path(way, a), _page(a["title"], _article_html(a)))
    return server.url(f"/{way}/")


def slug_of(url: str) -> str:
    return url.rsplit("/", 1)[-1].removesuffix(".html")
