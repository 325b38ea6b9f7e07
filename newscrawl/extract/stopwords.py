"""Stop-word matching for Wang et al.'s (2020) valid characters, over the stopwords-iso lists.

Space-separated languages: a text holds a stop word when one of its lower-cased word
tokens is in the list.  Chinese, Japanese and Thai have no spaces between words, so
the text is searched for any stop word as a substring (``cjk_mode="substring"``);
entries made only of punctuation are left out unless ``cjk_mode="substring+punct"``,
because a full stop alone would make almost any text "valid".  The choice is measured
in the README (scrapy evaluate --method cevc on zh-news and gne-zh).  The substring search
is an Aho-Corasick automaton (Aho and Corasick 1975, "Efficient string matching", CACM 18(6)):
time linear in the text whatever the number of stop words, where a regex alternation of
them tries every word starting with the character at each position (19,102 words for the
languages without a list of their own).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from functools import cache

import ahocorasick
import stopwordsiso

UNSEGMENTED = frozenset({"zh", "ja", "th", "lo", "km", "my"})
_WORD_RE = re.compile(r"\w+(?:['’]\w+)*", re.UNICODE)


def _is_punctuation(word: str) -> bool:
    return all(unicodedata.category(ch).startswith(("P", "S", "Z")) for ch in word)


def stopword_list(lang: str | None) -> frozenset[str]:
    """The stopwords-iso list for ``lang``; the union of all lists when it has none."""
    return _stopword_list(lang if lang and stopwordsiso.has_lang(lang) else None)


# Cached per language that has a list (58), and once for all the others: a page may declare any
# two letters as its language, and the union (19,170 words, about 1.8 MB) must not be built again
# for each code a crawl meets.
@cache
def _stopword_list(lang: str | None) -> frozenset[str]:
    if lang:
        return frozenset(w.lower() for w in stopwordsiso.stopwords(lang))
    return frozenset(w.lower() for w in stopwordsiso.stopwords(sorted(stopwordsiso.langs())))


@cache
def substring_automaton(words: frozenset[str]) -> ahocorasick.Automaton:
    """An automaton finding any of ``words`` in a text (``next(automaton.iter(text), None)``)."""
    automaton = ahocorasick.Automaton()
    for word in words:
        automaton.add_word(word, word)
    automaton.make_automaton()
    return automaton


# A language without a list of its own (Burmese, Khmer, Tamil, Georgian, ...) is matched against
# all the lists, which hold none of its words: a text of this many space-separated chunks reads as
# a sentence instead.  Menu items and link labels are a chunk or two; Burmese and Khmer, which
# leave words unspaced, still space their phrases.
SENTENCE_CHUNKS = 5


# What every language without a list of its own is matched as (one matcher for them all).
_UNLISTED, _UNLISTED_UNSEGMENTED = "(unlisted)", "(unlisted, unsegmented)"


def stopword_matcher(lang: str | None, cjk_mode: str = "substring") -> Callable[[str], bool]:
    """A predicate: does this text hold at least one stop word of ``lang``?  For a language
    without a list of its own, also: is it :data:`SENTENCE_CHUNKS` chunks long?"""
    if lang is not None and not stopwordsiso.has_lang(lang):
        lang = _UNLISTED_UNSEGMENTED if lang in UNSEGMENTED else _UNLISTED
    return _stopword_matcher(lang, cjk_mode)


@cache
def _stopword_matcher(lang: str | None, cjk_mode: str) -> Callable[[str], bool]:
    words = stopword_list(lang)
    if lang in UNSEGMENTED or lang == _UNLISTED_UNSEGMENTED:
        keep_punct = cjk_mode == "substring+punct"
        automaton = substring_automaton(frozenset(w for w in words if keep_punct or not _is_punctuation(w)))

        def holds_stopword(text: str) -> bool:
            return next(automaton.iter(text), None) is not None
    else:
        def holds_stopword(text: str) -> bool:
            return not words.isdisjoint(map(str.lower, _WORD_RE.findall(text)))

        holds_stopword.words = words  # the compiled Gain pass tests the words itself (_speedups.pyx)
    if lang is None or stopwordsiso.has_lang(lang):
        return holds_stopword

    def holds_stopword_or_reads_as_sentence(text: str) -> bool:
        return holds_stopword(text) or len(text.split(None, SENTENCE_CHUNKS - 1)) >= SENTENCE_CHUNKS

    return holds_stopword_or_reads_as_sentence
