"""Kill -9 in the middle of a JOBDIR crawl, restart it: every article exported exactly once."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from test_crawl_local import article_html, catalogue_html, headline

ROOT = Path(__file__).resolve().parent.parent
PAGES, PER_PAGE = 3, 10
OPEN_ARTICLES = 12  # answered before the test stops the first run


class HtmlHandler(BaseHTTPRequestHandler):
    """A handler that answers with ``_send(html)`` and logs nothing."""

    def _send(self, text: str):
        data = text.encode("utf-8")
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


class SlowSite(HtmlHandler):
    """A paginated catalogue whose article pages answer slowly, so a crawl is caught mid-run."""

    hits: dict[str, int] = {}
    #: Articles past the first OPEN_ARTICLES wait for this (set once the test has stopped run 1), so
    #: run 1 is caught mid-run however fast the machine: its extraction worker may warm up after
    #: every download, then export them all at once.
    gate = threading.Event()
    served = 0

    def do_GET(self):
        path = self.path
        SlowSite.hits[path] = SlowSite.hits.get(path, 0) + 1
        if path.startswith("/list/"):
            page = int(path.split("/")[-1].split(".")[0])
            links = [(article_path(page, i), headline(page * 100 + i)) for i in range(PER_PAGE)]
            nxt = f"/list/{page + 1}.html" if page < PAGES else None
            self._send(catalogue_html(links, nxt))
        elif path.startswith("/news/"):
            SlowSite.served += 1
            if SlowSite.served > OPEN_ARTICLES:
                SlowSite.gate.wait(timeout=60)  # a hang guard
            time.sleep(0.2)
            n = int(path.split("/")[-2])
            self._send(article_html(headline(n)))
        else:
            self.send_error(404)


def article_path(page: int, i: int) -> str:
    n = page * 100 + i
    return f"/news/2024/{n}/council-budget-story-{n}.html"


def exported_urls(path: Path) -> list[str]:
    if not path.exists():
        return []
    lines = path.read_text(encoding="utf-8").splitlines()
    return [json.loads(line)["url"] for line in lines if line.endswith("}")]


def crawl_cmd(tmp_path: Path, out: Path) -> list[str]:
    return [
        sys.executable, "-m", "scrapy", "crawl", "slowsite", "-o", str(out),
        "-s", f"NEWSCRAWL_SITES={tmp_path / 'sites.toml'}",
        "-s", f"JOBDIR={tmp_path / 'job'}",
        "-s", f"NEWSCRAWL_STATE_DIR={tmp_path / 'state'}",
        "-s", "LOG_LEVEL=INFO",
        # Extraction in the crawl process: with a worker, its backlog lets every page be downloaded
        # before the fifth export, and nothing would be left in the queue to resume.
        "-s", "NEWSCRAWL_EXTRACT_PROCESSES=0",
    ]


def serve_slow_site(tmp_path: Path) -> tuple[ThreadingHTTPServer, str, set[str]]:
    """Serve :class:`SlowSite` on a free port and write its sites file into ``tmp_path``:
    (server, base URL, every article URL)."""
    SlowSite.served = 0
    SlowSite.gate.clear()
    server = ThreadingHTTPServer(("127.0.0.1", 0), SlowSite)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    (tmp_path / "sites.toml").write_text(
        f'[sites.slowsite]\ndomains = ["127.0.0.1"]\ncatalogues = ["{base}/list/1.html"]\n'
        "max_pages = 5\npoliteness = { download_delay = 0.0, autothrottle = false, concurrency = 2 }\n"
    )
    return server, base, {base + article_path(p, i) for p in range(1, PAGES + 1) for i in range(PER_PAGE)}


def interrupted_then_resumed(tmp_path: Path, stop_signal: int):
    """Run 1 stopped by ``stop_signal`` after a few exports, run 2 to the end; (run 1, run 2, expected)."""
    server, base, expected = serve_slow_site(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    try:
        run1 = tmp_path / "run1.jsonl"
        with (tmp_path / "run1.log").open("wb") as log:
            proc = subprocess.Popen(crawl_cmd(tmp_path, run1), cwd=ROOT, env=env, stdout=log, stderr=log)
            deadline = time.monotonic() + 120  # a hang guard, not a speed requirement
            while len(exported_urls(run1)) < 5 and proc.poll() is None and time.monotonic() < deadline:
                time.sleep(0.05)
            assert proc.poll() is None, "the first run finished before it could be killed"
            proc.send_signal(stop_signal)
            SlowSite.gate.set()
            proc.wait(timeout=120)
        first = exported_urls(run1)
        assert 5 <= len(first) < len(expected)
        SlowSite.hits.clear()

        run2 = tmp_path / "run2.jsonl"
        with (tmp_path / "run2.log").open("wb") as log:
            done = subprocess.run(crawl_cmd(tmp_path, run2), cwd=ROOT, env=env, stdout=log, stderr=log,
                                  timeout=300)
        assert done.returncode == 0, (tmp_path / "run2.log").read_text()[-3000:]
        second = exported_urls(run2)
    finally:
        SlowSite.gate.set()
        server.shutdown()
    return first, second, expected


def assert_exactly_once(first: list[str], second: list[str], expected: set[str]) -> None:
    both = first + second
    assert len(both) == len(set(both)), "an article was exported twice"
    assert set(both) == expected, f"missing: {sorted(expected - set(both))[:5]}"


def test_kill_and_restart_exports_every_article_exactly_once(tmp_path):
    first, second, expected = interrupted_then_resumed(tmp_path, signal.SIGKILL)
    assert_exactly_once(first, second, expected)
    log = (tmp_path / "run2.log").read_text()
    assert "did not stop cleanly" in log
    # The killed run's locks (state directory, JOBDIR, export file) died with it.
    assert "another run" not in log and (tmp_path / "state" / "slowsite.lock").exists()


def test_clean_stop_resumes_the_queue_without_fetching_a_page_twice(tmp_path):
    first, second, expected = interrupted_then_resumed(tmp_path, signal.SIGINT)
    assert_exactly_once(first, second, expected)
    log = (tmp_path / "run2.log").read_text()
    assert "Resuming crawl" in log and "did not stop cleanly" not in log
    article_hits = {p: n for p, n in SlowSite.hits.items() if p.startswith("/news/")}
    assert article_hits and max(article_hits.values()) == 1, "a page was fetched twice in the second run"
