"""Shared fixtures for the crawl tests: the asyncio reactor, a local HTTP server whose pages
each test writes, and a helper that runs a real spider with the project's pipelines.

pytest-twisted must install the asyncio reactor (Scrapy's ``TWISTED_REACTOR``); this
conftest selects it, equivalent to ``--reactor=asyncio`` on the command line.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import shutil
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config):
    if hasattr(config.option, "reactor"):
        config.option.reactor = "asyncio"


def free_port() -> int:
    """A free TCP port on 127.0.0.1 for a server a test starts as a subprocess (Redis, Scrapyd).

    Below the kernel's ephemeral range (32768-60999 by default), so no client connection is
    given it while a test restarts its server on it; one slice per pytest-xdist worker.
    """
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    index = int(worker[2:]) if worker[2:].isdigit() else 0
    low = 20000 + (index % 8) * 1500
    for port in random.sample(range(low, low + 1500), 200):
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError("no free port in this worker's range")


@contextlib.contextmanager
def started_redis(workdir, *args: str, password: str | None = None):
    """A real redis-server on 127.0.0.1 (a free port, nothing persisted, ``args`` added, ``password``
    required if given), stopped on exit: yields ``(port, client)``.  Skips the test when there is no
    redis-server binary or it does not answer."""
    redis = pytest.importorskip("redis", reason="the redis client is not installed")
    binary = shutil.which("redis-server")
    if binary is None:
        pytest.skip("no redis-server binary on PATH (apt-get install -y redis-server)")
    port = free_port()
    secret = ("--requirepass", password) if password else ()
    proc = subprocess.Popen([binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly",
                             "no", "--dir", str(workdir), *secret, *args],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    client = redis.Redis(port=port, password=password)
    for _ in range(100):
        try:
            client.ping()
            break
        except redis.ConnectionError:
            if proc.poll() is not None:
                pytest.skip(f"redis-server could not start (exit code {proc.returncode})")
            time.sleep(0.05)
    else:
        proc.kill()
        pytest.skip("redis-server did not answer within 5 s")
    try:
        yield port, client
    finally:
        client.close()
        proc.terminate()
        proc.wait(timeout=10)


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory):
    """A real redis-server for the tests of one module (see :func:`started_redis`)."""
    with started_redis(tmp_path_factory.mktemp("redis")) as (port, _):
        yield f"redis://127.0.0.1:{port}/0"


@pytest.fixture
def client(redis_url):
    """A client of the module's redis-server, its database emptied for the test."""
    import redis

    c = redis.Redis.from_url(redis_url)
    c.flushdb()
    yield c
    c.close()


@dataclass
class Route:
    """What the test server answers for one path."""

    body: bytes | str = b""
    status: int = 200
    headers: dict[str, str] = field(default_factory=lambda: {"Content-Type": "text/html; charset=utf-8"})
    delay: float = 0.0  # seconds before answering
    gate: Any = None  # a Twisted Deferred: the answer waits until it has fired


class RoutesServer:
    """A Twisted web server on 127.0.0.1 (or another loopback ``interface``) answering from a dict
    of :class:`Route`; counts hits."""

    def __init__(self, interface: str = "127.0.0.1"):
        from twisted.internet import reactor
        from twisted.web import resource, server

        self.routes: dict[str, Route] = {}
        self.hits: dict[str, int] = {}
        outer = self

        class _Resource(resource.Resource):
            isLeaf = True

            def render_GET(self, request):
                path = request.uri.decode()
                outer.hits[path] = outer.hits.get(path, 0) + 1
                route = outer.routes.get(path) or outer.routes.get(path.split("?")[0])
                if route is None:
                    request.setResponseCode(404)
                    return b"not found"
                body = route.body.encode("utf-8") if isinstance(route.body, str) else route.body

                def answer():
                    if request.finished or request._disconnected:
                        return
                    request.setResponseCode(route.status)
                    for name, value in route.headers.items():
                        request.setHeader(name, value)
                    request.write(body)
                    request.finish()

                if route.gate is not None:
                    route.gate.addCallback(lambda result: (answer(), result)[1])
                    return server.NOT_DONE_YET
                if route.delay:
                    call = reactor.callLater(route.delay, answer)
                    request.notifyFinish().addErrback(lambda _: call.active() and call.cancel())
                    return server.NOT_DONE_YET
                answer()
                return server.NOT_DONE_YET

        site = server.Site(_Resource())
        site.noisy = False
        self.port = reactor.listenTCP(0, site, interface=interface)
        self.base = f"http://{interface}:{self.port.getHost().port}"

    def url(self, path: str) -> str:
        return self.base + path

    def add(self, path: str, body: bytes | str = b"", **kwargs: Any) -> str:
        self.routes[path] = Route(body, **kwargs)
        return self.url(path)

    def stop(self):
        return self.port.stopListening()


@pytest.fixture
def http_server():
    server = RoutesServer()
    yield server
    server.stop()


def crawl_settings(tmp_path: Path, feed: Path, **overrides: Any):
    """Project settings for an in-process test crawl: feed to ``feed``, state under ``tmp_path``."""
    from scrapy.settings import Settings

    settings = Settings()
    settings.setmodule("newscrawl.settings", priority="project")
    settings.setdict(
        {
            "FEEDS": {str(feed): {"format": "jsonlines"}},
            "NEWSCRAWL_STATE_DIR": str(tmp_path / "state"),
            "DOWNLOAD_DELAY": 0,
            "AUTOTHROTTLE_ENABLED": False,
            "RETRY_TIMES": 0,
            "LOG_LEVEL": "INFO",
        },
        priority="cmdline",
    )
    settings.setdict(overrides, priority="cmdline")
    return settings


async def run_crawl(spidercls, settings, **spider_args: Any):
    """Run one crawl to the end in the test's reactor; returns the crawler (stats, extensions)."""
    from scrapy.crawler import CrawlerRunner

    runner = CrawlerRunner(settings)
    crawler = runner.create_crawler(spidercls)
    await runner.crawl(crawler, **spider_args)
    return crawler


def read_jsonl(path: Path) -> list[dict]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def site_spider(name: str = "testsite", **table: Any):
    """A spider class for a site configured inline (as one ``[sites.<name>]`` table)."""
    from newscrawl.sites import parse_sites
    from newscrawl.spiders.loader import spider_class

    table.setdefault("domains", ["127.0.0.1"])
    return spider_class(parse_sites({"sites": {name: table}})[name])
