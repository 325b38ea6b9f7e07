"""``dom.iter_text_nodes``: text nodes in document order with their owners, skipping subtrees."""

from lxml import html

from newscrawl.extract.dom import iter_text_nodes


def test_text_nodes_with_their_owners_and_skipped_subtrees_left_out():
    root = html.fromstring("<div>Lead <span class='ad'>AD <b>now</b></span> after <i>end</i> tail</div>")
    ad = root.find(".//span")
    every = [(el.tag, text) for el, text in iter_text_nodes(root)]
    assert every == [("div", "Lead "), ("span", "AD "), ("b", "now"), ("div", " after "),
                     ("i", "end"), ("div", " tail")]
    kept = [(el.tag, text) for el, text in iter_text_nodes(root, skip={ad})]
    assert kept == [("div", "Lead "), ("div", " after "), ("i", "end"), ("div", " tail")]


def test_furigana_without_parentheses_is_left_out_and_ruby_with_them_is_read_inline():
    from newscrawl.extract.dom import parse_html, remove_noise, render_paragraphs

    learners = "<p><ruby>子<rt>こ</rt></ruby>どもへの<a href='#'><ruby>虐待<rt>ぎゃくたい</rt></ruby></a>をなくす</p>"
    named = "<p><ruby><rb>尹錫悦</rb><rp>（</rp><rt>ユンソンニョル</rt><rp>）</rp></ruby>大統領は</p>"
    root = parse_html(f"<html><body>{learners}{named}</body></html>")
    remove_noise(root)
    assert render_paragraphs(root.find("body")) == ["子どもへの虐待をなくす", "尹錫悦（ユンソンニョル）大統領は"]
