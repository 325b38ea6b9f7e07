"""Issue 29.11: small field defects, each on a small page written here."""

from __future__ import annotations

from newscrawl.extract import dom, extract

STORY = ("<p>The council of district nine met on Tuesday to discuss the budget for the coming year, and "
         "members argued for hours about roads and schools.</p>"
         "<p>Residents spoke during the comment period, and most asked that the library stay open on "
         "weekends because it is the only quiet place for their children.</p>")


def test_zero_width_characters_leave_text_and_title():
    story = STORY.replace("district", "dis\u200btrict").replace("council", "\ufeffcouncil")
    page = ("<html><head><title>Budget\u200b vote\ufeff delayed</title></head><body><article>"
            "<h1>Budget\u200b vote\ufeff delayed</h1><p>\u200b</p><p>\u2060\u200c</p>"
            f"{story}"
            "<p>In Persian the joiner shapes words: \u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645 and "
            "the family emoji \U0001f468\u200d\U0001f469 keep theirs, a loose one \u200d goes.</p>"
            "</article></body></html>")
    article = extract(page)
    assert article.title == "Budget vote delayed"
    invisible = ("\u200b", "\u2060", "\ufeff")
    assert not any(ch in article.text for ch in invisible)
    assert "The council of district nine" in article.text
    assert "\u0645\u06cc\u200c\u062e" in article.text and "\U0001f468\u200d\U0001f469" in article.text
    assert "a loose one goes" in " ".join(article.text.split())
    assert all(line.strip() for line in article.text.split("\n"))  # no line that held only marks
    assert dom.drop_invisible("plain text\nstays") == "plain text\nstays"


def test_invisible_characters_are_found_wherever_they_are_in_long_text():
    """The substring pre-check must find each of the five characters anywhere, ASCII or not."""
    long = "Ein Satz über Straßen. " * 400
    for ch in ("\u200b", "\u2060", "\ufeff", "\u200c", "\u200d"):
        for at in (0, len(long) // 2, len(long)):
            text = long[:at] + " " + ch + " " + long[at:]
            assert ch not in dom.drop_invisible(text) and ch not in dom.drop_invisible_chars(text)
    joined = long + "\u0645\u06cc\u200c\u062e"  # a joiner between letters shapes the word: kept
    assert dom.drop_invisible_chars(joined) is joined
    assert dom.drop_invisible(long) is long and dom.drop_invisible_chars("ascii " * 100) == "ascii " * 100


def test_list_headings_and_toolbar_labels_left_at_the_body_edges_go():
    """Lines measured in our output and absent from the datasets' truth: the heading of a list of
    links whose links were left out, and toolbar buttons, at the body's end."""
    for label in ("Recent Posts", "Ссылки по теме", "Смотрите также:", "Auch interessant", "Weitere Videos",
                  "Czytaj więcej", "更多相关搜索", "Tell us what you think", "Tweet", "Text size"):
        page = (f"<html><body><article><h1>Council debates the budget</h1>{STORY}<p>{label}</p>"
                "<ul><li><a href='/a'>Another story</a></li><li><a href='/b'>A third one</a></li></ul>"
                "</article></body></html>")
        text = extract(page).text
        assert "The council of district nine" in text and "the only quiet place" in text
        assert label not in text, label
    inside = STORY.replace("</p><p>", "</p><p>See also</p><p>", 1)  # a heading inside the text stays
    assert "See also" in extract(f"<html><body><article>{inside}</article></body></html>").text


def test_picture_labels_pagers_and_publishers_are_not_authors():
    from newscrawl.extract import Page
    from newscrawl.extract.fields.authors import find_authors

    story = "<p>记者从市里获悉，今年全市新建的三座桥梁已经全部通车，市民出行更加方便。</p>" * 3
    for label in ("组图", "高清组图", "资料图", "圖片"):
        page = (f"<html lang='zh'><head><title>新桥通车</title></head><body><h1>新桥通车</h1>{story}"
                f"<p>・江城三座新桥今日全部通车。（{label}）</p><p>・市民称赞“新桥”（{label}）</p></body></html>")
        assert find_authors(Page.from_html(page)) == [], label
    pager = (f"<html lang='zh'><head><title>新桥通车</title></head><body><h1>新桥通车</h1>{story}"
             "<p>市民出行更加方便。（接下一頁）</p></body></html>")
    assert find_authors(Page.from_html(pager)) == []


def test_a_company_is_no_author_and_a_padded_han_name_is_one_name():
    from newscrawl.extract import Page
    from newscrawl.extract.fields.authors import clean_name, find_authors

    assert clean_name("中文学术期刊,汉斯出版社,Hans Publishers") == []
    assert clean_name("Example Publishing") == [] and clean_name("Valley Verlag") == []
    assert clean_name("赵 培") == ["赵培"]  # a two-character name padded to the width of three
    page = ("<html><head><title>A study of bridges</title><meta name='author' content='Hans Publishers'>"
            "</head><body><h1>A study of bridges</h1>" + STORY + "</body></html>")
    assert find_authors(Page.from_html(page)) == []
