"""The site-health report at scale: 1,000 sites × 365 daily runs in a SQLite history.

    python bench/report_scale.py [--sites 1000] [--runs 365]

Writes a synthetic history (a few sites degrade on the last day), then times what
``scrapy report -o report.html`` does: read every row from the store, evaluate the alarms and
render the page.  Prints the seconds and the page's size (the issue asks for under 5 s and 5 MB).
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from newscrawl.health import report  # noqa: E402
from newscrawl.health.history import COLUMNS, RunRecord, SqliteHistory, columns  # noqa: E402


def synthetic(sites: int, runs: int, now: datetime, seed: int = 1):
    rng = random.Random(seed)

    def u(low: float, high: float) -> float:  # as recorded: rounded
        return round(rng.uniform(low, high), 4 if high <= 1 else 1)

    for s in range(sites):
        site = f"site{s:04d}"
        broken = s % 97 == 0
        for d in range(runs):
            last = d == runs - 1
            yield RunRecord(
                site=site, started=(now - timedelta(days=runs - d)).isoformat(), run_id=f"{site}-{d}",
                duration_s=u(30, 600), finish_reason="finished", listed=rng.randint(60, 90),
                fetched=rng.randint(50, 70), exported=rng.randint(40, 60), listing_requests=5,
                listing_failed=rng.randint(0, 1), responses=80,
                http_status={"200": 75, "404": rng.randint(0, 3), "403": rng.randint(0, 1)},
                dropped={"no_text": rng.randint(0, 3), "duplicate_content": rng.randint(0, 2),
                         "already_exported": rng.randint(0, 30), "offsite": rng.randint(0, 5)},
                share_title=1.0, share_date=0.2 if broken and last else u(0.9, 1.0),
                share_authors=u(0.6, 0.9), share_images=u(0.5, 0.9),
                body_median=300.0 if broken and last else u(1800, 2400), body_p10=u(400, 800),
                methods={"auto": 50}, template_leaves_removed=rng.randint(100, 900),
                extract_ms_p50=u(5, 20), extract_ms_p99=u(50, 200))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sites", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=365)
    args = parser.parse_args()
    now = datetime.now(UTC)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "health.sqlite3"
        store = SqliteHistory(path, retention_days=0)
        db = sqlite3.connect(path)
        with db:
            marks = ", ".join("?" * len(COLUMNS))
            db.executemany(f"INSERT INTO runs ({', '.join(COLUMNS)}) VALUES ({marks})",
                           (columns(r) for r in synthetic(args.sites, args.runs, now)))
        db.close()
        store.close()

        start, cpu = time.perf_counter(), time.process_time()
        store = SqliteHistory(path, retention_days=0)
        days = args.runs + 1
        built = report.from_store(store, since=now - timedelta(days=days), now=now, days=days)
        store.close()
        loaded = time.perf_counter()
        page = report.to_html(built)
        done, cpu = time.perf_counter(), time.process_time() - cpu
        out = Path(tmp) / "report.html"
        out.write_text(page, encoding="utf-8")
        size = out.stat().st_size
    rows = sum(s["runs"] for s in built["sites"])
    print(f"{args.sites} sites x {args.runs} runs ({rows} rows): read and alarms {loaded - start:.2f} s, "
          f"page {done - loaded:.2f} s, total {done - start:.2f} s ({cpu:.2f} s CPU); "
          f"page {size / 1e6:.2f} MB; {len(built['alarms'])} alarm(s) on {built['counts']['alarm']} site(s)")


if __name__ == "__main__":
    main()
