"""CPU-time measurement for the linear-time checks (issue 11): no wall clock anywhere.

:func:`cpu_ns` times a call in CPU time of the calling thread (``time.thread_time_ns``), which
other processes on a shared machine do not inflate; :func:`cpu_guard` interrupts a block that
runs longer than a CPU-time budget (``SIGVTALRM``; the ``re`` engine and lxml check for signals)
with :class:`TooSlow`, so a catastrophic input fails a test or a fuzz run instead of hanging it.
Used by ``tests/test_regex_linear.py``, ``tests/test_hostile_extract.py`` and ``fuzz/run.py``.
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager


class TooSlow(Exception):
    """A call outlived its CPU-time budget."""


@contextmanager
def cpu_guard(seconds: float) -> Iterator[None]:
    """Raise :class:`TooSlow` in the block after ``seconds`` of the process's CPU time.

    Only the main thread receives signals; elsewhere the block runs unguarded.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum, frame):
        raise TooSlow(f"over {seconds} s of CPU time")

    previous = signal.signal(signal.SIGVTALRM, stop)
    signal.setitimer(signal.ITIMER_VIRTUAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_VIRTUAL, 0)
        signal.signal(signal.SIGVTALRM, previous)


def cpu_ns(call: Callable[[], object], repeats: int = 3, guard_seconds: float | None = None) -> int:
    """Best of ``repeats`` CPU times of ``call()`` in nanoseconds (at least 1); each run under
    :func:`cpu_guard` when ``guard_seconds`` is given."""
    best = None
    for _ in range(repeats):
        if guard_seconds is None:
            start = time.thread_time_ns()
            call()
            elapsed = time.thread_time_ns() - start
        else:
            with cpu_guard(guard_seconds):
                start = time.thread_time_ns()
                call()
                elapsed = time.thread_time_ns() - start
        best = elapsed if best is None else min(best, elapsed)
    return max(best, 1)
