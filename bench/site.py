"""A generated news site served from a separate process on 127.0.0.1, for the crawl benchmarks.

``N`` article pages (English-like text made here from a small word list: no third-party
content), catalogue pages of :data:`PER_PAGE` links each with a "next" link, an RSS feed of
the newest :data:`FEED_ENTRIES` articles (they are also on the catalogue, so the crawl's
de-duplication is exercised) and a ``robots.txt``.  Every response is rendered before the
server starts listening, and the server is a bare asyncio HTTP/1.1 loop with keep-alive, so
that serving costs a few tens of microseconds per request (``load`` measures it)::

    python bench/site.py serve --pages 2000            # prints the port, serves until killed
    python bench/site.py load --pages 2000 --requests 5000   # the server's capacity

:class:`SiteProcess` starts ``serve`` as a child process and reports its CPU time, so a
benchmark can show that the server was not the bottleneck.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

PER_PAGE = 50
FEED_ENTRIES = 20
ARTICLE_RE = r"/news/\d{4}/\d+\.html$"

_WORDS = (
    "council city budget school road library river market bridge station harbour museum hospital "
    "farmer teacher driver nurse student mayor minister reporter engineer builder traveller "
    "plan vote report study project season festival storm winter summer harvest election "
    "new old small large early late quiet busy local public final annual careful recent"
).split()
_VERBS = "said argued asked promised reported expected decided announced noted explained".split()
_GLUE = "the a of and to in for on with that this from at by was were has have will".split()


def _sentence(rng: random.Random) -> str:
    words = [rng.choice(_GLUE) if i % 3 == 1 else rng.choice(_WORDS) for i in range(rng.randint(12, 24))]
    words.insert(rng.randint(2, 6), rng.choice(_VERBS))
    return " ".join(words).capitalize() + "."


def article_path(i: int) -> str:
    return f"/news/{2000 + i % 25}/{i}.html"


def article_title(i: int) -> str:
    rng = random.Random(-i)
    return f"{rng.choice(_WORDS).capitalize()} {rng.choice(_WORDS)} {rng.choice(_VERBS)} story number {i}"


def article_html(i: int) -> str:
    rng = random.Random(i)
    paragraphs = "".join(f"<p>{' '.join(_sentence(rng) for _ in range(rng.randint(2, 4)))}</p>"
                         for _ in range(rng.randint(5, 9)))
    related = "".join(f'<li><a href="{article_path(j)}">{article_title(j)}</a></li>'
                      for j in (i + 1, i + 7, i + 13))
    nav = "".join(f'<a href="/section/{w}/">{w.capitalize()}</a> ' for w in _WORDS[:8])
    return (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{article_title(i)} | Bench Times'
        f'</title><meta property="article:published_time" content="2024-05-{1 + i % 28:02d}T08:30:00+00:00">'
        f'<script>var tracking = {{"page": {i}}};</script><style>p {{margin: 0}}</style></head><body>'
        f'<header class="masthead"><nav class="menu">{nav}</nav></header>'
        f'<main><article class="story"><h1>{article_title(i)}</h1>'
        f'<p class="byline">By Bench Reporter {i % 17}</p><div class="article-body">{paragraphs}</div>'
        f'</article><aside class="related"><h2>Related</h2><ul>{related}</ul></aside></main>'
        f'<footer><a href="/about">About</a> <a href="/contact">Contact</a> (c) Bench Times</footer>'
        f"</body></html>"
    )


def catalogue_html(page: int, pages: int, n: int) -> str:
    first = (page - 1) * PER_PAGE
    items = "".join(f'<li class="teaser"><a href="{article_path(i)}">{article_title(i)}</a></li>'
                    for i in range(first, min(first + PER_PAGE, n)))
    following = (f'<a class="next" rel="next" href="/list/{page + 1}.html">Next page</a>'
                 if page < pages else "")
    return (f"<html><head><title>Latest news, page {page}</title></head><body>"
            f'<nav class="menu"><a href="/">Home</a></nav><ul class="list">{items}</ul>{following}'
            "</body></html>")


def feed_xml(n: int, base: str) -> str:
    entries = "".join(
        f"<item><title>{article_title(i)}</title><link>{base}{article_path(i)}</link>"
        f"<pubDate>Wed, {1 + i % 28:02d} May 2024 08:30:00 +0000</pubDate></item>"
        for i in range(max(0, n - FEED_ENTRIES), n))
    return (f'<?xml version="1.0"?><rss version="2.0"><channel><title>Bench Times</title>{entries}'
            "</channel></rss>")


def catalogue_pages(n: int) -> int:
    return max(1, -(-n // PER_PAGE))


def build_routes(n: int, base: str) -> dict[str, tuple[bytes, bytes]]:
    """Path -> (content type, body) for the whole site."""
    html_type = b"text/html; charset=utf-8"
    routes = {article_path(i): (html_type, article_html(i).encode()) for i in range(n)}
    pages = catalogue_pages(n)
    routes.update({f"/list/{p}.html": (html_type, catalogue_html(p, pages, n).encode())
                   for p in range(1, pages + 1)})
    routes["/feed.xml"] = (b"application/rss+xml", feed_xml(n, base).encode())
    routes["/robots.txt"] = (b"text/plain", b"User-agent: *\nDisallow: /private/\n")
    return routes


def _response(status: bytes, ctype: bytes, body: bytes) -> bytes:
    return (b"HTTP/1.1 " + status + b"\r\nContent-Type: " + ctype + b"\r\nContent-Length: "
            + str(len(body)).encode() + b"\r\nConnection: keep-alive\r\n\r\n" + body)


async def serve(n: int, port: int = 0, ready=print) -> None:
    """Serve the site until cancelled; ``ready(port)`` once listening."""
    responses: dict[bytes, bytes] = {}
    not_found = _response(b"404 Not Found", b"text/plain", b"not found")

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                path = head.split(b" ", 2)[1].split(b"?", 1)[0]
                writer.write(responses.get(path, not_found))
                if b"connection: close" in head.lower():
                    break
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError, IndexError, asyncio.LimitOverrunError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", port, backlog=1024)
    actual = server.sockets[0].getsockname()[1]
    base = f"http://127.0.0.1:{actual}"
    for path, (ctype, body) in build_routes(n, base).items():
        responses[path.encode()] = _response(b"200 OK", ctype, body)
    ready(actual)
    async with server:
        await server.serve_forever()


@dataclass
class SiteProcess:
    """``serve`` in a child process (context manager); ``cpu_seconds()`` is its CPU time so far."""

    pages: int
    proc: subprocess.Popen | None = None
    port: int | None = None

    def __enter__(self) -> SiteProcess:
        self.proc = subprocess.Popen([sys.executable, __file__, "serve", "--pages", str(self.pages)],
                                     stdout=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        if not line.strip().isdigit():
            self.proc.kill()
            raise RuntimeError(f"site server did not start: {line!r}")
        self.port = int(line)
        return self

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def cpu_seconds(self) -> float:
        """User + system CPU seconds of the server process (Linux /proc)."""
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def __exit__(self, *exc) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=10)


async def _load(base_port: int, paths: list[str], requests: int, concurrency: int) -> float:
    """Fetch ``requests`` pages over ``concurrency`` keep-alive connections; returns seconds."""
    counter = iter(range(requests))

    async def client() -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", base_port)
        for k in counter:
            writer.write(f"GET {paths[k % len(paths)]} HTTP/1.1\r\nHost: bench\r\n\r\n".encode())
            head = await reader.readuntil(b"\r\n\r\n")
            length = int(head.lower().split(b"content-length: ")[1].split(b"\r\n")[0])
            await reader.readexactly(length)
        writer.close()

    started = time.perf_counter()
    await asyncio.gather(*(client() for _ in range(concurrency)))
    return time.perf_counter() - started


def measure_server(pages: int, requests: int = 5000, concurrency: int = 16) -> dict[str, float]:
    """The server's capacity: requests/s of wall time and CPU ms per request, from a bounded load."""
    with SiteProcess(pages) as site:
        cpu_before = site.cpu_seconds()
        paths = [article_path(i) for i in range(pages)]
        seconds = asyncio.run(_load(site.port, paths, requests, concurrency))
        cpu = site.cpu_seconds() - cpu_before
    return {"requests": requests, "wall_seconds": seconds, "requests_per_second": requests / seconds,
            "server_cpu_ms_per_request": 1000 * cpu / requests,
            "server_capacity_per_cpu_second": requests / cpu if cpu else float("inf")}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=["serve", "load"])
    parser.add_argument("--pages", type=int, default=1000)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--requests", type=int, default=5000)
    args = parser.parse_args(argv)
    if args.command == "serve":
        try:
            asyncio.run(serve(args.pages, args.port, ready=lambda port: print(port, flush=True)))
        except KeyboardInterrupt:
            pass
        return 0
    figures = measure_server(args.pages, args.requests)
    print(" ".join(f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}" for k, v in figures.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
