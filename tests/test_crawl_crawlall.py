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


PROBE = '''
import json, sys
import newscrawl.settings as project_settings
from scrapy import signals
from scrapy.cmdline import execute

OPEN, EVENTS = set(), []


class Probe:
    """Notes, in the crawl process, which sites are open and which extraction pool each one uses."""

    def __init__(self, crawler):
        self.crawler = crawler
        crawler.signals.connect(self.opened, signal=signals.spider_opened)
        crawler.signals.connect(self.closed, signal=signals.spider_closed)

    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler)

    def _pool(self):
        from newscrawl.pipelines.stages import ExtractStage
        stage = self.crawler.get_item_pipeline(ExtractStage)
        return stage.pool

    def opened(self, spider):
        OPEN.add(spider.name)
        pool = self._pool()
        EVENTS.append({"site": spider.name, "open": sorted(OPEN), "pool": id(pool),
                       "workers": len(pool.slots)})

    def closed(self, spider, reason):
        OPEN.discard(spider.name)


if __name__ == "__main__":  # not in the extraction workers, which import this module (spawn)
    project_settings.EXTENSIONS["__main__.Probe"] = 999
    try:
        execute(["scrapy", "crawlall", *sys.argv[2:]])
    except SystemExit as exit:
        json.dump({"events": EVENTS, "exit": exit.code}, open(sys.argv[1], "w"))
        raise
'''


def test_crawlall_runs_at_most_the_bound_of_sites_at_once_with_one_extraction_pool(tmp_path):
    names = [f"site{n}" for n in range(5)]
    sites = ""
    for n, name in enumerate(names):
        make_site(tmp_path / name, 10 * n, 2)
        sites += (f'[sites.{name}]\nlanguage = "en"\ndomains = ["demo.invalid"]\n'
                  f'catalogues = ["http://demo.invalid/index.html"]\nserve = "{name}"\n'
                  "politeness = { download_delay = 0.0, autothrottle = false }\n\n")
    (tmp_path / "sites.toml").write_text(sites)
    (tmp_path / "probe.py").write_text(PROBE)
    report = tmp_path / "report.json"
    out = tmp_path / "out"
    cmd = [sys.executable, str(tmp_path / "probe.py"), str(report), "--sites", ",".join(names),
           "-o", f"{out}/%(name)s.jsonl", "-s", f"NEWSCRAWL_SITES={tmp_path / 'sites.toml'}",
           "-s", f"NEWSCRAWL_STATE_DIR={tmp_path / 'state'}", "-s", "NEWSCRAWL_CONCURRENT_SITES=2",
           "-s", "NEWSCRAWL_EXTRACT_PROCESSES=1"]
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr[-3000:]
    events = json.loads(report.read_text())["events"]
    assert sorted(e["site"] for e in events) == names  # every site ran, once
    assert max(len(e["open"]) for e in events) <= 2  # never more than the bound open together
    assert max(len(e["open"]) for e in events) == 2  # and the bound was used
    assert len({e["pool"] for e in events}) == 1 and {e["workers"] for e in events} == {1}
    for n, name in enumerate(names):
        items = [json.loads(line) for line in (out / f"{name}.jsonl").read_text().splitlines()]
        assert sorted(i["title"] for i in items) == sorted(headline(k) for k in (10 * n, 10 * n + 1))
    assert "at most 2 at once" in done.stderr


def test_crawlall_refuses_a_bound_below_one(tmp_path):
    cmd = [sys.executable, "-m", "scrapy", "crawlall", "-s", "NEWSCRAWL_CONCURRENT_SITES=0",
           "-s", f"NEWSCRAWL_STATE_DIR={tmp_path}"]
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode != 0 and "NEWSCRAWL_CONCURRENT_SITES must be" in done.stderr


def test_crawlall_runs_a_site_named_twice_once(tmp_path):
    sites = ""
    for name, first in (("alpha", 1), ("gamma", 20)):
        make_site(tmp_path / name, first, 2)
        sites += (f'[sites.{name}]\nlanguage = "en"\ndomains = ["demo.invalid"]\n'
                  f'catalogues = ["http://demo.invalid/index.html"]\nserve = "{name}"\n'
                  "politeness = { download_delay = 0.0, autothrottle = false }\n\n")
    (tmp_path / "sites.toml").write_text(sites)
    out = tmp_path / "out"
    base = [sys.executable, "-m", "scrapy", "crawlall", "-o", f"{out}/%(name)s.jsonl",
            "-s", f"NEWSCRAWL_SITES={tmp_path / 'sites.toml'}", "-s", f"NEWSCRAWL_STATE_DIR={tmp_path / 'state'}"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([*base, "--sites", "alpha,gamma,alpha"], cwd=ROOT, capture_output=True, text=True,
                          timeout=300, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "crawlall: 2 site(s)" in done.stderr
    items = [json.loads(line) for line in (out / "alpha.jsonl").read_text().splitlines()]
    assert sorted(i["title"] for i in items) == [headline(1), headline(2)]  # each article once
    assert "locked" not in done.stderr
    # A repeated name does not hide an unknown one: still a usage error.
    unknown = subprocess.run([*base, "--sites", "alpha,alpha,nosuchsite"], cwd=ROOT, capture_output=True,
                             text=True, timeout=300, env=env)
    assert unknown.returncode == 2 and "unknown site(s): nosuchsite" in unknown.stderr
