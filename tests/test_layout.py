"""The package layout: no import cycles, and the extraction library stands alone.

Every ``import`` in the package is read from the source (module level and inside functions,
since a lazy import is still a dependency), so the checks hold without importing anything.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE_DIR = Path(__file__).resolve().parent.parent / "newscrawl"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE_DIR.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PACKAGE_DIR.rglob("*.py"))}


def imports_of(name: str, path: Path, known: set[str]) -> set[str]:
    """The modules ``name`` imports: package modules by full name, others by top-level name."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.add(target)
            # ``from package import module`` depends on the module itself
            found.update(f"{target}.{alias.name}" for alias in node.names if f"{target}.{alias.name}" in known)
    out = set()
    for target in found:
        if target.split(".")[0] != "newscrawl":
            out.add(target.split(".")[0])
            continue
        while target and target not in known:  # ``from newscrawl.x import name`` -> newscrawl.x
            target = target.rpartition(".")[0]
        if target and target != name:
            out.add(target)
    return out


def graph() -> dict[str, set[str]]:
    mods = modules()
    known = set(mods)
    return {name: imports_of(name, path, known) for name, path in mods.items()}


@pytest.fixture(scope="module")
def import_graph() -> dict[str, set[str]]:
    """The package's import graph, read from the source once for every test of the module."""
    return graph()


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges.get(v, ()):
            if w not in edges:
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def test_the_checker_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_package_modules_import_no_cycle(import_graph):
    # A package __init__ importing its own submodules is how a package exposes its API; the
    # edge from a submodule back to its package's __init__ is the only one left out.
    edges = {
        name: {t for t in targets if not name.startswith(t + ".")}
        for name, targets in import_graph.items()
    }
    assert cycles(edges) == []


@pytest.mark.parametrize("name", sorted(n for n in modules() if n.startswith("newscrawl.extract")))
def test_extraction_library_stands_alone(name, import_graph):
    """What a crawl runs to extract an article needs neither Scrapy nor the measuring code."""
    forbidden = {"scrapy", "twisted", "scrapy_redis", "newscrawl.evaluation", "newscrawl.training",
                 "newscrawl.pipelines", "newscrawl.spiders", "newscrawl.commands", "trafilatura", "readability"}
    imported = import_graph[name]
    bad = {t for t in imported for f in forbidden if t == f or t.startswith(f + ".")}
    assert not bad, f"{name} imports {sorted(bad)}"


#: Crawl-side modules that hold no Scrapy layer: the spiders, pipelines and commands use them.
SCRAPY_FREE_CRAWL_MODULES = (
    "newscrawl.discovery", "newscrawl.state.seen_store", "newscrawl.state.run_lock",
    "newscrawl.state.redis_client", "newscrawl.state.redis_seen", "newscrawl.state.redis_templates",
    "newscrawl.distributed.claims", "newscrawl.distributed.workers", "newscrawl.distributed.queue_pop",
    "newscrawl.archives.warc_reader", "newscrawl.export.files", "newscrawl.export.schema",
)


@pytest.mark.parametrize("name", sorted(n for n in modules() if n.startswith(SCRAPY_FREE_CRAWL_MODULES)))
def test_crawl_side_libraries_hold_no_scrapy_layer(name, import_graph):
    forbidden = {"scrapy", "twisted", "scrapy_redis", "newscrawl.pipelines", "newscrawl.spiders",
                 "newscrawl.commands"}
    imported = import_graph[name]
    bad = {t for t in imported for f in forbidden if t == f or t.startswith(f + ".")}
    assert not bad, f"{name} imports {sorted(bad)}"
