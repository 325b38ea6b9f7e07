"""The exit status of `scrapy crawl` and `scrapy crawlall`: 1 when a site could not be crawled
(every listing page failed), when the export failed, or when too many articles failed extraction;
0 on a normal crawl.  The real commands run in a subprocess against locally served sites."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest
from test_crawl_local import article_html, catalogue_html, headline

from newscrawl.commands.outcome import Outcome, error_rate, problems

ROOT = Path(__file__).resolve().parent.parent
EMPTY_ARTICLE = "<html><head><title>Nothing here</title></head><body><div></div></body></html>"


def served_site(root: Path, good: int, empty: int = 0) -> None:
    """A catalogue page linking ``good`` articles and ``empty`` pages without text, served from ``root``."""
    links = []
    for n in range(good + empty):
        path = f"/news/2024/05/{n}/council-budget-story-{n}.html"
        target = root / path.lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(article_html(headline(n)) if n < good else EMPTY_ARTICLE, encoding="utf-8")
        links.append((path, headline(n)))
    (root / "index.html").write_text(catalogue_html(links), encoding="utf-8")


def site_table(name: str, serve: str | None = None, catalogue: str = "http://demo.invalid/index.html") -> str:
    domain = "demo.invalid" if serve else "127.0.0.1"
    served = f'serve = "{serve}"\n' if serve else ""
    return (f'[sites.{name}]\ndomains = ["{domain}"]\ncatalogues = ["{catalogue}"]\n{served}'
            "politeness = { download_delay = 0.0, autothrottle = false }\n\n")


def scrapy(tmp_path: Path, *args: str, file_size_limit: int | None = None) -> subprocess.CompletedProcess:
    """``scrapy ARGS`` in the project, with the sites file and state directory under ``tmp_path``."""
    def limit_file_size():  # in the child: a write past the limit fails with EFBIG
        resource.setrlimit(resource.RLIMIT_FSIZE, (file_size_limit, file_size_limit))

    sites = tmp_path / "sites.toml"
    cmd = [sys.executable, "-m", "scrapy", *args, "-s", f"NEWSCRAWL_STATE_DIR={tmp_path / 'state'}",
           "-s", "RETRY_TIMES=0"]
    if sites.exists():
        cmd += ["-s", f"NEWSCRAWL_SITES={sites}"]
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(ROOT)},
                          preexec_fn=limit_file_size if file_size_limit else None)


def summary(done: subprocess.CompletedProcess, site: str) -> str:
    """The command's summary line for ``site``."""
    lines = [line for line in done.stderr.splitlines() if "[newscrawl.crawl] " in line and f" {site}: " in line]
    assert len(lines) == 1, done.stderr[-3000:]
    return lines[0]


def test_a_normal_crawl_exits_0_with_its_summary_line(tmp_path):
    served_site(tmp_path / "good", good=3)
    (tmp_path / "sites.toml").write_text(site_table("good", serve="good"))
    done = scrapy(tmp_path, "crawl", "good", "-o", str(tmp_path / "good.jsonl"))
    assert done.returncode == 0, done.stderr[-3000:]
    line = summary(done, "good")
    assert "good: ok; listed 3, exported 3, failed listing pages 0/1" in line
    assert len((tmp_path / "good.jsonl").read_text().splitlines()) == 3


def test_a_site_whose_every_listing_page_failed_exits_1(tmp_path):
    # Port 9 (discard) on 127.0.0.1: nothing listens, the connection is refused.
    (tmp_path / "sites.toml").write_text(site_table("down", catalogue="http://127.0.0.1:9/list.html"))
    done = scrapy(tmp_path, "crawl", "down", "-o", str(tmp_path / "down.jsonl"))
    assert done.returncode == 1, done.stderr[-3000:]
    assert "down: FAILED (every listing page failed (1/1))" in summary(done, "down")
    assert not (tmp_path / "down.jsonl").exists()  # an empty run creates no feed file


def test_crawlall_summarises_every_site_and_exits_1_when_one_failed(tmp_path):
    served_site(tmp_path / "alpha", good=2)
    (tmp_path / "sites.toml").write_text(
        site_table("alpha", serve="alpha")
        + site_table("down", catalogue="http://127.0.0.1:9/list.html")
        + site_table("gone", catalogue="http://127.0.0.1:9/other.html"))
    done = scrapy(tmp_path, "crawlall", "--sites", "alpha,down,gone", "-o", f"{tmp_path}/out/%(name)s.jsonl")
    assert done.returncode == 1, done.stderr[-3000:]
    assert "alpha: ok; listed 2, exported 2" in summary(done, "alpha")
    for site in ("down", "gone"):
        assert "FAILED (every listing page failed (1/1)); listed 0, exported 0, failed listing pages 1/1" \
            in summary(done, site)
    assert "crawlall: 2 of 3 site(s) failed: down, gone" in done.stderr
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["alpha.jsonl"]


def test_a_failed_export_exits_1(tmp_path):
    """The feed file may not grow by more than 100 bytes (RLIMIT_FSIZE): the first article's write fails.

    The file is a sparse 1 GiB one ending on a complete record, so that the other files the
    crawl writes (py3langid unpacks its model to a temporary file) stay under the limit."""
    served_site(tmp_path / "good", good=3)
    (tmp_path / "sites.toml").write_text(site_table("good", serve="good"))
    feed = tmp_path / "good.jsonl"
    with feed.open("wb") as fh:
        fh.seek(2**30)
        fh.write(json.dumps({"url": "http://elsewhere.example/earlier-run"}).encode() + b"\n")
    done = scrapy(tmp_path, "crawl", "good", "-o", str(feed), file_size_limit=feed.stat().st_size + 100)
    assert done.returncode == 1, done.stderr[-3000:]
    line = summary(done, "good")
    assert "FAILED (finish reason export_failed; export failed: " in line, line
    assert "File too large" in line and "exported 0" in line


def test_an_extraction_error_rate_above_the_threshold_exits_1(tmp_path):
    served_site(tmp_path / "flaky", good=1, empty=3)
    (tmp_path / "sites.toml").write_text(site_table("flaky", serve="flaky"))
    done = scrapy(tmp_path, "crawl", "flaky", "-o", str(tmp_path / "flaky.jsonl"))
    assert done.returncode == 1, done.stderr[-3000:]
    assert ("FAILED (extraction failed on 3 of 4 article pages (75% > NEWSCRAWL_MAX_ERROR_RATE 50%))"
            in summary(done, "flaky"))
    assert len((tmp_path / "flaky.jsonl").read_text().splitlines()) == 1  # what worked is still exported

    (tmp_path / "flaky.jsonl").unlink()
    tolerant = scrapy(tmp_path, "crawl", "flaky", "-o", str(tmp_path / "flaky.jsonl"),
                      "-s", "NEWSCRAWL_FRESH=1", "-s", "NEWSCRAWL_MAX_ERROR_RATE=0.8")
    assert tolerant.returncode == 0, tolerant.stderr[-3000:]
    assert "flaky: ok; listed 4, exported 1" in summary(tolerant, "flaky")


def test_a_max_error_rate_outside_0_to_1_is_a_usage_error_before_the_crawl(tmp_path):
    for command in (["crawl", "demo"], ["crawlall", "--sites", "demo"]):
        done = scrapy(tmp_path, *command, "-s", "NEWSCRAWL_MAX_ERROR_RATE=1.5")
        assert done.returncode == 2, done.stderr[-3000:]
        assert "NEWSCRAWL_MAX_ERROR_RATE must be a number from 0 to 1, got '1.5'" in done.stderr
        assert "Spider opened" not in done.stderr


# -- the verdict itself, on stats -------------------------------------------------------

def verdict(stats: dict, max_rate: float = 0.5) -> list[str]:
    dropped = {k.removeprefix("newscrawl/dropped/"): v for k, v in stats.items()
               if k.startswith("newscrawl/dropped/")}
    outcome = Outcome("s", stats.get("finish_reason"), listed=stats.get("newscrawl/listed", 0),
                      exported=stats.get("newscrawl/exported", 0),
                      listing_requests=stats.get("newscrawl/listing_requests", 0),
                      listing_failed=sum(v for k, v in stats.items() if k.startswith("newscrawl/listing_error/")),
                      dropped=dropped)
    return problems(stats, outcome, max_rate)


OK = {"finish_reason": "finished", "newscrawl/listing_requests": 3, "newscrawl/listed": 10,
      "newscrawl/exported": 8}


@pytest.mark.parametrize("reason", ["finished", "closespider_itemcount", "closespider_pagecount",
                                    "closespider_timeout"])
def test_finishing_or_a_requested_limit_is_success(reason):
    assert verdict({**OK, "finish_reason": reason}) == []


@pytest.mark.parametrize("reason", ["export_failed", "shutdown", "locked", "state_unwritable",
                                    "state_write_failed", "redis_unavailable", "closespider_errorcount"])
def test_any_other_finish_reason_is_failure(reason):
    assert verdict({**OK, "finish_reason": reason}) == [f"finish reason {reason}"]


def test_a_crawl_that_did_not_start_is_failure():
    assert verdict({}) == ["the crawl did not start"]


def test_listing_pages_some_failed_is_success_all_failed_or_nothing_listed_is_failure():
    assert verdict({**OK, "newscrawl/listing_error/http_error": 2}) == []
    assert verdict({**OK, "newscrawl/listing_error/http_error": 2, "newscrawl/listing_error/feed": 1}) == [
        "every listing page failed (3/3)"]
    assert verdict({**OK, "newscrawl/listed": 0, "newscrawl/exported": 0}) == [
        "no article link on any listing page"]
    # distributed: the pages another worker claimed are that worker's to read
    assert verdict({**OK, "newscrawl/distributed/listing_claimed_elsewhere": 3, "newscrawl/listed": 0,
                    "newscrawl/exported": 0}) == []


def test_the_error_rate_counts_extraction_failures_of_fetched_pages_only():
    stats = {**OK, "newscrawl/exported": 2, "newscrawl/dropped/no_text": 1, "newscrawl/dropped/unparseable": 1,
             "newscrawl/dropped/http_error": 50, "newscrawl/dropped/already_exported": 90}
    assert error_rate(2, {"no_text": 1, "unparseable": 1, "http_error": 50}) == (0.5, 2, 4)
    assert verdict(stats) == []  # 50% is not above 50%
    assert verdict(stats, max_rate=0.4) == [
        "extraction failed on 2 of 4 article pages (50% > NEWSCRAWL_MAX_ERROR_RATE 40%)"]


def test_a_failed_export_is_failure_whatever_the_finish_reason():
    assert verdict({**OK, "newscrawl/export_failed": "/x.jsonl: No space left on device"}) == [
        "export failed: /x.jsonl: No space left on device"]
    assert verdict({**OK, "feedexport/failed_count/S3FeedStorage": 1}) == ["a feed could not be stored"]


def test_a_mistyped_site_name_is_one_usage_line_with_exit_status_2():
    root = Path(__file__).resolve().parents[1]
    done = subprocess.run([sys.executable, "-m", "scrapy", "crawl", "no_such_site"], cwd=root,
                          env={**os.environ, "PYTHONPATH": str(root)}, capture_output=True, text=True,
                          timeout=120, stdin=subprocess.DEVNULL)
    assert done.returncode == 2
    assert "no site or spider named 'no_such_site'" in done.stderr
    assert "Traceback" not in done.stderr


def test_spider_arguments_that_cannot_make_a_run_are_one_usage_line_with_exit_status_2(tmp_path):
    """``-a`` values a spider checks before starting (the warc spider's archives and ``keep``)."""
    present = tmp_path / "present.warc.gz"
    present.write_bytes(b"")
    cases = {f"path={tmp_path / 'none' / '*.warc.gz'}": "no WARC file matches",
             f"path={tmp_path / 'gone.warc.gz'}": "no such file",
             "keep=everything": "keep must be one of"}
    for argument, message in cases.items():
        args = ["-a", f"path={present}"] if argument.startswith("keep") else []
        done = scrapy(tmp_path, "crawl", "warc", *args, "-a", argument, "-O", str(tmp_path / "out.jsonl"))
        assert done.returncode == 2, done.stderr[-3000:]
        assert f"error: warc: {message}" in done.stderr.splitlines()[-1]
        assert "Traceback" not in done.stderr
        assert not (tmp_path / "out.jsonl").exists()
