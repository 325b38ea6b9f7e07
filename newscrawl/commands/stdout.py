"""Commands whose output goes into a pipe: a reader that stops early (``scrapy extract … | head``)
ends the command quietly, as it ends ``cat`` or ``grep``.

Python ignores ``SIGPIPE``, so a write to a closed pipe raises :class:`BrokenPipeError` (with a
traceback) where other command-line tools are ended by the signal.  :func:`pipe_safe` wraps a
command's ``run``: on that error it points stdout at ``/dev/null`` (so the interpreter's last flush
finds nothing to write, as Python's documentation on ``SIGPIPE`` advises) and the command exits
with status 141, the status a shell reports for a tool ended by ``SIGPIPE`` (128 + 13).
"""

from __future__ import annotations

import functools
import os
import signal
import sys

CLOSED_PIPE_STATUS = 128 + signal.SIGPIPE


def pipe_safe(run):
    """Decorate a Scrapy command's ``run(self, args, opts)``; its output is flushed before it returns."""

    @functools.wraps(run)
    def wrapper(self, args, opts):
        try:
            run(self, args, opts)
            sys.stdout.flush()
        except BrokenPipeError:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            os.close(devnull)
            self.exitcode = CLOSED_PIPE_STATUS

    return wrapper
