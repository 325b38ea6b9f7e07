"""URLs in log lines: a URL is untrusted input of any length (a page may link a 1 MB URL), so a
log line shows it through :func:`short_url`: its start and end and its length.

:class:`ShortUrlLogs` (an extension in ``EXTENSIONS``) puts :class:`ShortUrlFilter` on the
process's log handlers, so Scrapy's own lines (``Crawled``, ``Ignoring response``, ``Error
downloading``) hold no more of a long URL than newscrawl's do.  No Scrapy imports.
"""

from __future__ import annotations

import logging
import re

MAX_LOGGED_URL = 200  # characters of a URL shown in a log line
_LONG_TOKEN_RE = re.compile(rf"\S{{{MAX_LOGGED_URL + 1},}}")  # a run of non-space longer than that


def short_url(url: object, limit: int = MAX_LOGGED_URL) -> str:
    """``url`` for a log line: as it is when short, else its start and end around a marker that
    gives its full length (``https://example.com/aaaa…[1048576 chars]…aaa.html``)."""
    text = str(url) if url is not None else "<no url>"
    if len(text) <= limit:
        return text
    keep = max(limit - 30, 20)
    head, tail = keep * 2 // 3, keep // 3
    return f"{text[:head]}…[{len(text)} chars]…{text[-tail:]}"


def short_text(text: str) -> str:
    """``text`` with each run of more than :data:`MAX_LOGGED_URL` non-space characters (a URL, a
    request's ``<GET …>``) shortened by :func:`short_url`."""
    if len(text) <= MAX_LOGGED_URL:
        return text
    return _LONG_TOKEN_RE.sub(lambda match: short_url(match.group()), text)


class _Shortened:
    """A log argument standing for a long value: the same text shortened, under ``%s`` and ``%r``."""

    def __init__(self, text: str):
        self.text = text

    def __str__(self) -> str:
        return self.text

    __repr__ = __str__


def _short_arg(value):
    if value is None or isinstance(value, (int, float, bool, bytes)):
        return value
    text = str(value)
    if len(text) <= MAX_LOGGED_URL:
        return value
    shortened = short_text(text)
    return value if shortened == text else _Shortened(shortened)


class ShortUrlFilter(logging.Filter):
    """A handler filter: long URLs (any run of non-space characters over :data:`MAX_LOGGED_URL`)
    in a record's message and arguments are shortened; tracebacks are left alone."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str) and len(record.msg) > MAX_LOGGED_URL:
            record.msg = short_text(record.msg)
        if isinstance(record.args, dict):
            record.args = {key: _short_arg(value) for key, value in record.args.items()}
        elif isinstance(record.args, tuple):
            record.args = tuple(_short_arg(value) for value in record.args)
        return True


class ShortUrlLogs:
    """Extension: :class:`ShortUrlFilter` on every handler of the root logger (once each)."""

    def __init__(self):
        for handler in logging.getLogger().handlers:
            if not any(isinstance(f, ShortUrlFilter) for f in handler.filters):
                handler.addFilter(ShortUrlFilter())

    @classmethod
    def from_crawler(cls, crawler) -> ShortUrlLogs:
        return cls()
