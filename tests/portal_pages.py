"""Synthetic portal home pages (zh, ru, en) written for the tests, not copied from any site.

Each page mixes what a portal's home page holds next to its news: a list of columnists linked by
name (one-slug paths: ``/zhangsan/``, ``/authors/ivanov``, ``/column/li-na/``), columnists with a
teaser line, channel links (books, complaints, car models, app download) on their own subdomains,
and article blocks of different shapes, including a foreign-language edition block.
:func:`portal` returns ``(url, html, article_urls)``.
"""

from __future__ import annotations

import re
from html import escape

HEADLINES = {
    "zh": [
        "国务院常务会议部署进一步稳定外贸的政策措施", "多地出台新政支持新能源汽车下乡消费",
        "冬季流感进入高发期 专家提醒做好个人防护", "全国铁路今起实行新的列车运行图",
        "首批国产大型邮轮完成第二次试航任务", "北方多地迎来入冬以来最强降雪天气过程",
        "央行开展一万亿元中期借贷便利操作", "教育部发布中小学生课后服务指导意见",
        "我国科学家在量子通信领域取得重要突破", "多家银行下调存量房贷利率 惠及千万家庭",
        "长江流域十年禁渔取得阶段性成效", "第三届全球数字贸易博览会在杭州开幕",
    ],
    "ru": [
        "Правительство утвердило новый порядок выплаты пособий семьям", "В Москве открылись три новые станции метро",
        "Центробанк сохранил ключевую ставку на прежнем уровне", "Синоптики предупредили о сильных морозах на выходных",
        "Учёные из Новосибирска создали новый материал для батарей", "Сборная России вышла в финал чемпионата Европы",
        "В Петербурге завершилась реставрация старинного особняка", "Минздрав назвал регионы с ростом заболеваемости гриппом",
        "Автопроизводители повысили цены на популярные модели", "Госдума приняла закон о защите персональных данных",
        "На Урале построят крупный завод по переработке отходов", "Жители Казани выбрали проекты благоустройства дворов",
    ],
    "en": [
        "Parliament passes budget after a night of tense negotiations", "Storm brings record rainfall to the coast",
        "Central bank holds rates steady as inflation cools", "City council approves plan for new tram line",
        "Scientists map the deepest part of the ocean floor", "Local bakery wins national award for its sourdough",
        "Shipping costs fall for the third month in a row", "Hospital waiting lists shrink after new hiring drive",
        "Museum returns looted artefacts to their country of origin", "Farmers warn of poor harvest after dry summer",
        "Tech firms agree on common standard for phone chargers", "Teachers vote to accept revised pay offer",
    ],
}

# The foreign-language edition: (language, headlines). Thai is written without spaces between words.
FOREIGN = {
    "zh": ("th", [
        "นายกรัฐมนตรีเดินทางเยือนจีนอย่างเป็นทางการเพื่อกระชับความสัมพันธ์", "ราคาข้าวส่งออกปรับตัวสูงขึ้นต่อเนื่องเป็นเดือนที่สาม",
        "กรมอุตุนิยมวิทยาเตือนภาคเหนือเตรียมรับมืออากาศหนาวจัด", "นักวิทยาศาสตร์ค้นพบแบคทีเรียชนิดใหม่ในทะเลลึก",
        "รัฐบาลเปิดตัวโครงการรถไฟความเร็วสูงสายใหม่", "นักท่องเที่ยวต่างชาติเพิ่มขึ้นร้อยละยี่สิบในปีนี้",
        "ตลาดหุ้นเอเชียปิดบวกหลังตัวเลขเศรษฐกิจดีเกินคาด", "มหาวิทยาลัยจับมือบริษัทเทคโนโลยีพัฒนาปัญญาประดิษฐ์",
    ]),
    "ru": ("en", [
        "Moscow metro opens three new stations", "Central bank keeps key rate unchanged",
        "Russian team reaches European final", "Frost warning issued for the weekend",
        "New battery material made in Novosibirsk", "Duma passes personal data law",
        "Kazan residents vote on courtyard projects", "Urals to get waste recycling plant",
    ]),
    "en": ("zh", [
        "议会通过预算案", "沿海地区降雨创纪录", "央行维持利率不变", "市议会批准新电车线路",
        "科学家绘制海底最深处地图", "面包店获得全国大奖", "航运成本连续三月下降", "医院候诊名单缩短",
    ]),
}

COLUMNISTS = {
    "zh": [("zhangsan", "张三"), ("lisi", "李四"), ("wangwu", "王五"), ("zhaoliu", "赵六"),
           ("chenqi", "陈七"), ("liuba", "刘八"), ("sunjiu", "孙九"), ("zhoushi", "周十")],
    "ru": [("ivanov", "Иван Иванов"), ("petrova", "Мария Петрова"), ("sidorov", "Олег Сидоров"),
           ("kuznetsova", "Анна Кузнецова"), ("smirnov", "Павел Смирнов"), ("popova", "Елена Попова"),
           ("volkov", "Игорь Волков"), ("sokolova", "Ольга Соколова")],
    "en": [("jane-doe", "Jane Doe"), ("john-smith", "John Smith"), ("amy-lee", "Amy Lee"),
           ("tom-brown", "Tom Brown"), ("sara-khan", "Sara Khan"), ("ben-cole", "Ben Cole"),
           ("ada-ward", "Ada Ward"), ("leo-hart", "Leo Hart")],
}

# A columnist's latest column as a teaser line linking to the columnist's page.
COLUMN_TEASERS = {
    "zh": ["：楼市调控需要更多耐心", "：年轻人为何不愿意结婚", "：数字经济的下一个十年", "：稳就业还要再加把劲"],
    "ru": [": почему рубль снова дешевеет", ": кому нужна четырёхдневка", ": что будет с ипотекой",
           ": как школе пережить реформу"],
    "en": [": why the budget deal will not last", ": the quiet crisis in our schools",
           ": what the rate pause really means", ": a city that forgot its trams"],
}

CHANNELS = {
    "zh": [("https://book.{d}/book/20231234567.html", "三体全集在线阅读 免费章节"),
           ("https://tousu.{d}/complaints/list/", "消费者投诉平台 维权服务"),
           ("https://auto.{d}/car/23456/", "奥迪Q5L 2026款 参数配置报价"),
           ("https://auto.{d}/car/34567/", "比亚迪汉 新能源 车型大全"),
           ("https://app.{d}/download/", "下载新闻客户端 看更多精彩资讯")],
    "ru": [("https://books.{d}/book/20231234567", "Читать книги онлайн бесплатно без регистрации"),
           ("https://{d}/complaints/", "Оставить жалобу на качество обслуживания"),
           ("https://auto.{d}/catalog/lada-vesta-2026/", "Каталог автомобилей Лада Веста 2026 цены"),
           ("https://auto.{d}/catalog/kia-rio-2026/", "Киа Рио 2026 все комплектации и цены"),
           ("https://{d}/app/", "Скачать мобильное приложение для Android и iOS")],
    "en": [("https://books.{d}/book/9780123456789", "Read the best selling novels of the year"),
           ("https://{d}/complaints/", "Make a complaint about our journalism"),
           ("https://cars.{d}/models/2026-ford-focus-st-review/", "All the new 2026 car models and prices"),
           ("https://cars.{d}/models/12345/", "Compare prices of family cars near you"),
           ("https://{d}/apps/", "Download our free news app for your phone")],
}

DOMAINS = {"zh": "example.cn", "ru": "example.ru", "en": "example.com"}


def _article_url(lang: str, domain: str, i: int) -> str:
    if lang == "zh":
        return f"https://news.{domain}/2026/11/27/{100200 + i}.html"
    if lang == "ru":
        return f"https://{domain}/news/2026/11/27/{100200 + i}-novost/"
    return f"https://www.{domain}/2026/11/27/world/story-number-{i}-of-the-day/"


def _foreign_url(lang: str, domain: str, i: int) -> str:
    edition = FOREIGN[lang][0]
    return f"https://{edition}.{domain}/news/{700300 + i}"


def portal(lang: str, site: str | None = None) -> tuple[str, str, list[str]]:
    """A portal home page in ``lang`` (zh, ru or en): ``(url, html, article_urls)``.  With ``site``
    (``http://127.0.0.1:PORT``) every link is on that one host, the subdomain as a first path
    segment (``https://auto.example.cn/car/1/`` -> ``{site}/auto/car/1/``), for a local server."""
    domain = DOMAINS[lang]
    url = f"https://www.{domain}/"
    articles: list[str] = []
    html, articles = _portal(lang, domain, articles)
    if site is None:
        return url, html, articles
    return f"{site}/", _local(html, domain, site), [_local(link, domain, site) for link in articles]


def _local(text: str, domain: str, site: str) -> str:
    """Every ``https://SUB.domain/`` and ``https://domain/`` of ``text`` on ``site``."""
    text = re.sub(r"https://([a-z]+)\." + re.escape(domain) + "/", lambda m: f"{site}/{m.group(1)}/", text)
    text = text.replace(f"https://{domain}/", f"{site}/")
    return re.sub(r'href="/', f'href="{site}/', text)


def _portal(lang: str, domain: str, articles: list[str]) -> tuple[str, list[str]]:
    out = [f'<html lang="{lang}"><head><meta charset="utf-8"><title>{domain}</title></head><body>',
           '<header><nav><ul>']
    out += [f'<li><a href="/{s}/">{s.title()}</a></li>' for s in ("world", "economy", "sport", "culture")]
    out.append("</ul></nav></header><main>")
    # The lead block: headlines with teasers and an image link per item.
    out.append('<div class="top-stories">')
    for i, title in enumerate(HEADLINES[lang][:4]):
        link = _article_url(lang, domain, i)
        articles.append(link)
        out.append(f'<div class="story"><a href="{link}"><img src="/i/{i}.jpg"></a>'
                   f'<h2><a href="{link}">{escape(title)}</a></h2><p>{escape(title)} ...</p></div>')
    out.append("</div>")
    # The columnists, by name only, in a plain list like the news list below.
    out.append("<div><ul>")
    for slug, name in COLUMNISTS[lang][:6]:
        out.append(f'<li><a href="/{slug}/">{escape(name)}</a></li>')
    out.append("</ul></div>")
    # The news list: plain ul > li > a.
    out.append("<div><ul>")
    for i, title in enumerate(HEADLINES[lang][4:], start=4):
        link = _article_url(lang, domain, i)
        articles.append(link)
        out.append(f'<li><a href="{link}">{escape(title)}</a></li>')
    out.append("</ul></div>")
    # Columnists with their latest column's teaser, linking to the columnist's page.
    out.append('<div class="opinion"><ul>')
    for (slug, name), teaser in zip(COLUMNISTS[lang], COLUMN_TEASERS[lang] * 2, strict=False):
        out.append(f'<li><a href="/authors/{slug}">{escape(name)}</a>'
                   f'<a href="/column/{slug}/">{escape(name + teaser)}</a></li>')
    out.append("</ul></div>")
    # The columnists again as a name grid with numeric profile ids.
    out.append('<div class="grid"><ul>')
    for i, (_, name) in enumerate(COLUMNISTS[lang]):
        out.append(f'<li><a href="/columnist/{40100 + i}/">{escape(name)}</a></li>')
    out.append("</ul></div>")
    # Channels: books, complaints, car models, app download.
    out.append('<div class="channels">')
    for href, text in CHANNELS[lang]:
        out.append(f'<p><a href="{href.format(d=domain)}">{escape(text)}</a></p>')
    out.append("</div>")
    # The foreign-language edition, in a side column (``aside``), its links of their own form.
    edition, titles = FOREIGN[lang]
    out.append(f'<aside class="sidebar"><div class="edition" lang="{edition}"><ul>')
    for i, title in enumerate(titles):
        link = _foreign_url(lang, domain, i)
        articles.append(link)
        out.append(f'<li><a href="{link}">{escape(title)}</a></li>')
    out.append("</ul></div></aside>")
    out.append('</main><footer><a href="/about/">About</a> <a href="/contact/">Contact</a></footer></body></html>')
    return "\n".join(out), articles
