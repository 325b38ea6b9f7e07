"""Decoding page bytes as a crawler does, and the one exception type for unusable input."""

import pytest

from newscrawl.extract import ExtractionError, extract
from newscrawl.extract.dom import decode_html, render_paragraphs
from newscrawl.extract.page import Page

ZH = "<html><head><title>新闻</title></head><body><p>本报讯 记者昨日从市政府获悉，今年全市共新建公园十二座。</p></body></html>"


def test_header_charset_then_meta_then_sniffing():
    gbk = ZH.encode("gbk")
    assert decode_html(gbk, "text/html; charset=gbk") == ZH
    meta = ZH.replace("<head>", '<head><meta charset="gbk">')
    assert decode_html(meta.encode("gbk"), "text/html") == meta
    undeclared = (ZH * 3).encode("gb18030")
    assert decode_html(undeclared, "text/html") == ZH * 3


def test_utf8_bytes_under_a_legacy_declaration_are_read_as_utf8():
    page = ZH.replace("<head>", '<head><meta charset="gb2312">')
    assert decode_html(page.encode("utf-8"), None) == page


def test_bom_wins():
    assert decode_html("\ufeff<p>é</p>".encode("utf-8"), "text/html; charset=latin-1") == "<p>é</p>"


@pytest.mark.parametrize(
    ("data", "reason"),
    [(b"", "empty"), (b"   \n ", "empty"), (b"\x89PNG\r\n\x1a\n....", "binary"), (b"%PDF-1.7 ...", "binary")],
)
def test_unusable_input_raises_extraction_error_with_a_reason(data, reason):
    with pytest.raises(ExtractionError) as info:
        extract(data)
    assert info.value.reason == reason


def test_paragraphs_follow_blocks_and_line_breaks():
    page = Page.from_html("<html><body><div>One<br>Two <b>bold</b><p>Three</p>Four</div></body></html>")
    assert render_paragraphs(page.body) == ["One", "Two bold", "Three", "Four"]
