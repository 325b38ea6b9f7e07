"""Language of a page: the text's own evidence first (py3langid), the declared ``lang`` as fallback."""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

import numpy as np
from lxml import html
from py3langid.langid import LanguageIdentifier

from .dom import meta_content, normalize_space
from .tokens import weighted_length

try:  # py3langid's byte walk and row gather compiled (newscrawl/extract/_speedups.pyx); numpy otherwise
    from ._speedups import byte_walk, rows_as_float32
except ImportError:  # not built, or NEWSCRAWL_PURE_PYTHON=1
    byte_walk = rows_as_float32 = None

# py3langid walks the sample byte by byte in Python; on every dataset page with a labelled
# language, 1,000 characters of paragraph text identify it as well as 4,000 (150 of 151
# either way) at a third of the cost.
_SAMPLE_CHARS = 1000
_MIN_SAMPLE = 40
# Below this much paragraph text (two or three sentences) the sample is topped up from the body's
# other text runs: too little to speak for the page (a short French comment under an English
# post without <p> read as French, and its English then matched no stop word).
_MIN_PARAGRAPH_SAMPLE = 300
# Han characters with no kana or hangul are written Chinese, whatever the page declares: a
# sample that is mostly Han and has neither is read as "zh" without py3langid, whose byte walk
# costs most on CJK text (three UTF-8 bytes a character).  On all 1,635 dataset pages the 98
# samples this takes were ones py3langid reads as "zh" too.
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_KANA_HANGUL = re.compile(r"[\u3040-\u30ff\u31f0-\u31ff\u1100-\u11ff\uac00-\ud7af]")
_HAN_SHARE = 0.5


# py3langid finds its byte n-gram features with an Aho-Corasick automaton over the UTF-8 bytes:
# the state after a byte is the trie node of the longest suffix read so far that is in the trie,
# so it depends on the last WINDOW bytes only (WINDOW = the trie's depth, 6 in the shipped
# model).  Checked exhaustively on py3langid 0.4.0's model: for all 104,583 states reachable
# after 6 bytes x and every byte b, the state after x+b equals the state after x[1:]+b (so by
# induction the state after any text equals the state after its last 6 bytes);
# tests/test_language.py checks the depth and compares the counts with py3langid's own walk.
WINDOW = 6


class _WindowedIdentifier(LanguageIdentifier):
    """py3langid's identifier with its byte walk done by numpy: the state at every position
    is found for all positions at once by walking the WINDOW bytes that end there, in WINDOW
    vector steps, instead of one Python step per byte (``py3langid.langid.visit_counts``).
    Same feature counts, in the same order (first occurrence), so the same scores."""

    __slots__ = ("_moves", "_rows", "_outputs", "_half_bits", "_halves")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._moves = np.frombuffer(self.tk_nextmove, dtype=np.dtype(self.tk_nextmove.typecode))
        self._rows = np.asarray(self._rowbase, dtype=np.int64)
        self._outputs = np.asarray(self.tk_output, dtype=np.int64)
        # The float16 weight table as its bits, and the float32 of every float16 bit pattern.
        table = self.nb_ptc
        half = table.dtype == np.float16 and table.flags.c_contiguous
        self._half_bits = table.view(np.uint16) if half else None
        self._halves = np.arange(1 << 16, dtype=np.uint16).view(np.float16).astype(np.float32)

    def visits(self, data: bytes) -> dict[int, int] | None:
        """Feature counts of ``data`` (UTF-8 bytes) in order of first occurrence, as
        ``visit_counts`` gives them; None when there is none."""
        if byte_walk is not None:  # py3langid's own walk, one C step per byte
            return byte_walk(data, self._moves, self._rows, self._outputs, len(self.nb_ptc))
        letters = np.frombuffer(data, dtype=np.uint8).astype(np.int64)
        size = len(letters)
        states = np.zeros(size, dtype=np.int64)
        for back in range(min(WINDOW, size) - 1, -1, -1):  # position i reads byte i - back, if any
            states[back:] = self._moves[self._rows[states[back:]] + letters[: size - back]]
        features = self._outputs[states]
        features = features[features >= 0]
        if not len(features):
            return None
        keys, first, counts = np.unique(features, return_index=True, return_counts=True)
        order = np.argsort(first)
        return dict(zip(keys[order].tolist(), counts[order].tolist(), strict=True))

    def _sparse_score(self, visits, table):
        """py3langid's ``_sparse_score``: the weight rows of the features seen, as float32, summed
        by their log counts; the rows are converted by :func:`rows_as_float32` when it is built
        (numpy's float16 conversion cost more than the product; the same scores either way)."""
        if rows_as_float32 is None or table is not self.nb_ptc or self._half_bits is None:
            return super()._sparse_score(visits, table)
        features = np.fromiter(visits.keys(), dtype=np.int64, count=len(visits))
        counts = np.fromiter(visits.values(), dtype=np.float32, count=len(visits))
        return np.log1p(counts) @ rows_as_float32(self._half_bits, features, self._halves) + self.nb_pc

    def _raw_score(self, text):
        visits = self.visits(text)
        if visits is None:  # py3langid's own answer for a featureless text
            return super()._raw_score(text)
        return self._sparse_score(visits, self.nb_ptc)


@lru_cache(maxsize=1)
def _identifier() -> _WindowedIdentifier:
    from py3langid.langid import MODEL_FILE

    return _WindowedIdentifier.from_model_file(MODEL_FILE, norm_probs=True)


def identify(text: str) -> tuple[str, float]:
    """``(ISO 639-1 code, probability)`` of ``text``: Chinese by its script, else py3langid's."""
    if len(_HAN.findall(text)) >= _HAN_SHARE * len(text) and not _KANA_HANGUL.search(text):
        return "zh", 1.0
    lang, prob = _identifier().classify(text)
    return lang, float(prob)


def _first_chars(texts: Iterable[str], limit: int) -> str:
    """The first ``limit`` characters of ``texts`` joined by spaces, reading no further."""
    taken: list[str] = []
    size = 0
    for text in texts:
        if text:
            taken.append(text)
            size += len(text) + 1
            if size >= limit:
                break
    return " ".join(taken)[:limit]


def detect_language(body: html.HtmlElement, declared: str | None = None) -> str | None:
    """Identify the language from a sample of paragraph text, falling back to ``declared``.

    Template ``lang`` attributes are often wrong (a Chinese page declaring ``en``),
    so a confident reading of the text wins over the declaration.
    """
    pieces = (normalize_space(p.text_content()) for p in body.iter("p"))
    sample = _first_chars((t for t in pieces if len(t) > 20), _SAMPLE_CHARS)
    if len(sample) < _MIN_PARAGRAPH_SAMPLE:
        # Little paragraph text: a post written without <p> (lines split by <br>), whose <p> may
        # be only its comments or a caption.  Read the body's longer text runs instead, in order.
        runs = (t for t in (normalize_space(x) for x in body.itertext()) if weighted_length(t) > 20)
        longer = _first_chars(runs, _SAMPLE_CHARS)
        if len(longer) > len(sample):
            sample = longer
    if len(sample) < _MIN_SAMPLE:
        sample = _first_chars((normalize_space(t) for t in body.itertext()), _SAMPLE_CHARS)
    if len(sample) < _MIN_SAMPLE:
        return declared
    lang, prob = identify(sample)
    if declared and prob < 0.9:
        return declared
    return lang


_ISO_639_1 = re.compile(r"[a-z]{2}")


def language_code(value: str | None) -> str | None:
    """The language a declared tag names (``"zh-TW"`` → ``"zh"``, ``"en_US"`` → ``"en"``), or None when
    its first subtag is no language: two letters (ISO 639-1), or three that py3langid's model reads
    (``"yue"``); a ``content-language`` of ``"utf-8"`` or ``"x-default"`` names none."""
    if not value:
        return None
    code = value.strip().replace("_", "-").split("-")[0].lower()
    if _ISO_639_1.fullmatch(code) or (len(code) == 3 and code in _identifier().nb_classes):
        return code
    return None


_LANGUAGE_METAS = ("og:locale", "content-language", "language", "dc.language")


def declared_language(root: html.HtmlElement) -> str | None:
    """The language the page declares: ``<html lang>``, else its language ``<meta>`` tags, else
    ``http-equiv="content-language"`` — the first that names a language (see :func:`language_code`)."""
    code = language_code(root.get("lang") or root.get("{http://www.w3.org/XML/1998/namespace}lang"))
    if code is None:
        code = language_code(meta_content(root, *_LANGUAGE_METAS))
    if code is None:
        for meta in root.iter("meta"):
            if (meta.get("http-equiv") or "").lower() == "content-language":
                code = language_code(meta.get("content"))
                break
    return code
