"""Evaluation measures for extracted articles: pure functions, no I/O.

Body text
    :func:`lcs_prf` — Wang et al. (2020) (CEVC) §3.2: ``P = |LCS(e, g)| / |e|``, ``R = |LCS(e, g)| / |g|``
    over token sequences (words; every Han character is one token).

    :func:`shingle_counts` + :func:`aggregate_shingles` — the Zyte article-extraction-benchmark
    score, as its ``evaluate.py`` computes it: ``\\w+`` tokens, 4-token shingles counted as a
    multiset, per-page tp/fp/fn normalised to sum 1, precision averaged over pages that predicted
    something, recall over pages whose truth is non-empty, F1 of the two averages.  With
    ``han_chars=True`` (Chinese pages) every Han character is its own token.

Title
    :func:`title_char_prf` — He (2019) (5): character-set P/R/F1.
    :func:`title_exact` — same string after NFKC and whitespace collapsing (case-sensitive:
    a wrongly cased title is a different title).

Date, author, snippets
    :func:`date_day_match` — the calendar day written in the truth string against the
    prediction's date in its own UTC offset.
    :func:`author_prf` — name-set P/R/F1 after NFKC + casefold.
    :func:`snippet_counts` — trafilatura's benchmark: a ``with`` snippet found is a true
    positive (else false negative), a ``without`` snippet found is a false positive (else true
    negative); whitespace-normalised substring matching.
    :func:`prefix_match` — the body starts with the truth's ``text_prefix`` (goose3's tests).
"""

from __future__ import annotations

import re
import statistics
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime

from rapidfuzz.distance import LCSseq

from newscrawl.extract.tokens import tokenize

_SPACE_RE = re.compile(r"\s+")


@dataclass(frozen=True)
class PRF:
    """Precision, recall and F1 of one comparison (or an average of many)."""

    precision: float
    recall: float
    f1: float


def f1_score(precision: float, recall: float) -> float:
    """Harmonic mean, 0 when both are 0."""
    return 2 * precision * recall / (precision + recall) if precision + recall else 0.0


def lcs_length(a: Sequence[str], b: Sequence[str]) -> int:
    """Length of the longest common subsequence of two token sequences (rapidfuzz, bit-parallel)."""
    if not a or not b:
        return 0
    ids: dict[str, int] = {}
    a_ids = [ids.setdefault(t, len(ids)) for t in a]
    b_ids = [ids.setdefault(t, len(ids)) for t in b]
    return int(LCSseq.similarity(a_ids, b_ids))


def lcs_prf(extracted: str | None, truth: str | None) -> PRF:
    """Wang et al.'s (2020) P/R/F1: LCS over tokens (words, one token per Han character).

    An empty extraction has precision 0 (nothing correct was extracted); an empty truth
    has recall 1 only when the extraction is empty too.
    """
    e, g = tokenize(extracted), tokenize(truth)
    if not e and not g:
        return PRF(1.0, 1.0, 1.0)
    common = lcs_length(e, g)
    precision = common / len(e) if e else 0.0
    recall = common / len(g) if g else 0.0
    return PRF(precision, recall, f1_score(precision, recall))


# --- Zyte article-extraction-benchmark -------------------------------------------------------


def shingles(text: str | None, n: int, han_chars: bool) -> Counter:
    """The token n-grams of ``text`` and their counts (a text of fewer than ``n`` tokens is one
    shorter shingle)."""
    tokens = tokenize(text, han_chars)
    # Upstream: range(max(1, len - n + 1)), so a text shorter than n tokens is one short shingle.
    return Counter(tuple(tokens[i : i + n]) for i in range(max(1, len(tokens) - n + 1)) if tokens[i : i + n])


def shingle_counts(
    truth: str | None, prediction: str | None, ngram_n: int = 4, han_chars: bool = False
) -> tuple[float, float, float]:
    """One page's (tp, fp, fn) over token n-gram shingles, normalised to sum 1 (all 0 when both empty).

    Counts are multiset overlaps: a shingle seen 3 times in the truth and once in the
    prediction gives tp 1, fn 2.
    """
    true_shingles = shingles(truth, ngram_n, han_chars)
    pred_shingles = shingles(prediction, ngram_n, han_chars)
    tp = sum((true_shingles & pred_shingles).values())
    fp = sum((pred_shingles - true_shingles).values())
    fn = sum((true_shingles - pred_shingles).values())
    total = tp + fp + fn
    if total:
        return tp / total, fp / total, fn / total
    return 0.0, 0.0, 0.0


def _zyte_precision(tp: float, fp: float, fn: float) -> float:
    if fp == fn == 0:
        return 1.0
    if tp == fp == 0:
        return 0.0
    return tp / (tp + fp)


def _zyte_recall(tp: float, fp: float, fn: float) -> float:
    if fp == fn == 0:
        return 1.0
    if tp == fn == 0:
        return 0.0
    return tp / (tp + fn)


def aggregate_shingles(counts: Iterable[tuple[float, float, float]]) -> PRF:
    """Dataset score from per-page (tp, fp, fn), as upstream's ``metrics_from_tp_fp_fns``.

    Precision is averaged over pages with a non-empty prediction (``tp + fp > 0``), so an
    empty prediction costs recall only; recall over pages with a non-empty truth; F1 is the
    harmonic mean of the two averages.  An empty selection averages to 0.
    """
    counts = list(counts)
    precisions = [_zyte_precision(*c) for c in counts if c[0] + c[1] > 0]
    recalls = [_zyte_recall(*c) for c in counts if c[0] + c[2] > 0]
    precision = statistics.mean(precisions) if precisions else 0.0
    recall = statistics.mean(recalls) if recalls else 0.0
    return PRF(precision, recall, f1_score(precision, recall))


def zyte_prf(truth: str | None, prediction: str | None, han_chars: bool = False) -> PRF:
    """The Zyte score of a single page (a one-page :func:`aggregate_shingles`)."""
    return aggregate_shingles([shingle_counts(truth, prediction, han_chars=han_chars)])


def mean_prf(scores: Iterable[PRF]) -> PRF:
    """Macro average: mean precision, mean recall, mean per-page F1 (zeros when empty)."""
    scores = list(scores)
    if not scores:
        return PRF(0.0, 0.0, 0.0)
    return PRF(
        statistics.mean(s.precision for s in scores),
        statistics.mean(s.recall for s in scores),
        statistics.mean(s.f1 for s in scores),
    )


# --- titles ------------------------------------------------------------------------------------


def normalize_title(title: str | None) -> str:
    """NFKC, whitespace runs to one space, stripped."""
    return _SPACE_RE.sub(" ", unicodedata.normalize("NFKC", title or "")).strip()


def title_exact(prediction: str | None, truth: str | None) -> bool:
    """Same title after :func:`normalize_title` (case matters)."""
    return bool(normalize_title(truth)) and normalize_title(prediction) == normalize_title(truth)


def title_char_prf(prediction: str | None, truth: str | None) -> PRF:
    """He's (2019) character-set P/R/F1: ``|Se ∩ Sl| / |Se|`` and ``/ |Sl|``.

    The sets hold the non-space characters of the NFKC-normalised titles; an empty
    prediction scores 0.
    """
    se = set(normalize_title(prediction).replace(" ", ""))
    sl = set(normalize_title(truth).replace(" ", ""))
    if not se or not sl:
        return PRF(0.0, 0.0, 0.0) if se or sl else PRF(1.0, 1.0, 1.0)
    common = len(se & sl)
    precision, recall = common / len(se), common / len(sl)
    return PRF(precision, recall, f1_score(precision, recall))


# --- dates ---------------------------------------------------------------------------------------

_ISO_DAY_RE = re.compile(r"^\s*(\d{4})-(\d{1,2})-(\d{1,2})")


def truth_day(value: str | None) -> date | None:
    """The calendar day written in a truth date string (no timezone conversion), or ``None``.

    ISO-like strings are read by their leading ``YYYY-MM-DD``; anything else
    (``"Sun Nov 23 16:00:00 EDT 2014"``) goes through dateutil.  Strings that name no
    full day (``"1998-3"``, ``"UNKNOWN"``) give ``None`` and are not scored.
    """
    if not value or not value.strip():
        return None
    match = _ISO_DAY_RE.match(value)
    if match:
        try:
            return date(*map(int, match.groups()))
        except ValueError:
            return None
    from dateutil import parser

    # A truth without a day ("1998-3", "2018", a name) has no day to score: parse with two
    # different defaults and give up when they disagree, i.e. a part was filled in.
    try:
        first = parser.parse(value, fuzzy=True, ignoretz=True, default=datetime(2000, 1, 1)).date()
        second = parser.parse(value, fuzzy=True, ignoretz=True, default=datetime(2001, 2, 2)).date()
    except (ValueError, OverflowError):
        return None
    return first if first == second else None


def date_day_match(prediction: datetime | date | str | None, truth: str | None) -> bool:
    """The prediction falls on the truth's calendar day (each read in its own offset)."""
    expected = truth_day(truth)
    if expected is None or prediction is None:
        return False
    if isinstance(prediction, str):
        got = truth_day(prediction)
    elif isinstance(prediction, datetime):
        got = prediction.date()
    else:
        got = prediction
    return got == expected


# --- authors -------------------------------------------------------------------------------------

# A white-space run before a separator is entered only where it starts (linear time, see
# tests/test_regex_linear.py and _SPLIT in authors.py).
_AUTHOR_SPLIT_RE = re.compile(
    r"(?:(?<!\s)\s*+)?(?:[,;/|&、，；]|\band\b|\bund\b|\bet\b|\by\b|\be\b)\s*", re.IGNORECASE
)
_BY_RE = re.compile(r"^\s*+(?:by|von|par|por|di|da)\s+", re.IGNORECASE)


def author_names(value: str | Iterable[str] | None) -> set[str]:
    """Author names as a set, NFKC + casefold, "By " dropped.  A string is split on commas,
    semicolons and "and" (one string may list several people); a list holds one name an item
    (``Article.authors``: "Martin Luther King, Jr." is one person)."""
    if not value:
        return set()
    if isinstance(value, str):
        parts = _AUTHOR_SPLIT_RE.split(unicodedata.normalize("NFKC", value))
    else:
        parts = [unicodedata.normalize("NFKC", v) for v in value if isinstance(v, str)]
    names: set[str] = set()
    for part in parts:
        name = _SPACE_RE.sub(" ", _BY_RE.sub("", part)).strip().casefold()
        if name:
            names.add(name)
    return names


def author_prf(prediction: str | Iterable[str] | None, truth: str | Iterable[str] | None) -> PRF:
    """Name-set P/R/F1 of the predicted authors against the truth's (0 for a missing prediction)."""
    got, want = author_names(prediction), author_names(truth)
    if not got or not want:
        return PRF(0.0, 0.0, 0.0) if got or want else PRF(1.0, 1.0, 1.0)
    common = len(got & want)
    precision, recall = common / len(got), common / len(want)
    return PRF(precision, recall, f1_score(precision, recall))


# --- snippets and prefixes ---------------------------------------------------------------------------


def normalize_space(text: str | None) -> str:
    """Whitespace runs to one space, stripped."""
    return _SPACE_RE.sub(" ", text or "").strip()


def snippet_counts(
    prediction: str | None, with_: Sequence[str], without: Sequence[str]
) -> tuple[int, int, int, int]:
    """trafilatura's per-page (tp, fp, fn, tn) from must-have and must-not-have snippets."""
    text = normalize_space(prediction)
    tp = sum(1 for s in with_ if text and normalize_space(s) in text)
    fp = sum(1 for s in without if text and normalize_space(s) in text)
    return tp, fp, len(with_) - tp, len(without) - fp


def snippet_prf(counts: Iterable[tuple[int, int, int, int]]) -> tuple[PRF, float]:
    """Summed (micro) P/R/F1 and accuracy over pages' :func:`snippet_counts`, as trafilatura reports."""
    tp = fp = fn = tn = 0
    for a, b, c, d in counts:
        tp, fp, fn, tn = tp + a, fp + b, fn + c, tn + d
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    total = tp + fp + fn + tn
    accuracy = (tp + tn) / total if total else 0.0
    return PRF(precision, recall, f1_score(precision, recall)), accuracy


def prefix_match(prediction: str | None, prefix: str | None) -> bool:
    """The body starts with the truth's prefix (whitespace-normalised)."""
    want = normalize_space(prefix)
    return bool(want) and normalize_space(prediction).startswith(want)
