"""The extraction quality gate: measured figures must not fall below pinned floors.

``data/quality-floors.json`` names the method it guards and, per dataset directory name,
the floor of each figure (keys of :func:`newscrawl.evaluation.runner.summarize`, e.g.
``body_zyte_f1``, ``title_exact``, ``date_day``)::

    {"method": "auto", "floors": {"aeb": {"body_zyte_f1": 0.90}, "fundus": {...}}}

``scrapy evaluate ../shared/datasets/* --check-floors data/quality-floors.json`` evaluates the
guarded method on every dataset (folders that are none are skipped with a note) and exits 1
naming every figure below its floor.  Datasets with floors that were not given on the
command line are reported as not checked, not as failures.  ``measured`` (optional, not
read by the gate) records the figures the floors were set from.
No Scrapy imports: the gate is plain Python over evaluation results.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


class FloorsError(ValueError):
    """The floors file is missing or malformed."""


@dataclass
class Floors:
    method: str
    floors: dict[str, dict[str, float]] = field(default_factory=dict)


def load_floors(path: str | Path) -> Floors:
    """Read and validate a floors file."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise FloorsError(f"{path}: cannot read floors ({exc})") from exc
    if not isinstance(data, dict) or not isinstance(data.get("floors"), dict):
        raise FloorsError(f'{path}: expected {{"method": ..., "floors": {{dataset: {{figure: floor}}}}}}')
    floors: dict[str, dict[str, float]] = {}
    for dataset, figures in data["floors"].items():
        if not isinstance(figures, dict) or not all(isinstance(v, int | float) for v in figures.values()):
            raise FloorsError(f"{path}: floors of {dataset!r} must map figure names to numbers")
        floors[dataset] = {k: float(v) for k, v in figures.items()}
    return Floors(method=str(data.get("method") or "auto"), floors=floors)


def _figures_of(results: list[Any], method: str) -> dict[str, Any] | None:
    for result in results:
        if result.method == method and not result.params:
            return result.figures
    return None


def check(floors: Floors, results: dict[str, list[Any]]) -> list[str]:
    """Messages for every guarded figure below its floor (empty when the gate passes).

    ``results`` maps a dataset name to its :class:`~newscrawl.evaluation.runner.Result` list.
    A guarded figure that is missing (method not run, field absent) fails too.
    """
    failures = []
    for dataset, dataset_results in results.items():
        wanted = floors.floors.get(dataset)
        if not wanted:
            continue
        figures = _figures_of(dataset_results, floors.method)
        if figures is None:
            failures.append(f"{dataset}: method {floors.method} was not evaluated")
            continue
        for name, floor in sorted(wanted.items()):
            value = figures.get(name)
            if value is None:
                failures.append(f"{dataset}: {floors.method} {name} missing (floor {floor:.3f})")
            elif value < floor:
                failures.append(f"{dataset}: {floors.method} {name} = {value:.3f} < floor {floor:.3f}")
    return failures


def report(floors: Floors, results: dict[str, list[Any]], failures: list[str]) -> list[str]:
    """Human-readable gate outcome lines."""
    lines = [f"quality gate ({floors.method}): " + ("FAILED" if failures else "passed")]
    lines += [f"  below floor: {f}" for f in failures]
    unchecked = sorted(set(floors.floors) - set(results))
    if unchecked:
        lines.append(f"  not checked (dataset not given): {', '.join(unchecked)}")
    return lines
