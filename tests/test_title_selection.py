"""How ``auto`` chooses between the page's headline sources (``title.find_title(precise=True)``)."""

import json

from newscrawl.extract import Page
from newscrawl.extract.fields.title import _json_ld_headline, find_title


def page(head: str = "", body: str = "", url: str = "https://blog.example.org/2024/05/winter-walk/") -> Page:
    return Page.from_html(f"<html><head>{head}</head><body>{body}<p>Some text.</p></body></html>", url)


def meta(prop: str, content: str) -> str:
    return f'<meta property="{prop}" content="{content}">'


def ld(*objects: dict) -> str:
    return f'<script type="application/ld+json">{json.dumps(list(objects))}</script>'


def agreeing_head(title: str) -> str:
    """``<title>``, ``og:title`` and ``twitter:title`` all saying ``title``."""
    return f"<title>{title}</title>" + meta("og:title", title) + meta("twitter:title", title)


def test_typographic_variants_are_one_headline_written_as_the_h1_shows_it():
    head = agreeing_head("Mayor says 'no' to the new bridge")
    p = page(head, "<h1>Mayor says ‘no’ to the new bridge</h1>")
    assert find_title(p, precise=True) == "Mayor says ‘no’ to the new bridge"


def test_dash_kinds_and_soft_hyphens_do_not_split_the_vote():
    head = agreeing_head("Harbour closed - storm expected") + ld(
        {"@type": "NewsArticle", "headline": "Harbour closed: what we know"}
    )
    p = page(head, "<h1>Harbour clo\u00adsed – storm expected</h1>")
    assert find_title(p, precise=True) == "Harbour clo\u00adsed – storm expected"


def test_h1_linking_home_is_the_site_logo_not_the_headline():
    head = (
        "<title>Walking Notes</title>"
        + meta("og:title", "Winter walk by the river")
        + ld({"@type": "BlogPosting", "headline": "Winter walk by the river"})
    )
    body = '<h1 class="site-title"><a href="/">Walking Notes</a></h1><h1>Winter walk by the river</h1>'
    assert find_title(page(head, body), precise=True) == "Winter walk by the river"


def test_h1_linking_to_the_article_itself_is_still_the_headline():
    head = "<title>Walking Notes</title>" + meta("og:title", "Winter walk")
    body = '<h1><a href="/2024/05/winter-walk/">Winter walk by the river</a></h1>'
    assert find_title(page(head, body), precise=True) == "Winter walk by the river"


def test_tail_joined_by_a_guillemet_or_stars_counts_for_the_bare_headline():
    for tail in (" › Nordish Notes", " * Daily Pundit * by Jo Smith"):
        head = (
            f"<title>Running in winter{tail}</title>"
            + meta("og:title", f"Running in winter{tail}")
            + meta("twitter:title", f"Running in winter{tail}")
        )
        p = page(head, "<h1>Running in winter</h1>")
        assert find_title(p, precise=True) == "Running in winter", tail


def test_a_comma_clause_is_part_of_the_headline_not_a_tail():
    text = "Storms hit the coast, killing at least three"
    head = (
        f"<title>{text}</title>"
        + meta("og:title", text)
        + ld({"@type": "NewsArticle", "headline": "Storms hit the coast"})
    )
    assert find_title(page(head, f"<h1>{text}</h1>"), precise=True) == text


def test_json_ld_names_of_people_and_organisations_are_not_headlines():
    people = ld({"@type": "Person", "name": "Jane Doe"}, {"@type": "Organization", "name": "Example Times"})
    assert _json_ld_headline(page(people)) is None
    recipe = ld({"@type": "Person", "name": "Jane Doe"}, {"@type": "Recipe", "name": "Lemon cake"})
    assert _json_ld_headline(page(recipe)) == "Lemon cake"
    article = ld({"@type": ["NewsArticle"], "name": "Section", "headline": "Bridge reopens"})
    assert _json_ld_headline(page(article)) == "Bridge reopens"
    site = ld({"@type": "WebSite", "headline": "Example Times", "name": "Example Times"})
    assert _json_ld_headline(page(site)) is None


# --- pages without headline metadata: He's (2019) rule, guarded against chrome -----------------


def bare(title: str, body: str = "", url: str | None = None) -> Page:
    """A page with a ``<title>`` and no og:title, twitter:title or JSON-LD headline."""
    html = f"<html><head><title>{title}</title></head><body>{body}<p>Some text.</p></body></html>"
    return Page.from_html(html, url)


def test_without_headings_the_title_loses_its_section_and_site_labels():
    assert find_title(bare("吉林境内车祸致36名香港游客受伤 - 新华社会 - 新华网"), precise=True) == (
        "吉林境内车祸致36名香港游客受伤"
    )
    assert find_title(bare("鼠標手與頸椎病擬列入職業病引爭議_圖片頻道_新華網"), precise=True) == (
        "鼠標手與頸椎病擬列入職業病引爭議"
    )
    # A bare hyphen joins the parts between Han characters ...
    assert find_title(bare("女主播视频门 韩版大S炫富 少女时代爆猛料-女主播-东北网娱乐"), precise=True) == (
        "女主播视频门 韩版大S炫富 少女时代爆猛料"
    )
    # ... but not between Latin letters, and a headline's own " - " stays when both halves are long.
    assert find_title(bare("Covid-19 cases rise again - and hospitals prepare | Daily Post"), precise=True) == (
        "Covid-19 cases rise again - and hospitals prepare"
    )


def test_a_short_leading_part_goes_only_before_a_strong_separator():
    assert find_title(bare("Time 4 talks » Blog Archiv » Weitere Digitalisierung der Kinos"), precise=True) == (
        "Weitere Digitalisierung der Kinos"
    )
    assert find_title(bare("Ozone - the cure for back pain nobody tried"), precise=True) == (
        "Ozone - the cure for back pain nobody tried"
    )


def test_navigation_headings_that_share_nothing_with_the_title_are_not_titles():
    body = "<h2>手机上看新闻</h2><h2>商讯</h2><h3>幼儿园老师结婚给全班发帖</h3>"
    p = bare("龙年春节国内游提早报喜 报名人数已超去年同期_畅游_广州站_凤凰网", body)
    assert find_title(p, precise=True) == "龙年春节国内游提早报喜 报名人数已超去年同期"


def test_a_heading_holding_the_whole_article_is_not_the_title():
    text = "Samsung 全白版平板越南亮相 2012-01-15 " + "據國外媒體報導，三星日前在越南展出了全新的白色版平板電腦。" * 8
    p = bare("Samsung 全白版平板越南亮相 - 數碼 - 新浪網", f"<h2>{text}</h2>")
    assert find_title(p, precise=True) == "Samsung 全白版平板越南亮相"


def test_a_blog_name_heading_every_page_is_chrome_the_matching_heading_is_the_title():
    body = "<h1>DimidoBlog</h1><h2>Was ist Virales Marketing?</h2><h3>Kategorien</h3>"
    assert find_title(bare("Was ist Virales Marketing? | DimidoBlog", body), precise=True) == (
        "Was ist Virales Marketing?"
    )


def test_the_heading_most_like_the_title_wins_as_seed_003_says():
    body = "<h1>Sections</h1><h2>Politics</h2><h1>Verkündung des Tabaksteuergesetzes</h1>"
    p = bare("Zoll online - Fachmeldungen - Verkündung des Tabaksteuergesetzes", body)
    assert find_title(p, precise=True) == "Verkündung des Tabaksteuergesetzes"


def test_the_h1_holds_when_the_title_is_only_the_site_name_or_a_label():
    p = bare("Anwalt Niemeyer", "<h1>Willkommen in der Kanzlei!</h1>", url="https://www.anwaltniemeyer.de/")
    assert find_title(p, precise=True) == "Willkommen in der Kanzlei!"
    assert find_title(bare("Home", "<h1>Time to say goodbye.</h1>"), precise=True) == "Time to say goodbye."


def test_a_headline_given_as_the_site_name_still_counts_as_the_headline():
    head = '<meta property="og:site_name" content="Students halls too full, experts warn">'
    html = (f"<html><head><title>Students halls too full, experts warn</title>{head}</head><body>"
            "<h1>Students halls too full, experts warn</h1><h2>More from The Guardian</h2></body></html>")
    assert find_title(Page.from_html(html, "https://www.msn.com/en-gb/news/1"), precise=True) == (
        "Students halls too full, experts warn"
    )


def test_a_day_stamp_glued_to_the_heading_is_not_part_of_the_title():
    title = "NR2.RU::: Euro falls against the hryvnia / Official rates for 6 January / 06.01.12 / Finance"
    body = "<h1>Euro falls against the hryvnia<span>Official rates for 6 January</span> 06.01.12 08:46</h1>"
    assert find_title(bare(title, body), precise=True) == "Euro falls against the hryvnia"


def test_a_headline_with_its_own_dash_keeps_both_halves_before_the_day_stamp():
    # <title> cuts at the headline's own " – "; the heading shows both halves, then a subtitle and a day.
    title = "NR2.RU::: Ten years of the euro – a sad birthday / The euro needs support again / 06.01.12 / Finance"
    body = "<h1>Ten years of the euro – a sad birthday<br><small>The euro needs support again</small> 06.01.12 11:51</h1>"
    assert find_title(bare(title, body), precise=True) == "Ten years of the euro – a sad birthday"


def test_a_bare_time_after_the_headline_stays_some_sites_title_with_it():
    p = bare("天冷抵抗力弱 齒源膿瘍患者多 - 自由時報", "<h1>天冷抵抗力弱 齒源膿瘍患者多 【16:15】</h1>")
    assert find_title(p, precise=True) == "天冷抵抗力弱 齒源膿瘍患者多 【16:15】"


def test_the_body_still_leaves_out_the_headline_the_sources_vote_for():
    from newscrawl.extract.fields.title import voted_headline

    p = bare("Harbour closed - storm expected | Daily Post", "<h1>Harbour closed - storm expected</h1>")
    assert voted_headline(p) == find_title(p, precise=True) == "Harbour closed - storm expected"
    # Without headline metadata and with only navigation headings, the two differ: the vote
    # (auto's body was measured with it) follows the h1, the title follows <title>.
    p = bare("中国在复杂形势中持续铁腕治理年关欠薪", "<h1>相关新闻</h1><h2>阅读点击排行</h2>")
    assert voted_headline(p) == "相关新闻"
    assert find_title(p, precise=True) == "中国在复杂形势中持续铁腕治理年关欠薪"


def test_site_names_go_from_either_end_before_any_length_rule():
    p = bare("mediaarchitecture.de // » Jens Weber", "<h3>[&gt; Jens Weber</h3>", url="http://mediaarchitecture.de/jw/")
    assert find_title(p, precise=True) == "Jens Weber"  # the heading's markup debris dropped too


def test_a_bare_hyphen_after_cjk_punctuation_opens_the_site_part():
    assert find_title(bare("武汉的声音：有英勇的你，才有英雄的城！-新华网"), precise=True) == (
        "武汉的声音：有英勇的你，才有英雄的城！"
    )


# Issue 26: decoration that holds on sites never seen, by generic evidence of the site's name.


def test_a_host_name_spelled_with_hyphens_or_ascii_letters_still_names_the_site():
    # gruene-wiese.de writes "Grüne Wiese" with a hyphen and "ue": the leading part is the site.
    p = bare("Grüne Wiese Köln - Neue Beete für den Schulgarten der Stadt", url="https://www.gruene-wiese.de/a/1")
    assert find_title(p, precise=True) == "Neue Beete für den Schulgarten der Stadt"
    p = bare("Neue Beete für den Schulgarten der Stadt | Grüne Wiese Köln", url="https://gruene-wiese.de/a/1")
    assert find_title(p, precise=True) == "Neue Beete für den Schulgarten der Stadt"


def test_the_registrable_label_names_the_site_behind_a_subdomain():
    p = bare("Stadtblatt24 Wien - Neue Beete für den Schulgarten der Stadt", url="https://garten.stadtblatt24.at/x")
    assert find_title(p, precise=True) == "Neue Beete für den Schulgarten der Stadt"


def test_a_title_part_holding_a_host_name_is_the_site_even_without_a_url():
    p = bare("Новый мост через Волгу откроют весной - Wochenblatt.RU")
    assert find_title(p, precise=True) == "Новый мост через Волгу откроют весной"
    # "Site: Headline" with the site's name before the colon, however the colon is spaced.
    p = bare("Wochenblatt.ru в Твери: Новый мост через Волгу откроют весной")
    assert find_title(p, precise=True) == "Новый мост через Волгу откроют весной"
    # A topic before a colon is the headline's own.
    p = bare("Тверь: новый мост через Волгу откроют весной")
    assert find_title(p, precise=True) == "Тверь: новый мост через Волгу откроют весной"


def test_a_heading_that_is_a_host_name_is_still_the_headline():
    # Guards the rule above: host names judge <title> parts, not headings.
    p = bare("»rede.jetzt« – Projektblog", "<h1>»rede.jetzt«</h1><h2>Über das Projekt</h2>",
             url="https://projektblog.example.org/rede-jetzt/")
    assert find_title(p, precise=True) == "»rede.jetzt«"


def test_a_channel_after_a_double_hyphen_is_decoration():
    assert find_title(bare("Новый мост через Волгу откроют весной--Новости"), precise=True) == (
        "Новый мост через Волгу откроют весной"
    )
    assert find_title(bare("伏尔加河新大桥将于明年春季通车--财经频道--某某新闻网"), precise=True) == (
        "伏尔加河新大桥将于明年春季通车"
    )
    assert find_title(bare("Bridge over the Volga opens in spring -- News -- Daily Post"), precise=True) == (
        "Bridge over the Volga opens in spring"
    )


def test_a_kicker_set_off_only_by_markup_in_the_h1_is_not_the_headline():
    # <title> and og:title agree; the <h1> adds a leading kicker in its own element.
    head = "<title>Schulze: Germany stands by the food programme | Ministry</title>" + meta(
        "og:title", "Schulze: Germany stands by the food programme"
    )
    p = page(head, '<h1><span class="kicker">Securing food</span> Schulze: Germany stands by the food programme</h1>')
    assert find_title(p, precise=True) == "Schulze: Germany stands by the food programme"
    # A longer <h1> whose extra words lead a shorter source is not a kicker when the shorter is
    # the lesser part (a site name run into the headline's end).
    head = "<title>Colder nights forecast for the week Daily Post</title>" + meta("og:title", "Daily Post")
    p = page(head, "<h1>Colder nights forecast for the week Daily Post</h1>")
    assert find_title(p, precise=True) == "Colder nights forecast for the week Daily Post"


def test_a_label_set_off_by_markup_before_the_heading_is_not_part_of_the_title():
    # No headline metadata: <title> gives the bare headline, the heading adds a label in its own
    # element ("原创", original content) before it.
    body = "<h2 class='title'><span>原创</span>最不愁吃肉的国家：顿顿有肉吃</h2><h3>相关推荐</h3>"
    assert find_title(bare("最不愁吃肉的国家：顿顿有肉吃", body), precise=True) == "最不愁吃肉的国家：顿顿有肉吃"
    body = "<h1><span>Exclusive</span> Harbour bridge closes for a week</h1><h2>Most read</h2>"
    p = bare("Harbour bridge closes for a week | Daily Post", body)
    assert find_title(p, precise=True) == "Harbour bridge closes for a week"
    # A heading whose leading element holds the whole headline, site name and all, is no label.
    body = "<h1><span>L'Université PSL : quand les grandes écoles font université</span> </h1>"
    p = bare("L'Université PSL : quand les grandes écoles font université | PSL", body, url="https://psl.eu/a")
    assert find_title(p, precise=True) == "L'Université PSL : quand les grandes écoles font université"
    # A heading longer than the <title> at its end (the title truncates it) stays whole.
    body = "<h1>Harbour bridge closes for a week as storms batter the coast</h1>"
    p = bare("Harbour bridge closes for a week | Daily Post", body)
    assert find_title(p, precise=True) == "Harbour bridge closes for a week as storms batter the coast"


def test_a_day_and_categories_printed_inside_the_h1_do_not_outvote_the_metadata():
    head = "<title>Fans return to the region's clubs | Handball League of the South</title>" + meta(
        "og:title", "Fans return to the region's clubs"
    )
    body = "<h1>Fans return to the region's clubs<br><small> 02.02.2022 • League, Press, General</small></h1>"
    assert find_title(page(head, body), precise=True) == "Fans return to the region's clubs"


def test_a_part_that_the_h1_states_with_the_headline_is_not_cut_as_the_site_name():
    # og:site_name "Garden" would name "Garden pests" a site part; the h1 states og:title whole.
    head = (
        "<title>Garden pests – what to do about slugs | Gardenpests24</title>"
        + meta("og:title", "Garden pests – what to do about slugs") + meta("og:site_name", "Garden")
    )
    p = page(head, "<h1>Garden pests – what to do about slugs</h1>", url="https://www.gardenpests24.example/slugs")
    assert find_title(p, precise=True) == "Garden pests – what to do about slugs"


def test_a_site_name_heading_does_not_keep_the_site_part_of_the_title():
    # Guards the rule above: the h1 is the site's name alone, so the <title>'s site part still goes.
    head = "<title>Protests at the lecture hall | CITY TV REGIONAL</title>" + meta(
        "og:title", "Protests at the lecture hall"
    ) + meta("og:site_name", "City TV Regional")
    p = page(head, "<h1>CITY TV REGIONAL</h1><h2>Protests at the lecture hall</h2>")
    assert find_title(p, precise=True) == "Protests at the lecture hall"


def test_a_byline_with_a_written_date_inside_the_heading_is_not_part_of_the_title():
    body = "<h1>»Keep our lakes clean!« <h4>Published by SailorBlog on 23 February 2020</h4></h1><h2>Posters</h2>"
    assert find_title(bare("»Keep our lakes clean!« - The SailorBlog from Berlin", body), precise=True) == (
        "»Keep our lakes clean!«"
    )
    body = "<h1>Keep our lakes clean, say sailors <span>by Jo Smith, February 23, 2020</span></h1>"
    assert find_title(bare("Keep our lakes clean, say sailors | SailorBlog", body), precise=True) == (
        "Keep our lakes clean, say sailors"
    )
