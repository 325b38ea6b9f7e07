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


def test_the_self_closed_style_pre_check_says_what_the_pattern_finds():
    """``_markup`` runs the self-closed ``<style/>`` substitution only where the pattern matches,
    found by trying it at each ``<style`` opening: the same answer as a search of the whole text."""
    from newscrawl.extract.dom import _SELF_CLOSED_STYLE_RE, _markup, _self_closed_style

    texts = [
        "<p>no style at all</p>",
        "<style>p { margin: 0 }</style><p>x</p>",
        "<STYLE type='text/css'/>a { b: c }</style>",
        "<style/ >rules</style >",
        "<styles/>not a style</style>",
        "<style a='/'>x</style><style b=1 />rules</STYLE>",
        "<style/><p>rules interrupted by a tag</p></style>",
        "<style" * 50 + "/>" + "x" * 100 + "</style>",
        "<style/" + "<style/" * 30,
        "text <style\u00a0/>x</style> and <Style\tmedia=all/>y</style>",
    ]
    assert 0 < sum(_self_closed_style(text) for text in texts) < len(texts)  # both answers are tried
    for text in texts:
        assert _self_closed_style(text) is (_SELF_CLOSED_STYLE_RE.search(text) is not None), text
        assert _markup(text) == _SELF_CLOSED_STYLE_RE.sub(r"<\1>\2", text).encode("utf-8").replace(
            b"</html>", b"").replace(b"</body>", b""), text
