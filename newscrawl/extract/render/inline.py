"""One block's inline content: its text with emphasis and links, as Markdown and as HTML.

Text and marks arrive in document order as tokens; white space is collapsed as in
:func:`..dom.render_paragraphs` (so the text stripped of markup is that paragraph's line),
and a space next to a mark is moved outside it (``**bold** text``, never ``**bold **text``,
which CommonMark would not read as emphasis).  A mark with no text inside is dropped.
"""

from __future__ import annotations

import html as html_lib
import re
import unicodedata

from .urls import markdown_destination

_SPACES = re.compile(r"\s+")
# Characters that could start Markdown syntax anywhere in a line (CommonMark §2.4 escapes them).
_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>&|~])")
# ... and those that do only at the start of a block: headings, list items, setext underlines.
_MD_BLOCK_START = re.compile(r"^(?:[#+=-]|(\d{1,9})([.)]))")

MARKS = {"strong": "strong", "b": "strong", "em": "em", "i": "em", "a": "a", "code": "code",
         "sub": "sub", "sup": "sup"}
_MD_MARK = {"strong": "**", "em": "*"}


def _backslashed(match: re.Match) -> str:
    return "\\" + match.group(1)


def escape_markdown(text: str) -> str:
    # Most texts hold nothing to escape; a template replacement costs ~5 µs a call even then.
    if _MD_SPECIAL.search(text) is None:
        return text
    return _MD_SPECIAL.sub(_backslashed, text)


def escape_block_start(line: str) -> str:
    """``line`` with a backslash where its start would read as a heading, list item or rule."""
    match = _MD_BLOCK_START.match(line)
    if match is None:
        return line
    if match.group(1):
        end = match.end(1)
        return line[:end] + "\\" + line[end:]
    return "\\" + line


def _punctuation(ch: str) -> bool:
    return unicodedata.category(ch)[0] in "PS"


def render_text(text: str) -> tuple[str, str]:
    """``render([("t", text)])``: text with no marks, its white space collapsed."""
    core = " ".join(text.split())  # str.split() splits on exactly what \s matches
    return escape_markdown(core), html_lib.escape(core, quote=False)


def render(tokens: list[tuple]) -> tuple[str, str]:
    """``(markdown, html)`` of a token list: ``("t", text)``, ``("o", mark, href)``, ``("c", mark)``.

    CommonMark reads ``**`` as emphasis only when it flanks the text (§6.2): a mark whose text
    starts with punctuation after a letter, or ends with punctuation before one (``**引用：**赵``),
    would print its asterisks.  Such a mark is left out of the Markdown (kept in the HTML).
    A mark closed and opened again at once (``<b>B</b><b>reakfast</b>``) is one mark: written
    apart, CommonMark would read ``**B****reakfast**``."""
    tokens = _rejoined(tokens)
    md: list[str] = []
    out: list[str] = []
    pending: list[tuple[str, str | None]] = []
    opened: list[tuple[str, str | None, int, bool]] = []  # mark, href, index of its marker, flanks
    check: list[tuple[int, int]] = []  # closed marks ending in punctuation: (open, close) marker indexes
    space = started = False
    last = ""
    for token in tokens:
        kind = token[0]
        if kind == "t":
            text = _SPACES.sub(" ", token[1])
            if not text:
                continue
            core = text.strip(" ")
            if text[0] == " " and started:
                space = True
            if core:
                if check:
                    if not space and not _punctuation(core[0]):
                        for at in check[-1]:
                            md[at] = ""
                    check.clear()
                if space:
                    md.append(" ")
                    out.append(" ")
                    space = False
                    last = " "
                for mark, href in pending:
                    flanks = not (_punctuation(core[0]) and last and last != " " and not _punctuation(last))
                    opened.append((mark, href, len(md), flanks))
                    _open(mark, href, md, out)
                pending.clear()
                md.append(escape_markdown(core))
                out.append(html_lib.escape(core, quote=False))
                started = True
                last = core[-1]
                if text[-1] == " ":
                    space = True
        elif kind == "o":
            mark, href = token[1], token[2]
            if any(m[0] == mark for m in (*opened, *pending)):
                pending.append(("", None))  # nested repeat of an open mark: nothing to write
            else:
                pending.append((mark, href))
        else:
            if pending:
                pending.pop()
            elif opened:
                mark, href, at, flanks = opened.pop()
                _close(mark, href, md, out)
                if mark in _MD_MARK:
                    if not flanks:
                        md[at] = md[-1] = ""
                    elif _punctuation(last):
                        check = [(at, len(md) - 1)]
    while opened:
        mark, href, at, flanks = opened.pop()
        _close(mark, href, md, out)
        if mark in _MD_MARK and not flanks:
            md[at] = md[-1] = ""
    return "".join(md), "".join(out)


def _rejoined(tokens: list[tuple]) -> list[tuple]:
    """``tokens`` without each close of a mark that the next token opens again (a link: to the
    same address)."""
    out: list[tuple] = []
    hrefs: list[str | None] = []  # the addresses of the links open now
    closed_href = None  # the address of the link closed last
    for token in tokens:
        kind = token[0]
        if kind == "o" and out and out[-1][0] == "c" and out[-1][1] == token[1] and \
                (token[1] != "a" or closed_href == token[2]):
            out.pop()
            if token[1] == "a":
                hrefs.append(token[2])
            continue
        if kind == "o" and token[1] == "a":
            hrefs.append(token[2])
        elif kind == "c" and token[1] == "a" and hrefs:
            closed_href = hrefs.pop()
        out.append(token)
    return out


def _open(mark: str, href: str | None, md: list[str], out: list[str]) -> None:
    if not mark:
        return
    if mark == "a":
        md.append("[")
        out.append(f'<a href="{html_lib.escape(href or "", quote=True)}">')
    else:
        md.append(_MD_MARK.get(mark, ""))
        out.append(f"<{mark}>")


def _close(mark: str, href: str | None, md: list[str], out: list[str]) -> None:
    if not mark:
        return
    if mark == "a":
        md.append(f"]({markdown_destination(href or '')})")
        out.append("</a>")
    else:
        md.append(_MD_MARK.get(mark, ""))
        out.append(f"</{mark}>")
