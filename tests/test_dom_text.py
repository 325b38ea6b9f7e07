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


def test_text_and_link_lengths_are_each_elements_text_and_link_text_without_white_space():
    from newscrawl.extract.dom import non_space_len, text_and_link_lengths

    root = html.fromstring(
        "<div><p>One two <a href='/x'>link <b>bold</b></a> tail words</p>"
        "<ul><li><a href='/y'>only a link</a></li><li>plain item <i>it</i></li></ul>"
        "<a href='/z'><span>inside <em>deep</em></span> after</a> end of div</div>")
    lengths = text_and_link_lengths(root)
    assert list(lengths) == list(root.iter())  # every element, in document order
    for el in root.iter():
        anchors = [a for a in el.iter("a") if not any(x.tag == "a" for x in a.iterancestors() if x in set(el.iter()))]
        expected_links = sum(non_space_len(t) for a in anchors for t in a.itertext())
        if any(a.tag == "a" for a in el.iterancestors()):
            expected_links = sum(non_space_len(t) for t in el.itertext())
        assert lengths[el] == (sum(non_space_len(t) for t in el.itertext()), expected_links), el.tag
        assert all(type(n) is int for n in lengths[el])
