"""The quality signals of one run: what its exported articles look like, and its crawl figures.

:class:`ExportSignals` is fed every exported article (any object with the
:class:`~newscrawl.items.ArticleItem` attributes); :func:`record_from_stats` turns a crawl's
stats plus those signals into a :class:`~newscrawl.health.history.RunRecord`.  No Scrapy imports.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from typing import Any

from .history import RunRecord

DROP_PREFIX = "newscrawl/dropped/"
LISTING_ERROR_PREFIX = "newscrawl/listing_error/"
STATUS_PREFIX = "downloader/response_status_count/"
AGAIN_PREFIX = "newscrawl/unexported/again/"  # pages an earlier run rejected, refetched, rejected again
LISTING_OLD = ("newscrawl/sitemap/skipped_old", "newscrawl/sitemap/outside_window")
IMAGE_FIELDS = ("images", "image", "top_image")  # the first an item has is its image field


def percentile(values: Sequence[float], q: float) -> float | None:
    """The ``q``-th percentile (0..100) of ``values`` by linear interpolation; None when empty."""
    if not values:
        return None
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100.0
    low, high = math.floor(pos), math.ceil(pos)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)


class ExportSignals:
    """Running counts over the exported articles of one run."""

    def __init__(self) -> None:
        self.count = 0
        self.with_title = 0
        self.with_date = 0
        self.with_authors = 0
        self.with_images = 0
        self.paywalled = 0
        self.image_field_seen = False
        self.body_lengths: list[int] = []
        self.extract_ms: list[float] = []
        self.methods: Counter[str] = Counter()

    def add(self, item: Any) -> None:
        self.count += 1
        self.with_title += bool(getattr(item, "title", None))
        self.with_date += bool(getattr(item, "published", None))
        self.with_authors += bool(getattr(item, "authors", None))
        self.paywalled += getattr(item, "paywalled", None) is True
        for name in IMAGE_FIELDS:
            if hasattr(item, name):
                self.image_field_seen = True
                self.with_images += bool(getattr(item, name))
                break
        self.body_lengths.append(len(getattr(item, "text", None) or ""))
        seconds = getattr(item, "extraction_seconds", None)
        if seconds is not None:
            self.extract_ms.append(1000.0 * seconds)
        self.methods[getattr(item, "method", None) or "?"] += 1

    def share(self, n: int) -> float | None:
        return n / self.count if self.count else None

    def fill(self, record: RunRecord) -> RunRecord:
        """Set ``record``'s quality fields from what was seen."""
        record.share_title = _round(self.share(self.with_title), 4)
        record.share_date = _round(self.share(self.with_date), 4)
        record.share_authors = _round(self.share(self.with_authors), 4)
        record.share_images = _round(self.share(self.with_images), 4) if self.image_field_seen else None
        record.share_paywalled = _round(self.share(self.paywalled), 4)
        record.body_median = _round(percentile(self.body_lengths, 50), 1)
        record.body_p10 = _round(percentile(self.body_lengths, 10), 1)
        record.extract_ms_p50 = _round(percentile(self.extract_ms, 50), 2)
        record.extract_ms_p99 = _round(percentile(self.extract_ms, 99), 2)
        record.methods = dict(self.methods.most_common())
        return record


def _round(value: float | None, digits: int) -> float | None:
    return None if value is None else round(value, digits)


def record_from_stats(site: str, started: str, stats: dict[str, Any], signals: ExportSignals,
                      run_id: str = "", duration_s: float = 0.0) -> RunRecord:
    """The history row of a run from its Scrapy stats and its export signals."""
    record = RunRecord(site=site, started=started, run_id=run_id, duration_s=round(duration_s, 3))
    record.finish_reason = stats.get("finish_reason")
    record.listed = int(stats.get("newscrawl/listed", 0))
    record.fetched = int(stats.get("newscrawl/scheduled", 0))
    record.exported = int(stats.get("newscrawl/exported", signals.count))
    record.dropped = {k[len(DROP_PREFIX):]: int(v) for k, v in stats.items()
                      if k.startswith(DROP_PREFIX) and isinstance(v, int)}
    record.listing_requests = int(stats.get("newscrawl/listing_requests", 0))
    record.listing_failed = sum(int(v) for k, v in stats.items()
                                if k.startswith(LISTING_ERROR_PREFIX) and isinstance(v, int))
    record.listing_old = sum(int(stats.get(name, 0)) for name in LISTING_OLD)
    record.again = {k[len(AGAIN_PREFIX):]: int(v) for k, v in stats.items()
                    if k.startswith(AGAIN_PREFIX) and isinstance(v, int)}
    record.responses = int(stats.get("downloader/response_count", 0))
    record.http_status = {k[len(STATUS_PREFIX):]: int(v) for k, v in stats.items()
                          if k.startswith(STATUS_PREFIX) and isinstance(v, int)}
    record.template_leaves_removed = int(stats.get("newscrawl/template/leaves_removed", 0))
    return signals.fill(record)
