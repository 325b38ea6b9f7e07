"""Check that data/demo/manifest.json tells the truth about data/demo/site/.

Parses every page with lxml and every feed with feedparser and verifies, for each article: the declared
charset matches the manifest and decodes strictly, the served Content-Type (headers.json) carries no
contradicting charset, the <h1> equals the title, every manifest paragraph is the text of a body block in
the page (in order), author/visible date/meta/JSON-LD dates agree, length limits hold. Also checks that
catalogue, feed and JSON-list entries are where the manifest says, every article is reachable, the
private page is disallowed by robots.txt, and every same-site link in the site resolves to a file.

Run: ``python data/demo/check_manifest.py`` (exit status 1 and a list of problems on failure).
"""

from __future__ import annotations

import json
import re
import sys
from datetime import datetime
from email.utils import parsedate_to_datetime
from pathlib import Path
from urllib.parse import urljoin, urlsplit
from urllib.robotparser import RobotFileParser

import feedparser
import lxml.html

HERE = Path(__file__).resolve().parent
SITE = HERE / "site"
BASE = "http://127.0.0.1:8000"
CHARSET_RE = re.compile(rb"""<meta[^>]+charset=["']?([\w-]+)""", re.I)
LIMITS = {"en": (80, 600), "ru": (80, 600), "zh": (150, 1200)}

problems: list[str] = []


def fail(msg: str) -> None:
    problems.append(msg)


def norm(text: str) -> str:
    return " ".join(text.split())


def site_file(path: str) -> Path:
    return SITE / urlsplit(path).path.lstrip("/")


def decode_page(path: str) -> tuple[str, str]:
    """(declared charset, text) of a site page, decoded strictly with its <meta> declaration."""
    raw = site_file(path).read_bytes()
    m = CHARSET_RE.search(raw[:2048])
    declared = m.group(1).decode().lower() if m else "utf-8"
    try:
        return declared, raw.decode(declared)
    except UnicodeDecodeError as exc:
        fail(f"{path}: does not decode as declared {declared}: {exc}")
        return declared, raw.decode(declared, errors="replace")


def same_instant(a: str, b: str) -> bool:
    def parse(value: str) -> datetime:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))

    return parse(a) == parse(b)


def _ld_names(value) -> list[str]:
    """Person names of a JSON-LD ``author`` (one object or a list)."""
    people = value if isinstance(value, list) else [value]
    return [p.get("name") for p in people if isinstance(p, dict)]


def _is_day_or_instant(value: str) -> bool:
    """"2026-11-15" (a day), or a date-time that carries its offset (no invented midnight UTC)."""
    if len(value) == 10:
        return bool(re.fullmatch(r"\d{4}-\d{2}-\d{2}", value))
    try:
        return datetime.fromisoformat(value).utcoffset() is not None
    except ValueError:
        return False


def check_article(art: dict, headers: dict) -> None:
    path = art["path"]
    declared, text = decode_page(path)
    if declared != art["encoding"]:
        fail(f"{path}: declares {declared}, manifest says {art['encoding']}")
    served = headers.get(path, {}).get("Content-Type", "text/html; charset=utf-8")
    if served != art["content_type"]:
        fail(f"{path}: headers.json serves {served!r}, manifest says {art['content_type']!r}")
    if art["encoding"] != "utf-8" and "charset" in served:
        fail(f"{path}: non-UTF-8 page served with a charset in Content-Type")
    root = lxml.html.fromstring(text)

    h1s = [norm(h.text_content()) for h in root.iter("h1")]
    if h1s != [art["title"]]:
        fail(f"{path}: h1 {h1s} != title {art['title']!r}")
    title_tag = norm(root.findtext(".//title") or "")
    if title_tag != art["title_tag"] or art["title"] not in title_tag:
        fail(f"{path}: <title> {title_tag!r} does not match")

    blocks = [norm(el.text_content()) for el in root.iter("p", "li", "blockquote")]
    pos = -1
    for para in art["paragraphs"]:
        if para not in blocks:
            fail(f"{path}: paragraph not found as a block: {para[:60]!r}")
            continue
        nxt = blocks.index(para, pos + 1) if para in blocks[pos + 1:] else -1
        if nxt < 0:
            fail(f"{path}: paragraph out of order: {para[:60]!r}")
        pos = max(pos, nxt)
    page_text = norm(root.text_content())
    for comment in art["comments"]:
        if comment not in page_text or comment in art["paragraphs"]:
            fail(f"{path}: comment {comment!r} missing or part of the body")
    if art["author"] not in page_text:
        fail(f"{path}: author {art['author']!r} not on the page")
    if not art["authors"] or any(name not in art["author"] for name in art["authors"]):
        fail(f"{path}: authors {art['authors']!r} are not the people of the byline {art['author']!r}")
    if not _is_day_or_instant(art["published"]):
        fail(f"{path}: published {art['published']!r} is neither a date nor a date-time with offset")
    if norm(art["published_visible"]) not in page_text:
        fail(f"{path}: visible date {art['published_visible']!r} not on the page")
    if art["published_date"] != art["published"][:10]:
        fail(f"{path}: published_date inconsistent")
    digits = re.sub(r"\D", "", art["published_date"])
    if digits not in re.sub(r"\D", "", path):
        fail(f"{path}: URL does not carry the publication date {art['published_date']}")

    metas = root.xpath('//meta[@property="article:published_time"]/@content')
    if ("meta" in art["published_machine_readable"]) != bool(metas):
        fail(f"{path}: article:published_time presence disagrees with manifest")
    for value in metas:
        if not same_instant(value, art["published"]):
            fail(f"{path}: meta published_time {value} != {art['published']}")
    lds = [json.loads(s) for s in root.xpath('//script[@type="application/ld+json"]/text()')]
    if ("json-ld" in art["published_machine_readable"]) != bool(lds):
        fail(f"{path}: JSON-LD presence disagrees with manifest")
    for ld in lds:
        if ld.get("@type") != "NewsArticle" or ld.get("headline") != art["title"] \
                or not same_instant(ld["datePublished"], art["published"]) \
                or _ld_names(ld.get("author")) != art["authors"]:
            fail(f"{path}: JSON-LD disagrees with manifest")
    times = root.xpath("//time/@datetime")
    if ("time-datetime" in art["published_machine_readable"]) != bool(times):
        fail(f"{path}: <time datetime> presence disagrees with manifest")

    anchors = {(norm(a.text_content()), a.get("href")) for a in root.iter("a")}
    for link in art["body_links"]:
        if (link["text"], link["href"]) not in anchors:
            fail(f"{path}: body link {link} missing")

    body = "".join(art["paragraphs"])
    size = len(re.sub(r"\s", "", body)) if art["lang"] == "zh" else len(body.split())
    low, high = LIMITS[art["lang"]]
    if not low <= size <= high:
        fail(f"{path}: body size {size} outside {low}-{high}")
    if not art["discovered_via"]:
        fail(f"{path}: not reachable from any catalogue, feed or JSON list")


def check_catalogues(manifest: dict) -> set[str]:
    found = set()
    for cat in manifest["catalogues"]:
        declared, text = decode_page(cat["path"])
        if declared != cat["encoding"]:
            fail(f"{cat['path']}: declares {declared}, manifest says {cat['encoding']}")
        root = lxml.html.fromstring(text)
        url = BASE + cat["path"]
        links = {(norm(a.text_content()), urljoin(url, a.get("href", ""))) for a in root.iter("a")}
        for entry in cat["entries"]:
            if (entry["anchor"], BASE + entry["path"]) not in links:
                fail(f"{cat['path']}: no link {entry['anchor']!r} -> {entry['path']}")
            found.add(entry["path"])
        nexts = [urljoin(url, h) for h in root.xpath('//a[@rel="next"]/@href')]
        expected = [BASE + cat["next"]] if cat["next"] else []
        if nexts != expected:
            fail(f"{cat['path']}: next links {nexts} != {expected}")
        if not cat["external_links"]:
            fail(f"{cat['path']}: no off-site links to ignore")
    return found


def check_feeds(manifest: dict, articles: dict) -> set[str]:
    found = set()
    for feed in manifest["feeds"]:
        parsed = feedparser.parse(site_file(feed["path"]).read_bytes())
        if parsed.bozo:
            fail(f"{feed['path']}: feedparser reports {parsed.bozo_exception!r}")
        version = parsed.version or ""
        if not version.startswith(feed["format"]):
            fail(f"{feed['path']}: parsed as {version}, manifest says {feed['format']}")
        got = [(e.get("link"), norm(e.get("title", ""))) for e in parsed.entries]
        want = [(e["url"], e["title"]) for e in feed["entries"]]
        if got != want:
            fail(f"{feed['path']}: entries {got} != {want}")
        for entry, item in zip(feed["entries"], parsed.entries, strict=False):
            if entry["url"].startswith("http"):
                continue
            art = articles.get(entry["url"])
            if art is None:
                fail(f"{feed['path']}: entry {entry['url']} is not a manifest article")
                continue
            if not same_instant(_feed_time(item), art["published"]):
                fail(f"{feed['path']}: {entry['url']} published {item.get('published')} "
                     f"!= {art['published']}")
            found.add(entry["url"])
        for url in feed["off_host"]:
            if urlsplit(url).hostname in (None, "127.0.0.1"):
                fail(f"{feed['path']}: off-host link {url} is not off-host")
    return found


def _feed_time(item) -> str:
    """The entry's date as ISO 8601 (RSS uses RFC 822, Atom already ISO 8601)."""
    raw = item.get("published", "")
    try:
        return parsedate_to_datetime(raw).isoformat()
    except (TypeError, ValueError):
        return raw


def check_json_lists(manifest: dict) -> set[str]:
    found = set()
    for jl in manifest["json_lists"]:
        data = json.loads(site_file(jl["api"]).read_text("utf-8"))
        got = [{"path": i["url"], "anchor": i["title"]} for i in data["items"]]
        if got != jl["entries"]:
            fail(f"{jl['api']}: items disagree with manifest")
        root = lxml.html.fromstring(site_file(jl["page"]).read_text("utf-8"))
        if root.xpath(f'//*[@data-list-api="{jl["api"]}"]/*'):
            fail(f"{jl['page']}: list container should be empty in HTML")
        if not root.xpath(f'//*[@data-list-api="{jl["api"]}"]'):
            fail(f"{jl['page']}: no data-list-api container")
        found |= {i["url"] for i in data["items"]}
    return found


def check_links() -> int:
    """Every same-site href/src in the HTML pages and feeds points to an existing file."""
    checked = 0
    for file in sorted(SITE.rglob("*")):
        if file.suffix not in {".html", ".htm", ".xml"}:
            continue
        page_url = BASE + "/" + file.relative_to(SITE).as_posix()
        raw = file.read_bytes()
        hrefs = re.findall(rb'(?:href|src)="([^"]*)"', raw) + re.findall(rb"<link>([^<]*)</link>", raw)
        for href in hrefs:
            url = urljoin(page_url, href.decode("ascii", errors="replace"))
            parts = urlsplit(url)
            if parts.scheme not in ("http", "https") or parts.netloc != urlsplit(BASE).netloc:
                continue
            checked += 1
            if not site_file(parts.path).is_file():
                fail(f"{page_url}: broken link {href.decode()}")
    return checked


def main() -> int:
    manifest = json.loads((HERE / "manifest.json").read_text("utf-8"))
    headers = json.loads((HERE / "headers.json").read_text("utf-8"))
    articles = {a["path"]: a for a in manifest["articles"]}

    for path in headers:
        if not site_file(path).is_file():
            fail(f"headers.json: {path} is not a file")
    for art in manifest["articles"]:
        check_article(art, headers)
    reached = check_catalogues(manifest) | check_feeds(manifest, articles) | check_json_lists(manifest)

    private = manifest["private"]["path"]
    if private in articles:
        fail("private page listed as an article")
    if private not in reached:
        fail("private page is not linked from any catalogue")
    robots = RobotFileParser()
    robots.parse(site_file("/robots.txt").read_text("utf-8").splitlines())
    allowed = robots.can_fetch("newscrawl", BASE + "/index.html")
    if robots.can_fetch("newscrawl", BASE + private) or not allowed:
        fail("robots.txt does not disallow exactly /private/")
    reached.discard(private)
    if reached != set(articles) or sorted(articles) != manifest["expected_article_paths"]:
        fail(f"reachable set differs: extra {reached - set(articles)}, missing {set(articles) - reached}")
    for art in manifest["articles"]:
        for via in art["discovered_via"]:
            if not site_file(via).is_file():
                fail(f"{art['path']}: discovered_via {via} is not a file")

    links = check_links()
    size = sum(f.stat().st_size for f in SITE.rglob("*") if f.is_file())
    if size > 2_000_000:
        fail(f"site is {size} bytes, over 2 MB")

    counts: dict[str, dict[str, int]] = {}
    for art in manifest["articles"]:
        counts.setdefault(art["lang"], {}).setdefault(art["encoding"], 0)
        counts[art["lang"]][art["encoding"]] += 1
    if counts != manifest["counts"]:
        fail(f"counts {counts} != manifest counts {manifest['counts']}")
    templates = {(a["lang"], a["template"]) for a in manifest["articles"]}
    for lang in counts:
        if sum(1 for lg, _ in templates if lg == lang) < 3:
            fail(f"{lang}: fewer than 3 article templates")

    print(f"articles: {len(articles)}  per language/encoding: {json.dumps(counts, sort_keys=True)}")
    print(f"catalogue pages: {len(manifest['catalogues'])}  feeds: {len(manifest['feeds'])}  "
          f"json lists: {len(manifest['json_lists'])}  same-site links checked: {links}  site bytes: {size}")
    print(f"paragraphs checked: {sum(len(a['paragraphs']) for a in manifest['articles'])}")
    if problems:
        print(f"FAILED: {len(problems)} problem(s)")
        for p in problems:
            print("  -", p)
        return 1
    print("OK: manifest matches the site")
    return 0


if __name__ == "__main__":
    sys.exit(main())
