"""One run at a time: :class:`RunLock`, an ``flock(2)`` on a lock file that the kernel releases
when the holder dies, even by ``kill -9``.  Used by :class:`newscrawl.run.guard.RunGuard` per
spider and state directory, per ``JOBDIR`` and per export file.
"""

from __future__ import annotations

import errno
import fcntl
import os
from pathlib import Path


class RunLock:
    """An exclusive, non-blocking ``flock(2)`` on ``path`` (created if absent).

    ``flock`` locks belong to the open file: the kernel drops them when the holder
    exits, however it exits, so a killed run never leaves a stale lock.  With
    ``note_pid`` the holder writes its pid into the file, for the message of the run
    that finds it locked (lock files only: an export file is locked without writing).
    """

    def __init__(self, path: str | os.PathLike, *, note_pid: bool = True):
        self.path = Path(path)
        self.note_pid = note_pid
        self._fd: int | None = None

    def acquire(self) -> bool:
        """Take the lock; False when another open file holds it.  OSError when the file cannot be opened."""
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_NONBLOCK | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            os.close(fd)
            if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                return False
            raise
        self._fd = fd
        if self.note_pid:
            try:
                os.ftruncate(fd, 0)
                os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
            except OSError:
                self.release()
                raise
        return True

    @property
    def fd(self) -> int | None:
        """The locked file's descriptor while held."""
        return self._fd

    def holder(self) -> str | None:
        """The pid noted by the holder, if it wrote one."""
        try:
            text = self.path.read_text(encoding="ascii", errors="replace").strip()
        except OSError:
            return None
        return text if text.isdigit() else None

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the only descriptor releases the flock
            self._fd = None

    def __del__(self) -> None:
        self.release()

