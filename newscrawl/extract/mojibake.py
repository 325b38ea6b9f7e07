"""Double-encoded pages: text that was decoded as Windows-1252 (or Latin-1) once too often.

A page whose UTF-8 or GBK bytes were read as Windows-1252 and saved again as UTF-8 decodes
correctly as bytes and still reads as mojibake ("æ–°å�Ž", "ÐÂ»ªÉç").  The repair re-encodes
the text as Windows-1252 and decodes the bytes as what they were, but only where that is
unambiguous:

- every non-ASCII character of the page is one Windows-1252 (with the five bytes it leaves
  undefined passed through, as browsers do) can produce, and there are at least
  :data:`MIN_SUSPECT` of them: a page with a single Cyrillic, CJK or other character
  outside that repertoire was decoded right;
- UTF-8 inside: ftfy's ``fix_encoding`` (Speer, ftfy) must explain the whole repair as
  one Windows-1252/Latin-1 encode and one UTF-8 decode, with no lossy step;
- GBK inside (ftfy does not undo GBK): the bytes decode strictly as GB18030 and at least
  :data:`MIN_CJK_SHARE` of the non-ASCII characters they give are Han characters or CJK
  punctuation, and the non-ASCII bytes come in runs of even length (GB2312's characters are
  two high bytes; German "für" is a valid GBK pair, but a run of one).

A correctly decoded page of any of the evaluation sets is never changed (tests/test_mojibake.py
runs them all where ../shared is present).

A page decoded right may still hold runs that were double-encoded before the page was written
(a CMS that pasted them so: "Earthâ\x80\x99s", "isnâ€™t", "РѕР±Р»Р°СЃС‚Рё"); browsers show them
so, and so did newscrawl.  :func:`repair_mixed_encoding` repairs each such run with ftfy's
``decode_inconsistent_utf8`` (Speer, ftfy), which changes a run only where it decodes as UTF-8
and reads as mojibake ("Lâcher" stays).  ftfy's scan costs about as much as parsing the page,
so it runs only on pages holding the start of a common run (:data:`_RUN_STARTS`).
"""

from __future__ import annotations

import re

import ftfy
import ftfy.bad_codecs  # noqa: F401 - registers the "sloppy-windows-1252" codec
from ftfy.fixes import decode_inconsistent_utf8

MIN_SUSPECT = 20  # non-ASCII characters a page needs before it can be called double-encoded
MIN_CJK_SHARE = 0.9  # share of Han/CJK punctuation among the GBK decode's non-ASCII characters

_SLOPPY_1252 = "sloppy-windows-1252"
_ASCII_BYTES = bytes(range(0x80))
_HIGH_RUN = re.compile(rb"[\x80-\xff]+")
_NON_ASCII = re.compile(r"[^\x00-\x7f]")
# Han ideographs (and extension A, compatibility), CJK and general punctuation, full-width forms.
_CJK = re.compile(r"[\u4e00-\u9fff\u3400-\u4dbf\uf900-\ufaff\u3000-\u303f\uff00-\uffef\u2000-\u206f]")
MAX_ODD_RUNS = 0.05  # share of runs of non-ASCII bytes of odd length a GBK text may have
# The repairs ftfy may report for a whole-page UTF-8 double encoding, and nothing else.
_ENCODE_STEPS = frozenset({("encode", "sloppy-windows-1252"), ("encode", "latin-1"),
                           ("encode", "windows-1252")})
_DECODE_STEP = ("decode", "utf-8")
# The characters past U+00FF that Windows-1252's bytes 0x80-0x9F stand for (the euro sign, curly
# quotes, dashes...): with U+0000-U+00FF, every character the encode above can take.
_1252_EXTRA = "".join(c for c in bytes(range(0x80, 0x100)).decode(_SLOPPY_1252) if c > "\xff")
# Either a character Windows-1252 cannot produce (the encode would fail), or a lone non-ASCII
# character, ASCII before it, followed by white space, punctuation or the end ("don’t go”, "café."):
# as a byte it can be neither UTF-8 (no lead byte stands alone) nor GB18030 (a lead byte
# needs a trail byte of 0x30-0x39 or 0x40 and up).  Either proves the page is not double-encoded,
# and one regex scan that finds it early on most pages costs less than encoding the whole page.
_NOT_DOUBLE_ENCODED = re.compile(
    r"[^\x00-\x7f](?:(?<=[^\x00-\xff" + _1252_EXTRA + r"])|(?<=[\x00-\x7f].)(?=[\x00-\x2f\x3a-\x3f]|\Z))",
    re.DOTALL,
)


# How the common double-encoded runs begin, by their first character (one-character searches are
# ten times faster than longer ones, so a page is searched for the longer run only when it holds
# the character): UTF-8's Latin-1 letters and signs (lead bytes 0xC2-0xC3) and Cyrillic
# (0xD0-0xD1) read as Windows-1252 or Latin-1; its punctuation (0xE2 0x80: ’ “ — …) and emoji
# (0xF0 0x9F) so read; Cyrillic read as Windows-1251 (а е и н о с т).
_RUN_STARTS = {"Ã": ("Ã",), "Â": ("Â",), "Ð": ("Ð",), "Ñ": ("Ñ",), "â": ("â€", "â\x80"), "ð": ("ðŸ",),
               "Р": ("Р°", "Рµ", "Рё", "РЅ", "Рѕ"), "С": ("СЃ", "С‚")}


def repair_mixed_encoding(text: str) -> str:
    """``text`` with each double-encoded UTF-8 run inside it decoded (see the module's notes)."""
    if text.isascii() or not any(first in text and any(run in text for run in runs)
                                 for first, runs in _RUN_STARTS.items()):
        return text
    return decode_inconsistent_utf8(text)


def repair_double_encoding(text: str) -> tuple[str, str | None]:
    """``(text, None)`` when ``text`` is not double-encoded, else ``(repaired, inner)`` where
    ``inner`` names the encoding the page really had (``"utf-8"`` or ``"gbk"``)."""
    if text.isascii() or _NOT_DOUBLE_ENCODED.search(text):
        return text, None
    return _repair(text)


def _repair(text: str) -> tuple[str, str | None]:
    """:func:`repair_double_encoding` without the pre-check (which only ever skips to ``(text, None)``)."""
    if text.isascii():
        return text, None
    try:
        raw = text.encode(_SLOPPY_1252)  # stops at the first character it cannot encode
    except UnicodeEncodeError:  # a character Windows-1252 cannot produce: decoded right
        return text, None
    if len(raw.translate(None, _ASCII_BYTES)) < MIN_SUSPECT:
        return text, None
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        pass
    else:
        fixed, steps = ftfy.fix_encoding_and_explain(text)
        if (steps and fixed != text and steps[-1] == _DECODE_STEP
                and all(step in _ENCODE_STEPS for step in steps[:-1])):
            return fixed, "utf-8"
        return text, None
    try:
        decoded = raw.decode("gb18030")
    except UnicodeDecodeError:
        return text, None
    runs = _HIGH_RUN.findall(raw)
    if sum(1 for run in runs if len(run) % 2) > MAX_ODD_RUNS * len(runs):
        return text, None  # Latin text: one accented letter between ASCII ones
    wide = len(_NON_ASCII.findall(decoded))
    if wide and len(_CJK.findall(decoded)) >= MIN_CJK_SHARE * wide:
        return decoded, "gbk"
    return text, None
