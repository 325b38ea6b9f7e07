"""Score extraction methods on datasets in the uniform layout (no Scrapy imports).

:func:`evaluate` runs one extractor over one dataset and returns a :class:`Result`
holding per-page scores and the dataset figures of :mod:`.metrics`.  Extractors are
callables ``Record -> Prediction``: :func:`library_extractor` wraps
:func:`newscrawl.extract.extract` (one method, optional parameters) and
:func:`baseline_extractor` wraps trafilatura or readability-lxml, fed the text a Scrapy
response would decode.  A page that raises counts as an empty prediction and as an error.

The command line (``scrapy evaluate``, ``python -m newscrawl.evaluation.cli``) is :mod:`.cli`.
"""

from __future__ import annotations

import importlib.util
import json
import logging
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import Any

from . import metrics
from .datasets import TRUTH_FILE, Record, dataset_fields, decode_like_scrapy, load_dataset, read_truth
from .rich import score_rich, summarize_rich

logger = logging.getLogger(__name__)

BASELINES = ("trafilatura", "readability", "newspaper4k", "gne", "goose3")
NOT_GIVEN = ...  # a rich field the extractor does not produce (not scored), as opposed to None (none found)


@dataclass
class Prediction:
    """What an extractor found on one page (any field may be empty)."""

    text: str = ""
    title: str | None = None
    published: datetime | date | str | None = None
    authors: list[str] | str | None = None  # a list of names (the library) or one string (baselines)
    # The rich record (newscrawl.evaluation.rich); None: not produced, so not scored.
    markdown: str | None = None
    images: list[dict] | None = None
    image: Any = NOT_GIVEN
    lead: Any = NOT_GIVEN
    tags: Any = NOT_GIVEN
    description: Any = NOT_GIVEN
    keywords: Any = NOT_GIVEN


Extractor = Callable[[Record], Prediction]


def library_extractor(method: str = "auto", params: Mapping[str, Any] | None = None) -> Extractor:
    """The library's :func:`~newscrawl.extract.extract` with ``method`` and ``params``, on the raw bytes.
    An unknown method or a parameter it does not read is a ``ValueError`` here, not an error
    (or a silent default) on every page."""
    from ..extract import check_method, extract
    from ..extract.method_params import check_params

    check_method(method)
    check_params(method, params or {})

    def run(record: Record) -> Prediction:
        article = extract(record.html, url=record.url, method=method, params=params)
        return Prediction(article.text, article.title, article.published, article.authors,
                          markdown=article.markdown, images=article.images, image=article.image,
                          lead=article.lead, tags=article.tags, description=article.description,
                          keywords=article.keywords)

    return run


def _trafilatura(record: Record) -> Prediction:
    import trafilatura

    logging.getLogger("trafilatura").setLevel(logging.CRITICAL)  # it logs every page it discards

    # trafilatura's own benchmark options (tests/eval_common.py EXTRACT_OPTS); txt body.
    doc = trafilatura.bare_extraction(
        decode_like_scrapy(record.html),
        url=record.url,
        with_metadata=True,
        include_comments=False,
        include_tables=True,
        include_formatting=False,
    )
    if doc is None:
        return Prediction()
    # The rich comparison: trafilatura's Markdown with images, tables and formatting on.
    markdown = trafilatura.extract(
        decode_like_scrapy(record.html), url=record.url, output_format="markdown", include_comments=False,
        include_tables=True, include_images=True, include_formatting=True, include_links=True,
    ) or ""
    from .rich import markdown_images

    return Prediction(doc.text or "", doc.title, doc.date, doc.author, markdown=markdown,
                      images=markdown_images(markdown), image=doc.image, lead=NOT_GIVEN,
                      tags=[*(doc.tags or []), *(doc.categories or [])], description=doc.description,
                      keywords=NOT_GIVEN)


def _readability(record: Record) -> Prediction:
    from lxml import html
    from readability import Document

    from ..extract.dom import render_paragraphs

    logging.getLogger("readability").setLevel(logging.CRITICAL)  # it logs a traceback per failure
    document = Document(decode_like_scrapy(record.html), url=record.url)
    summary = document.summary(html_partial=True)
    text = "\n".join(render_paragraphs(html.fragment_fromstring(summary, create_parent="div")))
    return Prediction(text, document.short_title())


def _newspaper4k(record: Record) -> Prediction:
    from .baselines import newspaper4k

    return Prediction(**newspaper4k(record))


def _gne(record: Record) -> Prediction:
    from .baselines import gne

    return Prediction(**gne(record))


def _goose3(record: Record) -> Prediction:
    from .baselines import goose3

    return Prediction(**goose3(record))


def baseline_extractor(name: str) -> Extractor:
    """``trafilatura`` (2.3.1, metadata on; its Markdown for the rich record), ``readability``
    (readability-lxml 0.9, title only), ``newspaper4k`` (0.9.6), ``gne`` (0.4.3) or ``goose3``
    (3.1.22) (:mod:`.baselines`)."""
    runners = {"trafilatura": _trafilatura, "readability": _readability, "newspaper4k": _newspaper4k,
               "gne": _gne, "goose3": _goose3}
    if name not in runners:
        raise ValueError(f"unknown baseline {name!r}; choose from {', '.join(BASELINES)}")
    module = _BASELINE_MODULES[name]
    if importlib.util.find_spec(module) is None:
        raise ValueError(f"baseline {name!r} needs {module!r}: pip install 'newscrawl[baselines]'")
    return runners[name]


#: The module each baseline imports (lazily, per page), checked once before a run.
_BASELINE_MODULES = {"trafilatura": "trafilatura", "readability": "readability", "newspaper4k": "newspaper",
                     "gne": "gne", "goose3": "goose3"}


@dataclass
class PageScore:
    """One page's scores; ``None`` where the truth has nothing to compare with."""

    id: str
    error: str | None = None
    seconds: float = 0.0
    zyte: tuple[float, float, float] | None = None
    lcs: metrics.PRF | None = None
    title_exact: bool | None = None
    title_char: metrics.PRF | None = None
    date_day: bool | None = None
    author: metrics.PRF | None = None
    snippets: tuple[int, int, int, int] | None = None
    prefix: bool | None = None
    rich: dict = field(default_factory=dict)  # newscrawl.evaluation.rich.score_rich


def score_page(record: Record, prediction: Prediction) -> PageScore:
    """Compare one prediction with the record's truth, on every field the truth has."""
    score = PageScore(record.id)
    if record.has("text"):
        han = (record.lang or "").lower().startswith("zh")
        score.zyte = metrics.shingle_counts(record.get("text"), prediction.text, han_chars=han)
        score.lcs = metrics.lcs_prf(prediction.text, record.get("text"))
    if record.has("title"):
        score.title_exact = metrics.title_exact(prediction.title, record.get("title"))
        score.title_char = metrics.title_char_prf(prediction.title, record.get("title"))
    if record.has("date") and metrics.truth_day(record.get("date")) is not None:
        score.date_day = metrics.date_day_match(prediction.published, record.get("date"))
    if record.has("author"):
        score.author = metrics.author_prf(prediction.authors, record.get("author"))
    if record.has("with") or record.has("without"):
        score.snippets = metrics.snippet_counts(
            prediction.text, record.get("with") or [], record.get("without") or []
        )
    if record.has("text_prefix"):
        score.prefix = metrics.prefix_match(prediction.text, record.get("text_prefix"))
    score.rich = score_rich(record, prediction)
    return score


def _mean(values: Iterable[float]) -> float | None:
    values = list(values)
    return sum(values) / len(values) if values else None


def summarize(pages: list[PageScore]) -> dict[str, float | int | None]:
    """Dataset figures from page scores; a figure is absent when no page's truth has the field."""
    out: dict[str, float | int | None] = {}
    zyte = [p.zyte for p in pages if p.zyte is not None]
    if zyte:
        prf = metrics.aggregate_shingles(zyte)
        lcs = metrics.mean_prf(p.lcs for p in pages if p.lcs is not None)
        out.update(
            n_body=len(zyte),
            body_zyte_p=prf.precision,
            body_zyte_r=prf.recall,
            body_zyte_f1=prf.f1,
            body_lcs_p=lcs.precision,
            body_lcs_r=lcs.recall,
            body_lcs_f1=lcs.f1,
        )
    titles = [p for p in pages if p.title_exact is not None]
    if titles:
        out.update(
            n_title=len(titles),
            title_exact=_mean(float(p.title_exact) for p in titles),
            title_char_f1=_mean(p.title_char.f1 for p in titles),
        )
    dates = [p.date_day for p in pages if p.date_day is not None]
    if dates:
        out.update(n_date=len(dates), date_day=_mean(map(float, dates)))
    authors = [p.author for p in pages if p.author is not None]
    if authors:
        out.update(n_author=len(authors), author_p=_mean(a.precision for a in authors),
                   author_r=_mean(a.recall for a in authors), author_f1=_mean(a.f1 for a in authors))
    snippets = [p.snippets for p in pages if p.snippets is not None]
    if snippets:
        prf, accuracy = metrics.snippet_prf(snippets)
        out.update(
            n_snippet=len(snippets),
            snippet_p=prf.precision,
            snippet_r=prf.recall,
            snippet_f1=prf.f1,
            snippet_acc=accuracy,
        )
    prefixes = [p.prefix for p in pages if p.prefix is not None]
    if prefixes:
        out.update(n_prefix=len(prefixes), prefix_match=_mean(map(float, prefixes)))
    out.update(summarize_rich([p.rich for p in pages]))
    return out


@dataclass
class Result:
    """One extractor on one dataset."""

    dataset: str
    method: str
    params: dict[str, Any] = field(default_factory=dict)
    pages: list[PageScore] = field(default_factory=list)

    @property
    def errors(self) -> int:
        return sum(1 for p in self.pages if p.error)

    @property
    def cpu_seconds(self) -> float:
        return sum(p.seconds for p in self.pages)

    @property
    def pages_per_second(self) -> float | None:
        return len(self.pages) / self.cpu_seconds if self.cpu_seconds else None

    @property
    def figures(self) -> dict[str, float | int | None]:
        return summarize(self.pages)

    def error_reasons(self) -> Counter:
        return Counter(p.error for p in self.pages if p.error)

    def to_dict(self, with_pages: bool = False) -> dict[str, Any]:
        data: dict[str, Any] = {
            "dataset": self.dataset,
            "method": self.method,
            "params": self.params,
            "pages": len(self.pages),
            "errors": self.errors,
            "error_reasons": dict(self.error_reasons()),
            "cpu_seconds": self.cpu_seconds,
            "pages_per_second": self.pages_per_second,
            **self.figures,
        }
        if with_pages:
            data["page_scores"] = [asdict(p) for p in self.pages]
        return data


def _error_label(exc: BaseException) -> str:
    reason = getattr(exc, "reason", None)
    return f"{type(exc).__name__}:{reason}" if reason else type(exc).__name__


def evaluate(
    dataset: str | Path,
    extractor: Extractor,
    method: str,
    *,
    params: Mapping[str, Any] | None = None,
    limit: int | None = None,
    progress: bool | None = None,
    records: list[Record] | None = None,
) -> Result:
    """Run ``extractor`` on every page of ``dataset`` and score it.

    ``records`` reuses pages already loaded (sweeps); ``progress`` shows a tqdm bar on
    stderr (``None``: only on a terminal).  CPU time covers the extraction only, after one
    untimed warm-up run on the first page.
    """
    from tqdm import tqdm

    path = Path(dataset)
    if records is None:
        records = list(load_dataset(path, limit))
    result = Result(path.name, method, dict(params or {}))
    if records:  # pay one-time imports and model loading before the clock runs
        try:
            extractor(records[0])
        except Exception:  # scored (and counted) in the loop below
            pass
    disable = None if progress is None else not progress
    for record in tqdm(records, desc=f"{path.name}/{method}", unit="page", disable=disable, leave=False):
        start = time.process_time()
        error = None
        try:
            prediction = extractor(record)
        except Exception as exc:  # an error is an empty prediction, never the end of the run
            logger.debug("%s/%s: %s failed: %r", path.name, record.id, method, exc)
            prediction, error = Prediction(), _error_label(exc)
        elapsed = time.process_time() - start
        score = score_page(record, prediction)
        score.error, score.seconds = error, elapsed
        result.pages.append(score)
    return result


def _fmt(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


# Column label, figure key; columns whose figure no result has are dropped.
COLUMNS = [
    ("body Zyte P/R/F1", ("body_zyte_p", "body_zyte_r", "body_zyte_f1")),
    ("body LCS P/R/F1", ("body_lcs_p", "body_lcs_r", "body_lcs_f1")),
    ("title exact", ("title_exact",)),
    ("title char F1", ("title_char_f1",)),
    ("date day", ("date_day",)),
    ("author P/R/F1", ("author_p", "author_r", "author_f1")),
    ("snippet P/R/F1", ("snippet_p", "snippet_r", "snippet_f1")),
    ("prefix", ("prefix_match",)),
    ("md body F1", ("md_zyte_f1",)),
    ("subhead R/P", ("subheadings_r", "subheadings_p")),
    ("list item R/P", ("list_items_r", "list_items_p")),
    ("image R/P", ("images_r", "images_p")),
    ("caption F1", ("caption_f1",)),
    ("top image", ("top_image",)),
    ("lead F1", ("lead_f1",)),
    ("tags F1", ("tags_f1",)),
    ("descr F1", ("description_f1",)),
    ("keywords F1", ("keywords_f1",)),
]


def format_table(results: list[Result]) -> str:
    """A plain-text table, one row a method, for results on one dataset."""
    if not results:
        return ""
    figures = [r.figures for r in results]
    columns = [(label, keys) for label, keys in COLUMNS if any(keys[0] in f for f in figures)]
    header = ["method", "pages", *[label for label, _ in columns], "pages/s", "errors"]
    rows = [header]
    for result, fig in zip(results, figures, strict=True):
        name = result.method + "".join(f" {k}={v}" for k, v in result.params.items())
        cells = [name, str(len(result.pages))]
        cells += ["/".join(_fmt(fig.get(k)) for k in keys) for _, keys in columns]
        pps = result.pages_per_second
        cells += [f"{pps:.1f}" if pps else "-", str(result.errors)]
        rows.append(cells)
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)) for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    counts = {k: v for k, v in figures[0].items() if k.startswith("n_")}
    title = (
        f"== {results[0].dataset} ({len(results[0].pages)} pages; "
        + ", ".join(f"{k[2:]}: {v}" for k, v in counts.items())
        + ")"
    )
    return "\n".join([title, *lines])


# The markdown tables: heading, figure key, truth count key, and whether the shipped models
# bear on the figure (they choose body lines only: titles, dates and authors are rules).
MARKDOWN_TABLES = [
    ("Body F1 (Zyte benchmark: token 4-gram shingles)", "body_zyte_f1", "n_body", True),
    ("Title exact", "title_exact", "n_title", False),
    ("Date (day)", "date_day", "n_date", False),
    ("Author F1", "author_f1", "n_author", False),
    ("Body F1 of the Markdown, markup stripped", "md_zyte_f1", "n_body", True),
    ("Subheading recall", "subheadings_r", "n_subheadings", False),
    ("Subheading precision", "subheadings_p", "n_subheadings", False),
    ("List-item recall", "list_items_r", "n_list_items", False),
    ("Image URL recall", "images_r", "n_images", False),
    ("Image URL precision", "images_p", "n_images", False),
    ("Caption F1", "caption_f1", "n_caption_f1", False),
    ("Top image (same file name)", "top_image", "n_top_image", False),
    ("Lead F1", "lead_f1", "n_lead_f1", False),
    ("Tags F1", "tags_f1", "n_tags_f1", False),
    ("Description F1", "description_f1", "n_description_f1", False),
    ("Keywords F1", "keywords_f1", "n_keywords_f1", False),
]
IN_SAMPLE_MARK = "\\*"
# Figures a baseline cannot have: readability-lxml extracts no date and no author.
NOT_EXTRACTED = {"readability": frozenset({"date_day", "author_f1", "md_zyte_f1"}),
                 "newspaper4k": frozenset({"md_zyte_f1", "lead_f1"}), "trafilatura": frozenset({"lead_f1"})}


def _column_name(result: Result) -> str:
    return result.method + "".join(f" {k}={v}" for k, v in result.params.items())


def format_markdown(results: Mapping[str, list[Result]]) -> str:
    """One markdown table per field of :data:`MARKDOWN_TABLES`: a row per dataset whose truth
    has the field, a column per method and baseline (in the order run).  A body figure of
    a learned method on a set its shipped model was trained on is marked in-sample; a field
    the baseline does not extract is ``n/a``, a method not run on the set ``–``."""
    columns = list(dict.fromkeys(_column_name(r) for rs in results.values() for r in rs))
    sections = []
    for heading, key, count, learned in MARKDOWN_TABLES:
        rows = []
        for dataset, dataset_results in results.items():
            by_column = {_column_name(r): r for r in dataset_results}
            figures = {name: r.figures for name, r in by_column.items()}
            if not any(key in f for f in figures.values()):
                continue
            n = next(f[count] for f in figures.values() if count in f)
            cells = []
            for name in columns:
                value = figures.get(name, {}).get(key)
                mark = IN_SAMPLE_MARK if learned and name in by_column and in_sample_note(
                    by_column[name].method, dataset) else ""
                if key in NOT_EXTRACTED.get(name, ()):
                    cells.append("n/a")
                else:
                    cells.append("–" if value is None else f"{value:.3f}{mark}")
            rows.append(f"| {dataset} | {n} | " + " | ".join(cells) + " |")
        if rows:
            sections.append("\n".join([
                f"### {heading}", "",
                "| dataset | pages | " + " | ".join(columns) + " |",
                "|---|---:|" + "---:|" * len(columns),
                *rows,
            ]))  # fmt: skip
    note = (f"{IN_SAMPLE_MARK} in-sample: the method's shipped model was trained on this dataset.")
    return "\n\n".join([*sections, note]) + "\n"


def run_all(
    datasets: list[str | Path],
    methods: list[str],
    baselines: list[str] = (),
    *,
    params: Mapping[str, Any] | None = None,
    limit: int | None = None,
    progress: bool | None = None,
    site_half: str | None = None,
) -> dict[str, list[Result]]:
    """Every method and baseline on every dataset: ``{dataset name: [Result, ...]}``; with
    ``site_half`` (``"A"`` or ``"B"``), only the pages of the sites in that half of the site split
    (:func:`.sites.site_half`), so a rule designed on one half is measured on sites it never saw."""
    out: dict[str, list[Result]] = {}
    for dataset in datasets:
        records = list(load_dataset(dataset, limit))
        if site_half:
            from .sites import in_half

            records = [r for r in records if in_half(r, site_half)]
        results = out.setdefault(Path(dataset).name, [])
        for method in methods:
            results.append(
                evaluate(
                    dataset,
                    library_extractor(method, params),
                    method,
                    params=params,
                    records=records,
                    progress=progress,
                )
            )
        for name in baselines:
            results.append(
                evaluate(dataset, baseline_extractor(name), name, records=records, progress=progress)
            )
    return out


# Truth keys some figure scores: a directory whose truth has none of them (a listing set's
# ``article_urls``) is no evaluation dataset.
SCORED_FIELDS = ("text", "title", "date", "author", "with", "without", "text_prefix")


def discover_datasets(paths: Iterable[str | Path]) -> tuple[list[str], list[tuple[str, str]]]:
    """The dataset directories among ``paths`` and, for every other directory, why it is skipped.

    A dataset holds ``pages/`` and ``truth.jsonl`` whose rows fill at least one field this
    module scores (:data:`SCORED_FIELDS`), so ``scrapy evaluate ../shared/datasets/*`` runs on
    every set and notes the feed and listing folders (and files such as its README).  A path
    that does not exist is an error (:class:`~.datasets.DatasetError`), raised before any work.
    """
    datasets: list[str] = []
    skipped: list[tuple[str, str]] = []
    for path in map(str, paths):
        directory = Path(path)
        if not directory.exists():
            read_truth(directory)  # raises: not a dataset directory
        if not directory.is_dir():
            skipped.append((path, "not a directory"))
            continue
        missing = [name for name in ("pages", TRUTH_FILE) if not (directory / name).exists()]
        if missing:
            skipped.append((path, f"no {' or '.join(missing)} (not in the dataset layout)"))
        elif not dataset_fields(directory) & set(SCORED_FIELDS):
            skipped.append((path, f"its truth fills none of {', '.join(SCORED_FIELDS)}"))
        else:
            datasets.append(path)
    return datasets, skipped


def split_list(value: str | None) -> list[str]:
    return [v.strip() for v in (value or "").split(",") if v.strip()]


def parse_params(pairs: Iterable[str]) -> dict[str, Any]:
    """``["alpha=0.4", "cjk_mode=char"]`` → ``{"alpha": 0.4, "cjk_mode": "char"}``."""
    params: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise ValueError(f"parameter {pair!r} is not KEY=VALUE")
        try:
            params[key.strip()] = json.loads(value)
        except ValueError:
            params[key.strip()] = value
    return params


# --- sweeps (Wang et al. 2020, Fig. 1: alpha; Chen et al. 2012, Fig. 4: T) ---------------------------

SWEEPS: dict[str, tuple[str, list[float]]] = {
    "alpha": ("cevc", [round(0.1 * i, 2) for i in range(1, 10)]),
    "T": ("decay", [round(0.20 + 0.02 * i, 2) for i in range(16)]),
}


def sweep(
    datasets: list[str | Path],
    parameter: str,
    *,
    limit: int | None = None,
    progress: bool | None = None,
    base_params: Mapping[str, Any] | None = None,
) -> dict[str, list[Result]]:
    """Rerun the parameter's method for every value of its grid (:data:`SWEEPS`) on every dataset."""
    if parameter not in SWEEPS:
        raise ValueError(f"unknown sweep {parameter!r}; choose from {', '.join(SWEEPS)}")
    method, values = SWEEPS[parameter]
    out: dict[str, list[Result]] = {}
    for dataset in datasets:
        records = list(load_dataset(dataset, limit))
        results = out.setdefault(Path(dataset).name, [])
        for value in values:
            params = {**(base_params or {}), parameter: value}
            extractor = library_extractor(method, params)
            results.append(
                evaluate(dataset, extractor, method, params=params, records=records, progress=progress)
            )
    return out


PLOT_HINT = "--plot needs matplotlib: pip install 'newscrawl[plot]'"


def check_plotting() -> None:
    """Raise :class:`ValueError` naming the ``plot`` extra when matplotlib cannot be imported."""
    try:
        import matplotlib  # noqa: F401  (the optional extra `plot`)
    except ImportError as exc:
        raise ValueError(PLOT_HINT) from exc


def plot_sweep(results: dict[str, list[Result]], parameter: str, path: str | Path) -> None:
    """P/R/F1 against the swept parameter, one panel a dataset (Zyte solid, Wang et al. (2020) LCS dashed);
    matplotlib comes with the optional extra ``plot``."""
    check_plotting()
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    names = [name for name, rs in results.items() if rs and "body_zyte_f1" in rs[0].figures]
    if not names:
        raise ValueError("no dataset with body truth to plot")
    fig, axes = plt.subplots(1, len(names), figsize=(5 * len(names), 4), squeeze=False)
    for ax, name in zip(axes[0], names, strict=True):
        rs = results[name]
        xs = [r.params[parameter] for r in rs]
        for key, label, color in (
            ("p", "P", "tab:blue"),
            ("r", "R", "tab:orange"),
            ("f1", "F1", "tab:green"),
        ):
            ax.plot(
                xs, [r.figures[f"body_zyte_{key}"] for r in rs], "-o", color=color, label=f"{label} (Zyte)"
            )
            ax.plot(xs, [r.figures[f"body_lcs_{key}"] for r in rs], "--", color=color, label=f"{label} (LCS)")
        ax.set_title(f"{name}: {rs[0].method}, {len(rs[0].pages)} pages")
        ax.set_xlabel(parameter)
        ax.set_ylim(0, 1)
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("score")
    axes[0][-1].legend(loc="lower right", fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


# Methods whose body uses the shipped learned models, and the manifest key of the sets each was fit on.
LEARNED_METHODS = {"auto": "body_sets", "classifier": "body_sets", "template": "body_sets"}


def in_sample_note(method: str, dataset: str) -> str | None:
    """A warning when ``method``'s shipped model was trained on ``dataset``: its figure there
    is in-sample (README, "Learned methods", has the out-of-fold ones)."""
    from ..extract.models import read_manifest

    key = LEARNED_METHODS.get(method)
    if key is None:
        return None
    trained_on = read_manifest().get(key, [])
    name = Path(dataset).name
    if name in trained_on:
        return (f"{method}: the shipped model was trained on {name}, so this figure is in-sample; "
                "--out-of-fold (the default) adds a row scored by models that never saw the page's site")
    if method == "auto":
        from ..extract.methods import article_end

        if name in article_end.trained_on():
            return (f"auto: the shipped article-end model was trained on {name}, so this figure is "
                    "in-sample; python bench/train_article_end.py gives its out-of-fold figures")
    return None
