"""Measure publication-date and author extraction on the shared datasets, with htmldate alongside.

Usage::

    python bench/date_author_accuracy.py [--datasets fundus zh-news ...] [--misses] [--no-baseline]

For every page of a dataset (``../shared/datasets/<name>/pages/<id>.html.gz`` + ``truth.jsonl``)
the page is decoded with ``Page.from_html(bytes, url=truth url)`` and given to
:func:`find_published` / :func:`find_authors` (a list of names).

Date accuracy counts pages whose truth has a date only, and compares at the precision the
truth is written in ("2019-11-19" → the day, "1998-3" → the month, "2018" → the year), taking
the calendar date as written in the truth (its own offset) against ours in the offset we return.
Truth values that are no date ("UNKNOWN", a name) are skipped.

Author scores count pages whose truth has an author.  Both sides are normalised (NFKC,
casefold) and split into word tokens (a run of letters/digits; Han names stay one token), so
"By Jane Doe and John Roe" ≠ but "jane doe, john roe" = "Jane Doe, John Roe".  ``exact`` is
equality of the sorted token lists; ``f1`` is the multiset token-overlap F1, averaged over pages
(0 when we return nothing).  ``fp`` counts pages without a truth author where we returned one
(reported, not scored: the truth may simply not list the author).
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import sys
import unicodedata
import warnings
from collections import Counter
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from newscrawl.extract.errors import ExtractionError  # noqa: E402
from newscrawl.extract.fields.authors import find_authors  # noqa: E402
from newscrawl.extract.fields.dates import day_of, find_published  # noqa: E402
from newscrawl.extract.page import Page  # noqa: E402

DATASETS = ROOT.parent / "shared" / "datasets"
DEFAULT_SETS = ("fundus", "zh-news", "trafilatura", "newspaper4k", "goose3", "gne-zh")
_TRUTH_DATE = re.compile(r"^\s*((?:19|20)\d\d)(?:[-/.](\d{1,2}))?(?:[-/.](\d{1,2}))?(?!\d)")
_TOKEN = re.compile(r"\w+")


def truth_date(value) -> tuple[int, ...] | None:
    """``(year[, month[, day]])`` as written at the start of the truth value, or None."""
    if not isinstance(value, str):
        return None
    m = _TRUTH_DATE.match(value)
    if not m:
        return None
    return tuple(int(g) for g in m.groups() if g)


def date_matches(truth: tuple[int, ...], found: date | None) -> bool:
    if found is None:
        return False
    return (found.year, found.month, found.day)[: len(truth)] == truth


def author_tokens(value: str | list | None) -> list[str]:
    if not value:
        return []
    if isinstance(value, list):
        value = ", ".join(str(v) for v in value)
    return sorted(_TOKEN.findall(unicodedata.normalize("NFKC", value).casefold()))


def token_f1(truth: list[str], found: list[str]) -> float:
    if not truth or not found:
        return 0.0
    common = sum((Counter(truth) & Counter(found)).values())
    if not common:
        return 0.0
    p, r = common / len(found), common / len(truth)
    return 2 * p * r / (p + r)


def htmldate_day(text: str, url: str | None) -> date | None:
    from htmldate import find_date

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            found = find_date(text, url=url, original_date=True, outputformat="%Y-%m-%d")
    except Exception:  # noqa: BLE001 - a baseline failure is a miss, not a crash
        return None
    return date.fromisoformat(found) if found else None


def run(name: str, baseline: bool, misses: bool) -> dict:
    folder = DATASETS / name
    stats = Counter()
    f1_sum = 0.0
    for line in (folder / "truth.jsonl").open(encoding="utf-8"):
        row = json.loads(line)
        path = folder / "pages" / f"{row['id']}.html.gz"
        if not path.exists():
            continue
        data = gzip.decompress(path.read_bytes())
        try:
            page = Page.from_html(data, url=row.get("url"))
        except ExtractionError:
            stats["unreadable"] += 1
            continue
        truth = truth_date(row.get("date"))
        if truth:
            stats["dated"] += 1
            published = find_published(page)
            ok = date_matches(truth, day_of(published) if published else None)
            stats["date_ok"] += ok
            base = htmldate_day(page.text, row.get("url")) if baseline else None
            stats["base_ok"] += date_matches(truth, base)
            if misses and not ok:
                print(f"  DATE {name}/{row['id']} truth={row['date']} ours={published} htmldate={base} "
                      f"{row.get('url')}")
        if row.get("author"):
            stats["authored"] += 1
            found = find_authors(page)
            want, got = author_tokens(row["author"]), author_tokens(found)
            stats["author_exact"] += want == got
            f1 = token_f1(want, got)
            f1_sum += f1
            if misses and want != got:
                print(f"  AUTH {name}/{row['id']} truth={row['author']!r} ours={found!r} f1={f1:.2f}")
        elif find_authors(page):
            stats["author_fp"] += 1
    n_date, n_auth = stats["dated"], stats["authored"]
    return {
        "set": name,
        "dated": n_date,
        "date_acc": stats["date_ok"] / n_date if n_date else None,
        "htmldate_acc": stats["base_ok"] / n_date if (n_date and baseline) else None,
        "authored": n_auth,
        "author_exact": stats["author_exact"] / n_auth if n_auth else None,
        "author_f1": f1_sum / n_auth if n_auth else None,
        "author_fp": stats["author_fp"],
        "unreadable": stats["unreadable"],
    }


def _fmt(value) -> str:
    return "-" if value is None else (f"{value:.3f}" if isinstance(value, float) else str(value))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=list(DEFAULT_SETS))
    parser.add_argument("--misses", action="store_true", help="print every miss")
    parser.add_argument("--no-baseline", action="store_true", help="skip the htmldate baseline")
    args = parser.parse_args(argv)
    if not DATASETS.exists():
        print(f"no datasets at {DATASETS}", file=sys.stderr)
        return 2
    rows = [run(name, not args.no_baseline, args.misses) for name in args.datasets]
    cols = ["set", "dated", "date_acc", "htmldate_acc", "authored", "author_exact", "author_f1", "author_fp"]
    print("| " + " | ".join(cols) + " |")
    print("|" + "---|" * len(cols))
    for row in rows:
        print("| " + " | ".join(_fmt(row[c]) for c in cols) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
