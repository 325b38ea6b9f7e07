"""The extraction's memory does not grow with the distinct pages a process has seen (issue 27).

A crawl's extraction worker or an archive job's Dask worker maps pages for hours: whatever the
library remembers across pages (module-level dicts, sets, lists, ``functools`` caches) must stay
within a bound that does not depend on the pages.  Distinct synthetic pages (markup, class names,
ids, styles and declared languages new on every page) go through :func:`extract`; the declared
caches must stay within their bounds, and nothing else may keep growing once the first pages
have loaded what a process loads once.  Sizes are entry counts, not resident memory (no
threshold that depends on the machine).
"""

from __future__ import annotations

import importlib
import pkgutil
import string

import stopwordsiso

import newscrawl.extract
from newscrawl.extract import extract, hints, stopwords
from newscrawl.extract.methods import auto, classifier

# Caches keyed by a bounded set whose size is fixed by the library, not by the pages: per
# language with a stop-word list (58, and one for every language without one), per model file.
KEYED_BY_A_FIXED_SET = {
    "newscrawl.extract.stopwords._stopword_list": len(stopwordsiso.langs()) + 1,
    "newscrawl.extract.stopwords._stopword_matcher": 2 * (len(stopwordsiso.langs()) + 2),
    "newscrawl.extract.stopwords.substring_automaton": 2 * (len(stopwordsiso.langs()) + 2),
    "newscrawl.extract.methods.auto_learned._shipped_body_model": 1,
}


def _letters(number: int) -> str:
    """``number`` in base 26 as letters (class tokens with digits are dropped by some caches)."""
    out = ""
    while True:
        number, digit = divmod(number, 26)
        out = string.ascii_lowercase[digit] + out
        if not number:
            return out


def _unlisted_code(number: int) -> str:
    """The ``number``-th two-letter code that has no stop-word list (a page may declare any)."""
    codes = [a + b for a in string.ascii_lowercase for b in string.ascii_lowercase
             if not stopwordsiso.has_lang(a + b)]
    return codes[number % len(codes)]


def _page(number: int) -> str:
    """An article page whose markup is new: 60 elements with class, id and style of their own."""
    tag = _letters(number)
    blocks = "".join(
        f'<div class="box-{tag}{_letters(i)} wrap{tag}" id="n{tag}-{_letters(i)}" '
        f'style="margin:{number}px {i}px"><p>Paragraph {i} of the story, told in words of its own '
        f'for the readers of the council report.</p></div>'
        for i in range(60))
    nav = "".join(f'<li class="item-{tag}{_letters(i)}"><a href="/s/{number}/{i}">Section {i}</a></li>'
                  for i in range(20))
    return (f'<html lang="en"><head><title>Report {number}</title></head><body>'
            f'<ul class="menu-{tag}">{nav}</ul><article class="post-{tag}"><h1>Report {number}</h1>'
            f'{blocks}</article></body></html>')


def _short_page(number: int) -> str:
    """A page too short to identify its language: the declared one (no stop-word list) is used."""
    return (f'<html lang="{_unlisted_code(number)}"><head><title>T{number}</title></head><body>'
            f'<div class="x"><p>Kort {number}.</p></div></body></html>')


def _run(numbers: range) -> None:
    for number in numbers:
        extract(_page(number), f"http://example.com/{number}/story.html", method="auto")
        extract(_short_page(number), f"http://example.com/{number}/short.html", method="auto")


def _modules():
    for info in pkgutil.walk_packages(newscrawl.extract.__path__, "newscrawl.extract."):
        yield importlib.import_module(info.name)


def _sizes() -> dict[str, int]:
    """Entries of every module-level container and ``functools`` cache of the library, and of
    the learned models' feature-column caches."""
    found, seen = {}, set()
    for module in _modules():
        for name, value in vars(module).items():
            key = f"{module.__name__}.{name}"
            if getattr(value, "__module__", module.__name__) != module.__name__ or id(value) in seen:
                continue  # imported from elsewhere: counted where it is defined (or first found)
            seen.add(id(value))
            if hasattr(value, "cache_info"):
                found[key] = value.cache_info().currsize
            elif isinstance(value, (dict, set, list)) and not name.startswith("__"):
                found[key] = len(value)
    for model in _column_caches():
        found[f"{type(model).__name__} columns"] = len(model._columns)
    return found


def _column_caches():
    import gc

    return [o for o in gc.get_objects() if isinstance(o, classifier.LinearFieldModel)]


def _bounds() -> dict[str, int]:
    """The declared bound of each cache that remembers something of every page."""
    bounds = {
        "newscrawl.extract.hints.MARKUPS": hints.MAX_CACHED_MARKUPS,
        "newscrawl.extract.hints._TOKEN_VOTES": hints.MAX_CACHED_MARKUPS,
        "newscrawl.extract.hints._LAST_TOKEN_VOTES": hints.MAX_CACHED_MARKUPS,
        "newscrawl.extract.hints._OLDER_MARKUPS": hints.MAX_CACHED_MARKUPS,
        "newscrawl.extract.hints._OLDER_TOKEN_VOTES": hints.MAX_CACHED_MARKUPS,
        "newscrawl.extract.hints._OLDER_LAST_TOKEN_VOTES": hints.MAX_CACHED_MARKUPS,
        **{f"{type(m).__name__} columns": classifier.MAX_CACHED_COLUMNS for m in _column_caches()},
    }
    for module in _modules():
        for name, value in vars(module).items():
            if hasattr(value, "cache_info") and getattr(value, "__module__", None) == module.__name__:
                key = f"{module.__name__}.{name}"
                maxsize = value.cache_info().maxsize
                bounds[key] = maxsize if maxsize is not None else KEYED_BY_A_FIXED_SET.get(key)
    return bounds


def test_unbounded_caches_are_only_those_keyed_by_a_fixed_set():
    unbounded = [key for key, bound in _bounds().items() if bound is None]
    assert not unbounded, f"functools caches without maxsize, keyed by what pages bring: {unbounded}"


def test_caches_stay_within_their_bounds_and_nothing_else_grows_with_distinct_pages():
    _run(range(0, 60))  # what a process loads once (models, word lists, the union of the stop words)
    first = _sizes()
    _run(range(60, 240))  # 14,400 new markups and 36,000 new class tokens; 180 undeclared languages
    second = _sizes()
    bounds = _bounds()
    assert len(hints.MARKUPS) or len(hints._TOKEN_VOTES)  # the pages did go through the caches
    over = {k: (n, bounds[k]) for k, n in second.items() if bounds.get(k) is not None and n > bounds[k]}
    assert not over, f"caches over their bound (entries, bound): {over}"
    growing = {k: (first.get(k, 0), n) for k, n in second.items()
               if k not in bounds and n > first.get(k, 0)}
    assert not growing, f"module state that grows with the distinct pages seen: {growing}"
    # the bounds were reached, so they were exercised (a cache starts afresh when full)
    assert auto._class_tokens.cache_info().currsize == hints.MAX_CACHED_MARKUPS


def test_every_language_without_a_stop_word_list_shares_one_list_and_one_matcher():
    codes = [_unlisted_code(n) for n in range(40)]
    assert stopwords.stopword_list(codes[0]) is stopwords.stopword_list(codes[1]) is stopwords.stopword_list(None)
    assert stopwords.stopword_matcher(codes[2]) is stopwords.stopword_matcher(codes[3])
    assert stopwords.stopword_matcher("km") is stopwords.stopword_matcher("lo")  # unspaced, no list
    assert stopwords.stopword_matcher("en") is not stopwords.stopword_matcher(codes[4])
    before = stopwords._stopword_list.cache_info().currsize
    for code in codes:
        stopwords.stopword_matcher(code)("the council met")
        stopwords.stopword_list(code)
    assert stopwords._stopword_list.cache_info().currsize <= max(before, 1) + 1


def test_output_does_not_depend_on_the_pages_seen_before():
    page = _page(10_000)
    for cache in (hints.MARKUPS, hints._TOKEN_VOTES, hints._LAST_TOKEN_VOTES, hints._OLDER_MARKUPS,
                  hints._OLDER_TOKEN_VOTES, hints._OLDER_LAST_TOKEN_VOTES):
        cache.clear()
    auto._class_tokens.cache_clear()
    fresh = extract(page, "http://example.com/story.html", method="auto")
    _run(range(240, 400))  # fills the caches past their bounds: they start afresh at least once
    again = extract(page, "http://example.com/story.html", method="auto")
    assert again.text and again == fresh
