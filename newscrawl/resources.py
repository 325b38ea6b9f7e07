"""Where newscrawl's data files are: the sites file, the offline demo and the shipped models.

One resolver for every way the code runs:

- an installed package (``pip install .``, a wheel, a scrapyd egg): the files are package
  data in ``newscrawl/data/``; pyproject.toml maps the checkout's top-level ``data/`` onto
  the package ``newscrawl.data`` when it builds;
- a source checkout, run in place or installed editable (``pip install -e .``): the files
  are the top-level ``data/`` next to the package, as the design card lays it out.

The package is found through :func:`importlib.resources.files`, so a zipped egg (scrapyd
imports deployed eggs from the zip file) works too: its data directory is copied out once
per process into a temporary directory, because the demo server, the sites file's relative
``serve``/``headers`` paths and skops all need real files (``importlib.resources.as_file``
copies a directory only from Python 3.12).
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
from functools import cache
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

PACKAGE = "newscrawl"
DATA = "data"
CHECKOUT_DATA_DIR = Path(__file__).resolve().parent.parent / DATA


@cache
def data_dir() -> Path:
    """The directory holding ``sites.toml``, ``demo/`` and ``models/`` (a real directory)."""
    packaged = resources.files(PACKAGE) / DATA
    if packaged.is_dir():
        return packaged if isinstance(packaged, Path) else _extract(packaged)
    if (CHECKOUT_DATA_DIR / "sites.toml").is_file():  # not any data/ beside an installed package
        return CHECKOUT_DATA_DIR
    raise FileNotFoundError(f"newscrawl's data files are missing: neither the package data {packaged} "
                            f"nor the checkout's {CHECKOUT_DATA_DIR} exists")


def data_path(*parts: str) -> Path:
    """``data_dir() / parts``, e.g. ``data_path("models")``."""
    return data_dir().joinpath(*parts)


def _extract(tree: Traversable) -> Path:
    """Copy ``tree`` (a directory inside a zip file) to a temporary directory removed at exit."""
    target = Path(tempfile.mkdtemp(prefix="newscrawl-data-"))
    atexit.register(shutil.rmtree, target, ignore_errors=True)
    _copy_tree(tree, target)
    return target


def _copy_tree(tree: Traversable, target: Path) -> None:
    for entry in tree.iterdir():
        if entry.is_dir():
            (target / entry.name).mkdir()
            _copy_tree(entry, target / entry.name)
        else:
            (target / entry.name).write_bytes(entry.read_bytes())
