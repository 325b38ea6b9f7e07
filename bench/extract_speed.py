"""Extraction speed on every dataset: pages per CPU-second and the tail, one process, same pages for all.

Not a test (timings depend on the machine).  By default every dataset under
``../shared/datasets`` with body ground truth (a ``truth.jsonl`` row with ``text``,
``text_prefix`` or ``with``) is read and each page decoded once (as a Scrapy response
would decode it); then, page by page, every extractor runs on the same string and its
CPU time (``time.process_time_ns``, this process) is recorded::

    python bench/extract_speed.py                          # every set, the tables
    python bench/extract_speed.py --sets aeb,zh-news --repeat 5
    python bench/extract_speed.py --methods auto,trafilatura --json out.json
    python bench/extract_speed.py --sets aeb --score       # also auto's body F1 (Zyte)

Extractors (``--methods``; default: ``floor,page,auto,cevc,decay,trafilatura,readability``):

- ``floor`` — lxml parse plus ``text_content()``: the least any extractor can cost;
- ``page`` — :meth:`newscrawl.extract.Page.from_html` alone (parse, clean, JSON-LD);
- ``auto``, ``auto-rules``, ``cevc``, ``decay`` — :func:`newscrawl.extract.extract` end to end
  (title, body, date, author, links, language and the rich record: metadata, images, lead,
  Markdown and HTML) with that body method;
- ``auto:plain`` — ``auto`` without the rich record (``extract(..., rich=False)``);
- ``auto:body``, ``cevc:body``, ``decay:body`` — the parse plus that body method alone;
- ``trafilatura`` (``bare_extraction`` with metadata, the evaluation's options) and
  ``readability`` (readability-lxml ``summary()``), when installed.

Per set and extractor: pages per CPU-second (pages ÷ the sum of the per-page times), mean,
p50, p99 and max ms per page; then auto's pages/CPU-s as a multiple of trafilatura's, and
the CPU time of rendering auto's body as Markdown and HTML (the same pages, after the timed
runs, timed as they are: the median of ``--repeat`` runs) as a share of auto's; auto's ten
slowest pages with where their time went: stage timers (parse, language, title, body rules,
veto with the article-end cut, rendering, dates, authors, description — run in ``extract_page``'s
order, each value computed once as there) and the functions with the most own time under cProfile.

Timing: the extractors take turns on each page (the order rotates from page to page), so a
slow spell of a shared machine falls on all of them alike; with ``--repeat N`` each page is
timed N times per extractor and the median kept.  Objects alive before timing starts are
frozen out of the garbage collector (``gc.freeze``), so a full collection does not charge
the benchmark's own heap to one extractor.  Before timing, dateparser sets up its locales
(:func:`newscrawl.extract.fields.dates.warm_up`, ~1.2 s, which a crawl pays on the first page
that needs it); a page's first run can still include smaller one-off costs, so the slow-page
list re-times the stages warm and shows that total beside the measured one.  Extractors that
share a library share its caches (htmldate serves trafilatura and newscrawl's last-resort date
search): on a page, the first of them to ask pays the misses.  Compare figures of one run only.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import json
import logging
import pstats
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from newscrawl.evaluation.datasets import decode_like_scrapy, load_dataset, read_truth  # noqa: E402
from newscrawl.extract import Page, extract, page_description  # noqa: E402
from newscrawl.extract.collector import collector_paused  # noqa: E402

DATASETS_DIR = ROOT.parent / "shared" / "datasets"
BODY_TRUTH = ("text", "text_prefix", "with")
DEFAULT_METHODS = ("floor", "page", "auto", "cevc", "decay", "trafilatura", "readability")
LIBRARY_METHODS = ("auto", "auto-rules", "cevc", "decay")
BODY_METHODS = {"auto": "auto_learned", "cevc": "cevc", "decay": "decay"}
SLOWEST = 10
TOP_FUNCTIONS = 5

Runner = Callable[[str, str | None], object]


# --- the extractors --------------------------------------------------------------------------


def floor(text: str, url: str | None) -> object:
    from lxml import html

    return html.document_fromstring(text).text_content()


def page_only(text: str, url: str | None) -> object:
    return Page.from_html(text, url=url)


def library(method: str) -> Runner:
    def run(text: str, url: str | None) -> object:
        return extract(text, url=url, method=method)  # what a caller runs: one collector pause a page

    return run


def plain_auto(text: str, url: str | None) -> object:
    """``auto`` without the rich record (``rich=False``): what the rich record costs is auto's minus this."""
    return extract(text, url=url, method="auto", rich=False)


def body_only(method: str) -> Runner:
    """Parse plus the body method alone (its text and links): no title, date or author."""
    import importlib

    extract_body = importlib.import_module(f"newscrawl.extract.methods.{BODY_METHODS[method]}").extract_body

    def run(text: str, url: str | None) -> object:
        page = Page.from_html(text, url=url)
        body = extract_body(page)
        return body.text, body.links(page.base_url)

    return run


def trafilatura_runner() -> Runner | None:
    try:
        import trafilatura
    except ImportError:
        return None
    logging.getLogger("trafilatura").setLevel(logging.CRITICAL)
    logging.getLogger("htmldate").setLevel(logging.CRITICAL)

    def run(text: str, url: str | None) -> object:
        return trafilatura.bare_extraction(text, url=url, with_metadata=True, include_comments=False,
                                           include_tables=True, include_formatting=False)

    return run


def readability_runner() -> Runner | None:
    try:
        from readability import Document
    except ImportError:
        return None
    logging.getLogger("readability").setLevel(logging.CRITICAL)

    def run(text: str, url: str | None) -> object:
        return Document(text, url=url).summary(html_partial=True)

    return run


def runners() -> dict[str, Runner]:
    found: dict[str, Runner] = {"floor": floor, "page": page_only}
    found.update({m: library(m) for m in LIBRARY_METHODS})
    found["auto:plain"] = plain_auto
    found.update({f"{m}:body": body_only(m) for m in BODY_METHODS})
    for name, make in (("trafilatura", trafilatura_runner), ("readability", readability_runner)):
        runner = make()
        if runner is not None:
            found[name] = runner
    return found


# --- datasets ----------------------------------------------------------------------------------


def has_body_truth(dataset: Path) -> bool:
    try:
        rows = read_truth(dataset)
    except ValueError:
        return False
    return any(row.get(key) for row in rows for key in BODY_TRUTH)


def default_datasets(directory: Path = DATASETS_DIR) -> list[Path]:
    """Every dataset under ``directory`` with body ground truth, by name."""
    if not directory.is_dir():
        return []
    return [d for d in sorted(directory.iterdir()) if d.is_dir() and has_body_truth(d)]


# --- timing ------------------------------------------------------------------------------------


def cpu_ms(run: Runner, text: str, url: str | None) -> tuple[float, bool]:
    """CPU milliseconds of one call, and whether it raised (a failing page costs what it cost)."""
    started = time.process_time_ns()
    try:
        run(text, url)
        failed = False
    except Exception:  # noqa: BLE001
        failed = True
    return (time.process_time_ns() - started) / 1e6, failed


def warm_up(chosen: dict[str, Runner], pages: list[tuple[str, str | None]]) -> None:
    """Imports, models, word lists and caches loaded before anything is timed, dateparser's
    locales included (a crawl sets those up on the first page that needs them)."""
    from newscrawl.extract.fields.dates import warm_up as warm_up_dates

    warm_up_dates()
    for run in chosen.values():
        for text, url in pages[:3]:
            cpu_ms(run, text, url)


def time_pages(
    pages: list[tuple[str, str | None]], chosen: dict[str, Runner], repeat: int
) -> tuple[dict[str, list[float]], dict[str, int]]:
    """Per extractor, the median CPU ms of each page over ``repeat`` runs, and its failures.

    The extractors take turns on each page, starting one further along the list on the
    next page, so that neither a slow spell nor cache warmth favours one of them."""
    names = list(chosen)
    times: dict[str, list[float]] = {name: [] for name in names}
    errors = dict.fromkeys(names, 0)
    # What is alive now (the pages, models, caches) is left out of later collections: a full
    # collection would otherwise charge scanning the benchmark's own heap to whichever
    # extractor happened to trigger it.  Each extractor's own garbage is still collected.
    gc.collect()
    gc.freeze()
    for number, (text, url) in enumerate(pages):
        order = names[number % len(names):] + names[: number % len(names)]
        runs: dict[str, list[float]] = {name: [] for name in names}
        failed: set[str] = set()
        for _ in range(repeat):
            for name in order:
                ms, raised = cpu_ms(chosen[name], text, url)
                runs[name].append(ms)
                if raised:
                    failed.add(name)
        for name in names:
            times[name].append(statistics.median(runs[name]))
            errors[name] += name in failed
    gc.unfreeze()
    return times, errors


def summary(ms: list[float], errors: int) -> dict:
    values = np.asarray(ms)
    total = float(values.sum())
    return {
        "pages": len(ms),
        "errors": errors,
        "cpu_seconds": total / 1000,
        "pages_per_cpu_second": len(ms) / (total / 1000) if total else None,
        "mean_ms": float(values.mean()),
        "p50_ms": float(np.percentile(values, 50)),
        "p99_ms": float(np.percentile(values, 99)),
        "max_ms": float(values.max()),
    }


# --- where the slow pages' time goes ---------------------------------------------------------


@collector_paused
def auto_stages(text: str, url: str | None) -> dict[str, float]:
    """CPU ms of each step of ``extract_page(method="auto")``, in its order (each value that
    several steps share — the language, the title — is computed once, where it is first needed),
    with the garbage collector paused for the page as :func:`~newscrawl.extract.extract` pauses it."""
    from newscrawl.extract.fields.authors import find_authors
    from newscrawl.extract.fields.dates import find_published
    from newscrawl.extract.fields.title import find_title
    from newscrawl.extract.methods import article_end, auto, auto_learned

    stages: dict[str, float] = {}
    clock = time.process_time_ns
    started = last = clock()

    def mark(stage: str) -> None:
        nonlocal last
        now = clock()
        stages[stage] = (now - last) / 1e6
        last = now

    page = Page.from_html(text, url=url)
    mark("parse")
    page.language  # noqa: B018 - the stop words of the rules need it first
    mark("language")
    find_title(page, precise=True)
    mark("title")
    body = auto.extract_body(page)
    mark("body")
    model = auto_learned._shipped_body_model()  # None without the shipped weights
    if model is not None:
        body = auto_learned.peel_edges(page, body, model)
    body = article_end.cut(body)
    mark("veto")
    body.text  # noqa: B018
    body.links(page.base_url)
    mark("render")
    find_published(page)
    mark("dates")
    find_authors(page)
    mark("authors")
    page_description(page)
    mark("descr")
    stages["total"] = (last - started) / 1e6
    return stages


def _function_name(key: tuple) -> str:
    filename, line, name = key
    if filename == "~":
        return name  # a builtin: "{method 'search' of 're.Pattern' objects}"
    module = Path(filename)
    parts = module.parts
    where = "/".join(parts[parts.index("newscrawl"):]) if "newscrawl" in parts else module.name
    return f"{where}:{line}({name})"


def top_functions(run: Runner, text: str, url: str | None, count: int = TOP_FUNCTIONS) -> list[dict]:
    """The functions with the most own time in one profiled run; for a builtin (a regex search,
    an lxml call) also the Python function that spent most of it."""
    profile = cProfile.Profile(time.process_time)
    profile.enable()
    try:
        run(text, url)
    except Exception:  # noqa: BLE001
        pass
    profile.disable()
    stats = pstats.Stats(profile).stats
    total = sum(entry[2] for entry in stats.values()) or 1.0
    ranked = sorted(stats.items(), key=lambda item: item[1][2], reverse=True)[:count]
    out = []
    for key, (_, calls, own, _, callers) in ranked:
        row = {"function": _function_name(key), "calls": calls, "own_share": own / total}
        if key[0] == "~" and callers:
            caller = max(callers.items(), key=lambda item: item[1][2])[0]
            row["caller"] = _function_name(caller)
        out.append(row)
    return out


def slowest_pages(ids, pages, auto_ms: list[float], runner: Runner, count: int = SLOWEST) -> list[dict]:
    order = sorted(range(len(pages)), key=lambda i: auto_ms[i], reverse=True)[:count]
    found = []
    for i in order:
        text, url = pages[i]
        try:
            stages = auto_stages(text, url)
        except Exception as exc:  # noqa: BLE001
            stages = {"error": f"{type(exc).__name__}: {exc}"}
        found.append({"id": ids[i], "url": url, "ms": auto_ms[i], "stages": stages,
                      "top": top_functions(runner, text, url)})
    return found


# --- scores ----------------------------------------------------------------------------------


def auto_accuracy(records) -> float | None:
    """auto's body F1 (Zyte shingles) on these records: the accuracy bar checked in the same run."""
    from newscrawl.evaluation import metrics

    counts = []
    for record in records:
        if not record.has("text"):
            continue
        try:
            text = extract(record.html, url=record.url, method="auto").text
        except Exception:  # noqa: BLE001
            text = ""
        han = (record.lang or "").lower().startswith("zh")
        counts.append(metrics.shingle_counts(record.get("text"), text, han_chars=han))
    return metrics.aggregate_shingles(counts).f1 if counts else None


# --- report ----------------------------------------------------------------------------------


def rendering_ms(pages: list[tuple[str, str | None]], repeat: int = 1) -> list[float]:
    """CPU ms of rendering each page's ``auto`` body as Markdown and HTML (one walk gives both,
    :func:`newscrawl.extract.render.render_body`), the parse and body method run untimed before it.

    Timed as :func:`time_pages` times the extractors, so that the share compares like with like:
    the median of ``repeat`` runs, the heap alive before frozen out of the collector; and the
    garbage of the untimed parse and body method collected before the clock starts (a collection
    it triggers would otherwise be charged to the rendering: up to 4 ms on one page), as is
    ``page.base_url``, which ``extract`` computes for the links before it renders."""
    from newscrawl.extract.methods import auto_learned
    from newscrawl.extract.render import render_body

    out = []
    gc.collect()
    gc.freeze()
    try:
        for text, url in pages:
            try:
                page = Page.from_html(text, url=url)
                body = auto_learned.extract_body(page)
                lines = body.text_paragraphs()
                base = page.base_url
            except Exception:  # noqa: BLE001 - a page auto refuses renders nothing
                out.append(0.0)
                continue
            gc.collect()
            runs = []
            for _ in range(repeat):
                start = time.process_time_ns()
                render_body(body.root, body.skip, lines, base, page.url, page.derived.get("noscript_images"))
                runs.append((time.process_time_ns() - start) / 1e6)
            out.append(statistics.median(runs))
    finally:
        gc.unfreeze()
    return out


def rendering_line(render: list[float], auto: list[float]) -> str:
    share = sum(render) / sum(auto) if sum(auto) else 0.0
    per_page = [r / a for r, a in zip(render, auto, strict=True) if a]
    median = statistics.median(per_page) if per_page else 0.0
    return (f"  rendering Markdown+HTML: {sum(render) / max(1, len(render)):.2f} ms/page, "
            f"{100 * share:.1f}% of auto's CPU (median page {100 * median:.1f}%)")


def ratio(results: dict, name: str = "auto", base: str = "trafilatura") -> float | None:
    mine, theirs = results.get(name, {}), results.get(base, {})
    if mine.get("pages_per_cpu_second") and theirs.get("pages_per_cpu_second"):
        return mine["pages_per_cpu_second"] / theirs["pages_per_cpu_second"]
    return None


def table(name: str, results: dict[str, dict]) -> str:
    pages = next(iter(results.values()))["pages"]
    lines = [f"== {name} ({pages} pages)",
             f"{'extractor':<12} {'pages/CPU-s':>11} {'mean ms':>8} {'p50 ms':>8} {'p99 ms':>8} "
             f"{'max ms':>8} {'vs trafilatura':>14} {'errors':>6}",
             "-" * 82]
    for extractor, r in results.items():
        versus = ratio(results, extractor)
        lines.append(f"{extractor:<12} {r['pages_per_cpu_second'] or 0:>11.1f} {r['mean_ms']:>8.2f} "
                     f"{r['p50_ms']:>8.2f} {r['p99_ms']:>8.2f} {r['max_ms']:>8.1f} "
                     f"{f'{versus:.2f}x' if versus else 'n/a':>14} {r['errors']:>6}")
    return "\n".join(lines)


def slow_table(slow: list[dict]) -> str:
    lines = [f"  {len(slow)} slowest pages of auto (ms; stages re-timed; top own time under cProfile):"]
    for entry in slow:
        stages = entry["stages"]
        shown = " ".join(f"{k}={v:.1f}" for k, v in stages.items() if k != "total" and isinstance(v, float))
        retimed = f"(re-timed {stages['total']:.1f}) " if "total" in stages else ""
        where = shown or stages.get("error", "")
        lines.append(f"  {entry['ms']:8.1f}  {entry['id'][:40]:<28} {retimed}{where}")
        top = ", ".join(
            f"{t['function']}{' <- ' + t['caller'] if 'caller' in t else ''} {100 * t['own_share']:.0f}%"
            for t in entry["top"][:3]
        )
        lines.append(f"            top: {top}")
    return "\n".join(lines)


def overall(report: dict) -> str:
    """One line per set: auto against trafilatura, pages per CPU-second and tails."""
    lines = ["== auto vs trafilatura, every set",
             f"{'set':<15} {'pages':>5} {'auto p/s':>9} {'traf p/s':>9} {'ratio':>6} {'auto p99':>9} "
             f"{'traf p99':>9} {'auto max':>9} {'traf max':>9}",
             "-" * 86]
    for name, entry in report.items():
        results = entry["extractors"]
        a, t = results.get("auto"), results.get("trafilatura")
        if not a or not t:
            continue
        lines.append(f"{name:<15} {a['pages']:>5} {a['pages_per_cpu_second']:>9.1f} "
                     f"{t['pages_per_cpu_second']:>9.1f} {ratio(results) or 0:>5.2f}x {a['p99_ms']:>9.1f} "
                     f"{t['p99_ms']:>9.1f} {a['max_ms']:>9.1f} {t['max_ms']:>9.1f}")
    return "\n".join(lines)


def pooled(report: dict) -> dict[str, dict]:
    """Every set's pages together."""
    names = dict.fromkeys(n for entry in report.values() for n in entry["per_page_ms"])
    out = {}
    for name in names:
        ms = [v for entry in report.values() for v in entry["per_page_ms"].get(name, [])]
        errors = sum(e["extractors"][name]["errors"] for e in report.values() if name in e["extractors"])
        out[name] = summary(ms, errors)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("datasets", nargs="*", type=Path, help="dataset directories (default: see --sets)")
    parser.add_argument("--sets", help="comma-separated dataset names under --datasets-dir "
                        "(default: every one with body ground truth)")
    parser.add_argument("--datasets-dir", type=Path, default=DATASETS_DIR)
    parser.add_argument("--methods", "--only",
                        help=f"comma-separated extractors (default: {','.join(DEFAULT_METHODS)})")
    parser.add_argument("--repeat", type=int, default=1,
                        help="timed runs per page and extractor (median kept)")
    parser.add_argument("--limit", type=int, help="pages per dataset")
    parser.add_argument("--slowest", type=int, default=SLOWEST,
                        help="auto's slowest pages to explain per set (0: none)")
    parser.add_argument("--score", action="store_true", help="also auto's body F1 on each dataset")
    parser.add_argument("--json", type=Path, help="write the figures (and every page's times) here")
    args = parser.parse_args(argv)

    available = runners()
    if args.methods:
        names = [n.strip() for n in args.methods.split(",") if n.strip()]
    else:  # the baselines only when installed
        names = [n for n in DEFAULT_METHODS if n in available]
    unknown = [n for n in names if n not in available]
    if unknown:
        parser.error(f"unknown or unavailable extractor(s): {', '.join(unknown)}")
    chosen = {n: available[n] for n in names}
    if args.datasets:
        datasets = args.datasets
    elif args.sets:
        datasets = [args.datasets_dir / s.strip() for s in args.sets.split(",") if s.strip()]
    else:
        datasets = default_datasets(args.datasets_dir)
    report: dict[str, dict] = {}
    warmed = False
    for dataset in datasets:
        if not dataset.is_dir():
            print(f"skipping {dataset}: not present", file=sys.stderr)
            continue
        records = list(load_dataset(dataset, limit=args.limit))
        ids = [r.id for r in records]
        pages = [(decode_like_scrapy(r.html), r.url) for r in records]
        if not pages:
            continue
        if not warmed:
            warm_up(chosen, pages)
            warmed = True
        times, errors = time_pages(pages, chosen, max(1, args.repeat))
        results = {name: summary(times[name], errors[name]) for name in chosen}
        entry = {"extractors": results, "auto_vs_trafilatura": ratio(results),
                 "per_page_ms": times, "ids": ids}
        print(table(dataset.name, results))
        if "auto" in chosen:
            render = rendering_ms(pages, max(1, args.repeat))
            entry["rendering_ms"] = render
            entry["rendering_share"] = sum(render) / sum(times["auto"]) if sum(times["auto"]) else None
            print(rendering_line(render, times["auto"]))
        if "auto" in chosen and args.slowest:
            entry["slowest_auto"] = slowest_pages(ids, pages, times["auto"], chosen["auto"], args.slowest)
            print(slow_table(entry["slowest_auto"]))
        if args.score:
            entry["auto_body_zyte_f1"] = auto_accuracy(records)
            print(f"auto body F1 (Zyte) on {dataset.name}: {entry['auto_body_zyte_f1']}")
        print(flush=True)
        report[dataset.name] = entry
    if len(report) > 1:
        print(overall(report))
        everything = pooled(report)
        print()
        print(table("all sets", everything))
        if all("rendering_ms" in e for e in report.values()):
            print(rendering_line([v for e in report.values() for v in e["rendering_ms"]],
                                 [v for e in report.values() for v in e["per_page_ms"]["auto"]]))
    if args.json:
        out = dict(report)
        if len(report) > 1:
            out["_all"] = {"extractors": pooled(report)}
        args.json.write_text(json.dumps(out, indent=1), encoding="utf-8")
    return 0 if report else 1


if __name__ == "__main__":
    sys.exit(main())
