"""Live-blog fixtures shaped like real CMS live blogs (issue #39 item 3): an English page whose
entries are in JSON-LD ``LiveBlogPosting.liveBlogUpdate`` (and in the DOM, as the page shows
them), a Russian page of ``<article class="live-post" data-entry-id>`` blocks with
``<time datetime>`` and no JSON-LD, and a Chinese page of ``<li class="live-item">`` blocks whose
time is a ``14:32`` line on the page's date.  Each builder takes the entries as
``(time, title, text)``; :func:`entry_f1` scores extracted entries against them."""

from __future__ import annotations

import html
import json
from datetime import UTC, datetime, timedelta, timezone

EN_TEXTS = [
    ("Polls close in the eastern states", "Voting has ended in Kentucky and Indiana, and the first counts are "
     "expected within the hour, officials said."),
    ("Turnout higher than in the last election", "County clerks in Georgia report queues of more than an hour "
     "at several polling stations in Atlanta suburbs."),
    ("Court extends voting hours in one county", "A judge ordered polls in Maricopa County to stay open an "
     "extra ninety minutes after machines failed this morning."),
    ("First results from Florida", "With a fifth of the vote counted, the incumbent leads by four points in "
     "the state's closely watched governor's race."),
    ("Campaign says it is confident", "A spokeswoman told reporters the campaign expects to win the state "
     "once the mail-in ballots are counted tomorrow."),
    ("Networks call Virginia", "Three networks have projected the winner of the Senate race in Virginia "
     "on the strength of results from the northern suburbs."),
    ("Markets react overnight", "Futures on the main stock index rose half a percent in early Asian trading "
     "as investors weighed the first results."),
    ("Recount requested in a tight district", "The losing candidate in the seventh district asked for a "
     "recount after a margin of fewer than two hundred votes."),
]
RU_TEXTS = [
    ("Синоптики предупредили о ливнях", "В Москве и области в ближайшие часы ожидаются сильные дожди, "
     "порывы ветра до пятнадцати метров в секунду."),
    (None, "Движение на Садовом кольце затруднено из-за подтопления в районе Цветного бульвара, сообщили "
     "в дорожном центре."),
    ("Рейсы задерживаются", "В аэропорту Шереметьево задержаны вылеты более двадцати рейсов, пассажиров "
     "просят следить за табло."),
    (None, "Спасатели откачивают воду из подземного перехода на Тверской улице, проход временно закрыт."),
    ("Метро работает в обычном режиме", "В пресс-службе метрополитена заявили, что все станции открыты "
     "для входа и выхода пассажиров."),
    (None, "Коммунальные службы убрали более трёхсот упавших деревьев за последние сутки, работы продолжаются."),
    ("МЧС продлило штормовое предупреждение", "Неблагоприятная погода сохранится до утра среды, "
     "жителей просят не оставлять автомобили под деревьями."),
    (None, "Электричество восстановлено в большинстве домов Подмосковья, без света остаются около двух "
     "тысяч человек."),
]
ZH_TEXTS = [
    (None, "台风“海葵”中心已于今日凌晨在福建省东山县沿海登陆，登陆时中心附近最大风力十四级。"),
    ("多趟列车停运", "受台风影响，福厦高铁部分列车今日停运，已购票旅客可在车站免费办理退票手续。"),
    (None, "厦门市教育局发布通知，全市中小学和幼儿园今日停课一天，各校做好安全检查。"),
    ("机场航班取消", "厦门高崎国际机场今日取消进出港航班一百二十余架次，旅客请关注航空公司通知。"),
    (None, "福建省防汛抗旱指挥部将防台风应急响应提升至一级，沿海渔船已全部回港避风。"),
    ("部分地区停电", "截至上午十时，福州、厦门、漳州共有约三万户居民停电，抢修人员正在加紧恢复供电。"),
    (None, "气象部门预计台风将继续向西北方向移动，强度逐渐减弱，闽南地区仍有大到暴雨。"),
    ("志愿者参与救援", "在漳州市区，数百名志愿者协助转移低洼地区群众，安置点提供饮用水和食品。"),
]

MSK = timezone(timedelta(hours=3))
CST = timezone(timedelta(hours=8))
ET = timezone(timedelta(hours=-5))


def entries_at(texts: list, start: datetime, step_minutes: int = 17) -> list[tuple[datetime, str | None, str]]:
    """``texts`` as entries, the first at ``start`` and each later one ``step_minutes`` after."""
    return [(start + timedelta(minutes=step_minutes * i), title, text) for i, (title, text) in enumerate(texts)]


def recent(zone: timezone, hours_ago: float = 6) -> datetime:
    """A minute-precise time ``hours_ago`` before now in ``zone``: a blog still live."""
    return (datetime.now(UTC) - timedelta(hours=hours_ago)).astimezone(zone).replace(second=0, microsecond=0)


def _chrome(title: str, lang: str, main: str, head: str = "") -> str:
    nav = "".join(f'<li><a href="/{s}/">{s.title()} section</a></li>' for s in ("world", "politics", "sport"))
    related = "".join(f'<li><a href="/2023/related-{i}.html">A related story number {i} from last week</a>'
                      f'<time datetime="2023-05-0{i}T10:00:00Z">May {i}</time></li>' for i in range(1, 4))
    return (f'<!doctype html><html lang="{lang}"><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
            f"{head}</head><body><header><ul class='nav'>{nav}</ul></header><main>{main}</main>"
            f"<aside><h3>Related</h3><ul class='related'>{related}</ul></aside>"
            "<footer><p>© Example Media Group. All rights reserved.</p></footer></body></html>")


def english_jsonld(entries, url: str = "https://news.example.com/live/election-night") -> str:
    """A US live blog: the updates in JSON-LD (newest first, as CMSs list them) and in the DOM."""
    newest = sorted(entries, key=lambda e: e[0], reverse=True)
    ld = {"@context": "https://schema.org", "@type": "LiveBlogPosting", "headline": "Election night live",
          "url": url, "datePublished": entries[0][0].isoformat(),
          "coverageStartTime": entries[0][0].isoformat(),
          "coverageEndTime": (entries[0][0] + timedelta(days=3)).isoformat(),
          "liveBlogUpdate": [{"@type": "BlogPosting", "headline": t, "datePublished": when.isoformat(),
                              "articleBody": text, "url": f"{url}#post-{when:%H%M}"} for when, t, text in newest]}
    posts = "".join(f'<article class="live-post" id="post-{when:%H%M}"><time datetime="{when.isoformat()}">'
                    f"{when:%I:%M %p} ET</time><h2>{html.escape(t)}</h2><p>{html.escape(text)}</p></article>"
                    for when, t, text in newest)
    main = (f"<h1>Election night live: results as polls close</h1><p class='standfirst'>Follow the latest "
            f"updates from across the country.</p><div class='live-posts'>{posts}</div>")
    head = f'<script type="application/ld+json">{json.dumps(ld)}</script>'
    return _chrome("Election night live | Example News", "en", main, head)


def russian_dom(entries) -> str:
    """A Russian live blog as DOM only: ``article.live-post`` blocks with ``data-entry-id``."""
    newest = sorted(entries, key=lambda e: e[0], reverse=True)
    posts = "".join(
        f'<article class="live-post live-post--regular" data-entry-id="{when:%d%H%M}">'
        f'<div class="live-post__meta"><time datetime="{when.isoformat()}">{when:%H:%M}</time></div>'
        + (f'<h3 class="live-post__title">{html.escape(t)}</h3>' if t else "")
        + f'<div class="live-post__body"><p>{html.escape(text)}</p></div></article>'
        for when, t, text in newest)
    main = (f"<h1>Ливни в Москве: онлайн-трансляция</h1><p>Следим за последствиями непогоды.</p>"
            f'<section class="live-feed">{posts}</section>')
    return _chrome("Ливни в Москве — онлайн", "ru", main)


def chinese_dom(entries) -> str:
    """A Chinese live page: ``li.live-item`` blocks whose time is a ``HH:MM`` line; the page's date
    in its meta tag."""
    newest = sorted(entries, key=lambda e: e[0], reverse=True)
    posts = "".join(
        f'<li class="live-item"><div class="live-time">{when:%H:%M}</div>'
        + (f"<h4>{html.escape(t)}</h4>" if t else "")
        + f'<div class="live-con">{html.escape(text)}</div></li>'
        for when, t, text in newest)
    start = entries[0][0]
    head = f'<meta property="article:published_time" content="{start.isoformat()}">'
    main = (f"<h1>台风“海葵”登陆福建 最新消息直播</h1><p class='time'>{start:%Y-%m-%d %H:%M}</p>"
            f'<ul class="live-list">{posts}</ul>')
    return _chrome("台风“海葵”登陆福建 最新消息直播", "zh-CN", main, head)


def entry_f1(found: list[dict], truth) -> float:
    """F1 of extracted entries against the truth: an entry is matched when its time is the truth's
    (same instant) and its text is the truth's text (its title may be apart)."""
    def instant(value):
        return datetime.fromisoformat(value).astimezone(UTC) if value else None

    expected = {(when.astimezone(UTC), " ".join(text.split())) for when, _, text in truth}
    got = [(instant(e["time"]), " ".join((e["text"] or "").split())) for e in found]
    hits = sum(1 for g in set(got) if g in expected)
    if not got or not hits:
        return 0.0
    precision, recall = hits / len(got), hits / len(expected)
    return 2 * precision * recall / (precision + recall)
