"""The compiled extension (newscrawl/extract/_speedups.pyx) computes exactly what the pure-Python
code computes: the same Gain arrays, weights and hidden elements on pages written here (Chinese,
English, Russian; hidden elements, comments, tails, entities, attributes of every markup kind)
and on every page of every dataset in ../shared/datasets; the same py3langid feature counts, in
the same order, so the same language and probability.

Each check runs both paths in one process: the compiled code, then the fallback with
``auto.gain_pass`` / ``language.byte_walk`` set to None (what ``NEWSCRAWL_PURE_PYTHON=1`` or a
missing build gives).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from newscrawl.extract import language
from newscrawl.extract.methods import auto
from newscrawl.extract.methods.classifier import BODY_CHARS
from newscrawl.extract.page import Page

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
    compiled = gain_arrays(page, **kwargs)
    page.derived.pop(BODY_CHARS, None)
    with monkeypatch.context() as patch:
        patch.setattr(auto, "gain_pass", None)
        pure = gain_arrays(page, **kwargs)
    return compiled, pure


def assert_same(compiled: dict, pure: dict, what: str) -> None:
    for key in pure:
        assert compiled[key] == pure[key], f"{what}: {key} differs"
        assert [type(v) for v in np.ravel(compiled[key]).tolist()] == [type(v) for v in np.ravel(pure[key]).tolist()], (
            f"{what}: {key} holds other types")


@needs_build
def test_auto_uses_the_compiled_pass_when_built():
    assert auto.gain_pass is _speedups.gain_pass


@needs_build
@pytest.mark.parametrize("name", sorted(PAGES))
@pytest.mark.parametrize("cjk_mode,mu", [("substring", auto.MU), ("substring+punct", 1.0), ("substring", 0.3)])
def test_the_compiled_pass_gives_the_python_pass_s_arrays(name, cjk_mode, mu, monkeypatch):
    compiled, pure = both_ways(Page.from_html(PAGES[name], url="https://example.com/a"), monkeypatch,
                               cjk_mode=cjk_mode, mu=mu)
    assert_same(compiled, pure, name)


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


@needs_build
@pytest.mark.skipif(not DATASETS.is_dir(), reason="../shared/datasets is absent (it sits beside the checkout)")
def test_every_dataset_page_gets_the_same_gain_both_ways(monkeypatch):
    compared = 0
    for name, url, text in dataset_pages():
        try:
            page = Page.from_html(text, url=url)
            page.language  # noqa: B018
        except Exception:  # noqa: BLE001 - a page extract() cannot parse is no comparison
            continue
        if page.body is None:
            continue
        compiled, pure = both_ways(page, monkeypatch)
        assert_same(compiled, pure, f"{name} {url}")
        compared += 1
    assert compared > 1000


@needs_build
@pytest.mark.skipif(not DATASETS.is_dir(), reason="../shared/datasets is absent (it sits beside the checkout)")
def test_every_dataset_page_gets_the_same_language_both_ways(monkeypatch):
    """The sample detect_language identifies on each page: same counts, language and probability."""
    identifier = language._identifier()
    samples: list[str] = []
    identify = language.identify
    monkeypatch.setattr(language, "identify", lambda text: samples.append(text) or identify(text))
    for _name, url, text in dataset_pages():
        try:
            page = Page.from_html(text, url=url)
        except Exception:  # noqa: BLE001
            continue
        if page.body is not None:
            language.detect_language(page.body, page.declared_language)
    assert len(samples) > 1000
    for sample in samples:
        data = identifier._encode(sample)
        compiled, numpy_walk, own = walks(data)
        assert compiled == numpy_walk == own, sample[:80]
        scores = identifier._decide(sample)
        with monkeypatch.context() as patch:
            patch.setattr(language, "byte_walk", None)
            assert identifier._decide(sample).tolist() == scores.tolist(), sample[:80]
