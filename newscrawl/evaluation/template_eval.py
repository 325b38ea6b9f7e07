"""Yan and Wang (2020) §8.1: leaf-tag precision and recall of the template + block-SVM method.

The paper scores denoising per *leaf tag*: a leaf takes the class of the block that
holds it (the SVM classifies blocks), a leaf removed by the template is noise, and

    P = TP / (TP + FP),  R = TP / (TP + FN)

with main text the positive class.  Here a leaf (an element without element children
holding at least one word token) is *main text* when at least
:data:`.training.BODY_SHARE` of its tokens align with the dataset's true body
(the trigram alignment of :mod:`.training`).  Only sets whose truth has the whole
body (``text``) can be scored; pages without it still feed their site's template.

**Sites.**  Templates are per site, so pages are grouped by registered domain
(:func:`site_of`: the record's URL — unwrapping ``web.archive.org`` — else a
``<site>_<n>`` id prefix, else the page's canonical or ``og:url``).  A page with no
site at all is a site of its own (it never gets a template).  Each site's library is
learned from all of its pages first, as the paper builds its library from the
collection before denoising.  With the paper's N1 = 10, a site needs ten pages for
one batch to end; ``n1=0`` makes a site's pages one batch (any site with N2 pages can
then learn).

**SVM.**  By default the block SVM is scored *out of fold*: pages are split into
``k`` site-grouped folds and each fold is classified by an RBF SVC (the shipped
model's C and γ, balanced sample as in :func:`.training.fit_block_svm`) trained on
the other folds, so no site is scored by a model that saw it.  ``model="shipped"``
uses ``data/models/block-svm.skops`` instead (in-sample on the sets it was trained on).

Both rows are reported: template + SVM (the paper's method) and the SVM alone (its
Table 7 comparison).  No Scrapy imports.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..extract.methods.template import N1, N2, SiteTemplates, block_features, blocks_of
from ..extract.page import Page
from ..training import BODY_SHARE, SEED, balanced_block_sample, block_samples_of, gold_tokens_per_element
from . import metrics
from .datasets import Record, load_dataset
from .sites import site_of

logger = logging.getLogger(__name__)



@dataclass
class LeafCounts:
    """TP/FP/FN over leaf tags (main text is the positive class)."""

    tp: int = 0
    fp: int = 0
    fn: int = 0

    def add(self, other: LeafCounts) -> None:
        self.tp, self.fp, self.fn = self.tp + other.tp, self.fp + other.fp, self.fn + other.fn

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 0.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 0.0

    @property
    def f1(self) -> float:
        return metrics.f1_score(self.precision, self.recall)


def gold_leaves(page: Page, gold_text: str) -> list[tuple[Any, bool]]:
    """``(leaf, is_main_text)`` for every leaf element under ``<body>`` with a word token."""
    total, gold = gold_tokens_per_element(page, gold_text)
    return [
        (el, gold[el] / total[el] >= BODY_SHARE)
        for el in page.body.iter()
        if isinstance(el.tag, str) and total.get(el, 0) > 0 and not any(isinstance(c.tag, str) for c in el)
    ]


def leaf_counts(page: Page, leaves: list[tuple[Any, bool]], classify: Callable) -> LeafCounts:
    """Score ``page`` (already template-cleaned, or not): each leaf takes its nearest
    enclosing block's class; a leaf no longer in the tree was removed, hence noise."""
    blocks = blocks_of(page)
    keep = classify(blocks) if blocks else np.zeros(0, dtype=bool)
    kept = {b.element: bool(k) and b.text > 0 for b, k in zip(blocks, keep, strict=True)}
    body = page.body
    counts = LeafCounts()
    for el, is_gold in leaves:
        predicted = False
        if el is body or body in el.iterancestors():  # still in the tree
            for anc in (el, *el.iterancestors()):
                if anc in kept:
                    predicted = kept[anc]
                    break
        counts.tp += predicted and is_gold
        counts.fp += predicted and not is_gold
        counts.fn += is_gold and not predicted
    return counts


@dataclass
class SitePages:
    """One site's pages: all of them teach its template; the labelled ones are scored."""

    name: str
    dataset: str
    records: list[Record] = field(default_factory=list)

    @property
    def labelled(self) -> list[Record]:
        return [r for r in self.records if r.has("text")]


def group_sites(root_dirs: Sequence[str | Path], limit: int | None = None) -> list[SitePages]:
    """Every dataset's pages grouped by :func:`site_of` (site-less pages alone)."""
    sites: dict[tuple[str, str], SitePages] = {}
    for directory in root_dirs:
        dataset = Path(directory).name
        for record in load_dataset(directory, limit):
            try:
                page = Page.from_html(record.html, url=record.url)
            except Exception as exc:  # noqa: BLE001 - an unparseable page is skipped, not fatal
                logger.warning("%s/%s: skipped (%s)", dataset, record.id, exc)
                continue
            name = site_of(record, page) or f"{dataset}:{record.id}"
            sites.setdefault((dataset, name), SitePages(name, dataset)).records.append(record)
    return list(sites.values())


def learn_template(site: SitePages, n1: int = N1, n2: int = N2) -> SiteTemplates:
    """The site's library learned from all its pages in order (``n1=0``: one batch of all)."""
    library = SiteTemplates(n1=n1 or max(1, len(site.records)), n2=n2)
    for record in site.records:
        try:
            library.learn(Page.from_html(record.html, url=record.url).root)
        except Exception as exc:  # noqa: BLE001
            logger.warning("%s/%s: not learned (%s)", site.dataset, record.id, exc)
    return library


def fit_fold_svm(records: list[Record], params: dict[str, Any]):
    """RBF SVC with fixed ``params`` on a balanced block sample of ``records`` (raw pages)."""
    from sklearn.svm import SVC

    def samples(record: Record):
        return block_samples_of(Page.from_html(record.html, url=record.url), record.get("text"))

    X, y, _ = balanced_block_sample(samples(record) for record in records)
    return SVC(kernel="rbf", class_weight="balanced", **params).fit(X, y)


def _fold_of_sites(sites: list[SitePages], k: int) -> dict[int, int]:
    order = sorted(range(len(sites)), key=lambda i: (sites[i].dataset, sites[i].name))
    rng = np.random.default_rng(SEED)
    rng.shuffle(order)
    return {i: pos % k for pos, i in enumerate(order)}


@dataclass
class SiteResult:
    site: str
    dataset: str
    pages: int
    scored: int
    template_entries: int
    leaves_removed: int
    with_template: LeafCounts
    svm_only: LeafCounts


def evaluate_leaf_tags(
    dataset_dirs: Sequence[str | Path],
    n1: int = N1,
    n2: int = N2,
    model: str = "oof",
    k: int = 5,
    limit: int | None = None,
) -> list[SiteResult]:
    """§8.1 per site of ``dataset_dirs``: template + SVM and SVM alone (see the module docstring)."""
    from ..extract.models import load_block_svm, read_manifest

    sites = [s for s in group_sites(dataset_dirs, limit) if s.labelled]
    if not sites:
        raise ValueError("none of the datasets has pages with the whole body text (truth 'text')")
    if model == "shipped":
        shipped = load_block_svm()
        models = dict.fromkeys(range(len(sites)), shipped)
    elif model == "oof":
        params = dict(read_manifest().get("block_svm", {}).get("best_params") or {"C": 100, "gamma": 10})
        fold = _fold_of_sites(sites, k)
        models = {}
        for f in range(k):
            train = [r for i, s in enumerate(sites) if fold[i] != f for r in s.labelled]
            fitted = fit_fold_svm(train, params) if train else None
            models.update({i: fitted for i in range(len(sites)) if fold[i] == f})
    else:
        raise ValueError(f"model must be 'oof' or 'shipped', not {model!r}")
    results = []
    for i, site in enumerate(sites):
        svm = models[i]
        if svm is None:
            continue
        library = learn_template(site, n1, n2)
        result = SiteResult(site.name, site.dataset, len(site.records), len(site.labelled),
                            len(library.template), 0, LeafCounts(), LeafCounts())
        classify = _classifier(svm)
        for record in site.labelled:
            plain = Page.from_html(record.html, url=record.url)
            result.svm_only.add(leaf_counts(plain, gold_leaves(plain, record.get("text")), classify))
            cleaned = Page.from_html(record.html, url=record.url)
            leaves = gold_leaves(cleaned, record.get("text"))
            result.leaves_removed += library.clean(cleaned) if len(library.template) else 0
            result.with_template.add(leaf_counts(cleaned, leaves, classify))
        results.append(result)
    return results


def _classifier(svm) -> Callable:
    return lambda blocks: svm.predict(block_features(blocks)) == 1


def summarize(results: list[SiteResult], min_pages: int = 1) -> dict[str, dict[str, Any]]:
    """Per dataset: pooled leaf counts over its sites with at least ``min_pages`` pages."""
    out: dict[str, dict[str, Any]] = {}
    for r in results:
        if r.pages < min_pages:
            continue
        row = out.setdefault(r.dataset, {"sites": 0, "pages": 0, "scored": 0, "sites_with_template": 0,
                                         "leaves_removed": 0, "with": LeafCounts(), "svm": LeafCounts()})
        row["sites"] += 1
        row["pages"] += r.pages
        row["scored"] += r.scored
        row["sites_with_template"] += r.template_entries > 0
        row["leaves_removed"] += r.leaves_removed
        row["with"].add(r.with_template)
        row["svm"].add(r.svm_only)
    return out


def format_results(results: list[SiteResult], n1: int, n2: int, per_site_min: int = 3) -> str:
    """The §8.1 table per dataset, then per site for sites with ``per_site_min``+ pages."""
    batch = "all of a site's pages" if not n1 else str(n1)
    lines = [f"Yan and Wang (2020) §8.1 leaf-tag P/R (N1 = {batch}, N2 = {n2}); SVM alone for comparison",
             "| dataset | sites | pages (scored) | sites with template | leaves removed by template "
             "| template+SVM P | R | F1 | SVM alone P | R | F1 |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    total = {"with": LeafCounts(), "svm": LeafCounts()}
    for dataset, row in summarize(results).items():
        w, s = row["with"], row["svm"]
        total["with"].add(w)
        total["svm"].add(s)
        lines.append(f"| {dataset} | {row['sites']} | {row['pages']} ({row['scored']}) | "
                     f"{row['sites_with_template']} | {row['leaves_removed']} | {w.precision:.3f} | "
                     f"{w.recall:.3f} | {w.f1:.3f} | {s.precision:.3f} | {s.recall:.3f} | {s.f1:.3f} |")
    w, s = total["with"], total["svm"]
    lines.append(f"| all | | | | | {w.precision:.3f} | {w.recall:.3f} | {w.f1:.3f} | {s.precision:.3f} "
                 f"| {s.recall:.3f} | {s.f1:.3f} |")
    big = [r for r in results if r.pages >= per_site_min]
    if big:
        lines += ["", f"Sites with {per_site_min}+ pages:",
                  "| dataset | site | pages (scored) | template entries | leaves removed "
                  "| template+SVM P | R | SVM alone P | R |",
                  "|---|---|---|---|---|---|---|---|---|"]
        for r in sorted(big, key=lambda r: (r.dataset, -r.pages, r.site)):
            w, s = r.with_template, r.svm_only
            lines.append(f"| {r.dataset} | {r.site} | {r.pages} ({r.scored}) | {r.template_entries} | "
                         f"{r.leaves_removed} | {w.precision:.3f} | {w.recall:.3f} | {s.precision:.3f} "
                         f"| {s.recall:.3f} |")
    return "\n".join(lines)
