"""`scrapy crawlall`: several configured sites in one process, one feed file per site."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from test_crawl_local import article_html, catalogue_html, headline

ROOT = Path(__file__).resolve().parent.parent


def make_site(root: Path, first: int, count: int) -> None:
    links = []
    for n in range(first, first + count):
        path = f"/news/2024/05/{n}/council-budget-story-{n}.html"
        (root / path.lstrip("/")).parent.mkdir(parents=True, exist_ok=True)
        (root / path.lstrip("/")).write_text(article_html(headline(n)), encoding="utf-8")
        links.append((path, headline(n)))
    (root / "index.html").write_text(catalogue_html(links), encoding="utf-8")


def test_crawlall_writes_one_feed_per_selected_site(tmp_path):
    sites = ""
    for name, lang, first in (("alpha", "en", 1), ("beta", "ru", 10), ("gamma", "en", 20)):
        make_site(tmp_path / name, first, 2)
        sites += (f'[sites.{name}]\nlanguage = "{lang}"\ndomains = ["demo.invalid"]\n'
                  f'catalogues = ["http://demo.invalid/index.html"]\nserve = "{name}"\n'
                  "politeness = { download_delay = 0.0, autothrottle = false }\n\n")
    (tmp_path / "sites.toml").write_text(sites)
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "scrapy", "crawlall", "--sites", "alpha,beta,gamma", "--language", "en",
           "-o", f"{out}/%(name)s.jsonl", "-s", f"NEWSCRAWL_SITES={tmp_path / 'sites.toml'}",
           "-s", f"NEWSCRAWL_STATE_DIR={tmp_path / 'state'}"]
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr[-3000:]
    assert sorted(p.name for p in out.iterdir()) == ["alpha.jsonl", "gamma.jsonl"]  # beta is Russian
    for name, first in (("alpha", 1), ("gamma", 20)):
        items = [json.loads(line) for line in (out / f"{name}.jsonl").read_text().splitlines()]
        assert sorted(i["title"] for i in items) == sorted(headline(n) for n in (first, first + 1))
        assert {i["site"] for i in items} == {name}


def test_crawlall_rejects_a_shared_feed_file_and_unknown_sites(tmp_path):
    base = [sys.executable, "-m", "scrapy", "crawlall", "-s", f"NEWSCRAWL_STATE_DIR={tmp_path}"]
    shared_feed = str(tmp_path / "all.jsonl")
    shared = subprocess.run([*base, "-o", shared_feed], cwd=ROOT, capture_output=True, text=True)
    assert shared.returncode != 0 and "must contain %(name)s" in shared.stderr
    unknown = subprocess.run([*base, "--sites", "nosuchsite"], cwd=ROOT, capture_output=True, text=True)
    assert unknown.returncode != 0 and "unknown site(s): nosuchsite" in unknown.stderr
