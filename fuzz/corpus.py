"""The hostile-input corpus: pages generated on the fly (never stored), one function per case.

Each case is ``name -> (body bytes, Content-Type header)``; :data:`CASES` lists them with
the outcome the crawl promises (see README "Reliability").  Used by
``tests/test_hostile_extract.py``, ``tests/test_crawl_faults.py`` and as the fuzz seeds.
"""

from __future__ import annotations

import gzip
import io
import struct
import zlib
from collections.abc import Callable

HTML = "text/html"
HTML_UTF8 = "text/html; charset=utf-8"

SENTENCE = ("The council said that the new bridge will open in the spring and that the old one "
            "will be kept for people who walk or ride a bicycle to work every day. ")
ZH_SENTENCE = "市政府表示，新的大桥将在春天开放，旧桥将保留给步行和骑自行车上班的市民使用。"


def article(body: str, title: str = "A bridge for the city", head: str = "") -> str:
    return (f"<html><head>{head}<title>{title}</title></head><body><h1>{title}</h1>"
            f"<article>{body}</article></body></html>")


def paragraphs(n: int, sentence: str = SENTENCE) -> str:
    return "".join(f"<p>{sentence}</p>" for _ in range(n))


def png() -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    ihdr = struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\0\0")) + chunk(
        b"IEND", b"")


def pdf() -> bytes:
    return (b"%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n"
            b"2 0 obj << /Type /Pages /Kids [] /Count 0 >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n")


def gzipped_html() -> bytes:
    return gzip.compress(article(paragraphs(5)).encode())


def huge_page(megabytes: int = 20) -> bytes:
    para = f"<p>{SENTENCE}</p>".encode()
    return article("").encode().replace(b"<article>", b"<article>" + para * (megabytes * 2**20 // len(para)))


def deep_nesting(depth: int = 100_000) -> bytes:
    return (b"<html><head><title>Deep</title></head><body>" + b"<div>" * depth
            + SENTENCE.encode() + b"</div>" * depth + b"</body></html>")


def many_siblings(count: int = 1_000_000) -> bytes:
    return (b"<html><head><title>Siblings</title></head><body><div>" + b"<span>x</span>" * count
            + b"</div></body></html>")


def invalid_utf8() -> bytes:
    """A UTF-8 page (accents, CJK) with truncated and impossible byte sequences in three places."""
    body = article(paragraphs(5) + paragraphs(3, "Le café près du pont ouvre à l’été. ")
                   + paragraphs(3, ZH_SENTENCE)).encode("utf-8")
    return body.replace(b"bridge", b"br\xc3\x28idge\xff\xfe", 3)


def gbk_page(declared: str = "") -> bytes:
    head = f'<meta charset="{declared}">' if declared else ""
    return article(paragraphs(8, ZH_SENTENCE), title="新大桥春天开放", head=head).encode("gbk")


def mixed_encodings() -> bytes:
    first = article(paragraphs(4, ZH_SENTENCE), title="新大桥春天开放").encode("utf-8")
    return first.replace(b"</article>", paragraphs(4, ZH_SENTENCE).encode("gbk")
                         + "<p>Über die Brücke gehen Fußgänger.</p>".encode("latin-1") + b"</article>")


def nul_bytes() -> bytes:
    return article(paragraphs(5)).encode().replace(b" ", b"\x00 ", 40)


def broken_markup() -> bytes:
    body = "<div><p>" + SENTENCE + "<b><i>" + SENTENCE + "</html></body>" + paragraphs(3) + "<table><tr><td>"
    return ("<html><head><title>Broken</title><body>" + body + SENTENCE * 3).encode()


def huge_title(megabytes: int = 1) -> bytes:
    return article(paragraphs(5), title="Bridge " * (megabytes * 2**20 // 7)).encode()


def all_links() -> bytes:
    links = "".join(f'<p><a href="/story/{i}">{SENTENCE}</a></p>' for i in range(40))
    return article(links).encode()


def no_text() -> bytes:
    return b'<html><head></head><body><div><img src="a.png"><div><br><hr></div></div></body></html>'


# name -> (body factory, Content-Type)
CASES: dict[str, tuple[Callable[[], bytes], str]] = {
    "empty": (lambda: b"", HTML),
    "whitespace": (lambda: b" \r\n\t  \n" * 100, HTML),
    "png_as_html": (png, HTML),
    "pdf_as_html": (pdf, HTML),
    "gzip_as_html": (gzipped_html, HTML),
    "20mb_page": (huge_page, HTML_UTF8),
    "nested_100k": (deep_nesting, HTML_UTF8),
    "siblings_1m": (many_siblings, HTML_UTF8),
    "invalid_utf8": (invalid_utf8, HTML_UTF8),
    "gbk_wrong_header": (gbk_page, "text/html; charset=iso-8859-1"),
    "gbk_undeclared": (gbk_page, HTML),
    "mixed_encodings": (mixed_encodings, HTML),
    "nul_bytes": (nul_bytes, HTML_UTF8),
    "broken_markup": (broken_markup, HTML_UTF8),
    "title_1mb": (huge_title, HTML_UTF8),
    "all_links": (all_links, HTML_UTF8),
    "no_text": (no_text, HTML_UTF8),
}


def body_of(name: str) -> tuple[bytes, str]:
    factory, content_type = CASES[name]
    return factory(), content_type


def gzip_bomb(megabytes: int = 64) -> bytes:
    """``megabytes`` of zeros, gzip-compressed (about 1000:1)."""
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", compresslevel=9) as fh:
        block = b"\0" * 2**20
        for _ in range(megabytes):
            fh.write(block)
    return buf.getvalue()


# --- pages built to stall a backtracking regex (issue 11) ---------------------------------------
# A date followed by a long run of white space made the visible-date search try every split of
# the run; so can runs of digits, separators and repeated words, also when the walk over the
# elements joins them with line breaks.  These pages are made of such runs, in the body's text.

STALL_DATES = {"en": "Nov 24, 2026", "zh": "2026年11月24日", "ru": "24 ноября 2026",
               "de": "24. November 2026", "num": "24.11.2026", "iso": "2026-11-24", "none": ""}
STALL_RUNS = {
    "spaces": " ", "tabs": "\t", "newlines": "\n", "nbsp": "\xa0", "ideographic": "\u3000",
    "mixed_white": " \t\n\xa0\u3000\r", "digits": "0", "separators": "-/.,:·|", "by": "By ", "years": "2026 ",
    "digit_space_sep": "1 - 2 / 3 . 4 , ", "dates": "2026-11-24 ", "cyrillic": "Автор ", "cjk": "记者 ",
    "label": "发布时间：", "names": "Aa ", "script_open": "<script>", "json_p_open": "\\u003cp ",
}
# How the run is cut into elements: "{}" is one chunk of the run.
STALL_BOUNDARIES = {"none": "{}", "br": "{}<br>", "span": "<span>{}</span>", "p": "<p>{}</p>",
                    "td": "<td>{}</td>", "li": "<li>{}</li>", "newline": "{}\n"}
STALL_MAX_CHARS = 200_000


def stall_page(run: str, size: int, date: str = "en", boundary: str = "none", chunk: int = 0) -> str:
    """An article page: a headline, ``STALL_DATES[date]`` in a ``<span>``, then ``size``
    characters of ``STALL_RUNS[run]`` (or of ``run`` itself when it is no name there) cut into
    ``chunk``-character pieces wrapped as ``STALL_BOUNDARIES[boundary]`` (one piece when 0),
    then a short paragraph of text."""
    unit = STALL_RUNS.get(run, run) or " "
    text = (unit * (size // len(unit) + 1))[:size]
    chunk = chunk or max(size, 1)
    wrap = STALL_BOUNDARIES[boundary]
    pieces = "".join(wrap.format(text[i:i + chunk]) for i in range(0, len(text), chunk))
    title = "市政府说新的大桥将在春天开放" if date == "zh" else "A bridge for the city"
    body = f"<p><span>{STALL_DATES[date]}</span>{pieces}</p><p>{SENTENCE}</p>"
    return article(body, title=title)


def _pick(table: dict, byte: int) -> str:
    return list(table)[byte % len(table)]


def stall_page_from_bytes(data: bytes, max_chars: int = STALL_MAX_CHARS) -> str:
    """The structure-aware fuzz input: bytes 0-4 pick the run, the date, the boundary, the size
    (bytes 3-4, scaled to ``max_chars``) and the chunk length (byte 5); when byte 0 picks past
    the named runs, the rest of the bytes (as UTF-8) is the run's unit."""
    head = data[:6].ljust(6, b"\0")
    runs = list(STALL_RUNS)
    run = runs[head[0]] if head[0] < len(runs) else data[6:].decode("utf-8", "replace") or " "
    size = int.from_bytes(head[3:5], "big") * max_chars // 0xFFFF
    return stall_page(run, size, _pick(STALL_DATES, head[1]), _pick(STALL_BOUNDARIES, head[2]), head[5] * 4)


def stall_seed(run: str, date: str, boundary: str, size: int, chunk: int = 0, unit: str = "") -> bytes:
    """The bytes :func:`stall_page_from_bytes` reads as this page (``size`` rounded)."""
    scaled = min(0xFFFF, size * 0xFFFF // STALL_MAX_CHARS)
    return (bytes([list(STALL_RUNS).index(run) if run in STALL_RUNS else 255, list(STALL_DATES).index(date),
                   list(STALL_BOUNDARIES).index(boundary)]) + scaled.to_bytes(2, "big")
            + bytes([min(255, chunk // 4)]) + unit.encode())


# The pages and their neighbours, as fuzz seeds (name -> bytes for stall_page_from_bytes).
STALL_SEEDS = {
    "date_spaces_en": stall_seed("spaces", "en", "none", 200_000),
    "date_ideographic_zh": stall_seed("ideographic", "zh", "none", 200_000),
    "date_spaces_ru": stall_seed("spaces", "ru", "none", 200_000),
    "date_br_de": stall_seed("spaces", "de", "br", 50_000, chunk=4),
    "date_split_spaces_num": stall_seed("mixed_white", "num", "span", 100_000, chunk=64),
    "digits": stall_seed("digits", "iso", "p", 100_000, chunk=512),
    "separators": stall_seed("separators", "none", "newline", 100_000, chunk=8),
    "by_by_by": stall_seed("by", "en", "none", 100_000),
    "years": stall_seed("years", "en", "td", 100_000, chunk=40),
    "cjk_labels": stall_seed("cjk", "zh", "li", 100_000, chunk=100),
    "cyrillic": stall_seed("cyrillic", "ru", "none", 100_000),
    "unclosed_scripts": stall_seed("script_open", "none", "none", 100_000),
    "custom_unit": stall_seed("", "iso", "span", 20_000, chunk=16, unit="1 . 1 , "),
}
