"""Out-of-fold figures of the learned extraction methods, for ``scrapy evaluate`` to print beside
the in-sample ones (no Scrapy imports).

The shipped models (``data/models``: the Kazennikov and Soloviev node classifier and the Yan and
Wang (2020) block SVM) were fitted on the body sets the manifest names (``body_sets``), so a
figure of ``auto``, ``classifier`` or ``template`` on one of those sets is in-sample.  Here each
page of such a set is extracted with a model fitted on the other folds of the same pool, the
folds grouped by site (:func:`newscrawl.training.group_folds`, the folds of ``scrapy train``'s
cross-validation): no page is scored by a model that saw its site.

- ``auto`` and ``classifier``: the body field's linear SVM (:func:`newscrawl.training.fit_field`)
  refitted per fold (``auto`` uses it as the veto on its edge lines, :mod:`..extract.methods.auto_learned`);
  for ``auto`` the article-end model too (:mod:`newscrawl.article_end_training`), fitted on the
  pages of its own training sets whose site is not in the fold, with the shipped model's threshold
  (a fold whose other pages hold headings of one kind only is scored without the cut);
- ``template``: the block SVM refitted per fold with the C and γ the shipped model's grid search
  chose (given in the manifest; the grid search itself is not repeated per fold).

The pool's pages are read from the dataset directories beside the one evaluated.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from pathlib import Path

from sklearn.exceptions import ConvergenceWarning

from .datasets import Record, load_dataset
from .runner import Prediction, Result, in_sample_note, library_extractor, score_page

FOLDS = 5
OOF_SUFFIX = " (out of fold)"
METHODS = ("auto", "classifier", "template")


def _pool(root: Path, names: Iterable[str], limit: int | None):
    """The pool's records and their training data (pages without body labels are left out)."""
    from ..training import prepare_page

    records: list[Record] = []
    pages = []
    for name in names:
        if not (root / name).is_dir():
            continue
        for record in load_dataset(root / name, limit):
            data = prepare_page(record, name)
            if data is not None and data.body_labels is not None:
                records.append(record)
                pages.append(data)
    return records, pages


def _end_pool(root: Path, limit: int | None) -> tuple[list[dict], float] | None:
    """The article-end model's training pages (each with its site and labelled headings) and the
    shipped threshold; None without a shipped model."""
    from ..article_end_training import labelled_page
    from ..extract.methods import article_end

    shipped = article_end.shipped_model()
    if shipped is None:
        return None
    pages = [labelled for name in article_end.trained_on() if (root / name).is_dir()
             for record in load_dataset(root / name, limit) if (labelled := labelled_page(record, name))]
    return pages, float(shipped["threshold"])


def _end_params(end_pool: tuple[list[dict], float] | None, held_sites: set[str]) -> dict:
    """``auto``'s article-end model fitted on the pool's pages of sites not in ``held_sites``."""
    from ..article_end_training import as_model, fit

    if end_pool is None:
        return {}
    pages, threshold = end_pool
    try:
        model = fit([page for page in pages if page["site"] not in held_sites])
    except ValueError:  # headings of one kind only: no model, no cut
        return {"article_end": False}
    return {"article_end_model": as_model(model, threshold)}


def _fold_params(method: str, training: list) -> dict:
    """The ``params`` that make ``method`` use a model fitted on ``training`` only."""
    from ..extract.methods.classifier import ClassifierModel, LinearFieldModel
    from ..training import fit_field

    if method == "template":
        from sklearn.svm import SVC

        from ..extract.models import read_manifest
        from ..training import balanced_block_sample

        best = read_manifest().get("block_svm", {}).get("best_params", {"C": 1, "gamma": 1})
        samples = ((None, *data.block_sample()) for data in training if data.record.has("text"))
        X, y, _ = balanced_block_sample(samples)
        return {"model": SVC(kernel="rbf", class_weight="balanced", **best).fit(X, y)}
    with warnings.catch_warnings():  # a fold's SGD may stop at max_iter, as scrapy train's CV folds do
        warnings.simplefilter("ignore", ConvergenceWarning)
        field = fit_field(training, "body")
    if method == "auto":
        return {"model": LinearFieldModel.from_field_model(field)}
    return {"model": ClassifierModel(fields={"body": field})}


def out_of_fold(results: list[Result], datasets: list[Path], limit: int | None = None,
                folds: int = FOLDS) -> list[Result]:
    """A ``<method> (out of fold)`` result beside each result of ``results`` whose figure is
    in-sample (:func:`.runner.in_sample_note`), on the same pages (less those of a fold whose
    other folds cannot fit a model: its ``pages`` count says so)."""
    from ..extract.models import read_manifest
    from ..training import group_folds

    wanted = [r for r in results if r.method in METHODS and in_sample_note(r.method, r.dataset)]
    if not wanted:
        return []
    root = next(Path(d) for d in datasets if Path(d).name == wanted[0].dataset).parent
    records, pages = _pool(root, read_manifest().get("body_sets", []), limit)
    for data in pages:
        data.compact()
    end_pool = _end_pool(root, limit) if any(r.method == "auto" for r in wanted) else None
    out: list[Result] = []
    for method in dict.fromkeys(r.method for r in wanted):
        ids = {(r.dataset, p.id) for r in wanted if r.method == method for p in r.pages}
        oof: dict[str, Result] = {}
        for fold in group_folds(pages, folds):
            scored = [i for i in fold if (pages[i].dataset, records[i].id) in ids]
            if not scored:
                continue
            held = set(fold)
            try:
                params = _fold_params(method, [p for i, p in enumerate(pages) if i not in held])
            except ValueError:  # too few pages to fit (one class): the fold's pages go unscored
                continue
            if method == "auto":
                params.update(_end_params(end_pool, {pages[i].group for i in fold}))
            extractor = library_extractor(method, params)
            for i in scored:
                try:
                    prediction = extractor(records[i])
                except Exception:  # noqa: BLE001 - scored as an empty prediction, as evaluate() does
                    prediction = Prediction()
                name = pages[i].dataset
                oof.setdefault(name, Result(name, method + OOF_SUFFIX)).pages.append(
                    score_page(records[i], prediction))
        out.extend(oof.values())
    return out
