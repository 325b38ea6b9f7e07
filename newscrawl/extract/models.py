"""Save and load the learned models with skops — never with pickle.

A model file is a skops archive of plain data: dicts, lists, numbers, strings and
fitted scikit-learn estimators.  :func:`load` accepts only the types in
:data:`TRUSTED_TYPES`; a file asking for anything else (a tampered or foreign file)
is refused with :class:`UntrustedModelError` before any of it is instantiated.
Each model directory holds ``manifest.json``: data, parameters, library versions and
cross-validation scores (written by :mod:`.training`).
"""

from __future__ import annotations

import json
import os
import zipfile
from functools import lru_cache
from pathlib import Path
from typing import Any

from newscrawl.resources import data_path

SHIPPED_MODEL_DIR = data_path("models")  # data/models; package data when installed
# NEWSCRAWL_MODEL_DIR points the library at models `scrapy train` wrote elsewhere.
MODEL_DIR = Path(os.environ.get("NEWSCRAWL_MODEL_DIR") or SHIPPED_MODEL_DIR)
CLASSIFIER_FILE = "classifier.skops"
BLOCK_SVM_FILE = "block-svm.skops"
LINEAR_FILE = "classifier-linear.npz"
MANIFEST_FILE = "manifest.json"

# Everything a shipped model file may contain besides builtins skops always trusts.
TRUSTED_TYPES = frozenset(
    {
        "builtins.dict",
        "builtins.list",
        "builtins.str",
        "builtins.int",
        "builtins.float",
        "builtins.bool",
        "builtins.NoneType",
        "sklearn.linear_model._stochastic_gradient.SGDClassifier",
        "sklearn.linear_model._sgd_fast.Hinge",
        "sklearn.svm._classes.LinearSVC",
        "sklearn.svm._classes.SVC",
        "sklearn.preprocessing._data.StandardScaler",
        "sklearn.pipeline.Pipeline",
        "numpy.ndarray",
        "numpy.dtype",
        "numpy.float64",
        "numpy.int64",
        "numpy.int32",
        "builtins.tuple",
    }
)


class UntrustedModelError(ValueError):
    """A model file asks for types outside :data:`TRUSTED_TYPES`."""


def dump(obj: Any, path: str | Path) -> None:
    import skops.io as sio  # here, not at the top: loading the linear weights needs no scikit-learn

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    # Hashed coefficient vectors are mostly zeros: deflate keeps the shipped files small.
    sio.dump(obj, path, compression=zipfile.ZIP_DEFLATED, compresslevel=9)


def stored_types(path: str | Path) -> set[str]:
    """Every ``module.Class`` a skops file's schema names (skops' own default trust list
    covers most of scikit-learn; ours is narrower, so the schema is read directly)."""
    try:
        with zipfile.ZipFile(path) as archive:
            schema = json.loads(archive.read("schema.json"))
    except (OSError, KeyError, ValueError, zipfile.BadZipFile) as exc:
        raise UntrustedModelError(f"{path}: not a skops model file ({exc})") from exc
    found: set[str] = set()
    stack = [schema]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if "__class__" in item:
                found.add(f"{item.get('__module__', '')}.{item['__class__']}")
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


def load(path: str | Path) -> Any:
    """Load a skops file, refusing any type not in :data:`TRUSTED_TYPES`."""
    path = Path(path)
    untrusted = sorted(stored_types(path) - TRUSTED_TYPES)
    if untrusted:
        raise UntrustedModelError(f"{path}: refusing untrusted types {', '.join(untrusted)}")
    import skops.io as sio

    return sio.load(path, trusted=sorted(set(sio.get_untrusted_types(file=path)) & TRUSTED_TYPES))


def write_manifest(directory: str | Path, manifest: dict[str, Any]) -> None:
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    (directory / MANIFEST_FILE).write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n")


def read_manifest(directory: str | Path = MODEL_DIR) -> dict[str, Any]:
    path = Path(directory) / MANIFEST_FILE
    return json.loads(path.read_text()) if path.is_file() else {}


def classifier_to_data(model) -> dict[str, Any]:
    """A :class:`~.classifier.ClassifierModel` as plain data skops can store safely."""
    return {
        name: {"svm": fm.svm, "groups": list(fm.groups), "n_features": fm.n_features}
        for name, fm in model.fields.items()
    }


def classifier_from_data(data: dict[str, Any], manifest: dict[str, Any] | None = None):
    from .classifier import ClassifierModel, FieldModel

    fields = {
        name: FieldModel(svm=d["svm"], groups=tuple(d["groups"]), n_features=int(d["n_features"]))
        for name, d in data.items()
    }
    return ClassifierModel(fields=fields, manifest=manifest or {})


@lru_cache(maxsize=4)
def load_classifier(directory: str | Path = MODEL_DIR):
    """The shipped seed-002 classifier (cached per directory)."""
    directory = Path(directory)
    path = directory / CLASSIFIER_FILE
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no classifier model; run `scrapy train`")
    return classifier_from_data(load(path), read_manifest(directory).get("classifier"))


def dump_linear(model, path: str | Path) -> None:
    """The linear field models of a :class:`~.classifier.ClassifierModel` as plain arrays
    (``numpy.savez_compressed``: the non-zero weights, the intercept, the feature groups):
    what ``auto`` scores with at run time, without scikit-learn.  Written by ``scrapy train``
    beside the skops file it is derived from."""
    import numpy as np

    arrays = {}
    for name, fm in model.fields.items():
        coef = np.asarray(fm.svm.coef_, dtype=np.float64).ravel()
        columns = np.flatnonzero(coef)
        arrays[f"{name}.columns"] = columns.astype(np.int32)
        arrays[f"{name}.weights"] = coef[columns]
        arrays[f"{name}.intercept"] = np.asarray(np.ravel(fm.svm.intercept_)[:1], dtype=np.float64)
        arrays[f"{name}.groups"] = np.asarray(fm.groups, dtype=np.int32)
        arrays[f"{name}.n_features"] = np.asarray([fm.n_features], dtype=np.int64)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, **arrays)


@lru_cache(maxsize=4)
def load_linear(directory: str | Path = MODEL_DIR) -> dict[str, Any]:
    """The shipped classifier's field models as :class:`~.classifier.LinearFieldModel` objects
    (numeric arrays only: ``allow_pickle=False``), cached per directory."""
    import numpy as np

    from .classifier import LinearFieldModel

    path = Path(directory) / LINEAR_FILE
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no linear classifier weights; run `scrapy train`")
    with np.load(path, allow_pickle=False) as data:
        names = sorted({key.split(".")[0] for key in data.files})
        fields = {}
        for name in names:
            n_features = int(data[f"{name}.n_features"][0])
            weights = np.zeros(n_features, dtype=np.float64)
            weights[data[f"{name}.columns"]] = data[f"{name}.weights"]
            fields[name] = LinearFieldModel(
                weights=weights,
                intercept=float(data[f"{name}.intercept"][0]),
                groups=tuple(int(g) for g in data[f"{name}.groups"]),
                n_features=n_features,
            )
    return fields


@lru_cache(maxsize=4)
def load_block_svm(directory: str | Path = MODEL_DIR):
    """The shipped seed-004 block SVM (a scikit-learn pipeline: scaler + RBF SVC)."""
    path = Path(directory) / BLOCK_SVM_FILE
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no block SVM model; run `scrapy train`")
    return load(path)
