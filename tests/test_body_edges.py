"""A site's copyright and disclaimer notice after the article is not body (issue 38, item 4c).

Chinese sites close every article with a headed notice ("大江网版权与免责声明", "南方网版权相关声明",
"反侵权公告") of numbered items and a contact line; on the real pages of daniel-zh and zh-news the
notice came out as the body's last lines, which their ground truth lacks.  Pages written here.
"""

from __future__ import annotations

from newscrawl.extract import extract

STORY_ZH = [
    "市议会周二晚间召开会议讨论明年的新预算，议员们就如何把资金用于学校、道路和老图书馆争论了好几个小时。",
    "会议最后以多数票通过了预算草案，北部城区的学校将获得更多资金，道路维修的计划则推迟到明年春天。",
    "市长在会后表示，新预算兼顾了各方的意见，图书馆的屋顶将在冬天到来之前修好。",
]
NOTICE_ZH = [
    "江城网版权与免责声明：",
    "1、凡本网注明“江城网”的所有作品，版权均属于江城网，未经本网授权不得转载、摘编或利用其它方式使用上述作品。",
    "2、凡本网注明“来源：XXX（非江城网）”的作品，均转载自其它媒体，转载目的在于传递更多信息，并不代表本网赞同其观点。",
    "3、如因作品内容、版权和其它问题需要同本网联系的，请在30日内进行。",
    "※联系方式：江城网新闻中心 电话：0000-00000000",
]
STORY_EN = [
    "The council met on Tuesday evening to discuss the new budget for the coming year, and members argued "
    "for hours about how the money should be spent on schools, roads and the old library.",
    "In the end a majority approved the draft: the schools of the northern districts get more money, and "
    "the road repairs wait until next spring.",
]
NOTICE_EN = [
    "Copyright",
    "This is an open-access article distributed under the terms of the Creative Commons Attribution "
    "License, which permits unrestricted use, distribution, and reproduction in any medium.",
]


def page(title: str, lines: list[str]) -> str:
    paragraphs = "".join(f"<p>{line}</p>" for line in lines)
    return (f"<html><head><meta charset='utf-8'><title>{title}</title></head><body>"
            f"<nav><a href='/'>首页</a> <a href='/news/'>新闻</a></nav>"
            f"<div class='content'><h1>{title}</h1>{paragraphs}</div></body></html>")


def test_a_headed_copyright_and_disclaimer_notice_closes_a_chinese_body():
    text = extract(page("市议会通过新预算", STORY_ZH + NOTICE_ZH), url="http://news.example/a.html").text
    assert text.split("\n") == STORY_ZH


def test_a_copyright_heading_and_licence_after_an_english_body_are_cut():
    text = extract(page("Council approves the budget", STORY_EN + NOTICE_EN),
                   url="http://news.example/b.html").text
    assert text.split("\n") == STORY_EN
