"""Training-time caches must not change what is learned: per-page hashed features equal
hashing all nodes at once, block labels from cached gold counts equal fresh ones, and
:class:`Stats` sums every field."""

from __future__ import annotations

import dataclasses

import numpy as np
from test_classifier import records

from newscrawl.extract.features import Stats
from newscrawl.training import (
    balanced_block_sample,
    block_samples,
    block_samples_of,
    design_matrix,
    fit_field,
    predict_body,
    prepare_page,
)


def test_stats_add_sums_every_field():
    names = [f.name for f in dataclasses.fields(Stats)]
    a = Stats(**{n: i + 1 for i, n in enumerate(names)})
    a.add(Stats(**{n: 10 * (i + 1) for i, n in enumerate(names)}))
    assert [getattr(a, n) for n in names] == [11 * (i + 1) for i in range(len(names))]


def test_cached_page_matrices_equal_hashing_all_nodes_at_once():
    pages = [prepare_page(r, "synthetic") for r in records(6)]
    for groups in ((1, 2, 3, 4, 5), (1, 3)):
        stacked = np.vstack([p.matrix("body", groups).toarray() for p in pages])
        assert np.array_equal(stacked, design_matrix((p.nodes for p in pages), groups).toarray())
    assert pages[0].matrix("body") is pages[0].matrix("body")  # hashed once
    assert design_matrix([[], []]).shape == (0, pages[0].matrix("body").shape[1])  # a page without nodes
    again = [prepare_page(r, "synthetic") for r in records(6)]  # fixed seed: the same model every run
    assert np.array_equal(fit_field(pages, "body").svm.coef_, fit_field(again, "body").svm.coef_)


def test_block_labels_from_cached_gold_counts_equal_fresh_ones():
    data = prepare_page(records(1)[0], "synthetic")
    assert data.gold_counts is not None
    _, X_cached, y_cached = block_samples(data)
    _, X_fresh, y_fresh = block_samples_of(data.page, data.record.get("text"))
    assert np.array_equal(X_cached, X_fresh) and np.array_equal(y_cached, y_fresh)
    assert y_cached.any() and not y_cached.all()


def _titled(n: int) -> list:
    """Synthetic records with a heading and its true title as well as the body."""
    out = []
    for r in records(n):
        title = f"Headline of story {r.id}"
        html = r.html.replace(b"<div class='story-body'>", f"<div class='story-body'><h1>{title}</h1>".encode())
        out.append(dataclasses.replace(r, html=html, truth={**r.truth, "title": title}))
    return out


def test_compacted_page_keeps_its_matrices_and_refuses_other_feature_groups():
    import pytest

    data = prepare_page(_titled(1)[0], "synthetic")
    full, title = data.matrix("body").toarray(), data.matrix("title").toarray()
    assert data.title_labels is not None and data.title_labels.any()
    data.compact()
    assert np.array_equal(data.matrix("body").toarray(), full)
    assert np.array_equal(data.matrix("title").toarray(), title)  # rows of the body matrix
    assert data.page is None and data.nodes == [] and data.gold_counts is None and data.record.html == b""
    with pytest.raises(ValueError, match="compacted"):
        data.matrix("body", (1, 3))


def test_compacted_pages_train_and_predict_as_the_parsed_ones():
    parsed = [prepare_page(r, "synthetic") for r in _titled(8)]
    compacted = [prepare_page(r, "synthetic") for r in _titled(8)]
    for data in compacted:
        data.compact()
    for field_name in ("body", "title"):
        assert np.array_equal(fit_field(parsed, field_name).svm.coef_, fit_field(compacted, field_name).svm.coef_)
    model = fit_field(parsed, "body")
    texts = [predict_body(p, model) for p in parsed]
    assert all(texts) and texts == [predict_body(p, model) for p in compacted]  # parsed again from the bytes
    fresh = [block_samples(p) for p in parsed]
    kept = [(None, *p.block_sample()) for p in compacted]
    assert compacted[0].page is None  # a prediction does not keep the tree
    for a, b in zip(balanced_block_sample(fresh), balanced_block_sample(kept), strict=True):
        assert np.array_equal(a, b) if isinstance(a, np.ndarray) else a == b
    from sklearn.svm import SVC

    from newscrawl.training import evaluate_block_svm

    X, y, _ = balanced_block_sample(kept)
    svm = SVC(kernel="rbf", class_weight="balanced").fit(X, y)
    assert evaluate_block_svm(svm, parsed) == evaluate_block_svm(svm, compacted)


def test_stacked_rows_equal_scipy_vstack_as_float64():
    from scipy import sparse

    from newscrawl.training import _stack_rows

    pages = [prepare_page(r, "synthetic") for r in _titled(3)]
    for data in pages:
        data.compact()
    parts = [pages[0].matrix("title"), pages[1].matrix("body")[:0], pages[1].matrix("body"), pages[2].matrix("title")]
    mine, theirs = _stack_rows(parts), sparse.vstack(parts, format="csr", dtype=np.float64)
    assert mine.dtype == theirs.dtype == np.float64 and mine.shape == theirs.shape
    for name in ("data", "indices", "indptr"):
        assert np.array_equal(getattr(mine, name), getattr(theirs, name)), name


def _dataset(root, name: str, licence_line: str):
    folder = root / name
    folder.mkdir()
    (folder / "SOURCE.md").write_text(f"# {name}\n\n- Repository: somewhere\n{licence_line}\n", encoding="utf-8")
    return folder


def test_only_permissively_licensed_sets_may_train_shipped_models(tmp_path):
    import pytest

    from newscrawl.training import check_licences, run_training, trainable

    assert trainable(_dataset(tmp_path, "mit", "- License: MIT (LICENSE)."))
    assert trainable(_dataset(tmp_path, "apache", "- Licence: Apache-2.0 (LICENSE.txt)."))
    assert not trainable(_dataset(tmp_path, "gpl", "- License: GPL-3.0 (was MIT before 2021)."))
    assert not trainable(_dataset(tmp_path, "agpl", "- Licence: the data is under **AGPLv3**."))
    assert not trainable(_dataset(tmp_path, "none", "- Terms: ask the author."))
    check_licences(tmp_path, ["mit", "apache"])
    with pytest.raises(ValueError, match="gpl, agpl, none: licence not permissive"):
        check_licences(tmp_path, ["mit", "gpl", "agpl", "none"])
    with pytest.raises(ValueError, match="gpl"):  # refused before any page is read
        run_training(tmp_path, tmp_path / "out", ["gpl"], [], echo=lambda _: None)
    assert not (tmp_path / "out").exists()


def test_cc_by_sets_may_train_and_carry_their_attribution(tmp_path):
    from newscrawl.training import dataset_licence, trainable

    wcxb = _dataset(tmp_path, "wcxb", "Source: github.com/x/benchmark @ c039d5e (Foley 2026), licence CC-BY-4.0 "
                    "(attribution: Murrough Foley). Pages byte-identical (`pages/<id>.html.gz`, the file id).")
    assert trainable(wcxb)
    assert dataset_licence(wcxb) == "CC-BY-4.0 (attribution: Murrough Foley)"
    for terms in ("CC-BY-SA-4.0", "CC-BY-NC-4.0", "CC-BY-ND-4.0"):
        assert not trainable(_dataset(tmp_path, terms, f"- License: {terms} (LICENSE)."))


def test_folds_keep_a_registered_domain_together():
    """Out-of-fold figures mean "a site the model never saw": a subdomain is the same site."""
    from newscrawl.evaluation.datasets import Record
    from newscrawl.training import PageData, group_folds

    urls = [f"https://{host}/story/{i}" for i, host in enumerate(
        ["www.example.com", "blog.example.com", "news.example.com", "example.co.uk", "live.example.co.uk",
         "a.test", "b.test", "c.test", "d.test", "e.test", "f.test", "g.test"])]
    pages = [PageData(Record(str(i), b"", {"url": url}), "set", None, []) for i, url in enumerate(urls)]
    folds = group_folds(pages, 5)
    fold_of = {i: k for k, fold in enumerate(folds) for i in fold}
    assert fold_of[0] == fold_of[1] == fold_of[2]
    assert fold_of[3] == fold_of[4]
    assert len({pages[i].group for i in range(5)}) == 2


def test_train_command_writes_a_new_directory_and_never_over_models(tmp_path):
    import argparse

    import pytest
    from scrapy.exceptions import UsageError

    from newscrawl.commands.train import Command
    from newscrawl.extract.models import MANIFEST_FILE, SHIPPED_MODEL_DIR

    def opts(**kw):
        return argparse.Namespace(**{"out": None, "replace_shipped": False, "allow_copyleft": False, **kw})

    assert Command.output_dir(opts()).name.startswith("models-")
    assert Command.output_dir(opts(replace_shipped=True)) == SHIPPED_MODEL_DIR
    (tmp_path / MANIFEST_FILE).write_text("{}")
    for bad in (opts(out=str(tmp_path)), opts(out=str(SHIPPED_MODEL_DIR)),
                opts(replace_shipped=True, allow_copyleft=True), opts(replace_shipped=True, out="x")):
        with pytest.raises(UsageError):
            Command.output_dir(bad)
