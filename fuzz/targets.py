"""Fuzz targets: what may happen to arbitrary bytes fed to the extraction library and the feed parser.

Each target takes raw bytes and raises only on a bug: :func:`extract_target` and
:func:`stall_target` let :class:`~newscrawl.extract.ExtractionError` through silently (that is
the documented refusal), :func:`feed_target` allows no exception at all.  Used by ``fuzz/run.py``
(atheris, coverage-guided) and by ``tests/test_fuzz_targets.py`` (hypothesis).
"""

from __future__ import annotations

from fuzz.corpus import STALL_MAX_CHARS, stall_page_from_bytes
from newscrawl.extract import ExtractionError, extract
from newscrawl.spiders.feeds import parse_feed

CONTENT_TYPES = (None, "text/html", "text/html; charset=utf-8", "text/html; charset=gbk",
                 "text/html; charset=iso-8859-1", "text/html; charset=nonsense")
URL = "http://fuzz.example/2024/05/12/story.html"
METHODS = ("auto", "cevc", "decay")  # the heuristic methods; learned ones need trained models
REASONS = {"empty", "binary", "too-large", "too-deep", "unparseable"}  # ExtractionError.reason values


def extract_target(data: bytes) -> None:
    """``extract`` on ``data[1:]``; ``data[0]`` picks the method and the Content-Type."""
    if not data:
        return
    method = METHODS[data[0] % len(METHODS)]
    content_type = CONTENT_TYPES[(data[0] // len(METHODS)) % len(CONTENT_TYPES)]
    try:
        article = extract(data[1:], URL, method=method, content_type=content_type)
    except ExtractionError as exc:
        assert exc.reason in REASONS, exc.reason
        return
    assert isinstance(article.text, str) and "\x00" not in article.text
    assert all(link.url.startswith(("http://", "https://")) for link in article.links)
    article.to_dict()


def stall_target(data: bytes, max_chars: int = STALL_MAX_CHARS) -> None:
    """``extract`` on a page of long runs (white space, digits, separators, repeated words, a date
    then white space, cut into elements) that :func:`fuzz.corpus.stall_page_from_bytes` builds
    from ``data``: structure-aware, where random bytes would rarely make such a page.  The
    per-input time limit of ``fuzz/run.py`` is what catches a super-linear scan."""
    page = stall_page_from_bytes(data, max_chars)
    try:
        article = extract(page, URL, method=METHODS[data[0] % len(METHODS)] if data else "auto")
    except ExtractionError as exc:
        assert exc.reason in REASONS, exc.reason  # "binary": control characters in a fuzzed run
        return
    article.to_dict()


def feed_target(data: bytes) -> None:
    """``parse_feed`` on ``data``: entries or an error, never an exception."""
    feed = parse_feed(data, "http://fuzz.example/feed.xml", "application/rss+xml", max_entries=50)
    assert len(feed.entries) <= 50
    assert feed.entries or feed.error


TARGETS = {"extract": extract_target, "feed": feed_target, "stall": stall_target}
