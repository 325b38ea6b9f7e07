"""Yan and Wang (2020) §8.1 leaf-tag evaluation: sites, leaf labels, the block-class rule, template
removal as noise, and the ``scrapy evaluate --method template --leaf-tags`` command."""

from __future__ import annotations

import gzip
import hashlib
import json
from pathlib import Path

import numpy as np
from test_evaluate_command import scrapy

from newscrawl.evaluation.datasets import Record
from newscrawl.evaluation.sites import registered_domain, site_of
from newscrawl.evaluation.template_eval import LeafCounts, gold_leaves, leaf_counts
from newscrawl.extract import Page
from newscrawl.extract.methods.template import SiteTemplates

NAV = "<ul><li><a href='/'>Home page</a></li><li><a href='/w'>World news today</a></li></ul>"
WORDS = "river council harbour budget vote storm school bridge festival court farmers rail".split()


def story(i: int) -> list[str]:
    """Two paragraphs that differ from every other ``i``'s by far more than an eighth."""
    digest = hashlib.sha256(str(i).encode()).digest()
    return [" ".join(WORDS[b % len(WORDS)] + str(b) for b in digest[k : k + 8]) + "." for k in (0, 8)]


def page_html(i: int) -> str:
    paragraphs = "".join(f"<p>{p}</p>" for p in story(i))
    return (f"<html><body><div class='page'>{NAV}<div class='story'>{paragraphs}</div>"
            "<div class='foot'><span>Copyright Example Media Group</span></div></div></body></html>")


def truth(i: int) -> str:
    return "\n".join(story(i))


def keep_classes(*names: str):
    """A stand-in for the block SVM: keep the blocks with one of these classes."""
    return lambda blocks: np.array([b.element.get("class") in names for b in blocks])


def test_sites_are_registered_domains_or_id_prefixes():
    assert registered_domain("https://news.sina.com.cn/a.html") == "sina.com.cn"
    assert registered_domain("https://www.bbc.co.uk/news/1") == "bbc.co.uk"
    assert registered_domain("http://web.archive.org/web/2019/https://www.example.de/x") == "example.de"
    assert site_of(Record("a1", b"", {"url": "https://m.example.com/x"})) == "example.com"
    assert site_of(Record("163_4", b"", {})) == "163"
    canonical = Page.from_html("<html><head><link rel='canonical' href='https://zh.example.org/p'></head>"
                               "<body><p>x</p></body></html>")
    assert site_of(Record("064b591b-3cac", b"", {}), canonical) == "example.org"
    assert site_of(Record("064b591b-3cac", b"", {})) is None


def test_leaves_take_their_blocks_class():
    page = Page.from_html(page_html(1))
    leaves = gold_leaves(page, truth(1))
    gold = {el.text_content(): g for el, g in leaves}
    assert gold[story(1)[0]] and not gold["Home page"] and not gold["Copyright Example Media Group"]
    story_only = leaf_counts(page, leaves, keep_classes("story"))
    assert (story_only.tp, story_only.fp, story_only.fn) == (2, 0, 0)
    wrapper = leaf_counts(page, leaves, keep_classes("page"))  # the nav's li/a belong to div.page
    assert (wrapper.tp, wrapper.fp, wrapper.fn) == (0, 2, 2)


def test_template_removed_leaves_count_as_noise():
    site = SiteTemplates(n1=5, n2=3)
    for i in range(5):
        site.learn(Page.from_html(page_html(i)).root)
    page = Page.from_html(page_html(9))
    leaves = gold_leaves(page, truth(9))
    keep_all = keep_classes("page", "story", "foot")
    before = leaf_counts(page, leaves, keep_all)
    assert site.clean(page) >= 3
    after = leaf_counts(page, leaves, keep_all)
    assert after.tp == before.tp == 2
    assert before.fp == 3 and after.fp == 0  # nav links and footer went with the template
    assert after.precision > before.precision
    total = LeafCounts()
    total.add(before)
    total.add(after)
    assert total.tp == 4 and total.recall == 1.0


def write_site(root: Path, n: int) -> Path:
    pages = root / "pages"
    pages.mkdir(parents=True)
    rows = []
    for i in range(n):
        (pages / f"p{i}.html.gz").write_bytes(gzip.compress(page_html(i).encode()))
        rows.append({"id": f"p{i}", "file": f"pages/p{i}.html.gz", "url": f"https://www.example.com/{i}",
                     "text": truth(i)})
    (root / "truth.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return root


def test_evaluate_leaf_tags_command(tmp_path):
    dataset = write_site(tmp_path / "one-site", 6)
    proc = scrapy(tmp_path, "evaluate", str(dataset), "--method", "template", "--leaf-tags",
                  "--leaf-model", "shipped", "--n1", "0")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "N1 = all of a site's pages, N2 = 3" in proc.stdout
    row = next(line for line in proc.stdout.splitlines() if line.startswith("| one-site |"))
    cells = [c.strip() for c in row.split("|")[1:-1]]
    assert cells[1:4] == ["1", "6 (6)", "1"]  # one site, every page scored, a template learned
    assert int(cells[4]) >= 6 * 3  # nav links and footer removed from every page
    assert "| example.com | 6 (6) |" in proc.stdout
    wrong = scrapy(tmp_path, "evaluate", str(dataset), "--method", "auto", "--leaf-tags")
    assert wrong.returncode != 0 and "--method template" in wrong.stderr
