"""Every regular expression in newscrawl scans in time linear in its input (issue #11).

Python's ``re`` is a backtracking engine: a pattern such as ``\\s*[日号]?[T\\s,]*\\d`` after a
date tries every split of a white-space run between its quantifiers, and ``finditer`` restarts
that at every position, so one crafted page of dates and spaces could stall the crawl.

The test collects every compiled pattern the package holds (module globals and class
attributes, inside tuples, lists and dicts too) and times ``finditer`` (all matches: the
worst case of ``search``, ``sub``, ``split`` and ``findall``) on adversarial inputs:

- the families of the issue: long runs of white space (space, tab, newline, NBSP, ideographic
  space), digits, separators, repeated words, Cyrillic and CJK, dates followed by white space,
  digit/space/separator alternations, and all of them split across element boundaries
  (``"\\n"`` every few characters, as the visible-text walk joins elements);
- inputs built from the pattern itself: strings that match it (a witness per branch), their
  prefixes followed by runs, and their repetitions (an opening tag that never closes).

No wall-clock budget: the checker compares times, measured in the same process moments apart.

1. **Growth**: time on an input of n characters, and of 4n.  Linear work gives 4x,
   n log n about 4.5x, quadratic 16x, cubic 64x.  The bound is 8x, the geometric midpoint of
   4x and 16x: a linear pattern needs a 2x timing spike to fail (and a failure is re-measured
   with more repeats first); a quadratic one passes only while its n² term is at most half its
   linear term at n, which on the inputs built to trigger it it is far from.
2. **Cost**: time on the 4n input at most 2000x that of a trivial pattern (``x``) over the
   same input.  A linear pattern doing a bounded but huge amount of work a character (``\\s{0,5000}x``)
   passes the growth test and fails this one.

Screening all inputs at 1,024 and 4,096 characters (one timing each) picks each pattern's worst
inputs (highest growth, highest cost); those are then measured at 2,048 and 8,192 characters (a
quadratic pattern fails here, quickly) and at 32,768 and 131,072 characters (128 K, and more as
UTF-8 for CJK and Cyrillic inputs).  Each timing is the best of 3 runs in CPU time of this thread
(``time.thread_time_ns``), so other processes on a shared CI machine do not count; a failure is
measured again with 9 runs before it counts.  A scan that outlives ``SCAN_GUARD_SECONDS`` of CPU
time (an exponential pattern) is interrupted with SIGVTALRM and fails.

The same checker runs on the few scans written out in Python because no regex could do them in
linear time (``auto.script_bodies`` and friends, the stop-word automaton), and
``test_the_checker_catches_*`` shows that it fails known catastrophic patterns and scans, so
these tests cannot pass by measuring nothing.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from re import _constants as sre  # the parser's opcodes; stable across 3.11-3.13
from re import _parser as sre_parse
from types import SimpleNamespace

import pytest

import newscrawl
from fuzz.timing import TooSlow, cpu_ns
from newscrawl.extract import dom, hints, stopwords
from newscrawl.extract.fields.pager import may_have_pages
from newscrawl.extract.methods import auto, embedded

PACKAGE_DIR = Path(newscrawl.__file__).parent
GROWTH_BOUND = 8.0  # time(4n) / time(n); see the module docstring
COST_BOUND = 2000.0  # time(pattern) / time(trivial pattern) on the same input
SCREEN_SIZES = (1_024, 4_096)
CONFIRM_SIZES = ((2_048, 8_192), (32_768, 131_072))  # a quadratic pattern fails at the first
REPEATS = 3
RECHECK_REPEATS = 9
SCAN_GUARD_SECONDS = 1.0  # one scan; far over COST_BOUND at these sizes (an exponential pattern)
WORST_BY_GROWTH = 3
WORST_BY_COST = 1
MIN_PATTERNS = 60  # the package holds about 110; fewer than 60 means the collection broke

WHITE = (" ", "\t", "\n", "\xa0", "\u3000", " \t\n\xa0\u3000\r")
UNITS = WHITE + (
    "0", "12 ", "-", "/", ".", ",", ":", "·", "|", "-/.,:·|",
    "By ", "by ", "2026 ", "and ", "A", "a", "Aa ", "A. ", "_", "@", "www.", "http://",
    "1 - ", "1 / 2 ", "1. ", "12:34 ", "1,", "1 1\n", "2026-11-24 ",
    "а", "Ж", "Автор ", "记者", "年", "发布", "日期：", "发自",
    "<", "<p ", "<script>", "\\u003cp ", "\\", "<a ",
)
DATES = ("2026-11-24", "2026年11月24日", "24 ноября 2026", "Nov 24, 2026", "24.11.2026",
         "11/24/2026 10:30", "3. Mai 2024", "By John Smith")
RUN_CHARS = (" ", "\n", "\u3000", "0", "a", "A", ",", "<")
SPOILERS = ("", "!", "\nx")


# --- collecting the package's patterns ---------------------------------------------------------


def package_modules() -> list:
    """Every module of the package but the compiled extension (it compiles no pattern, and does
    not import under NEWSCRAWL_PURE_PYTHON=1)."""
    return [newscrawl] + [importlib.import_module(info.name)
                          for info in pkgutil.walk_packages(newscrawl.__path__, "newscrawl.")
                          if info.name != "newscrawl.extract._speedups"]


def _patterns_in(value, depth: int = 0) -> Iterator[re.Pattern]:
    if isinstance(value, re.Pattern):
        yield value
    elif depth < 3 and isinstance(value, tuple | list | set | frozenset):
        for item in value:
            yield from _patterns_in(item, depth + 1)
    elif depth < 3 and isinstance(value, dict):
        for item in value.values():
            yield from _patterns_in(item, depth + 1)


@cache
def package_patterns() -> dict[str, re.Pattern]:
    """``module.NAME`` (or ``module.Class.NAME``) -> compiled pattern, each pattern once."""
    found: dict[tuple, tuple[str, re.Pattern]] = {}
    for module in package_modules():
        for name, value in vars(module).items():
            holders = [(f"{module.__name__}.{name}", value)]
            if isinstance(value, type) and value.__module__ == module.__name__:
                holders += [(f"{module.__name__}.{name}.{attr}", v) for attr, v in vars(value).items()]
            for where, held in holders:
                for pattern in _patterns_in(held):
                    found.setdefault((pattern.pattern, pattern.flags), (where, pattern))
    return dict(found.values())


# --- adversarial inputs ------------------------------------------------------------------------


def _fill(unit: str, n: int) -> str:
    return (unit * (n // len(unit) + 1))[:n]


def _split(unit: str, n: int) -> str:
    """The unit's run cut into elements: 8 characters, then a line break (an element boundary)."""
    return _fill(_fill(unit, 8) + "\n", n)


def _category_char(category) -> str:
    return {sre.CATEGORY_DIGIT: "1", sre.CATEGORY_SPACE: " ", sre.CATEGORY_WORD: "a",
            sre.CATEGORY_LINEBREAK: "\n"}.get(category, ".")


_CANDIDATES = "a1 A.,-:/<>_\n年记аЖ\u3000\xa0#"


def _in_class(items, ch: str) -> bool:
    negate = False
    hit = False
    for op, arg in items:
        if op is sre.NEGATE:
            negate = True
        elif op is sre.LITERAL:
            hit |= ord(ch) == arg
        elif op is sre.RANGE:
            hit |= arg[0] <= ord(ch) <= arg[1]
        elif op is sre.CATEGORY:
            hit |= bool(re.fullmatch(_CATEGORY_RE[arg], ch))
    return hit != negate


_CATEGORY_RE = {sre.CATEGORY_DIGIT: r"\d", sre.CATEGORY_NOT_DIGIT: r"\D", sre.CATEGORY_SPACE: r"\s",
                sre.CATEGORY_NOT_SPACE: r"\S", sre.CATEGORY_WORD: r"\w", sre.CATEGORY_NOT_WORD: r"\W",
                sre.CATEGORY_LINEBREAK: r"\n", sre.CATEGORY_NOT_LINEBREAK: r"."}


def _witness(tree, branch: int, groups: dict) -> str:
    """A string that (ignoring look-arounds and anchors) matches the parsed pattern, taking
    alternative ``branch`` (modulo their number) at every alternation."""
    out = []
    for op, arg in tree:
        if op is sre.LITERAL:
            out.append(chr(arg))
        elif op is sre.NOT_LITERAL:
            out.append("a" if arg != ord("a") else "b")
        elif op is sre.ANY:
            out.append("a")
        elif op is sre.IN:
            out.append(next((ch for ch in _CANDIDATES if _in_class(arg, ch)), "a"))
        elif op is sre.BRANCH:
            alternatives = arg[1]
            out.append(_witness(alternatives[branch % len(alternatives)], branch, groups))
        elif op is sre.SUBPATTERN:
            text = _witness(arg[3], branch, groups)
            groups[arg[0]] = text
            out.append(text)
        elif op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT):
            low, high, body = arg
            out.append(_witness(body, branch, groups) * min(max(low, 1), high))
        elif op is sre.ATOMIC_GROUP:
            out.append(_witness(arg, branch, groups))
        elif op is sre.GROUPREF:
            out.append(groups.get(arg, ""))
    return "".join(out)


def witnesses(pattern: re.Pattern) -> list[str]:
    """Up to three distinct strings that match (most of) the pattern, one per branch choice."""
    source = pattern.pattern.decode("latin-1") if isinstance(pattern.pattern, bytes) else pattern.pattern
    tree = sre_parse.parse(source, pattern.flags & ~re.UNICODE if isinstance(pattern.pattern, bytes)
                           else pattern.flags)
    found = dict.fromkeys(_witness(tree, branch, {}) for branch in range(3))
    return [w for w in found if w]


def adversarial_inputs(examples: list[str]) -> dict[str, Callable[[int], str]]:
    """Label -> builder of an input of about n characters: the issue's families, and for each
    example (a string the scanner matches) its repetitions and its prefixes followed by runs."""
    builders: dict[str, Callable[[int], str]] = {}
    for unit in UNITS:
        builders[f"run {unit!r}"] = lambda n, u=unit: _fill(u, n)
        builders[f"split {unit!r}"] = lambda n, u=unit: _split(u, n)
    for date in DATES:
        for white in (" ", "\u3000", "\n", " \n", "\xa0\t"):
            builders[f"{date!r} + run {white!r}"] = lambda n, d=date, w=white: d + _fill(w, n)
        builders[f"{date!r} split by spaces"] = lambda n, d=date: _fill(d + " " * 60 + "\n", n)
    for w in examples:
        builders[f"repeat {w!r}"] = lambda n, w=w: _fill(w, n)
        builders[f"split {w!r}"] = lambda n, w=w: _fill(w + "\n", n)
        for cut in sorted({1, len(w) // 2, len(w) - 1, len(w)} - {0}):
            prefix = w[:cut]
            builders[f"repeat {prefix!r}"] = lambda n, p=prefix: _fill(p, n)
            for ch in RUN_CHARS + tuple(dict.fromkeys(w)):
                for end in SPOILERS:  # a match anchored at the end is tried, then fails
                    builders[f"{prefix!r} + run {ch!r} + {end!r}"] = (
                        lambda n, p=prefix, c=ch, e=end: p + _fill(c, n) + e)
    return builders


# --- timing ------------------------------------------------------------------------------------

TRIVIAL = {str: re.compile("x"), bytes: re.compile(b"x")}
Scan = Callable[[str | bytes], object]


def every_match(pattern: re.Pattern) -> Scan:
    """The pattern's scan: all its matches (``finditer``, as ``sub``/``split``/``findall`` do)."""

    def scan(text):
        for _match in pattern.finditer(text):
            pass

    return scan


@dataclass
class Verdict:
    label: str
    growth: float
    cost: float
    cost_bound: float = COST_BOUND

    @property
    def ok(self) -> bool:
        return self.growth <= GROWTH_BOUND and self.cost <= self.cost_bound

    def __str__(self) -> str:
        return f"{self.label}: time(4n)/time(n) = {self.growth:.1f}, {self.cost:.0f}x a trivial scan"


def measure(scan: Scan, build: Callable[[int], str], sizes: tuple[int, int], label: str,
            repeats: int = REPEATS, as_bytes: bool = False, cost_bound: float = COST_BOUND) -> Verdict:
    small, large = (build(n).encode("utf-8") if as_bytes else build(n) for n in sizes)
    small_ns = cpu_ns(lambda: scan(small), repeats, SCAN_GUARD_SECONDS)
    large_ns = cpu_ns(lambda: scan(large), repeats, SCAN_GUARD_SECONDS)
    trivial_ns = cpu_ns(lambda: every_match(TRIVIAL[type(large)])(large), repeats)
    return Verdict(label, large_ns / small_ns, large_ns / trivial_ns, cost_bound)


def confirmed(scan: Scan, build: Callable[[int], str], sizes: tuple[int, int], label: str,
              as_bytes: bool, cost_bound: float = COST_BOUND) -> Verdict:
    verdict = measure(scan, build, sizes, label, REPEATS, as_bytes, cost_bound)
    far_over = verdict.growth > 2 * GROWTH_BOUND or verdict.cost > 2 * cost_bound
    if not verdict.ok and not far_over:  # a noisy neighbour, or the real thing: measure again
        verdict = measure(scan, build, sizes, label, RECHECK_REPEATS, as_bytes, cost_bound)
    return verdict


def check(scan: Scan, builders: dict[str, Callable[[int], str]], as_bytes: bool = False,
          cost_bound: float = COST_BOUND) -> list:
    """What fails on the scan's worst inputs (empty: linear).  A screening result over the
    bounds is confirmed at once (a catastrophic pattern fails in a second); then the inputs
    with the highest growth and cost are measured at every confirmation size."""
    try:
        screened = []
        for label, build in builders.items():
            verdict = measure(scan, build, SCREEN_SIZES, label, 1, as_bytes, cost_bound)
            if not verdict.ok and not (verdict := confirmed(scan, build, CONFIRM_SIZES[0], label, as_bytes,
                                                            cost_bound)).ok:
                return [verdict]
            screened.append(verdict)
        worst = sorted(screened, key=lambda v: v.growth, reverse=True)[:WORST_BY_GROWTH]
        worst += sorted(screened, key=lambda v: v.cost, reverse=True)[:WORST_BY_COST]
        for label in dict.fromkeys(v.label for v in worst):
            for sizes in CONFIRM_SIZES:
                verdict = confirmed(scan, builders[label], sizes, label, as_bytes, cost_bound)
                if not verdict.ok:
                    return [verdict]
    except TooSlow:
        return [f"one scan took over {SCAN_GUARD_SECONDS} s of CPU time (super-linear on some input)"]
    return []


def check_pattern(pattern: re.Pattern) -> list:
    return check(every_match(pattern), adversarial_inputs(witnesses(pattern)), isinstance(pattern.pattern, bytes))


def check_function(function: Callable[[str], object], examples: list[str],
                   cost_bound: float = COST_BOUND) -> list:
    """``cost_bound``: a scan that builds a Python result for every match it finds costs more
    than a regex scan on inputs dense with matches, a constant factor the growth test ignores;
    its patterns are checked on their own against ``COST_BOUND``."""
    return check(function, adversarial_inputs(examples), cost_bound=cost_bound)


# --- tests -------------------------------------------------------------------------------------


def test_the_collection_finds_the_package_patterns():
    patterns = package_patterns()
    assert len(patterns) >= MIN_PATTERNS, sorted(patterns)
    for expected in ("newscrawl.extract.fields.dates._NUMERIC", "newscrawl.extract.fields.authors._BY_LINE",
                     "newscrawl.extract.hints.NEGATIVE", "newscrawl.spiders.feeds._ENTRY_END_RE"):
        assert expected in patterns


_RE_FUNCTIONS = {"compile", "search", "match", "fullmatch", "sub", "subn", "split", "findall", "finditer"}


def _inline_regex_calls(tree: ast.Module) -> Iterator[ast.Call]:
    """``re.<fn>("literal", ...)`` calls anywhere but a module-level ``NAME = re.compile(...)``."""
    module_level = {id(stmt.value) for stmt in tree.body if isinstance(stmt, ast.Assign | ast.AnnAssign)}
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "re"
                and node.func.attr in _RE_FUNCTIONS and node.args
                and not isinstance(node.args[0], ast.Name | ast.Attribute | ast.Subscript)
                and id(node) not in module_level):
            yield node


def test_every_literal_pattern_is_compiled_at_module_level_where_this_test_sees_it():
    inline = [f"{path.relative_to(PACKAGE_DIR.parent)}:{call.lineno}"
              for path in sorted(PACKAGE_DIR.rglob("*.py"))
              for call in _inline_regex_calls(ast.parse(path.read_text(encoding="utf-8")))]
    assert not inline, "compile these patterns into module constants: " + ", ".join(inline)


@pytest.mark.parametrize("name", sorted(package_patterns()))
def test_pattern_scans_in_linear_time(name):
    failures = check_pattern(package_patterns()[name])
    assert not failures, f"{name} ({package_patterns()[name].pattern!r}): " + "; ".join(map(str, failures))


CATASTROPHIC = {
    "exponential: nested quantifiers": r"(\s*,?)*x",
    "quadratic: a run then a missing character": r"\s+x",
    "cubic: two digit runs to the end": r"\d+\s*\d+$",
    "quadratic: white space on both sides of an optional": r"\d\s*[日号]?[T\s,]*\d",
    "polynomial: names split every way": r"^By\s+(?:[A-Z][\w.]+\s*){1,4}$",
    "quadratic: an opening tag that never closes": r"<p>(.*?)</p>",
    "linear but heavy: a bounded run a character": r"\s{0,3000}x",
}


@pytest.mark.parametrize("name", sorted(CATASTROPHIC))
def test_the_checker_catches_a_catastrophic_pattern(name):
    assert check_pattern(re.compile(CATASTROPHIC[name]))


def test_the_checker_catches_a_quadratic_scan():
    lazy_scripts = re.compile(r"<script\b[^>]*>(.*?)</script>", re.IGNORECASE | re.DOTALL)  # what auto had
    assert check_function(lazy_scripts.findall, ["<script>x</script>"])


@pytest.mark.parametrize("source", [r"\s+", r"\d{1,2}[./]\d{1,2}", r"(?:by|von)\s+\w+"])
def test_the_checker_passes_a_linear_pattern(source):
    assert not check_pattern(re.compile(source))


# --- scans written out where a regex could not be linear -----------------------------------------

SCANS = {
    "auto.script_bodies": (auto.script_bodies, ["<script>x</script>", '<script type="a">y</script>']),
    "auto.script_p_contents": (auto.script_p_contents,
                               ["<p>x</p>", '\\u003cp class=\\"a\\"\\u003ey\\u003c\\/p\\u003e', "<p a>b<\\/p>"]),
    "auto.strip_script_tags": (auto.strip_script_tags, ["<b>x</b>", "\\u003cb\\u003ey\\u003c/b\\u003e"]),
    "auto.script_paragraphs": (auto.script_paragraphs, ["<script><p>x</p></script>"]),
    "embedded.blobs": (lambda text: embedded.blobs(SimpleNamespace(text=text)),
                       ['<script id="__NEXT_DATA__">{"a": [1]}</script>', "<script>window.__NUXT__={};</script>",
                        "<script>Fusion.globalContent = [2];x()</script>"]),
    "pager.may_have_pages": (lambda text: may_have_pages(text, "https://a.example/news/doc-ab.shtml"),
                             ["<a href='doc-ab_2.shtml'>2</a>", "doc-ab.shtml?x", "doc-ab-all", "doc-abdoc-ab"]),
    "dom.cut_elements": (lambda t: dom.cut_elements(t, dom.SWALLOWING_TAGS),
                         ["<noscript>x</noscript>", "<NOSCRIPT a>y</noscript >", "<button a>z</button >"]),
    "dom.noscript_contents": (dom.noscript_contents, ["<noscript>x</noscript>", "<noscript a>y</noscript>"]),
    "hints.without_second_copy": (lambda text: hints.without_second_copy(text.split("\n")),
                                  ["x\n", "a line long enough to count as a paragraph of prose " * 3 + "\n"]),
    "stopwords zh": (stopwords.stopword_matcher("zh"), ["由此可", "的"]),
    "stopwords km (all lists)": (stopwords.stopword_matcher("km"), ["由此可", "the"]),
}


@pytest.mark.parametrize("name", sorted(SCANS))
def test_scan_runs_in_linear_time(name):
    function, examples = SCANS[name]
    failures = check_function(function, examples)
    assert not failures, f"{name}: " + "; ".join(map(str, failures))
