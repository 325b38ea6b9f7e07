"""``scrapy extract FILE_OR_URL``: print one article as JSON (``--format json``, the default), or
its body as Markdown, sanitised HTML or plain text (``--format markdown|html|text``).

FILE is a saved page (``.gz`` is unpacked); an ``http(s)`` URL is fetched once with
urllib (no crawl, no retries) using the project's ``USER_AGENT``.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, ClassVar

from scrapy.commands import ScrapyCommand
from scrapy.exceptions import UsageError

from newscrawl.evaluation.runner import parse_params
from newscrawl.extract import METHODS, ExtractionError, extract
from newscrawl.extract.method_params import check_params

from .stdout import pipe_safe

MAX_BYTES = 20_000_000
FORMATS = ("json", "markdown", "html", "text")
TIMEOUT = 30


def read_file(path: str) -> bytes:
    """A saved page's bytes, gunzipped when the file is gzip."""
    data = Path(path).read_bytes()
    return gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data


def fetch(url: str, user_agent: str) -> tuple[bytes, str | None, str]:
    """``(body, content type, final URL)`` of one GET; raises ``UsageError`` when unreachable."""
    request = urllib.request.Request(url, headers={"User-Agent": user_agent})
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
            body = response.read(MAX_BYTES + 1)
            content_type = response.headers.get("Content-Type")
            final_url = response.geturl()
    except (urllib.error.URLError, TimeoutError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise UsageError(f"cannot fetch {url}: {reason}", print_help=False) from exc
    if len(body) > MAX_BYTES:
        raise UsageError(f"{url}: page larger than {MAX_BYTES} bytes", print_help=False)
    return body, content_type, final_url


class Command(ScrapyCommand):
    requires_project = False
    requires_crawler_process = False
    default_settings: ClassVar[dict[str, Any]] = {"LOG_ENABLED": False}

    def syntax(self) -> str:
        return "FILE_OR_URL [--method M] [--listing-title T] [--url URL] [--format json|markdown|html|text]"

    def short_desc(self) -> str:
        return "Extract one article page and print it as JSON"

    def add_options(self, parser: argparse.ArgumentParser) -> None:
        super().add_options(parser)
        parser.add_argument("--method", default="auto", choices=METHODS, help="body method (default auto)")
        parser.add_argument("--listing-title", help="the title the catalogue page or feed gave the link")
        parser.add_argument("--url", help="the page's URL, for a FILE (resolves relative links)")
        parser.add_argument("--param", action="append", default=[], help="method parameter KEY=VALUE")
        parser.add_argument("--format", default="json", choices=FORMATS,
                            help="json: every field (default); markdown, html, text: the body alone")

    @pipe_safe
    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        if len(args) != 1:
            raise UsageError("give exactly one FILE or URL")
        source = args[0]
        try:
            params = parse_params(opts.param)
            check_params(opts.method, params)
        except ValueError as exc:
            raise UsageError(str(exc), print_help=False) from exc
        content_type = None
        if source.startswith(("http://", "https://")):
            data, content_type, url = fetch(source, self.settings.get("USER_AGENT") or "newscrawl")
        else:
            try:
                data = read_file(source)
            except (OSError, EOFError, gzip.BadGzipFile) as exc:
                raise UsageError(f"cannot read {source}: {exc}", print_help=False) from exc
            url = opts.url
        try:
            article = extract(
                data,
                url=url,
                listing_title=opts.listing_title,
                method=opts.method,
                content_type=content_type,
                params=params,
            )
        except ExtractionError as exc:
            print(f"no article in {source}: {exc}", file=sys.stderr)
            self.exitcode = 1
            return
        if opts.format == "json":
            print(json.dumps(article.to_dict(), ensure_ascii=False, indent=2))
        else:
            print(getattr(article, opts.format))
