"""The crawl's log file, rotated by size: ``-s LOG_FILE=logs/crawl.log`` keeps at most
``NEWSCRAWL_LOG_MAX_BYTES`` (default 10 MiB) in ``crawl.log`` and the
``NEWSCRAWL_LOG_BACKUPS`` (default 7) files before it, ``crawl.log.1`` (the newest) to
``crawl.log.7``; the oldest is deleted.  ``NEWSCRAWL_LOG_MAX_BYTES = 0`` appends to one file
without limit, as Scrapy does; ``LOG_FILE_APPEND = False`` (a file started afresh each run)
is left to Scrapy.

Scrapy's root handler is a plain ``logging.FileHandler`` that it installs when the command
starts and again for every crawler.  :func:`rotate_log_file` runs while the ``crawl`` and
``crawlall`` commands read their options, before that: it installs a
:class:`logging.handlers.RotatingFileHandler` with Scrapy's format, level and filter, and turns
Scrapy's own handler off (``LOG_INSTALL_ROOT_HANDLER = False``).  A record is written whole to
one file: rotation happens between records.  Several processes writing one log file (two cron
runs overlapping) each rotate on their own count; their lines all land in one of the files.
"""

from __future__ import annotations

import logging
from logging.handlers import RotatingFileHandler
from pathlib import Path

from scrapy.utils.log import TopLevelFormatter

_installed: list[logging.Handler] = []  # the handler this process installed (one at a time)


def rotate_log_file(settings) -> logging.Handler | None:
    """Log to ``LOG_FILE`` through a size-rotating handler; the handler, or None when Scrapy's
    own file handling stays (no ``LOG_FILE``, rotation off, not appending, logging disabled)."""
    filename = settings.get("LOG_FILE")
    max_bytes = settings.getint("NEWSCRAWL_LOG_MAX_BYTES", 0)
    if (not filename or max_bytes <= 0 or not settings.getbool("LOG_ENABLED", True)
            or not settings.getbool("LOG_FILE_APPEND", True)
            or not settings.getbool("LOG_INSTALL_ROOT_HANDLER", True)):
        return None
    Path(filename).parent.mkdir(parents=True, exist_ok=True)
    handler = RotatingFileHandler(filename, maxBytes=max_bytes, encoding=settings.get("LOG_ENCODING"),
                                  backupCount=max(0, settings.getint("NEWSCRAWL_LOG_BACKUPS", 7)))
    handler.setFormatter(logging.Formatter(fmt=settings.get("LOG_FORMAT"),
                                           datefmt=settings.get("LOG_DATEFORMAT")))
    handler.setLevel(settings.get("LOG_LEVEL"))
    if settings.getbool("LOG_SHORT_NAMES"):
        handler.addFilter(TopLevelFormatter(["scrapy"]))
    while _installed:
        old = _installed.pop()
        logging.root.removeHandler(old)
        old.close()
    logging.root.setLevel(logging.NOTSET)  # as Scrapy does: the handler's level decides
    logging.root.addHandler(handler)
    _installed.append(handler)
    settings.set("LOG_INSTALL_ROOT_HANDLER", False, priority="cmdline")
    return handler
