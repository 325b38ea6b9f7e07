"""The site-health report: one self-contained HTML page, or the same figures as JSON.

The page has no script and fetches nothing: CSS in a ``<style>`` element, every plot an inline
SVG sparkline.  Sites are rows of one table, those with an active alarm first; each row shows
the site's latest run and small plots over the chosen days of exports per run, median body
length, the shares of articles with a title, a date and authors, and drops by reason.  A plot
has at most :data:`MAX_POINTS` points (longer series are averaged in buckets), which keeps a
report of 1,000 sites × 365 runs to a few megabytes (``bench/report_scale.py``).

No Scrapy imports.
"""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from .alarms import Alarm, Thresholds, evaluate
from .history import RunRecord, series_of

MAX_POINTS = 60
WIDTH, HEIGHT = 120, 24
SHARE_COLOURS = {"share_title": "#1f77b4", "share_date": "#d62728", "share_authors": "#2ca02c"}
DROP_COLOURS = ("#9467bd", "#ff7f0e", "#8c564b")
TOP_DROPS = 3  # drop reasons plotted per site (the largest over the window)


def site_summary(site: str, runs: Sequence[RunRecord], series: dict[str, Any],
                 thresholds: Thresholds) -> dict[str, Any]:
    """One site's entry of the report: its alarms (``runs``: its latest runs, the last against
    the ones before) and its plotted ``series`` (:func:`~newscrawl.health.history.series_of`)."""
    alarms = evaluate(runs, thresholds)
    earlier = len(runs) - 1
    return {
        "site": site,
        "status": "alarm" if alarms else ("learning" if earlier < thresholds.min_runs else "ok"),
        "alarms": [a.to_dict() for a in alarms],
        "runs": sum(series.get("runs", ())),
        "last_run": _last(runs[-1] if runs else None),
        "series": series,
    }


def top_drops(series: dict[str, Any], ignored: Sequence[str], n: int = TOP_DROPS) -> list[str]:
    """The ``n`` drop reasons with the most drops over the series (not the ignored ones)."""
    totals = {reason: sum(v * k for v, k in zip(values, series["runs"], strict=False))
              for reason, values in series.get("drops", {}).items() if reason not in ignored}
    return [r for r, total in sorted(totals.items(), key=lambda kv: (-kv[1], kv[0]))[:n] if total > 0]


def _last(run: RunRecord | None) -> dict[str, Any] | None:
    if run is None:
        return None
    return {"started": run.started, "finish_reason": run.finish_reason, "exported": run.exported,
            "listed": run.listed, "fetched": run.fetched, "body_median": run.body_median,
            "body_p10": run.body_p10, "share_title": run.share_title, "share_date": run.share_date,
            "share_authors": run.share_authors, "share_images": run.share_images,
            "listing_failed": run.listing_failed, "listing_requests": run.listing_requests,
            "blocked": run.blocked(), "server_errors": run.server_errors(), "dropped": run.dropped,
            "methods": run.methods, "extract_ms_p50": run.extract_ms_p50,
            "extract_ms_p99": run.extract_ms_p99}


_ORDER = {"alarm": 0, "learning": 2, "ok": 1}


def build(latest: dict[str, list[RunRecord]], series: dict[str, dict[str, Any]], *, now: datetime,
          thresholds: Thresholds | None = None, days: float | None = None,
          skipped: int = 0) -> dict[str, Any]:
    """The report as a JSON-able dict: sites with an active alarm first, then by name.

    ``latest``: each site's last runs (enough for its baseline); ``series``: its plotted signals;
    ``skipped``: damaged history rows left out."""
    t = thresholds or Thresholds()
    sites = [site_summary(site, runs, series.get(site) or series_of([]), t)
             for site, runs in latest.items() if runs]
    sites.sort(key=lambda s: (_ORDER[s["status"]], -len(s["alarms"]), s["site"]))
    alarms = [a for s in sites for a in s["alarms"]]
    return {"generated": now.isoformat(), "days": days, "sites": sites, "alarms": alarms,
            "skipped_rows": skipped,
            "counts": {"sites": len(sites), "alarm": sum(s["status"] == "alarm" for s in sites),
                       "learning": sum(s["status"] == "learning" for s in sites)}}


def from_store(store: Any, *, since: datetime, now: datetime, sites: Sequence[str] | None = None,
               thresholds: Thresholds | None = None, days: float | None = None,
               points: int | None = MAX_POINTS) -> dict[str, Any]:
    """The report of a :class:`~newscrawl.health.history.HistoryStore`: alarms from each site's
    last runs, plots over the runs since ``since`` (averaged to at most ``points`` per site)."""
    t = thresholds or Thresholds()
    latest = store.latest(t.baseline_runs + 1, sites)
    series = store.series(since, now, sites, points)
    return build(latest, series, now=now, thresholds=t, days=days, skipped=getattr(store, "skipped", 0))


def from_history(history: dict[str, list[RunRecord]], *, since: datetime | None, now: datetime,
                 thresholds: Thresholds | None = None, days: float | None = None,
                 points: int | None = MAX_POINTS) -> dict[str, Any]:
    """The report of runs in memory (site -> runs, oldest first)."""
    t = thresholds or Thresholds()
    latest = {site: runs[-(t.baseline_runs + 1):] for site, runs in history.items()}
    series = {site: series_of(runs, since, now, points) for site, runs in history.items()}
    return build(latest, series, now=now, thresholds=t, days=days)


def to_json(report: dict[str, Any]) -> str:
    return json.dumps(report, indent=1, ensure_ascii=False)


# -- HTML ----------------------------------------------------------------------------

CSS = """
body{font:13px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:16px;color:#222;
background:#fff}
h1{font-size:20px;margin:0 0 4px}p.sum{margin:0 0 12px;color:#555}
ul.alarms{margin:0 0 14px;padding:8px 8px 8px 28px;background:#fdecea;border:1px solid #e0a4a0}
table{border-collapse:collapse;width:100%}th,td{padding:3px 6px;border-bottom:1px solid #e4e4e4;
text-align:left;vertical-align:middle}th{background:#f3f3f3;position:sticky;top:0;font-weight:600}
tr.alarm td{background:#fdecea}td.st{font-weight:700;white-space:nowrap}tr.alarm td.st{color:#b00020}
tr.ok td.st{color:#2e7d32}tr.learning td.st{color:#777}td.n{text-align:right;white-space:nowrap}
td.why{color:#b00020;max-width:28em}svg{display:block;background:#fafafa}.k{font-size:11px;color:#666}
.k i{display:inline-block;width:9px;height:3px;margin:0 2px 2px 6px;vertical-align:middle}
"""


def _polyline(values: Sequence[float | None], slots: Sequence[int], span: int, top: float,
              colour: str) -> str:
    """One series as SVG polylines, x from its time ``slots`` (of ``span``), y scaled to 0..``top``;
    broken where a value is missing or where the runs skipped more than twice their usual spacing."""
    if not values or top <= 0:
        return ""
    step = (WIDTH - 4) / max(1, span - 1)
    gaps = sorted(b - a for a, b in zip(slots, slots[1:], strict=False))
    usual = gaps[len(gaps) // 2] if gaps else 1  # the usual spacing of the runs, in slots
    parts: list[list[str]] = []
    run: list[str] = []
    previous = None
    for v, k in zip(values, slots, strict=False):
        if v is None or (previous is not None and k - previous > max(1, 2 * usual)):
            if run:
                parts.append(run)
            run = []
        previous = k
        if v is not None:
            run.append(f"{2 + k * step:.0f},{HEIGHT - 2 - (HEIGHT - 4) * min(v, top) / top:.0f}")
    if run:
        parts.append(run)
    out = []
    for run in parts:
        if len(run) == 1:  # a lone point: a dot
            x, y = run[0].split(",")
            out.append(f'<circle cx="{x}" cy="{y}" r="1.5" fill="{colour}"/>')
        else:
            out.append(f'<polyline points="{" ".join(run)}" stroke="{colour}"/>')
    return "".join(out)


def _svg(series: dict[str, Any], lines: list[tuple[Sequence[float | None], float, str]], label: str) -> str:
    slots = series["slot"]
    span = series.get("slots") or (slots[-1] + 1 if slots else 1)
    body = "".join(_polyline(values, slots, span, top, colour) for values, top, colour in lines)
    return (f'<svg width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
            f'aria-label="{html.escape(label)}"><g fill="none" stroke-width="1.2">{body}</g></svg>')


def _top(values: Sequence[float | None]) -> float:
    present = [v for v in values if v is not None]
    return max(present) if present else 0.0


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{value:.0%}"


def _num(value: float | None) -> str:
    return "–" if value is None else f"{value:,.0f}"


def _row(s: dict[str, Any], ignored: Sequence[str]) -> str:
    series, last = s["series"], s["last_run"] or {}
    esc = html.escape
    why = "<br>".join(esc(Alarm(**a).line().split(": ", 1)[1]) for a in s["alarms"])
    exports = _svg(series, [(series["exported"], _top(series["exported"]), "#333")], "exports per run")
    body = _svg(series, [(series["body_median"], _top(series["body_median"]), "#1f77b4")],
                "median body length")
    shares = _svg(series, [(series[k], 1.0, c) for k, c in SHARE_COLOURS.items()],
                  "shares with title, date, authors")
    drops = {reason: series["drops"][reason] for reason in top_drops(series, ignored)}
    drop_top = max((_top(v) for v in drops.values()), default=0.0)
    drop_svg = _svg(series, [(v, drop_top, DROP_COLOURS[i]) for i, v in enumerate(drops.values())],
                    "drops by reason")
    drop_key = "".join(f'<i style="background:{DROP_COLOURS[i]}"></i>{esc(r)}' for i, r in enumerate(drops))
    status = {"alarm": "ALARM", "ok": "ok", "learning": "learning"}[s["status"]]
    return (f'<tr class="{s["status"]}" data-site="{esc(s["site"])}"><td class="st">{status}</td>'
            f'<td>{esc(s["site"])}</td><td>{esc(str(last.get("started", ""))[:16].replace("T", " "))}</td>'
            f'<td class="n">{_num(last.get("exported"))}</td><td>{exports}</td>'
            f'<td class="n">{_num(last.get("body_median"))}</td><td>{body}</td>'
            f'<td class="n">{_pct(last.get("share_title"))} / {_pct(last.get("share_date"))} / '
            f'{_pct(last.get("share_authors"))}</td><td>{shares}</td>'
            f'<td>{drop_svg}<div class="k">{drop_key}</div></td><td class="why">{why}</td></tr>')


def to_html(report: dict[str, Any], ignored: Sequence[str] = Thresholds.ignored_drops) -> str:
    """The report as one HTML page (no script, no external resource)."""
    esc = html.escape
    counts = report["counts"]
    alarm_list = "".join(f"<li>{esc(Alarm(**a).line())}</li>" for a in report["alarms"])
    alarms = f'<ul class="alarms">{alarm_list}</ul>' if alarm_list else ""
    days = f"the last {report['days']:g} days" if report.get("days") else "all recorded runs"
    key = "".join(f'<i style="background:{c}"></i>{k.split("_", 1)[1]}' for k, c in SHARE_COLOURS.items())
    rows = "".join(_row(s, ignored) for s in report["sites"])
    skipped = f"; <b>{report['skipped_rows']} damaged history row(s) left out</b>" \
        if report.get("skipped_rows") else ""
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width,initial-scale=1">'
        f"<title>newscrawl site health</title><style>{CSS}</style></head><body>"
        f"<h1>newscrawl site health</h1><p class=\"sum\">{counts['sites']} site(s), "
        f"<b>{counts['alarm']} with an alarm</b>, {counts['learning']} still learning their baseline; "
        f"plots over {days}; generated {esc(report['generated'][:16].replace('T', ' '))} UTC"
        f"{skipped}</p>{alarms}"
        '<table><thead><tr><th>status</th><th>site</th><th>last run (UTC)</th><th>exported</th>'
        '<th>exports per run</th><th>median body</th><th>body length</th><th>title / date / authors</th>'
        f'<th>field shares<div class="k">{key}</div></th><th>drops by reason</th><th>alarms</th></tr></thead>'
        f"<tbody>{rows}</tbody></table></body></html>\n"
    )
