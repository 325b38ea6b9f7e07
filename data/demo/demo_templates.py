# ruff: noqa: E501  (prose and HTML template lines; CJK text counts double width)
"""Page templates of the demo site: three article layouts per language, catalogues, home, tech index.

Every function returns a ``str``; build_demo.py encodes it with the page's declared charset. Article
renderers also return ``info`` (the <title> text, the visible date string and which machine-readable
dates the page carries) for the manifest.
"""

from __future__ import annotations

import html
import json
import re
from datetime import UTC, datetime, timedelta

SPLIT = "<<split>>"
LINK_RE = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)")
EN_MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
             "October", "November", "December"]
RU_MONTHS = ["января", "февраля", "марта", "апреля", "мая", "июня", "июля", "августа", "сентября",
             "октября", "ноября", "декабря"]
SITE_NAMES = {"zh": "江城日报", "en": "Harbor City Herald", "ru": "Северный вестник"}


# ---------------------------------------------------------------- text helpers

def esc(text: str) -> str:
    return html.escape(text, quote=False)


def attr(text: str) -> str:
    return html.escape(text, quote=True)


def plain(text: str) -> str:
    """Paragraph markup -> visible text (link markup replaced by its anchor text)."""
    return LINK_RE.sub(lambda m: m.group(1), text)


def inline(text: str) -> str:
    """Paragraph markup -> HTML, turning ``[text](url)`` into anchors."""
    out, pos = [], 0
    for m in LINK_RE.finditer(text):
        out.append(esc(text[pos:m.start()]))
        out.append(f'<a href="{attr(m.group(2))}">{esc(m.group(1))}</a>')
        pos = m.end()
    out.append(esc(text[pos:]))
    return "".join(out)


def block_html(block, indent: str = "") -> str:
    if isinstance(block, str):
        return f"<p>{indent}{inline(block)}</p>"
    if "ul" in block:
        return "<ul>\n" + "\n".join(f"<li>{inline(item)}</li>" for item in block["ul"]) + "\n</ul>"
    return f"<blockquote><p>{inline(block['quote'])}</p></blockquote>"


def paragraphs_of(body: list) -> list[str]:
    """The body as the list of visible text blocks (paragraphs, list items, quotes), in order."""
    out = []
    for block in body:
        if block == SPLIT:
            continue
        if isinstance(block, str):
            out.append(plain(block))
        elif "ul" in block:
            out.extend(plain(item) for item in block["ul"])
        else:
            out.append(plain(block["quote"]))
    return out


def body_parts(article: dict, indent: str = "") -> tuple[str, str | None]:
    """HTML of the body before and after the SPLIT marker (second part None when unsplit)."""
    body = article["body"]
    if SPLIT in body:
        cut = body.index(SPLIT)
        first, rest = body[:cut], body[cut + 1:]
    else:
        first, rest = body, None
    render = lambda blocks: "\n".join(block_html(b, indent) for b in blocks)  # noqa: E731
    return render(first), (render(rest) if rest is not None else None)


def _dt(iso: str) -> datetime:
    return datetime.fromisoformat(iso)


def zh_date(d: datetime) -> str:
    return f"{d.year}年{d.month}月{d.day}日 {d:%H:%M}"


EN_ZONES = {timedelta(hours=-5): "EST", timedelta(hours=-8): "PST"}  # the bureaus' winter clocks


def en_date(d: datetime, style: str = "dots") -> str:
    hour = d.hour % 12 or 12
    zone = EN_ZONES[d.utcoffset()]
    if style == "dots":
        return f"{EN_MONTHS[d.month - 1]} {d.day}, {d.year}, {hour}:{d:%M} {'a.m.' if d.hour < 12 else 'p.m.'} {zone}"
    return f"{EN_MONTHS[d.month - 1]} {d.day}, {d.year} {hour}:{d:%M} {'AM' if d.hour < 12 else 'PM'} {zone}"


def ru_date(d: datetime, with_time: bool = True) -> str:
    day = f"{d.day} {RU_MONTHS[d.month - 1]} {d.year}"
    return f"{day}, {d:%H:%M}" if with_time else day


def has_time(a: dict) -> bool:
    """The article's publication is an instant ("2026-11-15T16:30:00+03:00"), not a day ("2026-11-15")."""
    return len(a["published"]) > 10


def _ld_people(names: list[str]) -> dict | list[dict]:
    people = [{"@type": "Person", "name": name} for name in names]
    return people[0] if len(people) == 1 else people


def authors_of(a: dict) -> list[str]:
    """The people in the byline (``author`` is the byline as shown)."""
    return a.get("authors") or [a["author"]]


def charset_tag(encoding: str, decl: str) -> str:
    if decl == "http-equiv":
        return f'<meta http-equiv="Content-Type" content="text/html; charset={encoding}" />'
    return f'<meta charset="{encoding}">'


def head_meta(a: dict, og: bool) -> tuple[str, list[str]]:
    """Description/OpenGraph/published-time meta tags and JSON-LD; returns (html, machine date kinds)."""
    lines = [f'<meta name="description" content="{attr(a["description"])}">']
    kinds = []
    if og:
        lines += [f'<meta property="og:title" content="{attr(a["title"])}">',
                  '<meta property="og:type" content="article">',
                  f'<meta property="og:site_name" content="{attr(SITE_NAMES[a["lang"]])}">']
    if a["meta_time"]:
        value = a["published"]
        if a.get("meta_time_utc"):
            value = _dt(value).astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        lines.append(f'<meta property="article:published_time" content="{value}">')
        if a.get("modified"):
            lines.append(f'<meta property="article:modified_time" content="{a["modified"]}">')
        kinds.append("meta")
    if a["json_ld"]:
        data = {
            "@context": "https://schema.org", "@type": "NewsArticle", "headline": a["title"],
            "description": a["description"], "datePublished": a["published"],
            "dateModified": a.get("modified") or a["published"],
            "author": _ld_people(authors_of(a)),
            "publisher": {"@type": "Organization", "name": SITE_NAMES[a["lang"]]},
            "inLanguage": {"zh": "zh-CN", "en": "en-US", "ru": "ru-RU"}[a["lang"]],
            "mainEntityOfPage": a["path"],
        }
        lines.append('<script type="application/ld+json">' + json.dumps(data, ensure_ascii=False) + "</script>")
        kinds.append("json-ld")
    return "\n".join(lines), kinds


def date_element(a: dict, text: str, cls: str) -> str:
    """A <time datetime> when the page has machine-readable dates anyway, else a plain span."""
    if a["meta_time"] or a["json_ld"]:
        return f'<time class="{cls}" datetime="{a["published"]}">{esc(text)}</time>'
    return f'<span class="{cls}">{esc(text)}</span>'


def comment_times(a: dict) -> list[datetime]:
    start = _dt(a["published"])
    return [start + timedelta(minutes=41 * (k + 1) + 7 * k * k) for k in range(len(a["comments"]))]


def related_label(r: dict) -> str:
    return r.get("listing_title") or r.get("feed_title") or r.get("api_title") or r["title"]


# ---------------------------------------------------------------- Chinese

ZH_NAV = """<ul>
<li><a href="/index.html">首页</a></li>
<li><a href="/zh/news/index.html">本地新闻</a></li>
<li><a href="/index.html#zh-finance">财经</a></li>
<li><a href="/index.html#zh-sports">体育</a></li>
<li><a href="/index.html#zh-culture">文化</a></li>
<li><a href="/rss/zh.xml">订阅</a></li>
<li><a href="/en/world/index.html">English</a></li>
<li><a href="https://example.org/jcrb/epaper">数字报</a></li>
</ul>"""

ZH_SECTION = {"news": "本地新闻", "finance": "财经", "sports": "体育", "culture": "文化"}


def zh_related(related: list[dict]) -> str:
    items = "\n".join(f'<li><a href="{r["path"]}">{esc(related_label(r))}</a>'
                      f'<span class="date">{_dt(r["published"]):%m-%d}</span></li>' for r in related)
    return f"<ul>\n{items}\n</ul>"


def zh_comments(a: dict) -> str:
    items = "\n".join(
        f'<li><div class="cmt-user">{esc(user)}</div><div class="cmt-text">{esc(text)}</div>'
        f'<div class="cmt-time">{t:%Y-%m-%d %H:%M}</div></li>'
        for (user, text), t in zip(a["comments"], comment_times(a), strict=True))
    return f'<ul class="comment-list">\n{items}\n</ul>'


def render_zh_news(a: dict, decl: str, related: list[dict]) -> tuple[str, dict]:
    d = _dt(a["published"])
    date_text = f"{d:%Y-%m-%d %H:%M:%S}"
    title_tag = f"{a['title']}_本地新闻_江城日报"
    meta, kinds = head_meta(a, og=False)
    first, rest = body_parts(a, indent="　　")
    sub = f'\n<h2 class="subtitle">{esc(a["subtitle"])}</h2>' if a.get("subtitle") else ""
    more = ""
    if rest is not None:
        more = ('\n<div class="ad-inline"><span class="ad-label">广告</span> '
                '<a href="https://example.org/ad/jc-decor">冬季家装节 满万减千 &gt;&gt;</a></div>\n'
                f'<div class="content content-more">\n{rest}\n</div>')
    page = f"""<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">
<html xmlns="http://www.w3.org/1999/xhtml">
<head>
{charset_tag(a["encoding"], decl)}
<title>{esc(title_tag)}</title>
<meta name="keywords" content="江城,本地新闻,{attr(a["author"])}" />
{meta}
<link href="/static/site.css" rel="stylesheet" type="text/css" />
</head>
<body>
<div id="topbar">欢迎访问江城日报网！ <a href="https://m.example.org/jcrb/">手机版</a> | <a href="https://example.org/jcrb/app">客户端下载</a> | <a href="javascript:;">登录</a></div>
<div class="nav">
{ZH_NAV}
</div>
<div class="crumb">当前位置：<a href="/index.html">首页</a> &gt; <a href="/zh/news/index.html">本地新闻</a> &gt; 正文</div>
<table class="layout" width="1000" border="0" cellspacing="0" cellpadding="0"><tr>
<td class="left" valign="top">
<div class="article">
<h1 id="title">{esc(a["title"])}</h1>{sub}
<div class="info"><span class="time">{date_text}</span>　来源：<span class="source">江城日报</span>　作者：<span class="author">{esc(a["author"])}</span>　<span class="fontsize">字号：<a href="javascript:;">大</a> <a href="javascript:;">中</a> <a href="javascript:;">小</a></span></div>
<div class="content" id="Content">
{first}
</div>{more}
<div class="editor">（责任编辑：周敏）</div>
<div class="share">分享到：<a href="https://example.org/share?to=weibo">微博</a> <a href="https://example.org/share?to=wechat">微信</a> <a href="https://example.org/share?to=qzone">QQ空间</a></div>
</div>
<div class="related"><h3>相关新闻</h3>
{zh_related(related)}
</div>
<div class="comment-box" id="comments"><h3>网友评论</h3>
{zh_comments(a)}
<p class="cmt-more"><a href="javascript:;">查看更多评论</a></p>
</div>
</td>
<td class="right" valign="top">
<div class="ad"><span class="ad-label">广告</span> <a href="https://example.org/ad/jc-motor">江城车展 十二月盛大开幕 &gt;&gt;</a></div>
<div class="hot"><h3>热点排行</h3>
{zh_related(list(reversed(related)))}
</div>
</td>
</tr></table>
<div class="footer">
<p><a href="https://example.org/jcrb/about">关于我们</a> | <a href="https://example.org/jcrb/contact">联系方式</a> | <a href="https://example.org/jcrb/ads">广告服务</a></p>
<p>Copyright &copy; 2026 江城日报社 版权所有 未经授权禁止转载</p>
<p>示例ICP备00000000号</p>
</div>
</body>
</html>
"""
    return page, {"title_tag": title_tag, "date_text": date_text, "machine_dates": kinds}


def render_zh_finance(a: dict, decl: str, related: list[dict]) -> tuple[str, dict]:
    d = _dt(a["published"])
    date_text = zh_date(d)
    title_tag = f"{a['title']}_财经频道_江城日报"
    meta, kinds = head_meta(a, og=True)
    first, rest = body_parts(a)
    more = ""
    if rest is not None:
        more = ('\n<aside class="ad-inline"><span class="ad-label">广告</span> '
                '<a href="https://example.org/ad/wealth">稳健理财，安心过冬</a></aside>\n'
                f'<section class="article-body article-body--more">\n{rest}\n</section>')
    comments = "\n".join(
        f'<div class="comment"><span class="user">{esc(u)}</span><p class="text">{esc(t)}</p>'
        f'<span class="time">{zh_date(ts)}</span></div>'
        for (u, t), ts in zip(a["comments"], comment_times(a), strict=True))
    page = f"""<!doctype html>
<html lang="zh-CN">
<head>
{charset_tag(a["encoding"], decl)}
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{esc(title_tag)}</title>
{meta}
<link rel="stylesheet" href="/static/site.css">
</head>
<body>
<header class="site-header">
<a class="logo" href="/index.html">江城日报 财经</a>
<nav class="site-nav">
{ZH_NAV}
</nav>
<form class="search" action="https://example.org/search"><input name="q" placeholder="搜索新闻"><button>搜索</button></form>
</header>
<div class="breadcrumb"><a href="/index.html">首页</a> / <a href="/index.html#zh-finance">财经</a> / 正文</div>
<main class="container">
<article class="article">
<header class="article-header">
<h1 class="article-title">{esc(a["title"])}</h1>
<div class="article-meta"><span class="date">{date_text}</span> <span class="source">来源：江城日报财经频道</span> <span class="author">记者 {esc(a["author"])}</span></div>
</header>
<div class="article-summary"><strong>摘要：</strong>{esc(a["description"])}</div>
<section class="article-body">
{first}
</section>{more}
<div class="article-tags">标签：<a href="/index.html#zh-finance">江城经济</a> <a href="/index.html#zh-finance">民生</a></div>
<div class="share-bar">分享：<button type="button">微信</button> <button type="button">微博</button> <button type="button">复制链接</button></div>
</article>
<aside class="sidebar">
<section class="market"><h2>行情速递</h2>
<ul><li>江城指数 1,482.36 +0.42%</li><li>滨江板块 903.11 -0.17%</li><li>人民币中间价 7.1024</li></ul>
</section>
<section class="ad"><span class="ad-label">广告</span> <a href="https://example.org/ad/card">新客办卡 首年免年费</a></section>
<section class="related"><h2>财经要闻</h2>
{zh_related(related)}
</section>
</aside>
</main>
<section class="comments" id="comments"><h2>评论（{len(a["comments"])}）</h2>
{comments}
</section>
<footer class="site-footer"><p>&copy; 2026 江城日报社 版权所有</p><p><a href="https://example.org/jcrb/about">关于我们</a> · <a href="https://example.org/jcrb/privacy">隐私政策</a></p></footer>
</body>
</html>
"""
    return page, {"title_tag": title_tag, "date_text": date_text, "machine_dates": kinds}


def render_zh_feature(a: dict, decl: str, related: list[dict]) -> tuple[str, dict]:
    d = _dt(a["published"])
    date_text = zh_date(d)
    section = ZH_SECTION[a["section"]]
    title_tag = f"{a['title']}_{section}_江城日报"
    meta, kinds = head_meta(a, og=False)
    first, rest = body_parts(a)
    more = ""
    if rest is not None:
        more = ('\n<div class="ad-box"><span class="ad-label">广告</span> '
                '<a href="https://example.org/ad/gym">健身房年卡 限时八折</a></div>\n'
                f'<div class="bd bd-more">\n{rest}\n</div>')
    sub_links = {"sports": ("篮球", "足球", "综合"), "culture": ("展览", "读书", "演出")}[a["section"]]
    comments = "\n".join(
        f'<div class="cmt"><b>{esc(u)}</b>：{esc(t)} <i>{ts:%m-%d %H:%M}</i></div>'
        for (u, t), ts in zip(a["comments"], comment_times(a), strict=True))
    page = f"""<!DOCTYPE html>
<html>
<head>
{charset_tag(a["encoding"], decl)}
<title>{esc(title_tag)}</title>
{meta}
<link rel="stylesheet" href="/static/site.css">
</head>
<body>
<div class="header">
<div class="logo"><a href="/index.html">江城日报</a> {section}频道</div>
<div class="nav">
{ZH_NAV}
</div>
</div>
<div class="channel-nav">{" ".join(f'<a href="/index.html#zh-{a["section"]}">{s}</a>' for s in sub_links)}</div>
<div class="wrap">
<div class="position">您的位置：<a href="/index.html">首页</a> &gt; <a href="/index.html#zh-{a["section"]}">{section}</a> &gt; 正文</div>
<div class="article-box">
<div class="hd">
<h1>{esc(a["title"])}</h1>
<p class="byline">文/{esc(a["author"])}</p>
<p class="time">发布时间：{date_text}　　编辑：何峰</p>
</div>
<div class="bd" id="article-body">
{first}
</div>{more}
<div class="ft">【<a href="javascript:window.print()">打印</a>】【<a href="javascript:window.close()">关闭</a>】</div>
</div>
<div class="ad-box"><span class="ad-label">广告</span> <a href="https://example.org/ad/travel">冬游江城 温泉季</a></div>
<div class="pic-news"><h2>图片新闻</h2><ul><li><a href="/zh/news/index.html">组图：江城迎来今冬初雪</a></li><li><a href="/zh/news/index.html">组图：滨江夜景</a></li></ul></div>
<div class="related"><h2>延伸阅读</h2>
{zh_related(related)}
</div>
<div class="comments"><div class="title">热门评论</div>
{comments}
</div>
</div>
<div class="footer"><p>江城日报社主办 版权所有 Copyright &copy; 2026</p><p><a href="https://example.org/jcrb/report">违法和不良信息举报</a></p></div>
</body>
</html>
"""
    return page, {"title_tag": title_tag, "date_text": date_text, "machine_dates": kinds}


# ---------------------------------------------------------------- English

EN_NAV = """<ul>
<li><a href="/index.html">Home</a></li>
<li><a href="/en/world/index.html">Latest</a></li>
<li><a href="/index.html#en-world">World</a></li>
<li><a href="/index.html#en-local">Local</a></li>
<li><a href="/index.html#en-science">Science</a></li>
<li><a href="/index.html#en-sport">Sport</a></li>
<li><a href="/en/tech/index.html">Tech</a></li>
<li><a href="/rss/en.xml">RSS</a></li>
<li><a href="https://example.org/herald/subscribe">Subscribe</a></li>
</ul>"""


def en_related(related: list[dict]) -> str:
    items = "\n".join(f'<li><a href="{r["path"]}">{esc(related_label(r))}</a> '
                      f'<span class="date">{EN_MONTHS[_dt(r["published"]).month - 1][:3]} '
                      f'{_dt(r["published"]).day}</span></li>' for r in related)
    return f"<ul>\n{items}\n</ul>"


def render_en_world(a: dict, decl: str, related: list[dict]) -> tuple[str, dict]:
    date_text = en_date(_dt(a["published"]))
    title_tag = f"{a['title']} | Harbor City Herald"
    meta, kinds = head_meta(a, og=True)
    if a["meta_time"] or a["json_ld"]:
        kinds = kinds + ["time-datetime"]
    first, rest = body_parts(a)
    sub = f'\n<h2 class="dek">{esc(a["subtitle"])}</h2>' if a.get("subtitle") else ""
    updated = ""
    if a.get("modified"):
        updated = f'\n<div class="updated">Updated {esc(en_date(_dt(a["modified"])))}</div>'
    more = ""
    if rest is not None:
        more = ('\n<div class="ad-inline"><p class="ad-label">Advertisement</p>'
                '<a href="https://example.org/ads/insurance">Compare home insurance quotes in minutes</a></div>\n'
                f'<div class="story-body story-body--continued">\n{rest}\n</div>')
    section = a["section"].capitalize()
    comments = "\n".join(
        f'<div class="comment"><p class="comment-author">{esc(u)}</p><p class="comment-body">{esc(t)}</p>'
        f'<p class="comment-time">{esc(en_date(ts))}</p></div>'
        for (u, t), ts in zip(a["comments"], comment_times(a), strict=True))
    page = f"""<!DOCTYPE html>
<html lang="en">
<head>
{charset_tag(a["encoding"], decl)}
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{esc(title_tag)}</title>
{meta}
<link rel="stylesheet" href="/static/site.css">
</head>
<body>
<div class="banner ad"><span class="ad-label">Advertisement</span> <a href="https://example.org/ads/winter-sale">Winter sale: 30% off at Dockside Outfitters</a></div>
<header class="masthead">
<a class="brand" href="/index.html">Harbor City Herald</a>
<nav class="site-nav">
{EN_NAV}
</nav>
</header>
<nav class="breadcrumbs"><a href="/index.html">Home</a> › <a href="/index.html#en-{a["section"]}">{section}</a></nav>
<main>
<article class="story">
<h1 class="headline">{esc(a["title"])}</h1>{sub}
<div class="byline">By <span class="author">{esc(a["author"])}</span>, Herald staff</div>
<div class="timestamp">{date_element(a, date_text, "published")}</div>{updated}
<div class="story-body">
{first}
</div>{more}
<div class="share"><a href="https://example.org/share?network=x">Share on X</a> <a href="https://example.org/share?network=facebook">Facebook</a> <a href="mailto:?subject=Herald%20story">Email</a></div>
</article>
<aside class="related"><h2>More from the Herald</h2>
{en_related(related)}
</aside>
<section class="comments" id="comments"><h2>Comments ({len(a["comments"])})</h2>
{comments}
</section>
</main>
<footer><p>&copy; 2026 Harbor City Herald. All rights reserved.</p><p><a href="https://example.org/herald/privacy">Privacy</a> · <a href="https://example.org/herald/terms">Terms</a></p></footer>
</body>
</html>
"""
    return page, {"title_tag": title_tag, "date_text": date_text, "machine_dates": kinds}


def render_en_feature(a: dict, decl: str, related: list[dict]) -> tuple[str, dict]:
    date_text = en_date(_dt(a["published"]), style="caps")
    section = a["section"].capitalize()
    title_tag = f"{a['title']} - {section} - Harbor City Herald"
    meta, kinds = head_meta(a, og=False)
    first, rest = body_parts(a)
    more = ""
    if rest is not None:
        more = ('\n<div class="advert"><p>Advertisement</p><a href="https://example.org/ads/gym">'
                'First month free at Pier Fitness</a></div>\n'
                f'<div class="entry-content entry-content--more">\n{rest}\n</div>')
    comments = "\n".join(f'<li><cite>{esc(u)}</cite> <span class="says">says:</span><p>{esc(t)}</p></li>'
                         for u, t in a["comments"])
    page = f"""<!DOCTYPE html>
<html lang="en-US">
<head>
{charset_tag(a["encoding"], decl)}
<title>{esc(title_tag)}</title>
{meta}
<link rel="stylesheet" href="/static/site.css">
</head>
<body class="section-{a["section"]}">
<div id="wrapper">
<div class="topnav">
<a class="brand" href="/index.html">Harbor City Herald</a>
{EN_NAV}
</div>
<div class="container">
<div class="kicker"><a href="/index.html#en-{a["section"]}">{section}</a></div>
<div class="story-header">
<h1>{esc(a["title"])}</h1>
<p class="meta">By <span class="author-name">{esc(a["author"])}</span> <span class="sep">|</span> <span class="date">{date_text}</span></p>
</div>
<div class="advert"><p>Advertisement</p><a href="https://example.org/ads/bank">Open a savings account with 4.1% APY</a></div>
<div class="entry-content">
{first}
</div>{more}
<div class="entry-footer"><h2>Related coverage</h2>
{en_related(related)}
</div>
<div class="newsletter"><h3>Get the Morning Brief</h3><p>Sign up for our free daily newsletter.</p></div>
<div id="comments"><h3>{len(a["comments"])} comments</h3>
<ol class="commentlist">
{comments}
</ol>
</div>
</div>
<div class="footer">&copy; 2026 Harbor City Herald · <a href="https://example.org/herald/contact">Contact us</a></div>
</div>
</body>
</html>
"""
    return page, {"title_tag": title_tag, "date_text": date_text, "machine_dates": kinds}


def render_en_tech(a: dict, decl: str, related: list[dict]) -> tuple[str, dict]:
    d = _dt(a["published"])
    date_text = en_date(d, style="caps")
    title_tag = f"{a['title']} | Tech | Harbor City Herald"
    meta, kinds = head_meta(a, og=True)
    first, rest = body_parts(a)
    words = sum(len(p.split()) for p in paragraphs_of(a["body"]))
    comments = "\n".join(f'<div class="reply"><strong>{esc(u)}</strong><p>{esc(t)}</p></div>'
                         for u, t in a["comments"])
    page = f"""<!DOCTYPE html>
<html lang="en">
<head>
{charset_tag(a["encoding"], decl)}
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{esc(title_tag)}</title>
{meta}
<link rel="stylesheet" href="/static/site.css">
</head>
<body>
<div id="app">
<header class="tech-header"><a href="/en/tech/index.html">Herald Tech</a>
<nav class="site-nav">
{EN_NAV}
</nav>
</header>
<div class="post">
<div class="post-header">
<span class="post-category">Gadgets &amp; Software</span>
<h1 class="post-title">{esc(a["title"])}</h1>
<div class="post-meta"><span class="post-author">{esc(a["author"])}</span> · <span class="post-date">Published {date_text}</span> · <span class="read-time">{max(1, round(words / 200))} min read</span></div>
</div>
<div class="post-content">
{first}
</div>
<div class="sponsored"><span class="ad-label">Advertisement</span> <a href="https://example.org/ads/laptop">The lightest laptop we have ever made</a></div>
<div class="post-tags">Tags: <a href="/en/tech/index.html">Hardware</a>, <a href="/en/tech/index.html">Open source</a></div>
<section class="post-related"><h2>Read next</h2>
{en_related(related)}
</section>
<section class="post-comments"><h2>Discussion</h2>
{comments}
</section>
</div>
</div>
<footer>&copy; 2026 Harbor City Herald · Herald Tech</footer>
</body>
</html>
"""
    assert rest is None, "tech template has no split body"
    return page, {"title_tag": title_tag, "date_text": f"Published {date_text}", "machine_dates": kinds}


# ---------------------------------------------------------------- Russian

RU_NAV = """<ul class="menu">
<li><a href="/index.html">Главная</a></li>
<li><a href="/ru/society/index.html">Общество</a></li>
<li><a href="/index.html#ru-science">Наука</a></li>
<li><a href="/index.html#ru-culture">Культура</a></li>
<li><a href="/index.html#ru-sport">Спорт</a></li>
<li><a href="/atom/ru.xml">Лента</a></li>
<li><a href="https://example.org/vestnik/archive">Архив</a></li>
</ul>"""

RU_SECTION = {"society": "Общество", "science": "Наука", "culture": "Культура", "sport": "Спорт"}


def ru_related(related: list[dict]) -> str:
    items = "\n".join(f'<li><a href="{r["path"]}">{esc(related_label(r))}</a> '
                      f'<span class="date">{_dt(r["published"]).day} {RU_MONTHS[_dt(r["published"]).month - 1]}'
                      f"</span></li>" for r in related)
    return f"<ul>\n{items}\n</ul>"


def ru_comments(a: dict) -> str:
    return "\n".join(f'<div class="comment"><b class="comment__name">{esc(u)}</b> '
                     f'<span class="comment__date">{ts:%d.%m.%Y %H:%M}</span><p>{esc(t)}</p></div>'
                     for (u, t), ts in zip(a["comments"], comment_times(a), strict=True))


def render_ru_society(a: dict, decl: str, related: list[dict]) -> tuple[str, dict]:
    date_text = ru_date(_dt(a["published"]), with_time=has_time(a))
    title_tag = f"{a['title']} — Северный вестник"
    meta, kinds = head_meta(a, og=True)
    if a["meta_time"] or a["json_ld"]:
        kinds = kinds + ["time-datetime"]
    first, rest = body_parts(a)
    section = RU_SECTION[a["section"]]
    sub = f'\n<h2 class="article__subtitle">{esc(a["subtitle"])}</h2>' if a.get("subtitle") else ""
    more = ""
    if rest is not None:
        more = ('\n<div class="banner"><span class="banner__label">Реклама</span> '
                '<a href="https://example.org/ads/shuby">Шубы из Кирова: распродажа до 30 ноября</a></div>\n'
                f'<div class="article__text article__text--more">\n{rest}\n</div>')
    page = f"""<!DOCTYPE html>
<html lang="ru">
<head>
{charset_tag(a["encoding"], decl)}
<title>{esc(title_tag)}</title>
{meta}
<link rel="stylesheet" href="/static/site.css">
</head>
<body>
<div class="header">
<a class="logo" href="/index.html">Северный вестник</a> <span class="slogan">Новости города и области</span>
{RU_NAV}
<div class="weather">Сегодня: -8°, облачно</div>
</div>
<div class="breadcrumbs"><a href="/index.html">Главная</a> / <a href="/index.html#ru-{a["section"]}">{section}</a></div>
<div class="article">
<h1 class="article__title">{esc(a["title"])}</h1>{sub}
<div class="article__meta">{date_element(a, date_text, "article__date")} <span class="article__author">Автор: {esc(a["author"])}</span></div>
<div class="article__text">
{first}
</div>{more}
<div class="article__share">Поделиться: <a href="https://example.org/share/vk">ВКонтакте</a> <a href="https://example.org/share/tg">Telegram</a> <a href="https://example.org/share/ok">Одноклассники</a></div>
</div>
<div class="banner"><span class="banner__label">Реклама</span> <a href="https://example.org/ads/okna">Пластиковые окна со скидкой 20%</a></div>
<div class="read-also"><h2>Читайте также</h2>
{ru_related(related)}
</div>
<div class="comments"><div class="comments__title">Комментарии ({len(a["comments"])})</div>
{ru_comments(a)}
</div>
<div class="footer">&copy; 2026 «Северный вестник». При использовании материалов ссылка обязательна. 16+</div>
</body>
</html>
"""
    return page, {"title_tag": title_tag, "date_text": date_text, "machine_dates": kinds}


def render_ru_culture(a: dict, decl: str, related: list[dict]) -> tuple[str, dict]:
    date_text = ru_date(_dt(a["published"]))
    title_tag = f"{a['title']} — Культура — Северный вестник"
    meta, kinds = head_meta(a, og=False)
    first, rest = body_parts(a)
    assert rest is None, "culture template has no split body"
    page = f"""<!DOCTYPE html>
<html lang="ru">
<head>
{charset_tag(a["encoding"], decl)}
<title>{esc(title_tag)}</title>
{meta}
<link rel="stylesheet" href="/static/site.css">
</head>
<body>
<header class="top"><a class="logo" href="/index.html">Северный вестник</a>
<nav>
{RU_NAV}
</nav>
</header>
<main class="layout">
<div class="news-detail">
<div class="news-date">{esc(date_text)}</div>
<h1 class="news-title">{esc(a["title"])}</h1>
<div class="news-text">
{first}
</div>
<p class="news-author">Текст: {esc(a["author"])}</p>
<div class="yashare">Поделиться: <a href="https://example.org/share/vk">ВК</a> <a href="https://example.org/share/tg">Telegram</a></div>
</div>
<aside class="side">
<h2>Афиша недели</h2>
<ul><li>22 ноября — «Лес», драмтеатр</li><li>24 ноября — органный вечер в филармонии</li><li>до 31 января — «Город, которого нет», краеведческий музей</li></ul>
<div class="adv"><span>Реклама</span> <a href="https://example.org/ads/tury">Туры в Карелию на Новый год</a></div>
</aside>
</main>
<section class="more-news"><h2>Другие новости</h2>
{ru_related(related)}
</section>
<section class="comments"><h3>Обсуждение</h3>
{ru_comments(a)}
</section>
<footer>&copy; 2026 «Северный вестник» · <a href="https://example.org/vestnik/reklama">Реклама на сайте</a></footer>
</body>
</html>
"""
    return page, {"title_tag": title_tag, "date_text": date_text, "machine_dates": kinds}


def render_ru_sport(a: dict, decl: str, related: list[dict]) -> tuple[str, dict]:
    date_text = f"{_dt(a['published']):%d.%m.%Y %H:%M}"
    title_tag = f"{a['title']} — Спорт — Северный вестник"
    meta, kinds = head_meta(a, og=True)
    first, rest = body_parts(a)
    assert rest is None, "sport template has no split body"
    page = f"""<!DOCTYPE html>
<html lang="ru">
<head>
{charset_tag(a["encoding"], decl)}
<title>{esc(title_tag)}</title>
{meta}
<link rel="stylesheet" href="/static/site.css">
</head>
<body>
<table class="layout" width="100%">
<tr><td colspan="2" class="head"><a class="logo" href="/index.html">Северный вестник</a>
{RU_NAV}
</td></tr>
<tr><td class="main" valign="top">
<div class="sport-label">СПОРТ</div>
<h1>{esc(a["title"])}</h1>
<div class="info"><span class="date">{date_text}</span> | <span class="author">{esc(a["author"])}</span></div>
<div id="news-body">
{first}
</div>
<div class="tags">Теги: <a href="/index.html#ru-sport">спорт</a>, <a href="/index.html#ru-sport">наш город</a></div>
<div class="share">Поделиться: <a href="https://example.org/share/vk">ВКонтакте</a></div>
<div class="read-also"><h3>Читайте также</h3>
{ru_related(related)}
</div>
<div class="comments"><h3>Комментарии</h3>
{ru_comments(a)}
</div>
</td>
<td class="side" valign="top">
<div class="table-block"><h2>Турнирная таблица</h2>
<table><tr><td>1</td><td>«Металлург»</td><td>34</td></tr><tr><td>2</td><td>«Полярная звезда»</td><td>31</td></tr><tr><td>3</td><td>«Торпедо-Север»</td><td>29</td></tr></table>
</div>
<div class="adv">Реклама <a href="https://example.org/ads/sportmaster">Коньки и клюшки — новая коллекция</a></div>
</td></tr>
<tr><td colspan="2" class="footer">&copy; 2026 «Северный вестник». Все права защищены.</td></tr>
</table>
</body>
</html>
"""
    return page, {"title_tag": title_tag, "date_text": date_text, "machine_dates": kinds}


RENDERERS = {
    "zh_news": render_zh_news, "zh_finance": render_zh_finance, "zh_feature": render_zh_feature,
    "en_world": render_en_world, "en_feature": render_en_feature, "en_tech": render_en_tech,
    "ru_society": render_ru_society, "ru_culture": render_ru_culture, "ru_sport": render_ru_sport,
}


def render_article(a: dict, template: str, decl: str, related: list[dict]) -> tuple[str, dict]:
    return RENDERERS[template](a, decl, related)


# ---------------------------------------------------------------- catalogues and other pages

def _pager(lang: str, page_path: str, n: int, pages: list[str]) -> str:
    """Pagination links; zh and ru use relative hrefs, en root-relative (so clients must urljoin)."""
    def href(p: str) -> str:
        return p if lang == "en" else p.rsplit("/", 1)[-1]
    words = {"zh": ("首页", "上一页", "下一页", "尾页"), "en": ("First", "« Previous", "Next page »", "Last"),
             "ru": ("В начало", "← Предыдущая", "Следующая →", "В конец")}[lang]
    parts = [f'<a href="{href(pages[0])}">{words[0]}</a>']
    if n > 1:
        parts.append(f'<a rel="prev" class="prev" href="{href(pages[n - 2])}">{esc(words[1])}</a>')
    for i, p in enumerate(pages, 1):
        parts.append(f'<span class="current">{i}</span>' if i == n else f'<a href="{href(p)}">{i}</a>')
    if n < len(pages):
        parts.append(f'<a rel="next" class="next" href="{href(pages[n])}">{esc(words[2])}</a>')
    parts.append(f'<a href="{href(pages[-1])}">{words[3]}</a>')
    return '<div class="pages">' + " ".join(parts) + "</div>"


def render_catalogue(lang: str, page_path: str, n: int, pages: list[str], entries: list[dict],
                     focus: dict | None) -> str:
    pager = _pager(lang, page_path, n, pages)
    if lang == "zh":
        items = "\n".join(f'<li><span class="date">[{e["date"]}]</span> <a href="{e["path"]}" target="_blank">'
                          f'{esc(e["anchor"])}</a></li>' for e in entries)
        focus_html = ""
        if focus:
            focus_html = (f'<div class="focus"><h2><a href="{focus["path"]}">{esc(focus["title"])}</a></h2>'
                          f'<p>{esc(focus["description"])}</p></div>\n')
        suffix = "" if n == 1 else f"_第{n}页"
        return f"""<!DOCTYPE html>
<html>
<head>
<meta charset="gbk">
<title>本地新闻{suffix}_江城日报</title>
<link rel="stylesheet" href="/static/site.css">
</head>
<body>
<div class="header"><a href="/index.html">江城日报</a></div>
<div class="nav">
{ZH_NAV}
</div>
<div class="crumb">当前位置：<a href="/index.html">首页</a> &gt; 本地新闻</div>
<h1 class="channel-title">本地新闻</h1>
{focus_html}<ul class="news-list">
{items}
</ul>
{pager}
<div class="ad"><span class="ad-label">广告</span> <a href="https://example.org/ad/house">滨江新盘 首付两成起</a></div>
<div class="friend-links">友情链接：<a href="https://example.org/">示例新闻网</a> <a href="https://example.com/news/">示例资讯</a> <a href="https://example.org/weather">江城天气</a></div>
<div class="footer">Copyright &copy; 2026 江城日报社 版权所有</div>
</body>
</html>
"""
    if lang == "en":
        items = "\n".join(f'<article class="teaser"><h3><a href="{e["path"]}">{esc(e["anchor"])}</a></h3>'
                          f'<p class="teaser-summary">{esc(e["summary"])}</p>'
                          f'<span class="teaser-date">{e["date"]}</span></article>' for e in entries)
        suffix = "" if n == 1 else f" (page {n})"
        lead = ""
        if focus:
            lead = (f'<div class="lead-story"><h2><a href="{focus["path"]}">{esc(focus["title"])}</a></h2>'
                    f'<p>{esc(focus["description"])}</p></div>\n')
        return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Latest news{suffix} | Harbor City Herald</title>
<link rel="stylesheet" href="/static/site.css">
</head>
<body>
<header class="masthead"><a class="brand" href="/index.html">Harbor City Herald</a>
<nav class="site-nav">
{EN_NAV}
</nav>
</header>
<main>
<h1>Latest news</h1>
{lead}<div class="banner ad"><span class="ad-label">Advertisement</span> <a href="https://example.org/ads/cruise">Winter cruises from $499</a></div>
<section class="river">
{items}
</section>
{pager}
<aside class="partners"><h2>From our partners</h2><ul><li><a href="https://example.org/partner/harbor-tourism">Ten things to do at the waterfront</a></li><li><a href="https://example.com/sponsored/mortgages">Why rates may fall next year</a></li></ul></aside>
</main>
<footer>&copy; 2026 Harbor City Herald</footer>
</body>
</html>
"""
    items = "\n".join(f'<div class="news-item"><a class="news-item__title" href="{e["path"]}">{esc(e["anchor"])}</a>'
                      f'<div class="news-item__date">{e["date"][8:10]}.{e["date"][5:7]}.{e["date"][:4]}</div></div>'
                      for e in entries)
    suffix = "" if n == 1 else f" — страница {n}"
    main_news = ""
    if focus:
        main_news = (f'<div class="main-news"><a class="main-news__title" href="{focus["path"]}">'
                     f'{esc(focus["title"])}</a><p>{esc(focus["description"])}</p></div>\n')
    return f"""<!DOCTYPE html>
<html lang="ru">
<head>
<meta charset="utf-8">
<title>Новости{suffix} — Северный вестник</title>
<link rel="stylesheet" href="/static/site.css">
</head>
<body>
<div class="header"><a class="logo" href="/index.html">Северный вестник</a>
{RU_NAV}
</div>
<h1>Новости</h1>
{main_news}<div class="news-list">
{items}
</div>
{pager}
<div class="banner"><span class="banner__label">Реклама</span> <a href="https://example.org/ads/avto">Автосалон «Север»: зимние шины в подарок</a></div>
<div class="partners">Партнёры: <a href="https://example.org/">Пример.орг</a> <a href="https://example.com/ru/">Новости региона</a></div>
<div class="footer">&copy; 2026 «Северный вестник»</div>
</body>
</html>
"""


def render_tech_index(api: str) -> str:
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Tech | Harbor City Herald</title>
<link rel="stylesheet" href="/static/site.css">
</head>
<body>
<header class="tech-header"><a href="/en/tech/index.html">Herald Tech</a>
<nav class="site-nav">
{EN_NAV}
</nav>
</header>
<main>
<h1>Tech</h1>
<ul id="tech-list" class="news-list" data-list-api="{api}"></ul>
<noscript>Enable JavaScript to see the latest tech stories.</noscript>
<div class="banner ad"><span class="ad-label">Advertisement</span> <a href="https://example.org/ads/laptop">The lightest laptop we have ever made</a></div>
</main>
<script>
(function () {{
  var box = document.getElementById("tech-list");
  fetch(box.getAttribute("data-list-api"))
    .then(function (r) {{ return r.json(); }})
    .then(function (data) {{
      data.items.forEach(function (it) {{
        var li = document.createElement("li"), a = document.createElement("a");
        a.href = it.url; a.textContent = it.title;
        li.appendChild(a); box.appendChild(li);
      }});
    }});
}})();
</script>
<footer>&copy; 2026 Harbor City Herald · Herald Tech</footer>
</body>
</html>
"""


def render_home() -> str:
    sections = [
        ("zh-news", "江城日报 · 本地新闻", "/zh/news/index.html", "滚动新闻，三页。"),
        ("zh-finance", "江城日报 · 财经", "/rss/zh.xml", "财经稿件见滚动新闻与 RSS。"),
        ("zh-sports", "江城日报 · 体育", "/rss/zh.xml", "体育稿件见滚动新闻与 RSS。"),
        ("zh-culture", "江城日报 · 文化", "/rss/zh.xml", "文化稿件见滚动新闻与 RSS。"),
        ("en-world", "Harbor City Herald · World", "/en/world/index.html", "Latest news, three pages."),
        ("en-local", "Harbor City Herald · Local", "/rss/en.xml", "Local stories: latest news and RSS."),
        ("en-science", "Harbor City Herald · Science", "/rss/en.xml", "Science stories: latest news and RSS."),
        ("en-sport", "Harbor City Herald · Sport", "/rss/en.xml", "Sport stories: latest news and RSS."),
        ("en-tech", "Herald Tech", "/en/tech/index.html", "Tech stories (list loaded from a JSON API)."),
        ("ru-society", "Северный вестник · Общество", "/ru/society/index.html", "Лента новостей, три страницы."),
        ("ru-science", "Северный вестник · Наука", "/atom/ru.xml", "Наука: лента новостей и Atom."),
        ("ru-culture", "Северный вестник · Культура", "/atom/ru.xml", "Культура: лента новостей и Atom."),
        ("ru-sport", "Северный вестник · Спорт", "/atom/ru.xml", "Спорт: лента новостей и Atom."),
    ]
    blocks = "\n".join(f'<section id="{sid}"><h2><a href="{href}">{esc(name)}</a></h2><p>{esc(text)}</p></section>'
                       for sid, name, href, text in sections)
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>newscrawl demo — three fictional news sites</title>
<link rel="stylesheet" href="/static/site.css">
<link rel="alternate" type="application/rss+xml" title="Harbor City Herald" href="/rss/en.xml">
<link rel="alternate" type="application/rss+xml" title="江城日报" href="/rss/zh.xml">
<link rel="alternate" type="application/atom+xml" title="Северный вестник" href="/atom/ru.xml">
</head>
<body>
<h1>newscrawl demo network</h1>
<p>Three fictional newspapers, written for the newscrawl offline demo. All names, people and events are invented.</p>
{blocks}
<p>Feeds: <a href="/rss/zh.xml">RSS (中文)</a> · <a href="/rss/en.xml">RSS (English)</a> · <a href="/atom/ru.xml">Atom (русский)</a></p>
<p class="external">Elsewhere: <a href="https://example.org/">example.org</a></p>
</body>
</html>
"""


def render_private() -> str:
    return """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>EMBARGOED: Draft city budget summary | Harbor City Herald</title>
<meta name="robots" content="noindex, nofollow">
</head>
<body>
<h1>EMBARGOED: Draft city budget summary</h1>
<p class="byline">By Daniel Okafor</p>
<p>November 18, 2026</p>
<div class="story-body">
<p>Staff draft, not for publication. This page is disallowed by robots.txt and must never appear in a crawl.</p>
<p>The draft summarises figures the finance office has not yet released and will be rewritten before the embargo lifts.</p>
</div>
</body>
</html>
"""
