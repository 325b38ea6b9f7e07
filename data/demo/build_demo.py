"""Render the offline demo news site (``data/demo/site/``) plus ``headers.json`` and ``manifest.json``.

The article texts live in ``articles_zh.py``, ``articles_en.py`` and ``articles_ru.py``; this script only
wraps them in page templates (three per language), builds the catalogue pages, feeds, the JSON list
endpoint, robots.txt and the ground-truth manifest. Output is deterministic: the site directory is wiped
and rewritten, nothing depends on the clock. Run: ``python data/demo/build_demo.py``.
"""

from __future__ import annotations

import html
import json
import re
import shutil
import sys
from datetime import UTC, datetime
from email.utils import format_datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from articles_en import ARTICLES_EN  # noqa: E402
from articles_ru import ARTICLES_RU  # noqa: E402
from articles_zh import ARTICLES_ZH  # noqa: E402
from demo_templates import (  # noqa: E402
    SPLIT,
    authors_of,
    block_html,
    paragraphs_of,
    plain,
    render_article,
    render_catalogue,
    render_home,
    render_private,
    render_tech_index,
)

SITE_DIR = HERE / "site"
LANGS = {"zh": ARTICLES_ZH, "en": ARTICLES_EN, "ru": ARTICLES_RU}
BY_PATH = {a["path"]: dict(a, lang=lang) for lang, arts in LANGS.items() for a in arts}

# Which template renders which section.
TEMPLATE_OF = {
    ("zh", "news"): "zh_news", ("zh", "finance"): "zh_finance",
    ("zh", "sports"): "zh_feature", ("zh", "culture"): "zh_feature",
    ("en", "world"): "en_world", ("en", "local"): "en_world",
    ("en", "science"): "en_feature", ("en", "sport"): "en_feature", ("en", "tech"): "en_tech",
    ("ru", "society"): "ru_society", ("ru", "science"): "ru_society",
    ("ru", "culture"): "ru_culture", ("ru", "sport"): "ru_sport",
}
# How each non-UTF-8 page declares its charset (UTF-8 pages follow their template's habit).
HTTP_EQUIV_TEMPLATES = {"zh_news", "ru_society"}

PRIVATE_PATH = "/private/draft-embargoed.html"
OFF_HOST_URL = "http://other.example/en/world/2026-11-19/ferry-strike.html"

# Paginated catalogues: lang -> (page paths, [[article paths per page]]).
CATALOGUES = {
    "zh": (["/zh/news/index.html", "/zh/news/index_2.html", "/zh/news/index_3.html"], [
        ["/zh/news/2026/11/20/a101.html", "/zh/sports/20261119/s3305.html", "/zh/news/2026/11/19/a102.html"],
        ["/zh/finance/2026-11/19/content_2031.htm", "/zh/culture/20261118/c4410.html",
         "/zh/news/2026/11/18/a103.html"],
        ["/zh/news/2026/11/17/a104.html", "/zh/finance/2026-11/16/content_2027.htm",
         "/zh/news/2026/11/12/a097.html"],
    ]),
    "en": (["/en/world/index.html", "/en/world/index_2.html", "/en/world/index_3.html"], [
        ["/en/local/2026-11-20/council-approves-bike-lanes.html",
         "/en/sport/2026-11-19/rowing-club-wins-regatta.html",
         "/en/world/2026-11-19/harbor-bridge-reopens.html"],
        ["/en/science/2026-11-18/glacier-sediment-study.html", PRIVATE_PATH,
         "/en/world/2026-11-18/coastal-states-fisheries-deal.html"],
        ["/en/world/2026-11-16/river-delta-flood-relief.html"],
    ]),
    "ru": (["/ru/society/index.html", "/ru/society/page2.html", "/ru/society/page3.html"], [
        ["/ru/sport/20261119/hokkei-pobeda.html", "/ru/society/20261119/snegopad-zakryl-trassu.html",
         "/ru/culture/20261118/premera-v-dramteatre.html"],
        ["/ru/society/20261118/gorsovet-utverdil-byudzhet.html",
         "/ru/science/20261117/issledovanie-ozera.html",
         "/ru/society/20261117/novaya-shkola.html"],
        ["/ru/society/20261115/tramvai-marshrut-7.html", "/ru/society/20261113/volontery-priyut.html"],
    ]),
}

FEEDS = {
    "/rss/zh.xml": ("rss", "zh", [
        "/zh/news/2026/11/20/a101.html", "/zh/sports/20261119/s3305.html",
        "/zh/finance/2026-11/19/content_2031.htm", "/zh/sports/20261115/s3291.html",
        "/zh/finance/2026-11/14/content_2019.htm", "/zh/culture/20261113/c4402.html",
    ]),
    "/rss/en.xml": ("rss", "en", [
        "/en/local/2026-11-20/council-approves-bike-lanes.html", OFF_HOST_URL,
        "/en/world/2026-11-19/harbor-bridge-reopens.html", "/en/local/2026-11-17/library-late-fees.html",
        "/en/science/2026-11-15/comet-visible.html", "/en/sport/2026-11-14/stadium-roof-vote.html",
    ]),
    "/atom/ru.xml": ("atom", "ru", [
        "/ru/science/20261120/studenty-nanosputnik.html", "/ru/culture/20261118/premera-v-dramteatre.html",
        "/ru/society/20261118/gorsovet-utverdil-byudzhet.html",
        "/ru/culture/20261116/vystavka-fotografii.html",
        "/ru/sport/20261114/lyzhnya-otkryta.html", "/ru/culture/20261112/festival-kino.html",
    ]),
}
# RSS items that carry a dc:creator (the rest have none, as on many real feeds).
DC_CREATOR = {"/zh/news/2026/11/20/a101.html", "/zh/finance/2026-11/14/content_2019.htm",
              "/en/local/2026-11-20/council-approves-bike-lanes.html",
              "/en/science/2026-11-15/comet-visible.html", "/en/sport/2026-11-14/stadium-roof-vote.html"}
OFF_HOST_ITEM = {
    "title": "Ferry crews walk out over winter schedules",
    "published": "2026-11-19T06:30:00-05:00",
    "description": "Reported by our partner site.",
}

TECH_API = "/api/list/tech.json"
TECH_INDEX = "/en/tech/index.html"
TECH_ARTICLES = ["/en/tech/2026-11-20/open-source-router-firmware.html",
                 "/en/tech/2026-11-18/battery-recycling-startup.html",
                 "/en/tech/2026-11-13/city-app-outage.html"]

EXTERNAL_LINK_RE = re.compile(r'href="(https?://[^"]+)"')


def _write(path: str, data: bytes) -> None:
    target = SITE_DIR / path.lstrip("/")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)


def _charset_declaration(article: dict, template: str) -> str:
    return "http-equiv" if template in HTTP_EQUIV_TEMPLATES else "meta-charset"


def _content_type(encoding: str, path: str) -> str | None:
    """The Content-Type override for a page, or None when the server's default is fine."""
    if encoding != "utf-8":
        return "text/html"  # no charset: clients must read the <meta> declaration
    if path.endswith(".htm"):
        return "text/html; charset=utf-8"
    return None


def build_articles(headers: dict) -> list[dict]:
    records = []
    for lang, arts in LANGS.items():
        for i, art in enumerate(arts):
            art = dict(art, lang=lang)
            template = TEMPLATE_OF[(lang, art["section"])]
            decl = _charset_declaration(art, template)
            related = [dict(arts[(i + k) % len(arts)], lang=lang) for k in (1, 2, 3)]
            page, info = render_article(art, template, decl, related)
            _write(art["path"], page.encode(art["encoding"]))
            ctype = _content_type(art["encoding"], art["path"])
            if ctype:
                headers[art["path"]] = {"Content-Type": ctype}
            blocks = [b for b in art["body"] if b != SPLIT]
            records.append({
                "path": art["path"],
                "lang": lang,
                "section": art["section"],
                "template": template,
                "encoding": art["encoding"],
                "charset_declaration": decl,
                "content_type": ctype or "text/html; charset=utf-8",
                "title": art["title"],
                "subtitle": art.get("subtitle"),
                "title_tag": info["title_tag"],
                "listing_titles": [],
                "discovered_via": [],
                "published": art["published"],
                "published_date": art["published"][:10],
                "published_visible": info["date_text"],
                "published_machine_readable": info["machine_dates"],
                "modified": art.get("modified"),
                "author": art["author"],
                "authors": authors_of(art),
                "description": art["description"],
                "paragraphs": paragraphs_of(art["body"]),
                "body_links": [{"text": t, "href": h} for b in blocks if isinstance(b, str)
                               for t, h in re.findall(r"\[([^\]]+)\]\(([^)\s]+)\)", b)],
                "body_split": SPLIT in art["body"],
                "has_list": any(isinstance(b, dict) and "ul" in b for b in blocks),
                "has_quote": any(isinstance(b, dict) and "quote" in b for b in blocks),
                "comments": [text for _, text in art["comments"]],
            })
    return records


def _note(records: dict, path: str, via: str, anchor: str) -> None:
    rec = records.get(path)
    if rec is None:
        return
    if anchor not in rec["listing_titles"]:
        rec["listing_titles"].append(anchor)
    if via not in rec["discovered_via"]:
        rec["discovered_via"].append(via)


def build_catalogues(records: dict, headers: dict) -> list[dict]:
    out = []
    for lang, (pages, lists) in CATALOGUES.items():
        for n, (page_path, paths) in enumerate(zip(pages, lists, strict=True)):
            entries = []
            for p in paths:
                if p == PRIVATE_PATH:
                    entries.append({"path": p, "anchor": "Embargoed: draft city budget summary (staff only)",
                                    "date": "2026-11-18", "summary": "Internal draft."})
                    continue
                art = BY_PATH[p]
                entries.append({"path": p, "anchor": art["listing_title"], "date": art["published"][:10],
                                "summary": art["description"]})
            focus = BY_PATH[paths[0]] if n == 0 else None
            page = render_catalogue(lang, page_path, n + 1, pages, entries, focus)
            encoding = "gbk" if lang == "zh" else "utf-8"
            _write(page_path, page.encode(encoding))
            if encoding != "utf-8":
                headers[page_path] = {"Content-Type": "text/html"}
            for e in entries:
                _note(records, e["path"], page_path, e["anchor"])
            if focus is not None:
                _note(records, focus["path"], page_path, focus["title"])
            out.append({
                "path": page_path, "lang": lang, "page": n + 1, "encoding": encoding,
                "next": pages[n + 1] if n + 1 < len(pages) else None,
                "entries": ([{"path": focus["path"], "anchor": focus["title"]}] if focus else [])
                + [{"path": e["path"], "anchor": e["anchor"]} for e in entries],
                "external_links": sorted(set(EXTERNAL_LINK_RE.findall(page))),
            })
    return out


def _rfc822(iso: str) -> str:
    return format_datetime(datetime.fromisoformat(iso))


def _feed_item(path: str) -> dict:
    if path == OFF_HOST_URL:
        return dict(OFF_HOST_ITEM, url=path, author=None)
    art = BY_PATH[path]
    return {"url": path, "title": art.get("feed_title", art["title"]), "published": art["published"],
            "modified": art.get("modified") or art["published"], "description": art["description"],
            "author": art["author"]}


def render_rss(lang: str, items: list[dict], paths: list[str]) -> str:
    meta = {
        "zh": ("江城日报 - 滚动新闻", "/index.html", "江城日报最新新闻", "zh-cn"),
        "en": ("Harbor City Herald - Latest", "/en/world/index.html", "Latest stories from the Herald",
               "en-us"),
    }[lang]
    newest = max(datetime.fromisoformat(i["published"]) for i in items)
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           '<rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/">', "<channel>",
           f"<title>{html.escape(meta[0])}</title>", f"<link>{meta[1]}</link>",
           f"<description>{html.escape(meta[2])}</description>", f"<language>{meta[3]}</language>",
           f"<lastBuildDate>{format_datetime(newest.astimezone(UTC), usegmt=True)}</lastBuildDate>"]
    for path, it in zip(paths, items, strict=True):
        out.append("<item>")
        out.append(f"<title>{html.escape(it['title'], quote=False)}</title>")
        out.append(f"<link>{html.escape(it['url'])}</link>")
        out.append(f'<guid isPermaLink="false">{lang}-{abs(_stable_hash(path))}</guid>')
        out.append(f"<pubDate>{_rfc822(it['published'])}</pubDate>")
        out.append(f"<description>{html.escape(it['description'], quote=False)}</description>")
        if path in DC_CREATOR:
            out.append(f"<dc:creator>{html.escape(it['author'], quote=False)}</dc:creator>")
        out.append("</item>")
    out += ["</channel>", "</rss>", ""]
    return "\n".join(out)


def render_atom(items: list[dict]) -> str:
    updated = max(i["modified"] for i in items)
    out = ['<?xml version="1.0" encoding="utf-8"?>',
           '<feed xmlns="http://www.w3.org/2005/Atom" xml:lang="ru">',
           "<title>Северный вестник — новости</title>",
           '<link rel="alternate" type="text/html" href="/ru/society/index.html"/>',
           '<link rel="self" type="application/atom+xml" href="/atom/ru.xml"/>',
           "<id>tag:severny-vestnik.example,2026:feed</id>", f"<updated>{updated}</updated>"]
    for it in items:
        slug = it["url"].rsplit("/", 1)[-1].removesuffix(".html")
        out += ["<entry>", f"<title>{html.escape(it['title'], quote=False)}</title>",
                f'<link rel="alternate" type="text/html" href="{html.escape(it["url"])}"/>',
                f"<id>tag:severny-vestnik.example,2026:{slug}</id>",
                f"<published>{it['published']}</published>", f"<updated>{it['modified']}</updated>",
                f"<author><name>{html.escape(it['author'], quote=False)}</name></author>",
                f'<summary type="text">{html.escape(it["description"], quote=False)}</summary>', "</entry>"]
    out += ["</feed>", ""]
    return "\n".join(out)


def _stable_hash(text: str) -> int:
    """A small deterministic hash (Python's hash() is salted per process)."""
    h = 0
    for ch in text.encode():
        h = (h * 131 + ch) % 1_000_000_007
    return h


def build_feeds(records: dict, headers: dict) -> list[dict]:
    out = []
    for feed_path, (fmt, lang, paths) in FEEDS.items():
        items = [_feed_item(p) for p in paths]
        text = render_rss(lang, items, paths) if fmt == "rss" else render_atom(items)
        _write(feed_path, text.encode("utf-8"))
        headers[feed_path] = {"Content-Type": f"application/{fmt}+xml; charset=utf-8"}
        for p, it in zip(paths, items, strict=True):
            _note(records, p, feed_path, it["title"])
        out.append({"path": feed_path, "format": fmt, "lang": lang,
                    "entries": [{"url": p, "title": it["title"], "published": it["published"]}
                                for p, it in zip(paths, items, strict=True)],
                    "off_host": [p for p in paths if p.startswith("http")]})
    return out


def build_json_list(records: dict, headers: dict) -> dict:
    items = []
    for p in TECH_ARTICLES:
        art = BY_PATH[p]
        items.append({"title": art["api_title"], "url": p, "time": art["published"][:16].replace("T", " ")})
        _note(records, p, TECH_API, art["api_title"])
    payload = {"code": 0, "channel": "tech", "items": items, "page": 1, "has_more": False}
    _write(TECH_API, (json.dumps(payload, ensure_ascii=False, indent=2) + "\n").encode("utf-8"))
    headers[TECH_API] = {"Content-Type": "application/json; charset=utf-8"}
    _write(TECH_INDEX, render_tech_index(TECH_API).encode("utf-8"))
    for p in TECH_ARTICLES:
        records[p]["discovered_via"].insert(0, TECH_INDEX)
    return {"page": TECH_INDEX, "api": TECH_API, "entries": [{"path": i["url"], "anchor": i["title"]}
                                                             for i in items]}


CSS = """body{font-family:sans-serif;margin:0;color:#222}a{color:#0645ad}
.nav ul,.site-nav ul,.menu{list-style:none;margin:0;padding:0}
.nav li,.site-nav li,.menu li{display:inline;margin:0 6px}
.ad,.ad-inline,.advert,.banner{background:#f4f4f4;border:1px dashed #bbb;padding:8px;font-size:12px}
.comments,.comment-box{border-top:1px solid #ddd;margin-top:16px}footer,.footer{font-size:12px;color:#777}
"""


def main() -> None:
    if SITE_DIR.exists():
        shutil.rmtree(SITE_DIR)
    headers: dict[str, dict[str, str]] = {}
    record_list = build_articles(headers)
    records = {r["path"]: r for r in record_list}
    catalogues = build_catalogues(records, headers)
    json_list = build_json_list(records, headers)
    feeds = build_feeds(records, headers)

    _write(PRIVATE_PATH, render_private().encode("utf-8"))
    _write("/index.html", render_home().encode("utf-8"))
    _write("/robots.txt", b"User-agent: *\nDisallow: /private/\n")
    headers["/robots.txt"] = {"Content-Type": "text/plain; charset=utf-8"}
    _write("/static/site.css", CSS.encode("utf-8"))

    manifest = {
        "description": "Ground truth for the newscrawl offline demo site; built by build_demo.py.",
        "site_root": "data/demo/site",
        "home": "/index.html",
        "robots": "/robots.txt",
        "start_urls": ["/index.html"] + [c["path"] for c in catalogues if c["page"] == 1]
        + [TECH_INDEX] + list(FEEDS),
        "articles": record_list,
        "expected_article_paths": sorted(records),
        "catalogues": catalogues,
        "json_lists": [json_list],
        "feeds": feeds,
        "private": {"path": PRIVATE_PATH, "disallowed_by": "/robots.txt", "linked_from": [
            c["path"] for c in catalogues if any(e["path"] == PRIVATE_PATH for e in c["entries"])]},
        "off_host_links": [{"url": OFF_HOST_URL, "listed_in": [f["path"] for f in feeds if f["off_host"]]}],
        "other_pages": ["/index.html", TECH_INDEX, "/static/site.css"],
        "counts": {lang: {enc: sum(1 for r in record_list if r["lang"] == lang and r["encoding"] == enc)
                          for enc in sorted({r["encoding"] for r in record_list if r["lang"] == lang})}
                   for lang in LANGS},
    }
    (HERE / "manifest.json").write_text(json.dumps(manifest, ensure_ascii=False, indent=1) + "\n", "utf-8")
    (HERE / "headers.json").write_text(json.dumps(dict(sorted(headers.items())), ensure_ascii=False, indent=1)
                                       + "\n", "utf-8")
    size = sum(f.stat().st_size for f in SITE_DIR.rglob("*") if f.is_file())
    print(f"built {len(record_list)} articles, {len(catalogues)} catalogue pages, {len(feeds)} feeds; "
          f"site size {size} bytes")


# keep the helpers importable for check_manifest.py
__all__ = ["main", "block_html", "plain"]

if __name__ == "__main__":
    main()
