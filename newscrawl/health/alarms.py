"""Drift alarms: a site's latest run against its own earlier runs.

The baseline of a signal is the median of the site's last ``baseline_runs`` earlier runs and
its spread the scaled median absolute deviation, 1.4826 × MAD (Rousseeuw and Croux 1993; Leys
et al. 2013 recommend it over the standard deviation for outlier detection, with a cut-off of
about 3).  A fall counts when the value is below *both* a fixed ratio of the median and the
median less ``z`` spreads: a site whose yield swings needs a larger fall than a steady one, and
a perfectly steady site (MAD 0) still needs the ratio.  No rule speaks until the site has
``min_runs`` earlier runs.

A run's links (:func:`counts`) are *new* (could have become articles this run) or not: exported
or rejected by an earlier run, listed twice, too old, refetched and rejected again for the same
reason (the ``ignored_drops``), or not the site's to fetch (:data:`OUTSIDE`: off the site,
forbidden by robots.txt).  So a run is one of three kinds: *nothing listed* (its listing pages
gave no link), *nothing new* (every listed link was not new: the normal day between a site's
updates, never an alarm by itself) or a run with new links, judged by how many became articles.

Rules (signal names in brackets; thresholds are settings, see docs/monitoring.md):

- the listing pages listed no link, where they usually did [``listed``];
- of at least :data:`MIN_PAGES` new links, none or far fewer than usual became articles
  (exported ÷ new, against the site's own yield) [``exported``];
- median body length fell below half the baseline [``body_median``];
- the share of articles with a title, a date or authors fell by more than 20 points (and by
  more than ``z`` spreads, for a site whose shares swing; and by at least :data:`MIN_PAGES`
  articles) [``share_title``, ``share_date``, ``share_authors``];
- the share of paywalled articles, or of article pages behind a consent or login wall, rose by
  more than 20 points (and ``z`` spreads), in a run of at least :data:`RISE_MIN_PAGES` such pages
  [``share_paywalled``, ``share_walled``];
- most listing pages failed, where they usually did not [``listing_failed``];
- a drop reason that was rare now dominates the run's new links (offsite and robots: its
  listed links) [``drop/<reason>``];
- a spike of 403/429 answers [``blocked``].

Rules about articles speak on at least :data:`MIN_PAGES` of them (new links, exported articles):
one odd page on a quiet day is not a trend.  Every alarm carries the run's evidence (listed,
new, fetched, exported, drops by reason).

No Scrapy imports: the extension, the report and ``scrapy report --check`` all call :func:`evaluate`.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from .history import RunRecord

MAD_SCALE = 1.4826  # MAD × this estimates the standard deviation of normal data
MIN_PAGES = 3  # new links (or exported articles) a run needs before a rule about them speaks
OUTSIDE = ("offsite", "robots")  # listed links that are not the site's to fetch: not new
LISTING_DROPS = ("sitemap_", "no_link", "list_api_capped")  # drops of listing entries, not of pages
WALLS = ("consent_wall", "login_wall")  # drop reasons of a page behind a wall
# Pages a run needs before a rise of its paywalled or walled share speaks: on a few pages the share of
# a site that mixes free and paywalled stories swings (4 of 5 paywalled on one day of the month test).
RISE_MIN_PAGES = 10
NOT_NEW = ("already_exported", "already_rejected", "listed_twice", "duplicate", "too_old")


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
    ignored_drops: tuple[str, ...] = NOT_NEW
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
    evidence: str = ""  # the run's listed, new, fetched and exported links and drops by reason
    share: bool = False  # baseline and value are fractions (shown as percentages)

    def figures(self) -> str:
        """``baseline …, now …`` and the evidence."""
        shown = _pct if self.share else _fmt
        return f"baseline {shown(self.baseline)}, now {shown(self.value)}" + \
            (f"; {self.evidence}" if self.evidence else "")

    def line(self) -> str:
        return f"{self.site}: {self.message} ({self.figures()})"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _pct(value: float) -> str:
    return f"{value:.0%}"


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


@dataclass(frozen=True)
class Counts:
    """A run's links by what became of them (see the module docstring)."""

    listed: int  # links on the site that the listing pages gave
    new: int  # of them, those that could have become articles this run
    exported: int
    failed: dict[str, int]  # drops of new links (and of listing entries) by reason
    outside: dict[str, int]  # listed links not the site's to fetch (OUTSIDE), by reason

    @property
    def links(self) -> int:
        """Every link the listing pages gave, on the site or off it."""
        return self.listed + self.outside.get("offsite", 0)


def counts(run: RunRecord, ignored: Sequence[str]) -> Counts:
    """``run``'s links: new ones are those listed less the ones not new (ignored reasons,
    robots.txt, rejected again); a run that lists nothing (an archive), or that stopped before
    its end (a ``CLOSESPIDER_*`` limit, a shutdown), has as many new links as it exported and failed."""
    again = run.again
    failed = {k: n - again.get(k, 0) for k, n in run.dropped.items()
              if k not in ignored and k not in OUTSIDE and n - again.get(k, 0) > 0}
    known = sum(n for k, n in run.dropped.items() if k in ignored) + sum(again.values()) \
        + run.dropped.get("robots", 0)
    pages = run.exported + sum(n for k, n in failed.items() if not k.startswith(LISTING_DROPS))
    cut_short = run.finish_reason not in (None, "finished")  # a limit, Ctrl-C: links left unfetched
    new = pages if cut_short else max(run.listed - known, pages)
    return Counts(listed=run.listed, new=new, exported=run.exported,
                  failed=failed, outside={k: run.dropped[k] for k in OUTSIDE if run.dropped.get(k)})


def evidence(run: RunRecord, c: Counts) -> str:
    """``listed 8, new 6, fetched 6, exported 0; dropped no_text 6, offsite 1``."""
    ordered = sorted(run.dropped.items(), key=lambda kv: (-kv[1], kv[0]))
    drops = ", ".join(f"{k} {n:,}" for k, n in ordered if n)
    return (f"listed {c.listed:,}, new {c.new:,}, fetched {run.fetched:,}, exported {c.exported:,}; "
            f"dropped {drops or 'none'}")


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
    now_counts = counts(today, t.ignored_drops)
    proof = evidence(today, now_counts)

    def alarm(signal: str, baseline: float, value: float, message: str, share: bool = False) -> None:
        alarms.append(Alarm(today.site, signal, float(baseline), float(value), message, today.started,
                            proof, share))

    past = [counts(r, t.ignored_drops) for r in earlier]
    all_failed = today.listing_requests > 0 and today.listing_failed >= today.listing_requests
    if today.listing_requests and not now_counts.links and not all_failed and not today.listing_old:
        median = statistics.median(c.links for c in past)
        if median > 0:  # (every listing page failing is the listing_failed rule's)
            alarm("listed", median, 0, "the listing pages listed no link")

    yields = [c.exported / c.new for c in past if c.new]
    if now_counts.new >= MIN_PAGES and yields:
        now = now_counts.exported / now_counts.new
        what = f"{now_counts.exported} of {now_counts.new} new links became articles"
        median = statistics.median(yields)
        if now_counts.exported == 0 and median > 0:
            alarm("exported", median, now, f"fewer exported than listed: {what}", share=True)
        elif (base := fell_far(now, yields, t.export_ratio, t.z)) is not None:
            alarm("exported", base, now, f"fewer exported than listed: {what}", share=True)

    productive = [r for r in earlier if r.exported > 0]
    if today.exported >= MIN_PAGES and len(productive) >= t.min_runs:
        bodies = [r.body_median for r in productive if r.body_median is not None]
        if today.body_median is not None and len(bodies) >= t.min_runs:
            base = fell_far(today.body_median, bodies, t.body_ratio, t.z)
            if base is not None:
                alarm("body_median", base, today.body_median, "median body length halved")
        for name, what in (("share_title", "titles"), ("share_date", "dates"), ("share_authors", "authors")):
            now = getattr(today, name)
            values = [getattr(r, name) for r in productive if getattr(r, name) is not None]
            if now is None or len(values) < t.min_runs:
                continue
            median, spread = robust(values)
            fell = median - now
            if fell > max(t.share_drop, t.z * spread) and fell * today.exported >= MIN_PAGES:
                fall = f"share of articles with {what} fell by {100 * fell:.0f} points"
                alarm(name, median, now, fall, share=True)

    for name, what, shares in (("share_paywalled", "paywalled articles", _paywalled),
                               ("share_walled", "pages behind a consent or login wall", _walled)):
        now_share, pages = shares(today)
        values = [v for v, n in map(shares, earlier) if v is not None and n]
        if now_share is None or len(values) < t.min_runs:
            continue
        median, spread = robust(values)
        rose = now_share - median
        if pages >= RISE_MIN_PAGES and rose > max(t.share_drop, t.z * spread):
            alarm(name, median, now_share, f"share of {what} rose by {100 * rose:.0f} points", share=True)

    past_failed = [_share(r.listing_failed, r.listing_requests) for r in earlier if r.listing_requests]
    if today.listing_requests and len(past_failed) >= t.min_runs:
        now = _share(today.listing_failed, today.listing_requests)
        median = statistics.median(past_failed)
        if now > t.listing_failed >= median:
            alarm("listing_failed", median, now, "most listing pages failed", share=True)

    now_drops = drop_shares(now_counts)
    past_drops = [drop_shares(c) for c in past]
    for reason, share in sorted(now_drops.items()):
        if share >= t.drop_dominant:
            median = statistics.median(d.get(reason, 0.0) for d in past_drops)
            if median <= t.drop_rare:
                alarm(f"drop/{reason}", median, share, f"drop reason {reason} now dominates", share=True)

    past_blocked = [_share(r.blocked(), r.responses) for r in earlier]
    now = _share(today.blocked(), today.responses)
    median = statistics.median(past_blocked)
    if today.blocked() >= 3 and now - median > t.blocked_rise:
        alarm("blocked", median, now, "a spike of 403/429 answers", share=True)
    return alarms


def _paywalled(run: RunRecord) -> tuple[float | None, int]:
    """(share of the run's exported articles marked paywalled, exported); None before it was recorded."""
    return (run.share_paywalled if run.exported else None), run.exported


def _walled(run: RunRecord) -> tuple[float | None, int]:
    """(share of the run's fetched article pages that met a wall for the first time, those pages)."""
    walls = sum(max(0, run.dropped.get(k, 0) - run.again.get(k, 0)) for k in WALLS)
    pages = run.exported + walls
    return (walls / pages if pages else None), pages


def drop_shares(c: Counts) -> dict[str, float]:
    """Each drop reason's share of the run's new links (offsite and robots: of every listed
    link); none on fewer than :data:`MIN_PAGES` links."""
    out: dict[str, float] = {}
    if c.new >= MIN_PAGES:
        out.update((k, min(1.0, n / c.new)) for k, n in c.failed.items())
    if c.links >= MIN_PAGES:
        out.update((k, n / c.links) for k, n in c.outside.items())
    return out


def active_alarms(history: dict[str, list[RunRecord]], thresholds: Thresholds | None = None) -> list[Alarm]:
    """The alarms of every site's latest run (``history``: site -> runs, oldest first)."""
    out: list[Alarm] = []
    for site in sorted(history):
        out.extend(evaluate(history[site], thresholds))
    return out
