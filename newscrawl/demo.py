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
"""

from __future__ import annotations

import json
import mimetypes
from pathlib import Path
from urllib.parse import unquote

from twisted.web import resource, server

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

    def __init__(self, root: Path, overrides: dict[str, dict] | None = None):
        super().__init__()
        self.root = Path(root).resolve()
        self.overrides = overrides or {}

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


class DemoServer:
    """A :class:`StaticSite` listening on 127.0.0.1 at a random port."""

    def __init__(self, root: Path, headers: Path | None = None):
        self.root = Path(root)
        if not self.root.is_dir():
            raise FileNotFoundError(f"demo site directory {self.root} does not exist")
        self.site = server.Site(StaticSite(self.root, load_overrides(headers)))
        self.site.noisy = False
        self.port = None

    def start(self) -> str:
        """Start listening; returns ``host:port``."""
        from twisted.internet import reactor

        self.port = reactor.listenTCP(0, self.site, interface="127.0.0.1")
        return f"127.0.0.1:{self.port.getHost().port}"

    def stop(self) -> None:
        if self.port is not None:
            self.port.stopListening()
            self.port = None
