"""The offline demo: serve a directory of saved pages on 127.0.0.1 during a crawl.

A site whose configuration has ``serve = "<dir>"`` (the ``demo`` site) gets a
:class:`DemoServer` started by its spider before the crawl opens; the site's
placeholder host (:data:`newscrawl.sites.PLACEHOLDER_HOST`) is rewritten to the
server's random port, and from then on the crawl is the same as for a live site:
same spider, same pipelines, robots.txt, redirects and all.

``headers`` names a JSON file of per-path overrides, e.g.::

    {"/news/old.html": {"status": 301, "Location": "/news/new.html"},
     "/gbk/1.html": {"Content-Type": "text/html"}}

Paths are URL paths; ``status`` sets the response code, every other key a header.
Without an override, the type comes from the file extension (HTML as UTF-8);
``headers.json`` serves the GBK and windows-1251 pages as ``text/html`` without a charset.

**The port is stable**: :func:`serve_port` derives it from the site's name (the demo serves
on 127.0.0.1:26848), so the exported URLs are the same in every run and on every machine,
and distributed workers (``NEWSCRAWL_DISTRIBUTED``) queue, claim and fetch the same URLs.
Crawls in one process that serve the same directory share one server.  A distributed
worker that finds the port taken by another process's server of the same directory (the
``X-Newscrawl-Serve`` header names it) uses that server: the workers of a job stay open
while any of them has work (:class:`newscrawl.distributed.idle.IdleWorker`), so it outlives the
crawl.  Any other taken port (an unrelated program, or an independent crawl that may stop
first) gives a random port, with a log line.  ``NEWSCRAWL_SERVE_PORT`` sets the port
(``0``: a random port each run).
"""

from __future__ import annotations

import hashlib
import json
import logging
import mimetypes
import urllib.error
import urllib.request
import zlib
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

from twisted.internet.error import CannotListenError
from twisted.web import resource, server

logger = logging.getLogger(__name__)

HOST = "127.0.0.1"
SERVE_HEADER = "X-Newscrawl-Serve"  # names the served directory (a digest), so a worker can share a server
PORT_BASE, PORT_SPAN = 20_000, 10_000  # derived ports: below Linux's ephemeral range (32768-60999)
PROBE_TIMEOUT = 2.0

_TEXT_TYPES = {".html": "text/html; charset=utf-8", ".htm": "text/html; charset=utf-8",
               ".xml": "application/xml", ".rss": "application/rss+xml", ".atom": "application/atom+xml",
               ".json": "application/json",
               ".txt": "text/plain"}


def load_overrides(path: Path | None) -> dict[str, dict]:
    """Per-path header overrides from ``path`` (missing file: none)."""
    if path is None or not Path(path).exists():
        return {}
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected an object of path -> headers")
    return {("/" + key.lstrip("/")): value for key, value in data.items() if isinstance(value, dict)}


class StaticSite(resource.Resource):
    """Files under ``root`` by URL path (``index.html`` for directories), with overrides."""

    isLeaf = True

    def __init__(self, root: Path, overrides: dict[str, dict] | None = None, fingerprint: str = ""):
        super().__init__()
        self.root = Path(root).resolve()
        self.overrides = overrides or {}
        self.fingerprint = fingerprint

    def _file(self, path: str) -> Path | None:
        target = (self.root / unquote(path).lstrip("/")).resolve()
        if not target.is_relative_to(self.root):
            return None
        if target.is_dir():
            target = target / "index.html"
        return target if target.is_file() else None

    def render_GET(self, request) -> bytes:
        path = request.path.decode("utf-8", "replace")
        override = dict(self.overrides.get(path, {}))
        if self.fingerprint:
            request.setHeader(SERVE_HEADER, self.fingerprint)
        status = int(override.pop("status", 200))
        target = self._file(path)
        if target is None and status < 300:
            request.setResponseCode(404)
            request.setHeader("Content-Type", "text/plain")
            return b"not found"
        request.setResponseCode(status)
        suffix = target.suffix.lower() if target else ""
        ctype = (_TEXT_TYPES.get(suffix) or mimetypes.guess_type(str(target))[0]) if target else "text/plain"
        request.setHeader("Content-Type", ctype or "application/octet-stream")
        for name, value in override.items():
            request.setHeader(name, str(value))
        return target.read_bytes() if target else b""

    render_HEAD = render_GET


def serve_port(site: str) -> int:
    """The stable port of the site named ``site``: ``PORT_BASE`` + CRC-32 of the name mod ``PORT_SPAN``."""
    return PORT_BASE + zlib.crc32(site.encode("utf-8")) % PORT_SPAN


def fingerprint(root: Path, headers: Path | None) -> str:
    """A digest naming what a server serves: its directory and header overrides, resolved."""
    named = f"{Path(root).resolve()}\0{Path(headers).resolve() if headers else ''}"
    return hashlib.sha256(named.encode("utf-8")).hexdigest()[:16]


def serving(port: int) -> str | None:
    """The :data:`SERVE_HEADER` of the server on 127.0.0.1:``port`` (None: none, or not a demo server)."""
    direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # no proxy from the environment
    try:
        with direct.open(f"http://{HOST}:{port}/robots.txt", timeout=PROBE_TIMEOUT) as answer:
            return answer.headers.get(SERVE_HEADER)
    except urllib.error.HTTPError as exc:
        return exc.headers.get(SERVE_HEADER)
    except (OSError, ValueError):
        return None


@dataclass
class _Listener:
    port: object  # twisted's listening port
    netloc: str
    users: int = 1


_LISTENING: dict[str, _Listener] = {}  # this process's servers by fingerprint


class DemoServer:
    """A :class:`StaticSite` on 127.0.0.1, at a stable port (see the module docstring)."""

    def __init__(self, root: Path, headers: Path | None = None):
        self.root = Path(root)
        if not self.root.is_dir():
            raise FileNotFoundError(f"demo site directory {self.root} does not exist")
        self.fingerprint = fingerprint(self.root, headers)
        self.site = server.Site(StaticSite(self.root, load_overrides(headers), self.fingerprint))
        self.site.noisy = False
        self.netloc: str | None = None
        self._listener: _Listener | None = None

    def start(self, port: int = 0, *, share_across_processes: bool = False) -> str:
        """Serve on ``port`` (0: a random one), or share the server already there; returns ``host:port``.

        ``share_across_processes``: use another process's server of the same directory on
        ``port`` (distributed workers) instead of a random port."""
        listener = _LISTENING.get(self.fingerprint)
        if listener is not None:  # another crawl in this process serves the same directory
            listener.users += 1
        else:
            listener = self._listen(port, share_across_processes)
            if listener is None:  # another process serves the same directory there
                self.netloc = f"{HOST}:{port}"
                return self.netloc
            _LISTENING[self.fingerprint] = listener
        self._listener = listener
        self.netloc = listener.netloc
        return self.netloc

    def _listen(self, port: int, share: bool) -> _Listener | None:
        """Listen on ``port``; None when ``share`` and a server of the same directory holds it,
        else a random port when the port is taken."""
        from twisted.internet import reactor

        try:
            listening = reactor.listenTCP(port, self.site, interface=HOST)
        except CannotListenError:
            if share and serving(port) == self.fingerprint:
                logger.info("%s is served on port %d by another worker: using that server", self.root, port)
                return None
            logger.info("Port %d is taken: serving %s on a random port, so its URLs differ from other "
                        "runs' (NEWSCRAWL_SERVE_PORT sets the port)", port, self.root)
            listening = reactor.listenTCP(0, self.site, interface=HOST)
        return _Listener(listening, f"{HOST}:{listening.getHost().port}")

    def stop(self):
        """Stop serving when no other crawl of this process uses the server; returns a Deferred or None."""
        listener, self._listener = self._listener, None
        if listener is None:
            return None
        listener.users -= 1
        if listener.users > 0:
            return None
        if _LISTENING.get(self.fingerprint) is listener:
            del _LISTENING[self.fingerprint]
        return listener.port.stopListening()
