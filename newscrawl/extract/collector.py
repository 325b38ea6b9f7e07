"""One page's extraction runs with Python's cyclic garbage collector paused.

Extracting a page allocates tens of thousands of container objects (lxml's element proxies,
tuples, lists, dicts) and frees all of them by reference counting when the page is done: after
each of the 2,988 dataset pages, ``gc.collect()`` found nothing to collect.  The collector's
passes are triggered by allocation counts all the same, and each traverses every young object:
several passes a page, 5-15 % of ``auto``'s CPU time (docs/performance.md).  Pausing the
collector during a page and letting it run between pages removes that cost and leaves memory as
it was: a page's objects are freed as before, and a cycle, should one arise, is collected by the
first pass after the page.

The pause nests and is shared by threads: the collector is turned off by the first extraction
to start and turned back on by the last one to end, and only if it was on before.
"""

from __future__ import annotations

import functools
import gc
import threading
from collections.abc import Callable
from typing import ParamSpec, TypeVar

_P = ParamSpec("_P")
_R = TypeVar("_R")

_lock = threading.Lock()
_depth = 0  # extractions running now, in any thread
_resume = False  # whether the collector was on when the first of them started


def _pause() -> None:
    global _depth, _resume
    with _lock:
        if _depth == 0:
            _resume = gc.isenabled()
            gc.disable()
        _depth += 1


def _release() -> None:
    global _depth
    with _lock:
        _depth -= 1
        if _depth == 0 and _resume:
            gc.enable()


def collector_paused(function: Callable[_P, _R]) -> Callable[_P, _R]:
    """``function`` run with the cyclic collector paused (see the module's docstring)."""

    @functools.wraps(function)
    def paused(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        _pause()
        try:
            return function(*args, **kwargs)
        finally:
            _release()

    return paused
