"""A time budget per record: the extraction of one record that runs past it is abandoned.

Two mechanisms, one contract (:class:`TimeBudget` raises :class:`BudgetExceeded` inside the
guarded block):

- in a process's **main thread** (a plain script, a Spark Python worker): ``SIGALRM`` from
  ``signal.setitimer(ITIMER_REAL)`` — two system calls a record;
- in **any other thread** (Dask runs tasks in its worker's thread pool, where no signal handler
  can run): one watchdog thread per process, which raises the exception in the late thread with
  ``PyThreadState_SetAsyncExc`` — a record costs two attribute writes under a lock.

Both interrupt Python code between bytecodes (in a thread, once the watchdog gets the
interpreter: within ``sys.getswitchinterval()``, 5 ms, of the deadline), the way datatrove's
per-document timeout does; a single C call that never returns to Python (no such call is
known in the extraction, whose scans are linear: tests/test_regex_linear.py) holds its task
until it ends.
"""

from __future__ import annotations

import ctypes
import signal
import threading
import time

REPEAT = 0.05  # seconds between two raises in a thread that is still past its budget


class BudgetExceeded(BaseException):  # noqa: N818 - the name says what happened to the record
    """The guarded block ran past its time budget.  A BaseException, so that the extraction's own
    ``except Exception`` (one page's bug costs one page) does not take it for a library error."""


class _Watchdog(threading.Thread):
    """Raises :class:`BudgetExceeded` in a thread whose current record is past its deadline."""

    def __init__(self):
        super().__init__(name="newscrawl-time-budget", daemon=True)
        self.lock = threading.Lock()
        self.deadlines: dict[int, float] = {}  # thread id -> monotonic deadline of its record
        self.wake = threading.Event()

    def run(self) -> None:
        while True:
            with self.lock:
                now = time.monotonic()
                soonest = None
                for ident, deadline in list(self.deadlines.items()):
                    if deadline <= now:
                        # again every REPEAT seconds until the block exits (disarm), in case code
                        # between the block and the late bytecode swallowed it
                        deadline = self.deadlines[ident] = now + REPEAT
                        ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(ident),
                                                                   ctypes.py_object(BudgetExceeded))
                    if soonest is None or deadline < soonest:
                        soonest = deadline
            self.wake.wait(None if soonest is None else max(0.0005, soonest - time.monotonic()))
            self.wake.clear()

    def arm(self, ident: int, deadline: float) -> None:
        with self.lock:
            self.deadlines[ident] = deadline
        self.wake.set()

    def disarm(self, ident: int) -> None:
        with self.lock:
            self.deadlines.pop(ident, None)
            # an exception set but not yet raised in this thread is withdrawn
            ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(ident), None)


_watchdog: _Watchdog | None = None
_watchdog_lock = threading.Lock()


def _the_watchdog() -> _Watchdog:
    global _watchdog
    with _watchdog_lock:
        if _watchdog is None or not _watchdog.is_alive():
            _watchdog = _Watchdog()
            _watchdog.start()
        return _watchdog


def _on_alarm(signum, frame):
    raise BudgetExceeded


class TimeBudget:
    """``with TimeBudget(seconds): ...`` raises :class:`BudgetExceeded` in the block once it has
    run ``seconds``; ``seconds <= 0`` is no limit.  Reusable, not reentrant."""

    def __init__(self, seconds: float):
        self.seconds = seconds
        self._ident: int | None = None
        self._previous = None

    def __enter__(self) -> TimeBudget:
        if self.seconds <= 0:
            return self
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGALRM, _on_alarm)
            signal.setitimer(signal.ITIMER_REAL, self.seconds)
        else:
            self._ident = threading.get_ident()
            _the_watchdog().arm(self._ident, time.monotonic() + self.seconds)
        return self

    def __exit__(self, *exc_info) -> None:
        if self.seconds <= 0:
            return
        if self._ident is None:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self._previous or signal.SIG_DFL)
        else:
            _the_watchdog().disarm(self._ident)
            self._ident = None
