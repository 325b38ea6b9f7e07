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
