"""Every third-party module newscrawl imports comes from a dependency pyproject.toml declares.

`pip install .` installs only what ``[project] dependencies`` names: a module that arrives in the
development environment through some other package (courlan through trafilatura, SciPy through
scikit-learn, Twisted through Scrapy) breaks a clean install the day that package changes, or at
once (``ModuleNotFoundError: courlan``).  The walk reads every module's ``import`` statements
(``ast``), also those inside functions, and maps each top-level name to the distributions that
provide it (``importlib.metadata.packages_distributions()``).
"""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "newscrawl"
# Optional extras: imported only inside the functions that need them (the evaluation baselines),
# or where the module is guarded by its absence (rendering: newscrawl/middlewares/render.py).
EXTRAS_ONLY = {"trafilatura", "readability", "newspaper", "gne", "goose3", "dask", "distributed", "fsspec",
               "matplotlib", "playwright", "scrapy_playwright"}
# Imported only where the usual module is missing: brotlicffi when brotli is not installed (as Scrapy
# does), the standard library's compression.zstd from Python 3.14 (backports.zstd before).
ALTERNATIVES = {"brotlicffi", "compression"}


def _name(requirement: str) -> str:
    """The normalised distribution name of a PEP 508 requirement (PEP 503 normalisation)."""
    name = re.split(r"[\s<>=!~;\[(]", requirement.strip(), maxsplit=1)[0]
    return re.sub(r"[-_.]+", "-", name).lower()


def declared() -> tuple[set[str], set[str]]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    required = {_name(r) for r in project["dependencies"]}
    extras = {_name(r) for reqs in project.get("optional-dependencies", {}).values() for r in reqs}
    return required, extras


def imported_modules() -> dict[str, set[str]]:
    """Top-level module -> the files importing it, for every absolute import in the package."""
    found: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top != "newscrawl" and top not in sys.stdlib_module_names:
                    found.setdefault(top, set()).add(str(path.relative_to(ROOT)))
    return found


def test_every_third_party_import_is_a_declared_dependency():
    required, extras = declared()
    providers = packages_distributions()
    undeclared, unknown = {}, []
    for module, files in sorted(imported_modules().items()):
        dists = {_name(d) for d in providers.get(module, [])}
        if module in ALTERNATIVES:
            continue
        if not dists:
            unknown.append(module)
            continue
        allowed = required | extras if module in EXTRAS_ONLY else required
        if not dists & allowed:
            undeclared[module] = (sorted(dists), sorted(files))
    assert not unknown, f"imported but not installed here (cannot check): {unknown}"
    assert not undeclared, f"imported but not declared in pyproject.toml dependencies: {undeclared}"


def test_the_walk_sees_imports_inside_functions():
    """The walk is not limited to module-level imports (dateutil is imported inside functions)."""
    modules = imported_modules()
    assert "dateutil" in modules and "courlan" in modules and "twisted" in modules


def test_every_pinned_runtime_requirement_is_declared():
    """requirements.txt pins what pyproject.toml declares (the runtime section, before the baselines)."""
    required, _ = declared()
    pinned = set()
    for line in (ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line and not line.startswith("-") and "==" in line:
            pinned.add(_name(line))
    assert required <= pinned, f"declared but not pinned: {sorted(required - pinned)}"
