"""Authors' shortcuts give what the plain rules give: the one-walk element scan (rules and
<meta> attributes), the finders run only on the lines that can hold their byline, and the
stop before the text sources once the markup has named someone."""

from __future__ import annotations

import json

from newscrawl.extract.fields import authors
from newscrawl.extract.fields.authors import find_authors
from newscrawl.extract.page import Page

PARA = "<p>" + "Some article text that is long enough to be a paragraph. " * 5 + "</p>"

# Every rule, case variants, a rule's word in another attribute, the characters whose case
# folding is odd (Kelvin sign, dotted and dotless i, long s), and links that are no author page.
ELEMENTS = """
<div itemprop="author creator"><span itemprop="name">Ann Itemprop</span></div>
<a rel="author" href="/x">Rel Author</a><span rel="author">not a link</span>
<div class="Post-BYLINE">By Bea Byline</div><div id="AUTHOR-box">Cid Identity</div>
<p data-role="author">only a data attribute</p><meta itemprop="author" content="Dee Meta">
<a href="/Autoren/max-kolter/">Max Kolter</a><a href="/authors/">Our Authors</a>
<a href="https://example.org/PROFILES/jo">Jo Ann Smith</a><a href="/writerſ/">Long S Person</a>
<a href="/journalıst/">Dotless Person</a><a class="İauthor">Dotted Capital</a>
<a href="/news/item">Not Author Page</a><span class="wrapper"><b>plain</b></span>
"""


def _page(head: str = "", body: str = PARA, lang: str = "en") -> Page:
    return Page.from_html(f"<html lang='{lang}'><head><title>Story | Example News</title>{head}</head>"
                          f"<body><h1>A headline here</h1>{body}</body></html>",
                          url="https://news.example.org/story")


def _by_rule_plainly(body) -> list[list]:
    by_rule: list[list] = [[], [], [], [], []]
    for el in body.iterdescendants():
        rule = authors._author_rule(el)
        if rule is not None:
            by_rule[rule].append(el)
    return by_rule


def test_the_element_scan_finds_what_the_rule_finds_on_every_element():
    page = _page('<meta name="author" content="Head Author"><meta>', ELEMENTS + PARA)
    metas, by_rule = authors._scan(page)
    assert by_rule == _by_rule_plainly(page.body)
    assert [len(found) for found in by_rule] == [2, 1, 1, 2, 4]
    assert [el.text for el in by_rule[4]] == ["Max Kolter", "Jo Ann Smith", "Long S Person", "Dotless Person"]
    assert [m for m in metas if m] == [dict(meta.items()) for meta in page.root.iter("meta") if meta.attrib]
    assert metas[0] == {"name": "author", "content": "Head Author"}


def test_metas_outside_head_and_body_keep_document_order():
    page = Page.from_html("<html><head><meta name='a' content='1'></head><body><meta name='b' content='2'>"
                          f"{PARA}</body></html>")
    page.root.append(page.root.makeelement("meta", {"name": "c", "content": "3"}))  # after <body>
    assert [m["name"] for m in authors._scan(page)[0]] == ["a", "b", "c"]


def _text_bylines_plainly(lines: list[str], finders: tuple) -> list[list[str]]:
    found = []
    for finder in finders:
        for i, line in enumerate(lines):
            if len(line) > authors.MAX_BYLINE_LINE and finder is not authors._paren_byline:
                continue
            names = finder(line, lines[i + 1] if i + 1 < len(lines) else "")
            if names:
                found.append(names)
                break
    return found


def test_finders_read_only_candidate_lines_and_find_the_same_bylines():
    body = ("<div>Home | World | Sport</div><h1>A headline here</h1><p>  By   Helen Marsh, Herald staff  </p>"
            "<p>Jane Roe | 05.04.2025</p><p>Автор: Иван Петров</p><p>编辑：李明</p><p>记者 王建宏 张文攀</p>"
            "<p>wangfang 发表于 2024-01-02</p><p>文/张三</p>"
            "<p>正文很长的一段。（常书香 马丹阳）</p><p>Von Max Kolter</p><p>Autorin: Eva Berg</p>" + PARA)
    finders = authors._WRITER_FINDERS + authors._EDITOR_FINDERS
    for lang in ("en", "zh"):
        page = _page(body=body, lang=lang)
        lines = authors._Lines(page)
        assert list(authors._text_bylines(lines, finders)) == _text_bylines_plainly(
            authors._byline_lines(page), finders)
        assert lines.lines == authors._byline_lines(page)
        every = lines.lines
        for finder in finders:
            skipped = set(range(len(every))) - set(lines.candidates(finder))
            assert not any(finder(every[i], every[i + 1] if i + 1 < len(every) else "") for i in skipped)
            accepted = [i for i in range(len(every)) if finder(every[i], every[i + 1] if i + 1 < len(every) else "")]
            assert accepted, finder  # each finder has a byline on this page


def test_each_finder_skips_only_lines_it_cannot_accept():
    page = _page(body="<p>By Jane Doe</p><p>Plain words here</p>" + PARA)
    lines = authors._Lines(page)
    plain = lines.lines.index("Plain words here")
    for finder in authors._WRITER_FINDERS + authors._EDITOR_FINDERS:
        assert plain not in lines.candidates(finder)
        skipped = set(range(len(lines.lines))) - set(lines.candidates(finder))
        assert not any(finder(lines.lines[i], "") for i in skipped)


def test_markup_names_end_the_search_before_the_visible_text_is_read():
    head = ('<script type="application/ld+json">'
            + json.dumps({"@type": "NewsArticle", "author": {"@type": "Person", "name": "Jane Doe"}})
            + "</script>")
    page = _page(head, "<p>By John Roe</p>" + PARA)
    assert find_authors(page) == ["Jane Doe"]
    assert "visible_text" not in page.derived  # no text source was needed
    assert find_authors(_page(body="<p>By John Roe</p>" + PARA)) == ["John Roe"]


def test_the_trailing_cut_s_lookahead_lists_every_character_a_match_starts_with():
    """``_TRAILING``'s leading lookahead and atomic white space only skip work: without them the
    pattern cuts the same text (an alternative added later must add its first letter there)."""
    import random
    import re

    pattern = authors._TRAILING
    lookahead, atomic = r"(?=[\s|–—\-(（\[【•·\dupaovsfbjmnd])", r"(?>(?:(?<!\s)\s*+)?)"
    assert pattern.pattern.startswith(lookahead + atomic)
    plain = re.compile(r"(?:(?<!\s)\s*+)?" + pattern.pattern[len(lookahead + atomic):], pattern.flags)
    words = re.findall(r"[^\W\d_]{2,}", pattern.pattern)  # the alternatives' words, in both cases
    pieces = [*" \t\n\xa0|–—-(（[【•·0123456789.:/,;ſKäöüßé", *words, *(w.upper() for w in words), " 2021", " 12.03"]
    rng = random.Random(7)
    for _ in range(20_000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randrange(1, 12)))
        assert pattern.sub("", text) == plain.sub("", text), text
