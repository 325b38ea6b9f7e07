"""Parts of a page React streams to the document's end (Next.js' App Router) are read where the
browser shows them: :mod:`newscrawl.extract.streaming`, through :func:`newscrawl.extract.extract`."""

from __future__ import annotations

from newscrawl.evaluation.rich import markdown_headings
from newscrawl.extract import dom, extract
from newscrawl.extract.streaming import place_streamed_segments

URL = "https://www.example.com/investing/how-to-invest/index-funds/"
P = ["You do not need to be a stock market expert to be a good investor, and index funds are one reason.",
     "An index fund buys every stock of an index, so its returns follow the market as a whole over time.",
     "Fees matter more than most investors think, because they are taken every year from the whole sum.",
     "A broad fund with low fees, bought regularly and held for years, beats most active managers."]
SHELL = """<!DOCTYPE html><html lang="en"><head><meta charSet="utf-8"/><title>How to invest in index funds</title>
</head><body><header><nav><a href="/">Home</a><a href="/investing/">Investing</a><a href="/retirement/">Retirement</a>
</nav></header><main><article><h1>How to invest in index funds</h1>
<div class="byline">By Jane Doe, updated March 5, 2026</div><div class="article-body">{body}</div></article></main>
<footer><p>Copyright 2026 Example Investing. All rights reserved.</p></footer>{tail}</body></html>"""


def test_segments_replace_their_boundaries_fallbacks_and_placeholders_in_script_order():
    # As Next.js streams it: boundaries with their fallbacks between comments, a placeholder, and
    # the segments at the end with the $RC/$RS calls that move them (not in number order).
    body = ('<!--$?--><template id="B:0"></template><div>Loading paragraph...</div><!--/$-->'
            '<template id="P:2"></template>'
            '<!--$?--><template id="B:1"></template>Loading <!-- -->image<!-- -->...<!--/$-->')
    tail = (f'<div hidden id="S:1"><p>{P[3]}</p></div><script>$RC("B:1","S:1")</script>'
            f'<div hidden id="S:0"><p>{P[0]}</p><p>{P[1]}</p></div><script>$RC("B:0","S:0")</script>'
            f'<div hidden id="S:5"><h2>What to buy</h2><p>{P[2]}</p></div><script>$RS("S:5","P:2")</script>')
    article = extract(SHELL.format(body=body, tail=tail), url=URL)
    assert article.text.split("\n") == [P[0], P[1], "What to buy", P[2], P[3]]
    assert markdown_headings(article.markdown) == ["What to buy"]
    assert "Loading" not in article.text and "Loading" not in article.markdown


def test_without_the_scripts_a_segment_goes_to_the_boundary_of_its_number():
    # The page saved without its scripts and comments: the fallback is the short element after
    # the boundary; text after it stays.
    body = ('<template id="B:0"></template><div>Loading paragraph...</div>'
            '<template id="B:1"></template><div>Loading paragraph...</div>')
    tail = f'<div hidden id="S:0"><p>{P[0]}</p><p>{P[1]}</p></div><div hidden id="S:1"><p>{P[2]}</p></div>'
    article = extract(SHELL.format(body=body, tail=tail), url=URL)
    assert article.text.split("\n") == P[:3]


def test_text_around_a_boundary_stays_and_a_segment_without_a_target_stays_hidden():
    text = ('<html><body><div id="a">before <!--$?--><template id="B:0"></template><div class="h-4 animate-pulse">'
            '<div></div></div><!--/$--> after</div><div id="b"><!--$?--><template id="B:1"></template>'
            '<h2>Short heading</h2></div><div hidden id="S:0">new <i>part</i> end</div>'
            '<div hidden id="S:1"><p>one</p></div><div hidden id="S:9"><p>orphan</p></div>'
            '<script>$RC("B:0","S:0");$RC("B:1","S:1")</script></body></html>')
    root = dom.parse_html(text)
    assert place_streamed_segments(root, text) == 2
    assert root.get_element_by_id("a").text_content() == "before new part end after"  # the skeleton gone
    assert root.get_element_by_id("b").text_content() == "oneShort heading"  # no loading message: kept
    assert root.get_element_by_id("S:9").get("hidden") is not None  # nowhere to go: left as it is
    assert root.find(".//template") is None


def test_a_boundary_inside_its_own_segment_or_a_segment_inside_another_is_no_error():
    text = ('<html><body><div hidden id="S:0"><p>a</p><template id="B:0"></template></div>'
            '<template id="B:1"></template><div hidden id="S:1"><p>outer</p><div hidden id="S:2"><p>inner</p></div>'
            '</div><template id="P:2"></template><script>$RC("B:0","S:0");$RC("B:1","S:1");$RS("S:2","P:2")</script>'
            "</body></html>")
    root = dom.parse_html(text)
    assert place_streamed_segments(root, text) == 2
    assert root.get_element_by_id("S:0").get("hidden") is not None
    body = root.find("body")
    assert [p.text for p in body.iterchildren("p")] == ["outer", "inner"]


def test_a_page_without_streamed_segments_is_left_alone():
    page = SHELL.format(body="".join(f"<p>{p}</p>" for p in P), tail='<div hidden id="menu">Menu</div>')
    root = dom.parse_html(page)
    assert place_streamed_segments(root, page) == 0
    assert extract(page, url=URL).text.split("\n") == P


def test_thousands_of_boundaries_under_one_parent_cost_linear_time():
    from fuzz.timing import cpu_ns

    def page(n: int) -> str:
        body = "".join(f'<template id="B:{i:x}"></template><div>Loading...</div>' for i in range(n))
        tail = "".join(f'<div hidden id="S:{i:x}"><p>part {i}</p></div>' for i in range(n))
        return f"<html><body><div>{body}</div>{tail}</body></html>"

    def cost(n: int) -> int:  # the placing alone, on a fresh tree each run
        text = page(n)
        trees = [dom.parse_html(text) for _ in range(3)]
        return cpu_ns(lambda: place_streamed_segments(trees.pop(), text), repeats=3)

    small, large = cost(4000), cost(16000)
    assert large < 8 * small, (small, large)  # linear work: about 4x; quadratic: 16x
    root = dom.parse_html(page(3))
    place_streamed_segments(root, page(3))
    assert root.find("body/div").text_content() == "part 0part 1part 2"
