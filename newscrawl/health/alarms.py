"""Drift alarms: a site's latest run against its own earlier runs.

The baseline of a signal is the median of the site's last ``baseline_runs`` earlier runs and
its spread the scaled median absolute deviation, 1.4826 × MAD (Rousseeuw and Croux 1993; Leys
et al. 2013 recommend it over the standard deviation for outlier detection, with a cut-off of
about 3).  A fall counts when the value is below *both* a fixed ratio of the median and the
median less ``z`` spreads: a site whose exports swing daily needs a larger fall than a steady
one, and a perfectly steady site (MAD 0) still needs the ratio.  No rule speaks until the site
has ``min_runs`` earlier runs (runs that exported something, for the rules about exports' content).

Rules (signal names in brackets; thresholds are settings, see docs/monitoring.md):

- exports fell to zero, or far below the baseline [``exported``]; a run whose every listed
  link had been exported before (nothing new) is not a fall;
- median body length fell below half the baseline [``body_median``];
- the share of articles with a title, a date or authors fell by more than 20 points (and by
  more than ``z`` spreads, for a site whose shares swing) [``share_title``, ``share_date``,
  ``share_authors``];
- most listing pages failed, where they usually did not [``listing_failed``];
- a drop reason that was rare now dominates the run's articles [``drop/<reason>``];
- a spike of 403/429 answers [``blocked``].

No Scrapy imports: the extension, the report and ``scrapy report --check`` all call :func:`evaluate`.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from .history import RunRecord

MAD_SCALE = 1.4826  # MAD × this estimates the standard deviation of normal data


@dataclass(frozen=True)
class Thresholds:
    """The alarm rules' knobs (site-health settings, docs/configuration.md)."""

    baseline_runs: int = 14
    min_runs: int = 3
    z: float = 3.0
    export_ratio: float = 0.5
    body_ratio: float = 0.5
    share_drop: float = 0.2
    listing_failed: float = 0.5
    drop_dominant: float = 0.5
    drop_rare: float = 0.1
    ignored_drops: tuple[str, ...] = ("already_exported", "too_old")
    blocked_rise: float = 0.1

    @classmethod
    def from_settings(cls, settings: Any) -> Thresholds:
        """From Scrapy settings (or a dict); absent settings keep the defaults."""
        get = settings.get
        values: dict[str, Any] = {}
        for name, setting, kind in _SETTINGS:
            raw = get(setting)
            if raw is None:
                continue
            if kind is tuple:
                values[name] = tuple(raw.split(",") if isinstance(raw, str) else raw)
            else:
                values[name] = kind(raw)
        return cls(**values)


_SETTINGS: tuple[tuple[str, str, Callable[[Any], Any]], ...] = (
    ("baseline_runs", "NEWSCRAWL_HEALTH_BASELINE_RUNS", int),
    ("min_runs", "NEWSCRAWL_HEALTH_MIN_RUNS", int),
    ("z", "NEWSCRAWL_HEALTH_MAD_Z", float),
    ("export_ratio", "NEWSCRAWL_HEALTH_EXPORT_RATIO", float),
    ("body_ratio", "NEWSCRAWL_HEALTH_BODY_RATIO", float),
    ("share_drop", "NEWSCRAWL_HEALTH_SHARE_DROP", float),
    ("listing_failed", "NEWSCRAWL_HEALTH_LISTING_FAILED", float),
    ("drop_dominant", "NEWSCRAWL_HEALTH_DROP_DOMINANT", float),
    ("drop_rare", "NEWSCRAWL_HEALTH_DROP_RARE", float),
    ("ignored_drops", "NEWSCRAWL_HEALTH_IGNORED_DROPS", tuple),
    ("blocked_rise", "NEWSCRAWL_HEALTH_BLOCKED_RISE", float),
)


@dataclass(frozen=True)
class Alarm:
    """One alarm: the site, the signal, its baseline and today's value, and a sentence."""

    site: str
    signal: str
    baseline: float
    value: float
    message: str
    started: str  # the start of the run that raised it

    def line(self) -> str:
        return f"{self.site}: {self.message} (baseline {_fmt(self.baseline)}, now {_fmt(self.value)})"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _fmt(value: float) -> str:
    if 0 < abs(value) < 1 and value != int(value):
        return f"{value:.0%}"
    return f"{value:,.0f}"


def robust(values: Sequence[float]) -> tuple[float, float]:
    """(median, 1.4826 × median absolute deviation) of ``values``."""
    median = statistics.median(values)
    mad = statistics.median(abs(v - median) for v in values)
    return median, MAD_SCALE * mad


def fell_far(value: float, baseline: Sequence[float], ratio: float, z: float) -> float | None:
    """The baseline median when ``value`` fell below ``ratio`` × it and below it less ``z`` spreads."""
    median, spread = robust(baseline)
    if median > 0 and value < min(ratio * median, median - z * spread):
        return median
    return None


def _nothing_new(run: RunRecord, ignored: Sequence[str]) -> bool:
    """Exported nothing because every link was exported before (or too old): not a fall."""
    lost = {k: v for k, v in run.dropped.items() if v}
    return run.exported == 0 and bool(lost) and all(k in ignored for k in lost)


def _share(numerator: int, denominator: int) -> float:
    return numerator / denominator if denominator else 0.0


def evaluate(runs: Sequence[RunRecord], thresholds: Thresholds | None = None) -> list[Alarm]:
    """The alarms of the last of ``runs`` (one site's runs, oldest first) against the ones before."""
    t = thresholds or Thresholds()
    if len(runs) < 2:
        return []
    today, earlier = runs[-1], list(runs[:-1])[-t.baseline_runs:]
    if len(earlier) < t.min_runs:
        return []
    alarms: list[Alarm] = []

    def alarm(signal: str, baseline: float, value: float, message: str) -> None:
        alarms.append(Alarm(today.site, signal, float(baseline), float(value), message, today.started))

    exports = [r.exported for r in earlier]
    if not _nothing_new(today, t.ignored_drops):
        median = statistics.median(exports)
        if today.exported == 0 and median > 0:
            alarm("exported", median, 0, "exports fell to zero")
        elif (base := fell_far(today.exported, exports, t.export_ratio, t.z)) is not None:
            alarm("exported", base, today.exported, "exports fell far below the baseline")

    productive = [r for r in earlier if r.exported > 0]
    if today.exported > 0 and len(productive) >= t.min_runs:
        bodies = [r.body_median for r in productive if r.body_median is not None]
        if today.body_median is not None and len(bodies) >= t.min_runs:
            base = fell_far(today.body_median, bodies, t.body_ratio, t.z)
            if base is not None:
                alarm("body_median", base, today.body_median, "median body length halved")
        for name, what in (("share_title", "titles"), ("share_date", "dates"), ("share_authors", "authors")):
            now = getattr(today, name)
            past = [getattr(r, name) for r in productive if getattr(r, name) is not None]
            if now is None or len(past) < t.min_runs:
                continue
            median, spread = robust(past)
            if median - now > max(t.share_drop, t.z * spread):
                fall = f"share of articles with {what} fell by {100 * (median - now):.0f} points"
                alarm(name, median, now, fall)

    past_failed = [_share(r.listing_failed, r.listing_requests) for r in earlier if r.listing_requests]
    if today.listing_requests and len(past_failed) >= t.min_runs:
        now = _share(today.listing_failed, today.listing_requests)
        median = statistics.median(past_failed)
        if now > t.listing_failed >= median:
            alarm("listing_failed", median, now, "most listing pages failed")

    def drop_shares(run: RunRecord) -> dict[str, float]:
        total = run.exported + sum(v for k, v in run.dropped.items() if k not in t.ignored_drops)
        return {k: _share(v, total) for k, v in run.dropped.items() if k not in t.ignored_drops}

    now_drops = drop_shares(today)
    past_drops = [drop_shares(r) for r in earlier]
    for reason, share in sorted(now_drops.items()):
        if share >= t.drop_dominant:
            median = statistics.median(d.get(reason, 0.0) for d in past_drops)
            if median <= t.drop_rare:
                alarm(f"drop/{reason}", median, share, f"drop reason {reason} now dominates")

    past_blocked = [_share(r.blocked(), r.responses) for r in earlier]
    now = _share(today.blocked(), today.responses)
    median = statistics.median(past_blocked)
    if today.blocked() >= 3 and now - median > t.blocked_rise:
        alarm("blocked", median, now, "a spike of 403/429 answers")
    return alarms


def active_alarms(history: dict[str, list[RunRecord]], thresholds: Thresholds | None = None) -> list[Alarm]:
    """The alarms of every site's latest run (``history``: site -> runs, oldest first)."""
    out: list[Alarm] = []
    for site in sorted(history):
        out.extend(evaluate(history[site], thresholds))
    return out
