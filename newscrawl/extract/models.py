"""Save and load the learned models with skops — never with pickle.

A model file is a skops archive of plain data: dicts, lists, numbers, strings and
fitted scikit-learn estimators.  :func:`load` accepts only the types in
:data:`TRUSTED_TYPES`; a file asking for anything else (a tampered or foreign file)
is refused with :class:`UntrustedModelError` before any of it is instantiated.

A model that is only numbers (the page-type forest as flat arrays, the link model's weights)
is a plain ``.npz`` file instead (:func:`dump_plain`, :func:`load_plain`): numpy arrays and a
JSON entry, read with ``allow_pickle=False``, with neither scikit-learn nor skops imported
(loading skops and scikit-learn costs 2–5 s of a worker's first page).
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


PLAIN_META = "meta.json"  # the entry of a plain model file that holds its non-array values


def dump_plain(obj: dict[str, Any], path: str | Path) -> None:
    """Save a dict of numpy arrays, JSON values and such dicts (nested keys joined by ``/``) as a
    compressed ``.npz`` file that :func:`load_plain` reads back."""
    import numpy as np

    arrays: dict[str, np.ndarray] = {}
    meta: dict[str, Any] = {}

    def walk(value: dict[str, Any], prefix: str, into: dict[str, Any]) -> None:
        for key, item in value.items():
            if "/" in key or key == PLAIN_META:
                raise ValueError(f"model key {key!r} cannot be stored")
            if isinstance(item, np.ndarray):
                arrays[prefix + key] = item
            elif isinstance(item, dict):
                walk(item, f"{prefix}{key}/", into.setdefault(key, {}))
            else:
                into[key] = item

    walk(obj, "", meta)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    encoded = np.frombuffer(json.dumps(meta, sort_keys=True).encode("utf-8"), dtype=np.uint8)
    with path.open("wb") as out:
        np.savez_compressed(out, **arrays, **{PLAIN_META: encoded})


def load_plain(path: str | Path) -> dict[str, Any]:
    """A model saved by :func:`dump_plain` (no pickled objects are read)."""
    import numpy as np

    with np.load(path, allow_pickle=False) as archive:
        model = json.loads(bytes(archive[PLAIN_META]).decode("utf-8"))
        for name in archive.files:
            if name == PLAIN_META:
                continue
            *parents, key = name.split("/")
            into = model
            for parent in parents:
                into = into.setdefault(parent, {})
            into[key] = archive[name]
    return model


def write_manifest(directory: str | Path, manifest: dict[str, Any]) -> None:
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    (directory / MANIFEST_FILE).write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n")


def read_manifest(directory: str | Path = MODEL_DIR) -> dict[str, Any]:
    path = Path(directory) / MANIFEST_FILE
    return json.loads(path.read_text()) if path.is_file() else {}


@lru_cache(maxsize=4)
def load_block_svm(directory: str | Path = MODEL_DIR):
    """The shipped Yan and Wang (2020) block SVM (a scikit-learn pipeline: scaler + RBF SVC)."""
    path = Path(directory) / BLOCK_SVM_FILE
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no block SVM model; run `scrapy train`")
    return load(path)
