"""A short hypothesis run of the fuzz targets (``fuzz/targets.py``), plus the inputs that
fuzzing found failing, kept as regressions.  The long, coverage-guided run is
``python fuzz/run.py --seconds 60`` (atheris)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fuzz.corpus import STALL_SEEDS, article, paragraphs
from fuzz.targets import extract_target, feed_target, stall_target

PAGE = article(paragraphs(3)).encode()

FOUND = {
    # feedparser 6.0.14 raised UnicodeDecodeError on an undecodable encoding name
    "feed: bad encoding name": (feed_target, b'<?xml version="1.0" encoding="ut\xcaf-8"?><feed '
                                             b'xmlns="http://www.w3.org/2005/Atom"><title>A</title></feed>'),
    # a stray <links> element made feedparser's entry["links"] a string: AttributeError in parse_feed
    "feed: links element as text": (feed_target, b'<rss version="2.0"><channel><title>T</title><item>'
                                                 b"<title>Story</title><links>x</links></item></channel></rss>"),
    # uchardet named VISCII, which Python has no codec for: LookupError from the decoder
    "extract: one stray byte, guessed VISCII": (extract_target, b"\x00" + PAGE[:266] + b"\x80" + PAGE[266:]),
}
TAGS = st.sampled_from(["p", "div", "a", "html", "body", "title", "h1", "script", "br", "table", "td",
                        "article", "meta", "!--", "?xml", "![CDATA["])
FRAGMENT = st.one_of(
    st.text(max_size=40),
    st.builds(lambda t, close: f"</{t}>" if close else f"<{t}>", TAGS, st.booleans()),
    st.sampled_from(['<a href="javascript:x">', '<a href="//evil/">', "&#0;", "&#x110000;", "&amp", "\x00",
                     '<meta charset="gbk">', '<meta charset="no-such">', "</html>", "<base href='file:///'>"]),
)
HTMLISH = st.lists(FRAGMENT, max_size=60).map("".join)
FAST = settings(max_examples=150, deadline=None, database=None, suppress_health_check=list(HealthCheck))


@pytest.mark.parametrize("name", sorted(FOUND))
def test_inputs_fuzzing_found(name):
    target, data = FOUND[name]
    target(data)


@FAST
@given(st.binary(max_size=2048))
def test_extract_on_arbitrary_bytes(data):
    extract_target(data)


@FAST
@given(st.integers(0, 255), HTMLISH, st.sampled_from(["utf-8", "gbk", "latin-1", "utf-16"]))
def test_extract_on_html_like_text(selector, text, encoding):
    extract_target(bytes([selector]) + text.encode(encoding, errors="replace"))


@FAST
@given(st.integers(0, 255), st.integers(0, len(PAGE)), st.binary(max_size=32))
def test_extract_on_a_damaged_page(selector, at, junk):
    extract_target(bytes([selector]) + PAGE[:at] + junk + PAGE[at:])


@FAST
@given(st.one_of(st.binary(max_size=2048), HTMLISH.map(lambda t: t.encode("utf-8", errors="replace"))))
def test_feed_parsing_on_arbitrary_input(data):
    feed_target(data)


@pytest.mark.parametrize("name", sorted(STALL_SEEDS))
def test_stall_seeds_extract(name):
    stall_target(STALL_SEEDS[name])


@FAST
@given(st.binary(min_size=6, max_size=24))
def test_extract_on_structured_stall_pages(data):
    stall_target(data, max_chars=20_000)
