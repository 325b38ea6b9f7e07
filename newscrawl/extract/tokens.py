"""Word tokens as the extraction methods and the evaluation count them.

``\\w+`` tokens as the Zyte article-extraction benchmark splits text; in Chinese every Han
character is its own token, since Chinese writes no spaces between words.
"""

from __future__ import annotations

import re

# Han ideographs (CJK unified + extensions + compatibility, radicals, 々 〇 and Hangzhou numerals).
HAN = (
    "\u2e80-\u2fdf\u3005\u3007\u3021-\u3029\u3038-\u303b\u3400-\u4dbf\u4e00-\u9fff"
    "\uf900-\ufaff\U00020000-\U0003134f"
)
HAN_RE = re.compile(f"[{HAN}]")
_HAN_SPLIT_RE = re.compile(f"[{HAN}]|[^{HAN}]+")
# Characters of the scripts written without spaces between words (kana, Han, hangul).
_CJK_RE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff\uac00-\ud7af]")
# The Zyte benchmark's tokenizer, flags and all (IGNORECASE does not change what \w matches).
_ZYTE_TOKEN_RE = re.compile(r"\w+", re.UNICODE | re.MULTILINE | re.IGNORECASE | re.DOTALL)


def tokenize(text: str | None, han_chars: bool = True) -> list[str]:
    """``\\w+`` word tokens; with ``han_chars`` every Han character is split off as its own token.

    ``tokenize("新华社 reports 北京", han_chars=True) == ["新", "华", "社", "reports", "北", "京"]``.
    Without ``han_chars`` this is exactly the Zyte benchmark's tokenizer.
    """
    tokens = _ZYTE_TOKEN_RE.findall(text or "")
    if not han_chars or not HAN_RE.search(text or ""):  # one search of the text, not one a token
        return tokens
    out: list[str] = []
    for token in tokens:
        if HAN_RE.search(token):
            out.extend(_HAN_SPLIT_RE.findall(token))
        else:
            out.append(token)
    return out


def weighted_length(text: str) -> int:
    """Non-space characters of ``text``, a CJK character counted 3 (it carries about a word):
    one scale for the lengths of English, Russian and Chinese text."""
    if not text:
        return 0
    chars = len(text) - text.count(" ") - text.count("\n") - text.count("\t")
    return chars if text.isascii() else chars + 2 * len(_CJK_RE.findall(text))
