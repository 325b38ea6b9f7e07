"""``scrapy evaluate --per-site``: a set's pages run site by site through the crawl's learning."""

from __future__ import annotations

import gzip
import json

from test_evaluate_command import scrapy
from test_title_decoration import HEADLINES, page_html

from newscrawl.evaluation.datasets import Record
from newscrawl.evaluation.per_site import evaluate_per_site
from newscrawl.evaluation.sites import site_half, site_key


def write_set(root, sites: dict[str, int]):
    (root / "pages").mkdir(parents=True)
    rows = []
    for host, count in sites.items():
        for i in range(count):
            name = f"{host}-{i}"
            (root / "pages" / f"{name}.html.gz").write_bytes(gzip.compress(page_html(i).encode()))
            rows.append({"id": name, "file": f"pages/{name}.html.gz", "url": f"http://www.{host}/{i}.html",
                         "title": HEADLINES[i]})
    (root / "truth.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return root


def test_per_site_figures_follow_what_each_site_teaches(tmp_path):
    dataset = write_set(tmp_path / "set", {"one-news.com": 5, "two-news.org": 2})
    result = evaluate_per_site(dataset)
    assert result.sites == ["one-news.com"] * 5 + ["two-news.org"] * 2
    assert result.figures("single")["title_exact"] == 0.0  # the site suffix, taken for the headline
    # one-news.com's pages 3-5 are extracted with the learned suffix; two-news.org has too few pages
    assert result.figures("per-site")["title_exact"] == 3 / 7
    half = site_half("one-news.com")
    assert result.figures("per-site", half)["title_exact"] == (3 / 5 if half != site_half("two-news.org") else 3 / 7)


def test_the_command_prints_both_figures(tmp_path):
    dataset = write_set(tmp_path / "set", {"one-news.com": 5})
    proc = scrapy(tmp_path, "evaluate", str(dataset), "--per-site")
    assert proc.returncode == 0, proc.stderr
    rows = {line.split()[0] + " " + line.split()[1]: line.split()[2:] for line in proc.stdout.splitlines()
            if line.startswith(("single", "per-site"))}
    assert rows["single all"][0] == "0.000"
    assert rows["per-site all"][0] == "0.600"


def test_daniel_ids_name_their_site():
    record = Record(id="20111209_entertainment.dbw.cn_8fa5bdab", html=b"")
    assert site_key(record) == "dbw.cn"
    assert site_key(Record(id="x", html=b"", truth={"url": "https://news.sina.com.cn/a.html"})) == "sina.com.cn"


def test_site_half_keeps_only_the_pages_of_that_half_of_the_sites(tmp_path):
    from newscrawl.evaluation.runner import run_all

    sites = {"one-news.com": 3, "two-news.org": 2, "three-news.net": 1, "four-news.info": 2}
    dataset = write_set(tmp_path / "set", sites)
    for half in "AB":
        (result,) = run_all([dataset], ["auto"], site_half=half)["set"]
        expected = sorted(f"{h}-{i}" for h, n in sites.items() if site_half(h) == half for i in range(n))
        assert sorted(p.id for p in result.pages) == expected
    (whole,) = run_all([dataset], ["auto"])["set"]
    assert len(whole.pages) == sum(sites.values())
