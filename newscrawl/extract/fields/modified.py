"""The article's last modification: the same sources, zones and rules as the publication date
(:mod:`.dates`), read from the modification keys (``dateModified``, ``article:modified_time``, ...)."""

from __future__ import annotations

from datetime import date, datetime

from lxml import etree

from ..page import Page
from .dates import _declared_modified, _first, _plausible, default_zone


def find_modified(page: Page) -> datetime | date | None:
    """The first plausible declared modification date (aware ``datetime`` in the source's offset,
    or a ``date``), or None."""
    try:
        value = _first(_declared_modified(page, default_zone(page)))
    except (ValueError, TypeError, OverflowError, RecursionError, etree.LxmlError):
        return None
    return value if value is not None and _plausible(value) else None
