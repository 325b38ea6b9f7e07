"""Training-time caches must not change what is learned: per-page hashed features equal
hashing all nodes at once, block labels from cached gold counts equal fresh ones, and
:class:`Stats` sums every field."""

from __future__ import annotations

import dataclasses

import numpy as np
from test_classifier import records

from newscrawl.extract.features import Stats
from newscrawl.training import block_samples, block_samples_of, design_matrix, fit_field, prepare_page


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


def test_compacted_page_keeps_its_matrices_and_refuses_other_feature_groups():
    import pytest

    data = prepare_page(records(1)[0], "synthetic")
    full = data.matrix("body").toarray()
    data.compact()
    assert np.array_equal(data.matrix("body").toarray(), full)
    assert all(node.features is None for node in data.nodes) and data.record.html == b""
    with pytest.raises(ValueError, match="compacted"):
        data.matrix("body", (1, 3))


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
