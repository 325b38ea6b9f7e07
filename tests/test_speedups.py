"""The compiled extension (newscrawl/extract/_speedups.pyx) computes exactly what the pure-Python
code computes: the same TreeIndex lists, teaser items, Gain arrays, weights and hidden elements on
pages written here (Chinese, English, Russian; hidden elements, comments, tails, entities,
attributes of every markup kind; teaser lists of every kind of item) and on every page of every
dataset in ../shared/datasets; the same py3langid feature counts, in the same order, so the same
language and probability.

Each check runs both paths in one process: the compiled code, then the fallback with
``auto.gain_pass``, ``auto.teaser_groups``, ``auto.led_items``, ``dom.tree_walk`` /
``language.byte_walk`` set to None (what ``NEWSCRAWL_PURE_PYTHON=1`` or a missing build gives).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from lxml import etree

from newscrawl.extract import dom, features, language
from newscrawl.extract.fields import authors, dates
from newscrawl.extract.methods import auto
from newscrawl.extract.methods.classifier import BODY_CHARS
from newscrawl.extract.page import TEXT_LENGTHS, Page

ROOT = Path(__file__).resolve().parent.parent
DATASETS = ROOT.parent / "shared" / "datasets"

try:
    from newscrawl.extract import _speedups
except ImportError:
    _speedups = None

needs_build = pytest.mark.skipif(
    _speedups is None,
    reason="newscrawl.extract._speedups is not built (pip install -e . builds it) or NEWSCRAWL_PURE_PYTHON is set")

ZH = "国务院常务会议今天在北京召开，会议研究部署了进一步稳定经济增长的若干措施，并听取了有关部门的工作汇报。"
EN = "The council met on Tuesday and agreed to keep the harbour open for the rest of the winter season."
RU = "Городской совет во вторник решил оставить порт открытым до конца зимы, сообщили в администрации."

PAGE = """<!DOCTYPE html>
<html lang="{lang}"><head><title>{title}</title></head>
<body class="page">
  <!-- a comment before the header -->
  <header id="top" role="banner"><nav class="menu"><a href="/">Home</a> | <a href="/world">World</a></nav></header>
  <div class="layout" id="main" data-x="1">
    <article itemprop="articleBody" class="story-body">
      <h1>{title}</h1>
      <p>{text}</p>
      <p class="lead">{text} <b>{text}</b> tail after b &amp; &lt;entities&gt; &nbsp;&#x3000;</p>
      <p style="color: red">{text}<!-- inside -->after the comment</p>
      <div hidden>{text}</div>
      <div aria-hidden="true">{text}</div>
      <div style="display:none">{text}</div>
      <div style="visibility : hidden" class="x">{text}</div>
      <p role="note" itemprop="description">{text}</p>
      <p id="only-id">{text}</p>
      <p role="main">{text}</p>
      <p itemprop="text">{text}</p>
      <p aria-hidden="false">{text}</p>
      <p data-only="yes">{text}</p>
      <p class="a" class="b" id="dup">{text}</p>
      <span class="">&#160;&#12288;</span>&#8203;
      <p><![CDATA[ not cdata in html ]]>{text}<?php echo 1 ?></p>
      <p>\u00a0\u3000\u2003</p>\u00a0tail of no-break spaces
      <a href="/more">{text}</a> tail after a link
      <ul class="related-links"><li><a href="/1">{text}</a></li><li><a href="/2">One more related story</a></li></ul>
    </article>
    <aside class="sidebar">{text}</aside>
    <div class="comments" id="disqus_thread"><p>{text}</p></div>
    <svg:rect xmlns:svg="http://www.w3.org/2000/svg" svg:width="1">x</svg:rect>
    <div xml:lang="en" lang="en">{text}</div>
  </div>
  <footer class="footer">Copyright 2026 {title}</footer>
</body></html>"""

PAGES = {
    "zh": PAGE.format(lang="zh", title="会议召开", text=ZH),
    "en": PAGE.format(lang="en", title="The council met", text=EN),
    "ru": PAGE.format(lang="ru", title="Городской совет", text=RU),
    "empty": "<html><body></body></html>",
    "text only": "<html><body>just text, no element</body></html>",
    "space only": "<html><body>\n  \t<div>\u00a0</div>\n</body></html>",
    "nested links": f"<html><body><a href='/x'><div class='story-body'>{EN}<p>{EN}</p></div></a>{EN}</body></html>",
    # The stop-word test's tokens: apostrophes inside and at the ends of words, underscores,
    # digits, letters that lower-case into other letters, only stop words split by punctuation.
    "tokens": "<html lang='en'><body>" + "".join(f"<p>{text}</p>" for text in (
        "Don’t", "don't", "rock'n'roll", "dogs' day", "'twas", "x'", "_the_", "the_", "THE", "İt", "ΣΑΣ",
        "2024's", "a-b", "can’t’ve", "itʼs", "Ｔｈｅ", "THÉ", "of", "théâtre", "zzz qqq", "!the!")) + "</body></html>",
}


def gain_arrays(page: Page, cjk_mode: str = "substring", mu: float = auto.MU) -> dict:
    """What a Gain holds, by position (elements themselves compared by identity)."""
    gain = auto.Gain(page, cjk_mode, mu)
    return {
        "elements": [id(el) for el in gain.elements],
        "weights": gain.weights,
        "valids": gain.valids,
        "noises": gain.noises,
        "link_lengths": gain.link_lengths,
        "weight": gain._weight.tolist(),
        "valid": gain._valid.tolist(),
        "noise": gain._noise.tolist(),
        "hidden": sorted(gain.index[el] for el in gain.hidden),
        "hidden mask": gain._hidden.tolist(),
        "body chars": page.derived.get(BODY_CHARS),
    }


def both_ways(page: Page, monkeypatch, **kwargs) -> tuple[dict, dict]:
    page.language  # noqa: B018 - computed once, before either pass
    alive = list(page.body.iter())  # the same proxies both ways: ids compare elements
    compiled = gain_arrays(page, **kwargs)
    page.derived.pop(BODY_CHARS, None)
    with monkeypatch.context() as patch:
        pure_python(patch)
        pure = gain_arrays(page, **kwargs)
    assert compiled["elements"] == [id(el) for el in alive]
    return compiled, pure


def pure_python(patch) -> None:
    """What a missing build gives: every compiled function the extraction calls set to None."""
    patch.setattr(auto, "gain_pass", None)
    patch.setattr(auto, "teaser_groups", None)
    patch.setattr(auto, "led_items", None)
    patch.setattr(auto, "markup_weights", None)
    patch.setattr(dom, "tree_walk", None)
    patch.setattr(authors, "author_candidates", None)
    patch.setattr(dates, "CompiledTextWalk", None)
    patch.setattr(dom, "compiled_render", None)
    patch.setattr(dom, "text_nodes", None)
    patch.setattr(dom, "strip_end_tags", None)
    patch.setattr(features, "char_counts", None)


def teaser_sets(page: Page) -> tuple[list, list]:
    """``teaser_items`` on ``page``'s body both ways, from the arrays Gain passes it."""
    captured = []
    teaser_items = auto.teaser_items
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(auto, "teaser_items", lambda *args: captured.append(args) or teaser_items(*args))
        auto.Gain(page)
    compiled = sorted(teaser_items(*captured[0]))
    with pytest.MonkeyPatch.context() as patch:
        pure_python(patch)
        pure = sorted(teaser_items(*captured[0]))
    return compiled, pure


def tree_lists(root) -> dict:
    """What a TreeIndex holds (elements by identity), with the types of its values."""
    tree = dom.TreeIndex(root)
    return {
        "elements": [id(el) for el in tree.elements],
        "index": [(id(el), i) for el, i in tree.index.items()],
        "parent": tree.parent,
        "end": tree.end.tolist(),
        "end dtype": str(tree.end.dtype),
        "in_anchor": tree.in_anchor,
        "texts": tree.texts,
    }


def assert_same_tree(root, what: str) -> None:
    alive = list(root.iter())  # the same proxies both ways: ids compare elements
    compiled = tree_lists(root)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(dom, "tree_walk", None)
        pure = tree_lists(root)
    assert_same(compiled, pure, what)
    assert compiled["elements"] == [id(el) for el in alive]


def assert_same(compiled: dict, pure: dict, what: str) -> None:
    for key in pure:
        assert compiled[key] == pure[key], f"{what}: {key} differs"
        assert [type(v) for v in np.ravel(compiled[key]).tolist()] == [type(v) for v in np.ravel(pure[key]).tolist()], (
            f"{what}: {key} holds other types")


@needs_build
def test_auto_uses_the_compiled_pass_when_built():
    assert auto.gain_pass is _speedups.gain_pass
    assert auto.markup_weights is _speedups.markup_weights


@needs_build
@pytest.mark.parametrize("name", sorted(PAGES))
@pytest.mark.parametrize("cjk_mode,mu", [("substring", auto.MU), ("substring+punct", 1.0), ("substring", 0.3)])
def test_the_compiled_pass_gives_the_python_pass_s_arrays(name, cjk_mode, mu, monkeypatch):
    compiled, pure = both_ways(Page.from_html(PAGES[name], url="https://example.com/a"), monkeypatch,
                               cjk_mode=cjk_mode, mu=mu)
    assert_same(compiled, pure, name)


@needs_build
@pytest.mark.parametrize("name", sorted(PAGES))
def test_the_compiled_walk_gives_the_python_tree_index(name):
    """From the body, from every element (a root inside a link, a leaf, a comment) and the html."""
    page = Page.from_html(PAGES[name], url="https://example.com/a")
    assert dom.tree_walk is _speedups.tree_walk
    roots = [page.body, page.body.getroottree().getroot(), *page.body.iter()]
    for root in roots:
        assert_same_tree(root, f"{name} {root.tag}")
    compiled = tree_lists(page.body)
    if name in ("en", "nested links"):
        assert any(compiled["in_anchor"]) and not all(compiled["in_anchor"])


@needs_build
def test_the_compiled_walk_leaves_namespaced_and_upper_case_anchors_to_python():
    from lxml import etree

    page = Page.from_html(PAGES["en"], url="https://example.com/a")
    svg = etree.SubElement(page.body.find(".//article"), "{http://www.w3.org/2000/svg}a")
    etree.SubElement(svg, "span").text = EN
    assert _speedups.tree_walk(page.body) is None
    assert_same_tree(page.body, "a namespaced a")
    root = etree.Element("div")
    etree.SubElement(etree.SubElement(root, "A"), "span").text = EN
    assert _speedups.tree_walk(root) is None
    assert_same_tree(root, "upper-case A")
    plain = Page.from_html(PAGES["nested links"], url="https://example.com/a")
    assert _speedups.tree_walk(plain.body) is not None


LI = "<li class='item post-{n}'>{item}</li>"
TEASERS = [  # lists of three items each, each kind of item the check reads
    "<a href='/{n}'>{text}</a>",  # a headline link
    "<a href='/{n}'>{text}</a> — ",  # a tail of two characters or fewer
    "<a href='/{n}'>{text}</a> scored twice in the second half",  # a sentence: no teaser
    "<strong><a href='/{n}'>{text}</a></strong> scored twice",
    "<strong><a href='/{n}'>{text}</a></strong>",
    "<span>10:17</span> <a href='/{n}'>{text}</a>",  # a time stamp before the link
    "<span>12:30</span> more words <a href='/{n}'>{text}</a>",
    "½ <a href='/{n}'>{text}</a>",  # a number, not a letter
    " 　<a href='/{n}'>{text}</a>",
    "<a href='/{n}'><span>{text}</span><img src='x.png'></a>",  # the text inside the link
    "<a href='/{n}'><b><i>{text}</i></b></a>tail",
    "<div><a href='/{n}'>{text}</a></div> a long tail after the block",
    "<span><a href='/{n}'>{text}</a> </span> after the span",
    "<a href='/{n}'>Ok</a><p>{text}</p>",
    "<em>{text}</em> <a href='/{n}'>more</a>",
]


def teaser_page(text: str, other: str) -> str:
    lists = []
    for k, item in enumerate(TEASERS):
        items = "".join(LI.format(n=n, item=item.format(n=n, text=f"{text} {k}.{n}")) for n in range(4))
        lists.append(f"<ul class='list-{k}'>{items}</ul>")
    summaries = "".join(f"<dt><a href='/d{n}'>{text} {n}</a></dt><dd>{other}</dd>" for n in range(4))
    return (f"<html><body><article class='story-body'><p>{other}</p><p>{other}</p>{''.join(lists)}"
            f"<dl>{summaries}</dl><p>{other} {other} {other}</p></article></body></html>")


TEASER_PAGES = {"en": teaser_page(EN[:40], EN), "zh": teaser_page(ZH[:12], ZH), "ru": teaser_page(RU[:30], RU),
                "digits": teaser_page("2026 12:30 _ 45", EN)}


@needs_build
@pytest.mark.parametrize("name", sorted(TEASER_PAGES))
def test_the_compiled_teaser_check_finds_the_python_check_s_items(name, monkeypatch):
    page = Page.from_html(TEASER_PAGES[name], url="https://example.com/a")
    page.language  # noqa: B018
    compiled, pure = teaser_sets(page)
    assert compiled == pure
    if name != "digits":
        assert len(compiled) >= 12
    compiled_arrays, pure_arrays = both_ways(page, monkeypatch)
    assert_same(compiled_arrays, pure_arrays, name)


@needs_build
def test_the_compiled_teaser_check_reads_other_nodes_through_lxml(monkeypatch):
    """Comments inside links, namespaced elements and an upper-case A: the Python API's answers."""
    from lxml import etree

    page = Page.from_html(TEASER_PAGES["en"], url="https://example.com/a")
    page.language  # noqa: B018
    lists = page.body.findall(".//ul")
    for a in lists[0].iter("a"):
        comment = etree.Comment(" a comment with words ")
        a.insert(0, comment)
        a.text = None
    for li in lists[1]:
        li.append(etree.Comment("x"))
    for li in lists[2]:
        svg = etree.SubElement(li, "{http://www.w3.org/2000/svg}a")
        svg.text = "headline in svg"
        li.insert(0, svg)
    for li in lists[4]:
        wrapper = etree.Element("{http://www.w3.org/2000/svg}g")
        wrapper.tail = "x"
        strong = li[0]
        li.replace(strong, wrapper)
        wrapper.append(strong)
    for li in lists[5]:
        upper = etree.SubElement(li, "A")
        upper.text = "Upper-case headline"
        li.insert(0, upper)
    compiled, pure = teaser_sets(page)
    assert compiled == pure
    compiled_arrays, pure_arrays = both_ways(page, monkeypatch)
    assert_same(compiled_arrays, pure_arrays, "other nodes in teasers")


@needs_build
def test_the_written_pages_exercise_what_the_pass_reads(monkeypatch):
    """Hidden elements, a namespaced element, valid and link text are all there to compare."""
    page = Page.from_html(PAGES["en"], url="https://example.com/a")
    compiled, _ = both_ways(page, monkeypatch)
    assert len(compiled["hidden"]) >= 4
    assert max(compiled["valids"]) > 0 and max(compiled["link_lengths"]) > 0
    assert any(":" in el.tag for el in page.body.iter() if isinstance(el.tag, str))


@needs_build
def test_comments_entities_and_processing_instructions_added_after_parsing(monkeypatch):
    """The parser drops comments and PIs; nodes that are no element, added later, still count alike."""
    from lxml import etree

    page = Page.from_html(PAGES["en"], url="https://example.com/a")
    article = page.body.find(".//article")
    comment = etree.Comment(" " + EN + " ")
    comment.tail = EN
    article.insert(2, comment)
    entity = etree.Entity("shy")
    entity.tail = " " + EN
    article.append(entity)
    pi = etree.ProcessingInstruction("php", "echo 1")
    pi.tail = "\u00a0"
    article[3].append(pi)
    assert {el.tag for el in page.body.iter()} >= {etree.Comment, etree.Entity, etree.ProcessingInstruction}
    compiled, pure = both_ways(page, monkeypatch)
    assert_same(compiled, pure, "other nodes")
    for root in [page.body, article, *article.iter()]:
        assert_same_tree(root, f"other nodes {root.tag}")


@needs_build
def test_removed_elements_are_not_read(monkeypatch):
    """The crawl's template stage drops elements after parsing: the pass reads the tree as it is then."""
    page = Page.from_html(PAGES["ru"], url="https://example.com/a")
    for el in list(page.body.iter("aside", "footer", "nav")):
        el.drop_tree()
    page.body.find(".//article").set("class", "changed after parsing")
    compiled, pure = both_ways(page, monkeypatch)
    assert_same(compiled, pure, "after drop_tree")
    assert len(compiled["elements"]) == len(list(page.body.iter()))


@needs_build
def test_the_pure_python_switch_leaves_the_extension_unimported():
    code = "import sys; from newscrawl.extract.methods import auto; print(auto.gain_pass, '_speedups' in str(sys.modules))"
    env = dict(os.environ, NEWSCRAWL_PURE_PYTHON="1", PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT, check=True)
    assert out.stdout.split()[0] == "None"


def walks(data: bytes) -> tuple[list | None, list | None, list | None]:
    """The feature counts of ``data`` by the compiled walk, the numpy walk and py3langid's own."""
    from py3langid.langid import visit_counts

    identifier = language._identifier()
    compiled = language.byte_walk(data, identifier._moves, identifier._rows, identifier._outputs,
                                  len(identifier.nb_ptc))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(language, "byte_walk", None)
        numpy_walk = identifier.visits(data)
    own = visit_counts(identifier.tk_nextmove, identifier._rowbase, identifier.tk_output, data)
    return tuple(None if v is None else list(v.items()) for v in (compiled, numpy_walk, own))


@needs_build
def test_language_uses_the_compiled_walk_when_built():
    assert language.byte_walk is _speedups.byte_walk


@needs_build
def test_the_compiled_row_gather_converts_float16_as_numpy_does():
    assert language.rows_as_float32 is _speedups.rows_as_float32
    identifier = language._identifier()
    table = identifier.nb_ptc
    rng = np.random.default_rng(5)
    rows = np.concatenate([[0, len(table) - 1], rng.integers(0, len(table), 500)]).astype(np.int64)
    converted = _speedups.rows_as_float32(identifier._half_bits, rows, identifier._halves)
    assert converted.dtype == np.float32
    assert converted.tobytes() == table[rows].astype(np.float32).tobytes()
    every_half = np.arange(1 << 16, dtype=np.uint16).reshape(-1, 2)  # every float16 bit pattern
    finite = np.isfinite(every_half.view(np.float16)).all(axis=1)
    both = _speedups.rows_as_float32(every_half[finite], np.arange(finite.sum(), dtype=np.int64), identifier._halves)
    assert both.tobytes() == every_half[finite].view(np.float16).astype(np.float32).tobytes()
    with pytest.raises(IndexError):
        _speedups.rows_as_float32(identifier._half_bits, np.array([len(table)], dtype=np.int64), identifier._halves)


@needs_build
def test_the_compiled_byte_walk_counts_what_py3langid_counts_in_the_same_order():
    import random

    rng = random.Random(11)
    identifier = language._identifier()
    texts = [ZH, EN, RU, EN + " " + RU + " " + ZH, "", "a", " ", "12:30 — ok", "\u00a0\u3000"]
    texts += ["".join(chr(rng.choice((rng.randrange(32, 127), rng.randrange(0x400, 0x500), rng.randrange(0x4e00, 0x4f00))))
                      for _ in range(rng.randrange(1, 400))) for _ in range(60)]
    data = [identifier._encode(t) for t in texts] + [bytes(rng.randrange(256) for _ in range(300)) for _ in range(20)]
    for sample in data:
        compiled, numpy_walk, own = walks(sample)
        assert compiled == numpy_walk
        assert compiled == own  # a Counter keeps the order of first occurrence too


def dataset_pages():
    from newscrawl.evaluation.datasets import decode_like_scrapy, load_dataset

    for path in sorted(p for p in DATASETS.iterdir() if (p / "truth.jsonl").is_file()):
        for record in load_dataset(path):
            yield path.name, record.url, decode_like_scrapy(record.html)


def dataset_bodies():
    """``(set, url, page)`` for every dataset page extract() parses and that has a <body>."""
    for name, url, text in dataset_pages():
        try:
            page = Page.from_html(text, url=url)
        except Exception:  # noqa: BLE001 - a page extract() cannot parse is no comparison
            continue
        if page.body is not None:
            yield name, url, page


def gain_lengths_and_counted(page: Page, mu: float) -> tuple[dict, dict] | None:
    """Page.lengths as auto's Gain leaves them, and as dom.text_and_link_lengths counts them."""
    if page.body is None:
        return None
    page.language  # noqa: B018
    auto.Gain(page, "substring", mu)
    assert TEXT_LENGTHS in page.derived
    return page.lengths, dom.text_and_link_lengths(page.body)


@pytest.mark.parametrize("name", sorted(PAGES))
@pytest.mark.parametrize("mu", [auto.MU, 0.3, 1.0])
@pytest.mark.parametrize("compiled", [True, False])
def test_the_lengths_gain_counted_are_the_lengths_counted_apart(name, mu, compiled, monkeypatch):
    """Page.lengths (the lead's search for the shown description) read from auto's Gain arrays are
    the exact integers a separate count gives, with the compiled pass and without it."""
    if compiled and _speedups is None:
        pytest.skip("newscrawl.extract._speedups is not built")
    with monkeypatch.context() as patch:
        if not compiled:
            pure_python(patch)
        found = gain_lengths_and_counted(Page.from_html(PAGES[name], url="http://127.0.0.1/a.html"), mu)
    if found is not None:
        from_gain, counted = found
        assert from_gain == counted
        assert all(type(n) is int for pair in from_gain.values() for n in pair)


@pytest.mark.skipif(not DATASETS.is_dir(), reason="../shared/datasets is absent (it sits beside the checkout)")
@pytest.mark.skipif(_speedups is not None, reason="built: the one pass over the datasets below checks the lengths")
def test_every_dataset_page_gets_the_same_lengths_from_gain():
    """Without the build: Page.lengths from the pure-Python Gain on every dataset page."""
    compared = 0
    for name, url, page in dataset_bodies():
        from_gain, counted = gain_lengths_and_counted(page, auto.MU)
        assert from_gain == counted, f"{name} {url}"
        compared += 1
    assert compared > 1000


AUTHOR_PAGE = """<html><head><meta name="author" content="Head Author"></head><body>
<meta name="byl" content="By Body Meta"><meta>
<div class="post-Author"><a rel="author" href="/about">Ann Writer</a></div>
<span itemprop="author creator">Bo Smith</span><p class="BYLINE">By Cy Jones</p>
<p id="AuthorBox" class="">x</p><p data-x="nothing here">y</p>
<a href="/Profiles/dee-lane/">Dee Lane</a><a href="/team/">Our Team</a>
<a href="https://x.example/autorin/eva-meier">Eva Meier</a><a href="/avtor/ivan/">Иван Петров</a>
<a href="/writerſ/fay-ng/">Fay Ng</a><a href="/reporter/">No Slash End</a><a title="/journalists/">Gil Hart</a>
<a href="/%s/">Hal Ito</a><!-- <p class="author">commented out</p> -->
<a href="/x" class="auth&#111;r">Ivy Lo</a><a class="by&amp;line">Jo Ma</a><a class="bylİne">Kai Lu</a>
<p class="a&#x75;thor">entity in the name</p>
</body></html>""" % ("authors" * 3)


def author_scans(page: Page, monkeypatch) -> tuple[tuple, tuple]:
    def scan() -> tuple:
        metas: list = []
        by_rule = authors._elements_by_rule(page.body, metas)
        return [[id(el) for el in found] for found in by_rule], [id(el) for el in metas]

    alive = list(page.root.iter())  # noqa: F841 - the same proxies both ways: ids compare elements
    compiled = scan()
    with monkeypatch.context() as patch:
        pure_python(patch)
        pure = scan()
    return compiled, pure


@needs_build
def test_the_author_scan_is_compiled_when_built():
    assert authors.author_candidates is _speedups.author_candidates


@needs_build
@pytest.mark.parametrize("name", ["authors", *sorted(PAGES)])
def test_the_compiled_author_scan_finds_the_python_scan_s_elements(name, monkeypatch):
    page = Page.from_html(AUTHOR_PAGE if name == "authors" else PAGES[name])
    compiled, pure = author_scans(page, monkeypatch)
    assert compiled == pure
    if name == "authors":
        by_rule, metas = compiled
        assert [len(found) for found in by_rule] == [1, 1, 1, 4, 4] and len(metas) == 1


WALK_PAGES = {
    **PAGES,
    "headline": "<html><body><div>before <b>bold</b> tail</div><h1> x </h1><h1>Real <i>headline</i></h1>"
                + "<p>" + EN + "</p>" * 1 + ("<p>" + RU + "</p>") * 80 + "</body></html>",
    "comments and cdata": "<html><body><p>a<!--c-->hidden tail<b>b</b>shown tail</p><?pi x?>after pi"
                          "<p><![CDATA[x]]>y</p>\u3000</body></html>",
    "no headline": "<html><body>" + ("<div>" + ZH + "<br>" + ZH + "</div>") * 300 + "</body></html>",
}
WALK_WINDOWS = ([dates.HEADLINE_TEXT, dates.TEXT_WINDOW, None], [dates.TEXT_WINDOW], [None], [5, 0, 40, None])


def walk_runs(page: Page, windows: list) -> tuple[list, list]:
    compiled = _speedups.TextWalk(page.body, dates._LINE_TAGS, dates.TEXT_PREFIX + dates.TEXT_WINDOW)
    pure = dates._TextWalk(page.body)
    return [compiled.run(w) for w in windows], [pure.run(w) for w in windows]


@needs_build
def test_the_date_search_walks_the_text_in_c_when_built():
    assert dates.CompiledTextWalk is _speedups.TextWalk


@needs_build
@pytest.mark.parametrize("name", sorted(WALK_PAGES))
@pytest.mark.parametrize("windows", WALK_WINDOWS)
def test_the_compiled_text_walk_gives_the_python_walk_s_text_run_after_run(name, windows):
    page = Page.from_html(WALK_PAGES[name])
    for element in page.body.iter("p"):  # added after parsing, as a template stage could
        element.append(etree.Comment("added"))
        element.append(etree.ProcessingInstruction("added"))
        break
    compiled, pure = walk_runs(page, windows)
    assert compiled == pure
    assert compiled[-1][0] or name == "empty"


@needs_build
def test_the_compiled_walk_stops_past_the_window_and_finds_the_headline():
    page = Page.from_html(WALK_PAGES["headline"])
    (short, end), (whole, same_end) = walk_runs(page, [40, None])[0]
    assert end == same_end == whole.index(EN) and len(short) == end + 40 < len(whole)  # " x " is too short


RENDER_PAGES = {
    **PAGES,
    "blocks and breaks": "<html><body><div>a<b>b</b>c<br>d<br><br><p>e</p>f<img src=x>g<ul><li>h</li>"
                         "<li>i<div>j</div>k</li></ul>l<!--c-->m<table><tr><td>n</td></tr></table>o</div>"
                         "<p>  spaced \u00a0 out\n\t text  </p></body></html>",
}


def renders(page: Page, root, skip) -> tuple[list, list]:
    with pytest.MonkeyPatch.context() as patch:
        compiled = dom.render_paragraphs(root, skip)
        patch.setattr(dom, "compiled_render", None)
        return compiled, dom.render_paragraphs(root, skip)


@needs_build
def test_paragraphs_are_rendered_in_c_when_built_and_without_a_text_filter():
    assert dom.compiled_render is _speedups.render_paragraphs


@needs_build
@pytest.mark.parametrize("name", sorted(RENDER_PAGES))
def test_the_compiled_rendering_gives_the_python_paragraphs(name):
    page = Page.from_html(RENDER_PAGES[name])
    elements = list(page.body.iter())
    for skip in (set(), set(elements[1::3]), {page.body}, set(page.body.iter("img", "li", "b"))):
        compiled, pure = renders(page, page.body, skip)
        assert compiled == pure, skip
    for root in elements[1:]:
        compiled, pure = renders(page, root, set())
        assert compiled == pure


COUNT_TEXTS = [
    "", " \t\n\u00a0\u3000\u2003", "Hello, world! 42 times.", "$+<=>^`|~ !\"#%&'()*,-./:;?@[\\]_{}",
    ZH + "，。！？「」", RU + " — «цитата»", "²³½Ⅷ١٢٣ ⅰ", "e\u0301 ﬁ ß İ", "\U0001F600 \U0001D400 \U00010000",
    "¿Qué? ¡Sí! … · • ‰ † ‡ § ¶", "\x00\x1f\x7f\x85\u2028",
]


@needs_build
@pytest.mark.parametrize("text", COUNT_TEXTS)
def test_the_compiled_character_counts_are_the_python_counts(text):
    compiled = features._text_stats(text, False)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(features, "char_counts", None)
        pure = features._text_stats(text, False)
    assert vars(compiled) == vars(pure)


def text_node_lists(root, skip) -> tuple[list, list]:
    compiled = [(id(owner), text) for owner, text in dom.iter_text_nodes(root, skip)]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(dom, "text_nodes", None)
        return compiled, [(id(owner), text) for owner, text in dom.iter_text_nodes(root, skip)]


@needs_build
@pytest.mark.parametrize("name", sorted(RENDER_PAGES))
def test_the_compiled_text_nodes_are_the_python_text_nodes(name):
    page = Page.from_html(RENDER_PAGES[name])
    elements = list(page.body.iter())
    assert dom.text_nodes is _speedups.text_nodes
    for skip in (set(), set(elements[1::3]), {page.body}, frozenset(page.body.iter("b", "li"))):
        compiled, pure = text_node_lists(page.body, skip)
        assert compiled == pure
    for root in elements[1:]:
        compiled, pure = text_node_lists(root, ())
        assert compiled == pure


WHITE_SPACE = [chr(code) for code in range(0x110000) if chr(code).isspace()]
END_TAG_TEXTS = [
    *(f"a</{tag}{space}{space}>b</{tag}{space}x>" for space in WHITE_SPACE for tag in ("html", "BODY", "HtMl")),
    "</html>", "</html", "<</html>>", "</htmlx>", "</ html>", "</body >\u0301>", "</html\u200b>", "</bod>",
    "</html></body></HTML>", "é</body>é", "\u4e2d</html\u3000\u2028>\u6587", "</body\u180e>", "", "<",
    "</\u0130tml>", "</\u212aody>", "<p>" + ZH + "</p></body>\n</html>\n",
]


@needs_build
def test_the_compiled_end_tag_scan_knows_every_white_space_character():
    """The scan's table of white space in UTF-8 is str.isspace()'s (what the regex's \\s is)."""
    for space in WHITE_SPACE:
        assert _speedups.strip_end_tags(f"</body{space}>".encode()) == b"", hex(ord(space))
    assert _speedups.strip_end_tags("</body\u200b>".encode()) == "</body\u200b>".encode()


@needs_build
@pytest.mark.parametrize("text", END_TAG_TEXTS)
def test_the_compiled_end_tag_scan_removes_what_the_regex_removes(text):
    assert dom.strip_end_tags is _speedups.strip_end_tags
    assert _speedups.strip_end_tags(text.encode()) == dom._END_HTML_BODY_RE.sub("", text).encode()


ELEMENT_COUNT_PAGES = [
    "<p>one",
    "<html><head><title>t</title></head><body><!-- c --><?pi x?><div><p>a<b>b</b></p></div>&amp;</body></html>",
    "<table><tr><td>1<td>2</table><svg><g><rect/></g></svg><math><mi>x</mi></math>",
    "<body>" + "<div>" * 300 + "deep" + "</div>" * 300 + "</body>",
]


@needs_build
@pytest.mark.parametrize("text", ELEMENT_COUNT_PAGES)
def test_the_compiled_element_count_is_xpath_s(text):
    root = dom.parse_html(text)
    root.find(".//*").addprevious(etree.Comment("added after parsing"))  # iter() yields it: not counted
    root.append(etree.ProcessingInstruction("pi", "added"))
    assert dom.compiled_element_count is _speedups.element_count
    assert _speedups.element_count(root) == root.xpath("count(//*)") == sum(
        1 for el in root.iter() if isinstance(el.tag, str))


def same_language_sample(sample: str, monkeypatch) -> None:
    """The sample's py3langid feature counts, language and probability, compiled and not."""
    identifier = language._identifier()
    compiled, numpy_walk, own = walks(identifier._encode(sample))
    assert compiled == numpy_walk == own, sample[:80]
    scores = identifier._decide(sample)
    with monkeypatch.context() as patch:
        patch.setattr(language, "byte_walk", None)
        patch.setattr(language, "rows_as_float32", None)
        assert identifier._decide(sample).tolist() == scores.tolist(), sample[:80]


def same_gain_tree_and_teasers(page: Page, what: str, monkeypatch) -> None:
    compiled, pure = both_ways(page, monkeypatch)
    assert_same(compiled, pure, f"gain: {what}")
    assert_same_tree(page.body, f"tree index: {what}")
    compiled_teasers, pure_teasers = teaser_sets(page)
    assert compiled_teasers == pure_teasers, f"teasers: {what}"


def same_paragraphs_and_text_nodes(page: Page, what: str) -> None:
    elements = list(page.body.iter())
    for skip in (set(), set(elements[::9]), set(elements[::7])):
        compiled, pure = renders(page, page.body, skip)
        assert compiled == pure, f"paragraphs: {what}"
        compiled, pure = text_node_lists(page.body, skip)
        assert compiled == pure, f"text nodes: {what}"


def same_character_counts(page: Page, what: str) -> None:
    texts = [t for t in page.body.itertext() if t.strip()][:200]
    compiled = [vars(features._text_stats(t, False)) for t in texts]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(features, "char_counts", None)
        assert compiled == [vars(features._text_stats(t, False)) for t in texts], f"character counts: {what}"


@needs_build
@pytest.mark.skipif(not DATASETS.is_dir(), reason="../shared/datasets is absent (it sits beside the checkout)")
@pytest.mark.timeout(1200)  # ~3,000 pages, every comparison: past the suite's 300 s on a loaded 2-core machine
def test_every_dataset_page_gets_the_same_results_both_ways(monkeypatch):
    """One pass over every page of every dataset, each page decoded and parsed once, every compiled
    function against its pure-Python fallback: the end tags stripped, the element count, the
    language sample's features and scores, Gain's lengths, Gain's arrays, the TreeIndex, the
    teaser items, the author elements, the visible text walk, the character counts, the rendered
    paragraphs and the text nodes.  A difference names the comparison and the page.

    Each comparison that Gain's page.derived values could touch starts from the page as parsed.
    """
    compared = {key: 0 for key in ("end tags", "element count", "language", "lengths", "bodies")}
    authors_found = 0
    samples: list[str] = []
    identify = language.identify
    for name, url, text in dataset_pages():
        what = f"{name} {url}"
        assert _speedups.strip_end_tags(text.encode()) == dom._END_HTML_BODY_RE.sub("", text).encode(), (
            f"end tags: {what}")
        compared["end tags"] += 1
        try:
            root = dom.parse_html(text)
        except Exception:  # noqa: BLE001 - a page that does not parse has no count
            root = None
        if root is not None:
            assert _speedups.element_count(root) == root.xpath("count(//*)"), f"element count: {what}"
            compared["element count"] += 1
        del root
        try:
            page = Page.from_html(text, url=url)
        except Exception:  # noqa: BLE001 - a page extract() cannot parse is no comparison
            continue
        if page.body is None:
            continue
        as_parsed = dict(page.derived)
        with monkeypatch.context() as patch:  # the sample detect_language identifies on the page
            patch.setattr(language, "identify", lambda sample: samples.append(sample) or identify(sample))
            page.language  # noqa: B018 - detect_language(page.body, page.declared_language), kept
        for sample in samples:
            same_language_sample(sample, monkeypatch)
            compared["language"] += 1
        samples.clear()

        from_gain, counted = gain_lengths_and_counted(page, auto.MU)
        assert from_gain == counted, f"lengths from Gain: {what}"
        compared["lengths"] += 1
        page.derived.clear()
        page.derived.update(as_parsed)

        same_gain_tree_and_teasers(page, what, monkeypatch)
        page.derived.clear()
        page.derived.update(as_parsed)

        compiled, pure = author_scans(page, monkeypatch)
        assert compiled == pure, f"author elements: {what}"
        authors_found += any(compiled[0])
        compiled, pure = walk_runs(page, WALK_WINDOWS[0])
        assert compiled == pure, f"visible text: {what}"
        same_character_counts(page, what)
        same_paragraphs_and_text_nodes(page, what)
        compared["bodies"] += 1
    assert min(compared.values()) > 1000, compared
    assert authors_found > 300
