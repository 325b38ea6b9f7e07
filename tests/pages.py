"""Small hand-written article pages for the extraction unit tests."""

from __future__ import annotations

NAV = "".join(f'<li><a href="/section/{i}">Section {i}</a></li>' for i in range(12))
RELATED = "".join(
    f'<li class="item"><a href="/news/{i}.html">Related headline number {i} about the city budget</a></li>'
    for i in range(6)
)
TEASERS = "".join(
    f'<li class="item"><a href="/news/{i}.html">Related headline number {i} about the city budget</a>'
    f"<p>A short teaser that is about the related story and what it was about {i}.</p></li>"
    for i in range(6)
)

ARTICLE_PARAGRAPHS = [
    "The city council voted on Tuesday to approve the new budget, which had been debated for months.",
    "Members said that the plan would fund road repairs and a new library in the northern district.",
    "The mayor, who had proposed the budget in the spring, called it a fair compromise for the city.",
    "Opponents argued that the tax increase was too high and that it would hurt small businesses.",
]


def english_article(
    paragraphs=ARTICLE_PARAGRAPHS,
    extra_body="",
    after_body="",
    title="Council approves budget",
    related=RELATED,
):
    body = "".join(f"<p>{p}</p>" for p in paragraphs)
    return f"""<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>{title} | Example Times</title><meta property="og:site_name" content="Example Times"></head>
<body><header><ul class="nav">{NAV}</ul></header>
<div class="layout"><div class="main"><h1>{title}</h1>
<div class="meta">By Jane Doe | November 20, 2026</div>
<div class="story">{body}{extra_body}</div>{after_body}</div>
<aside class="sidebar"><h3>Most read</h3><ul>{related}</ul></aside></div>
<footer class="footer"><p>Copyright 2026 Example Times. All rights reserved.</p></footer></body></html>"""


ZH_PARAGRAPHS = [
    "本报讯　记者昨日从市政府获悉，今年全市共新建公园十二座，市民的休闲空间进一步扩大。",
    "据介绍，这些公园主要分布在城市的东部和北部，其中最大的一座占地约三十公顷。",
    "市园林局负责人表示，明年还将继续推进口袋公园建设，让市民出门就能看到绿色。",
]


def chinese_article(paragraphs=ZH_PARAGRAPHS):
    nav = "".join(f'<a href="/c/{i}">频道{i}</a>' for i in range(15))
    body = "".join(f"<p>{p}</p>" for p in paragraphs)
    return f"""<html><head><meta charset="utf-8"><title>全市新建公园十二座_新闻中心_示例网</title></head>
<body><div class="top">{nav}</div><div class="wrap"><h1>全市新建公园十二座</h1>
<div class="info">2026年11月20日 10:30 来源：示例日报</div>
<div id="artibody">{body}</div>
<div class="hot"><a href="/n/1">热点新闻一</a><a href="/n/2">热点新闻二</a><a href="/n/3">热点新闻三</a></div>
</div><div class="foot">版权所有 示例网</div></body></html>"""
