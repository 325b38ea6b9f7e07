"""One block's inline content: its text with emphasis and links, as Markdown and as HTML.

Text and marks arrive in document order as tokens; white space is collapsed as in
:func:`..dom.render_paragraphs` (so the text stripped of markup is that paragraph's line),
and a space next to a mark is moved outside it (``**bold** text``, never ``**bold **text``,
which CommonMark would not read as emphasis).  A mark with no text inside is dropped.
"""

from __future__ import annotations

import html as html_lib
import re

from .urls import markdown_destination

_SPACES = re.compile(r"\s+")
# Characters that could start Markdown syntax anywhere in a line (CommonMark §2.4 escapes them).
_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>&|~])")
# ... and those that do only at the start of a block: headings, list items, setext underlines.
_MD_BLOCK_START = re.compile(r"^(?:[#+=-]|(\d{1,9})([.)]))")

MARKS = {"strong": "strong", "b": "strong", "em": "em", "i": "em", "a": "a", "code": "code",
         "sub": "sub", "sup": "sup"}
_MD_MARK = {"strong": "**", "em": "*"}


def escape_markdown(text: str) -> str:
    return _MD_SPECIAL.sub(r"\\\1", text)


def escape_block_start(line: str) -> str:
    """``line`` with a backslash where its start would read as a heading, list item or rule."""
    match = _MD_BLOCK_START.match(line)
    if match is None:
        return line
    if match.group(1):
        end = match.end(1)
        return line[:end] + "\\" + line[end:]
    return "\\" + line


def render(tokens: list[tuple]) -> tuple[str, str]:
    """``(markdown, html)`` of a token list: ``("t", text)``, ``("o", mark, href)``, ``("c", mark)``."""
    md: list[str] = []
    out: list[str] = []
    pending: list[tuple[str, str | None]] = []
    opened: list[tuple[str, str | None]] = []
    space = started = False
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
                if space:
                    md.append(" ")
                    out.append(" ")
                    space = False
                for mark, href in pending:
                    _open(mark, href, md, out)
                    opened.append((mark, href))
                pending.clear()
                md.append(escape_markdown(core))
                out.append(html_lib.escape(core, quote=False))
                started = True
                if text[-1] == " ":
                    space = True
        elif kind == "o":
            mark, href = token[1], token[2]
            if any(m == mark for m, _ in (*opened, *pending)):
                pending.append(("", None))  # nested repeat of an open mark: nothing to write
            else:
                pending.append((mark, href))
        else:
            if pending:
                pending.pop()
            elif opened:
                mark, href = opened.pop()
                _close(mark, href, md, out)
    while opened:
        mark, href = opened.pop()
        _close(mark, href, md, out)
    return "".join(md), "".join(out)


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
