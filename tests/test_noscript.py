"""<noscript> as a browser running scripts reads it: its content is text, not markup."""

import random
import re

from newscrawl.extract import dom, extract
from newscrawl.extract.dom import cut_elements, holds_the_page, parse_html
from tests.pages import ARTICLE_PARAGRAPHS, english_article


def test_an_element_left_open_in_a_noscript_does_not_swallow_the_page():
    # libxml2 keeps the <div> open past </noscript> and parses the whole page inside the noscript.
    html = english_article().replace("<body>", '<body><noscript><div id="nojs"></noscript>')
    assert holds_the_page(parse_html(html), "noscript")  # as libxml2 reads it
    root = parse_html(html)
    cleaned = dom.clean_tree(root, html, dom.element_count(root))
    assert cleaned is not root and "budget" in cleaned.text_content()
    assert extract(html, method="auto").text.split("\n") == ARTICLE_PARAGRAPHS


def test_a_div_left_open_in_a_header_button_does_not_swallow_the_page():
    # A menu button whose icon markup lost its closing tags (as on a large publisher's header):
    # browsers close the <div>s at </button>, libxml2 parses the whole page inside the button.
    menu = ('<header><div class="header__inner"><button class="header__menu-button" aria-label="Main menu">'
            '<div class="header__menu-button-inner">\n<div>\n</button>\n</div>'
            '<a href="/" rel="home">Home</a></div></header>')
    html = english_article().replace("<body>", "<body>" + menu)
    assert holds_the_page(parse_html(html), "button")
    assert not holds_the_page(parse_html(english_article()), "button")
    assert extract(html, method="auto").text.split("\n") == ARTICLE_PARAGRAPHS


def test_ordinary_noscripts_are_dropped_and_the_page_parsed_once():
    notice = "<noscript><p>Please enable JavaScript to read the comments.</p></noscript>"
    pixel = '<noscript><img src="https://example.com/pixel.gif"></noscript>'
    html = english_article(extra_body=notice + pixel)
    assert not holds_the_page(parse_html(html), "noscript")
    root = parse_html(html)
    assert dom.clean_tree(root, html, dom.element_count(root)) is root
    assert extract(html, method="auto").text.split("\n") == ARTICLE_PARAGRAPHS


def test_a_copy_of_the_article_in_a_noscript_is_not_read_twice():
    copy = "<noscript><div>" + "".join(f"<p>{p}</p>" for p in ARTICLE_PARAGRAPHS) + "</div></noscript>"
    html = english_article(after_body=copy)
    assert not holds_the_page(parse_html(html), "noscript")
    assert extract(html, method="auto").text.split("\n") == ARTICLE_PARAGRAPHS


def test_cut_elements_is_the_lazy_regex_it_replaces():
    lazy = re.compile(r"<noscript\b.*?</noscript\s*>", re.IGNORECASE | re.DOTALL)
    pieces = ["<noscript>", "<NoScript a='1'>", "</noscript>", "</NOSCRIPT >", "<noscripts>", "x", "<div>", " "]
    rng = random.Random(3)
    for _ in range(5000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 8)))
        # The lazy regex skips an unclosed opening and looks on; no later one can close either.
        assert cut_elements(text) == lazy.sub("", text), text


def test_a_post_shipped_only_in_a_noscript_is_read_from_it():
    post = "".join(f"<p>{p}</p>" for p in ARTICLE_PARAGRAPHS)
    html = f"""<html lang="en"><head><title>Council approves budget</title></head><body>
<div class="header"><p>The latest news from the city hall, every day of the week</p></div>
<div class="post"><div class="post-body" id="rendered-by-script"></div>
<noscript><div class="post-content">{post}</div></noscript></div>
<noscript><p>Please enable JavaScript.</p></noscript></body></html>"""
    assert extract(html, method="auto").text.split("\n") == ARTICLE_PARAGRAPHS


def test_noscript_contents_are_what_the_cut_removes():
    text = 'a<noscript class="x">one</noscript>b<NOSCRIPT>two</noscript >c<noscript>open'
    assert dom.noscript_contents(text) == ["one", "two"]
    assert cut_elements(text) == "abc<noscript>open"
