"""Live blogs across runs: which of a page's entries are new, and until when it is live.

An exported page with ``entries`` (:mod:`newscrawl.extract.fields.entries`) is recorded with the
keys of its entries (:func:`~newscrawl.extract.fields.entries.entry_key`) and a *live until*
time: its declared ``coverageEndTime`` when it has one, else its newest entry's time (the export's
time when no entry has one) plus ``NEWSCRAWL_LIVE_DAYS``.  Until then each run fetches it again and
exports it again when it holds entries not exported before, each entry marked ``new``.  No Scrapy
imports.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from newscrawl.extract.fields.entries import entry_key

LIVE_DAYS = 2.0  # NEWSCRAWL_LIVE_DAYS: days after its newest entry that a live blog is refetched


def aware(value: str) -> datetime | None:
    """An ISO 8601 time as an offset-aware datetime (UTC when it gives no offset), or None."""
    try:
        when = datetime.fromisoformat(value)
    except (TypeError, ValueError):
        return None
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


def live_until(entries: list[dict], coverage_end: str | None, days: float = LIVE_DAYS) -> str:
    """Until when a page with ``entries`` counts as live (ISO 8601, UTC)."""
    end = aware(coverage_end) if coverage_end else None
    if end is None:
        times = [t for e in entries if (t := aware(e.get("time") or "")) is not None]
        end = max(times, default=datetime.now(UTC)) + timedelta(days=days)
    return end.astimezone(UTC).isoformat()


def still_live(until: str, now: datetime | None = None) -> bool:
    """Is a page recorded live until ``until`` live at ``now``?"""
    end = aware(until)
    return end is not None and end > (now or datetime.now(UTC))


def mark_new(entries: list[dict], exported: set[str]) -> int:
    """Mark each entry ``new`` when its key is not in ``exported``; returns how many are new."""
    for entry in entries:
        entry["new"] = entry_key(entry) not in exported
    return sum(entry["new"] for entry in entries)
