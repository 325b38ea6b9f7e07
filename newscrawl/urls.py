"""URLs in log lines: a URL is untrusted input of any length (a page may link a 1 MB URL), so
every newscrawl log line shows it through :func:`short_url`.  No Scrapy imports."""

from __future__ import annotations

MAX_LOGGED_URL = 200  # characters of a URL shown in a log line


def short_url(url: object, limit: int = MAX_LOGGED_URL) -> str:
    """``url`` for a log line: as it is when short, else its start and end around a marker that
    gives its full length (``https://example.com/aaaa…[1048576 chars]…aaa.html``)."""
    text = str(url) if url is not None else "<no url>"
    if len(text) <= limit:
        return text
    keep = max(limit - 30, 20)
    head, tail = keep * 2 // 3, keep // 3
    return f"{text[:head]}…[{len(text)} chars]…{text[-tail:]}"
