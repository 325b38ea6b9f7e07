"""The run history: one :class:`RunRecord` per site and run, kept for a number of days.

Two stores with the same four methods (:class:`HistoryStore`):

- :class:`SqliteHistory` — ``health.sqlite3`` in the state directory (WAL mode, so a report
  reads while a crawl writes).  A file that is not a database or fails ``PRAGMA
  quick_check`` is moved aside (:func:`newscrawl.state.seen_store.move_aside`) and a new one started:
  the history is a report's input, never a reason for a run to fail.  A report opens it
  read-only (``readonly``): nothing created, checked by writing, or moved.
- :class:`RedisHistory` — one sorted set per site (score: the run's start time), for the
  distributed mode, where workers share no state directory.  Each worker records its own
  row; the report adds up the rows of one job (:func:`merge_job`).

A stored row that does not decode is skipped with a warning and counted in the store's
``skipped``.  Rows of older versions (fewer fields) read with the fields' defaults.

No Scrapy imports here.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass, field, fields
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from newscrawl.state.seen_store import CorruptStore, check_sqlite, move_aside, state_dir

logger = logging.getLogger(__name__)

DB_NAME = "health.sqlite3"
PLOTTED = ("exported", "body_median", "share_title", "share_date", "share_authors")  # the report's plots
DEFAULT_RETENTION_DAYS = 400
READ_WAIT_MS = 3000  # a report waits this long for a crawl's write (milliseconds) before giving up


@dataclass
class RunRecord:
    """One site's run in figures: what was crawled, what was lost, and what the exports looked like.

    Shares are fractions (0..1) of the exported articles; None when nothing was exported
    (``share_images`` is None when the items carry no image field at all).  Body lengths are
    characters of ``text``; extraction times milliseconds per page.
    """

    site: str
    started: str  # ISO 8601, UTC
    run_id: str = ""
    duration_s: float = 0.0
    finish_reason: str | None = None
    listed: int = 0
    fetched: int = 0
    exported: int = 0
    dropped: dict[str, int] = field(default_factory=dict)
    listing_requests: int = 0
    listing_failed: int = 0
    listing_old: int = 0  # sitemaps and sitemap entries skipped as older than the date window
    again: dict[str, int] = field(default_factory=dict)  # refetched pages rejected again, by reason
    responses: int = 0
    http_status: dict[str, int] = field(default_factory=dict)  # "403" -> count
    share_title: float | None = None
    share_date: float | None = None
    share_authors: float | None = None
    share_images: float | None = None
    share_paywalled: float | None = None  # exported articles marked paywalled (a teaser behind a paywall)
    body_median: float | None = None
    body_p10: float | None = None
    methods: dict[str, int] = field(default_factory=dict)
    template_leaves_removed: int = 0
    extract_ms_p50: float | None = None
    extract_ms_p99: float | None = None
    workers: int = 1  # rows merged into this one (distributed workers of one job)

    def to_json(self) -> str:
        return json.dumps(vars(self), sort_keys=True, separators=(",", ":"))

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunRecord:
        """A record from stored JSON; unknown keys (a newer version's) are ignored."""
        if data.keys() <= _FIELDS:
            return cls(**data)
        return cls(**{k: v for k, v in data.items() if k in _FIELDS})

    def checked(self) -> RunRecord:
        """This record, or TypeError naming a field whose stored value is not of its type."""
        for f in fields(self):
            value = getattr(self, f.name)
            kinds = _KINDS[f.name]
            if not isinstance(value, kinds) or isinstance(value, bool) or (
                    isinstance(value, dict) and not all(isinstance(n, int) for n in value.values())):
                raise TypeError(f"{f.name} is {value!r}")
        self.start_time  # noqa: B018 - a ValueError for a start that is not a time
        return self

    @property
    def start_time(self) -> datetime:
        return parse_time(self.started)

    def blocked(self) -> int:
        """Responses answered 403 or 429."""
        return int(self.http_status.get("403", 0)) + int(self.http_status.get("429", 0))

    def server_errors(self) -> int:
        return sum(int(n) for code, n in self.http_status.items() if code.startswith("5"))


_FIELDS = frozenset(f.name for f in fields(RunRecord))
_KINDS: dict[str, tuple[type, ...]] = {  # the stored JSON types of each field
    f.name: {"str": (str,), "str | None": (str, type(None)), "int": (int,), "float": (int, float),
             "float | None": (int, float, type(None)), "dict[str, int]": (dict,)}[str(f.type)]
    for f in fields(RunRecord)}


def parse_time(text: str) -> datetime:
    """An ISO 8601 time; a naive one is taken as UTC."""
    value = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def merge_job(records: list[RunRecord]) -> RunRecord:
    """The rows of one distributed job's workers (same ``run_id``) as one row: counts added,
    shares and lengths weighted by each worker's exports, the earliest start, the longest run."""
    if len(records) == 1:
        return records[0]
    first = min(records, key=lambda r: r.started)
    out = RunRecord(site=first.site, started=first.started, run_id=first.run_id,
                    finish_reason=first.finish_reason, workers=sum(r.workers for r in records))
    out.duration_s = max(r.duration_s for r in records)
    for name in ("listed", "fetched", "exported", "listing_requests", "listing_failed", "listing_old",
                 "responses", "template_leaves_removed"):
        setattr(out, name, sum(getattr(r, name) for r in records))
    for name in ("dropped", "again", "http_status", "methods"):
        total: dict[str, int] = {}
        for r in records:
            for key, n in getattr(r, name).items():
                total[key] = total.get(key, 0) + n
        setattr(out, name, total)
    weight = sum(r.exported for r in records)
    for name in ("share_title", "share_date", "share_authors", "share_images", "share_paywalled",
                 "body_median", "body_p10", "extract_ms_p50"):
        parts = [(getattr(r, name), r.exported) for r in records
                 if getattr(r, name) is not None and r.exported]
        if parts and weight:
            setattr(out, name, sum(v * w for v, w in parts) / sum(w for _, w in parts))
    p99 = [r.extract_ms_p99 for r in records if r.extract_ms_p99 is not None]
    out.extract_ms_p99 = max(p99) if p99 else None
    reasons = [r.finish_reason for r in records if r.finish_reason != "finished"]
    out.finish_reason = reasons[0] if reasons else first.finish_reason
    return out


class HistoryStore(Protocol):
    """What the health extension and the report need from a history store."""

    def add(self, record: RunRecord) -> None:
        """Record one run (and drop rows older than the retention)."""

    def runs(self, sites: Iterable[str] | None = None,
             since: datetime | None = None) -> dict[str, list[RunRecord]]:
        """site -> its runs, oldest first (one row per run: a distributed job's workers merged)."""

    def sites(self) -> list[str]:
        """Every site with a recorded run."""

    def latest(self, n: int, sites: Iterable[str] | None = None) -> dict[str, list[RunRecord]]:
        """site -> its last ``n`` runs, oldest first."""

    def series(self, since: datetime, until: datetime, sites: Iterable[str] | None = None,
               points: int | None = None) -> dict[str, dict[str, Any]]:
        """site -> its plotted signals from ``since`` to ``until`` (:func:`series_of`)."""

    def close(self) -> None:
        """Release resources."""


def _group(rows: Iterable[RunRecord]) -> dict[str, list[RunRecord]]:
    """Rows by site, one per run (rows sharing a non-empty ``run_id`` merged), oldest first."""
    by_run: dict[tuple[str, str], list[RunRecord]] = {}
    for n, row in enumerate(rows):
        by_run.setdefault((row.site, row.run_id or f"#{n}"), []).append(row)
    out: dict[str, list[RunRecord]] = {}
    for (site, _), group in by_run.items():
        out.setdefault(site, []).append(merge_job(group))
    for runs in out.values():
        runs.sort(key=lambda r: r.started)
    return out


class SqliteHistory:
    """:class:`HistoryStore` in one SQLite file; a corrupt file is moved aside and a new one started."""

    def __init__(self, path: str | os.PathLike, retention_days: float = DEFAULT_RETENTION_DAYS,
                 readonly: bool = False):
        self.path = Path(path)
        self.retention_days = retention_days
        self.moved_aside: Path | None = None
        self.skipped = 0  # damaged rows left out of what was read
        if readonly:  # a report: read as it is, never create, check by writing or move aside
            self._db = sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=ro", uri=True,
                                       isolation_level=None, check_same_thread=False)
            self._db.execute(f"PRAGMA busy_timeout={READ_WAIT_MS}")
            self._db.execute("SELECT count(*) FROM runs WHERE 0").fetchall()  # a readable history
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            check_sqlite(self.path)
            self._db = self._open()
        except (CorruptStore, sqlite3.DatabaseError) as exc:
            if isinstance(exc, sqlite3.OperationalError) and not _is_damage(exc):
                raise
            self._rebuild(exc)

    @classmethod
    def in_dir(cls, directory: str | os.PathLike | None = None,
               retention_days: float = DEFAULT_RETENTION_DAYS, readonly: bool = False) -> SqliteHistory:
        return cls(state_dir(directory) / DB_NAME, retention_days, readonly)

    def _open(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA busy_timeout=10000")
            # The plotted signals are columns too: the report averages them in SQL (series()).
            db.execute("CREATE TABLE IF NOT EXISTS runs (site TEXT NOT NULL, started TEXT NOT NULL, "
                       "run_id TEXT NOT NULL, epoch REAL NOT NULL, exported INTEGER, body_median REAL, "
                       "share_title REAL, share_date REAL, share_authors REAL, dropped TEXT, "
                       "row TEXT NOT NULL, PRIMARY KEY (site, started, run_id))")
            db.execute("CREATE INDEX IF NOT EXISTS runs_epoch ON runs (epoch)")
            # covers series(): its scan never reads the wide row column
            db.execute("CREATE INDEX IF NOT EXISTS runs_plot ON runs "
                       f"(site, epoch, started, {', '.join(PLOTTED)}, dropped)")
        except sqlite3.DatabaseError:
            db.close()
            raise
        return db

    def _rebuild(self, exc: BaseException) -> None:
        self.moved_aside = move_aside(self.path)
        logger.warning("The run history %s is damaged (%s): moved it to %s and starting a new one",
                       self.path, exc, self.moved_aside.name)
        self._db = self._open()

    def add(self, record: RunRecord) -> None:
        try:
            self._add(record)
        except sqlite3.DatabaseError as exc:
            if not _is_damage(exc):
                raise
            self._db.close()
            self._rebuild(exc)
            self._add(record)

    def _add(self, record: RunRecord) -> None:
        with self._db:
            self._db.execute("BEGIN IMMEDIATE")
            self._db.execute(f"INSERT OR REPLACE INTO runs ({', '.join(COLUMNS)}) "
                             f"VALUES ({', '.join('?' * len(COLUMNS))})", columns(record))
            if self.retention_days > 0:
                horizon = record.start_time.timestamp() - self.retention_days * 86400
                self._db.execute("DELETE FROM runs WHERE epoch < ?", (horizon,))

    def runs(self, sites: Iterable[str] | None = None,
             since: datetime | None = None) -> dict[str, list[RunRecord]]:
        where, args = _where(since, sites)
        rows = self._db.execute(f"SELECT row FROM runs{where} ORDER BY started", args)
        return _group(_decode((row for (row,) in rows), self))

    def latest(self, n: int, sites: Iterable[str] | None = None) -> dict[str, list[RunRecord]]:
        """site -> its last ``n`` runs, oldest first."""
        rows: list[str] = []
        for site in (list(sites) if sites is not None else self.sites()):
            found = self._db.execute("SELECT row FROM runs WHERE site = ? ORDER BY started DESC LIMIT ?",
                                     (site, n)).fetchall()
            rows.extend(row for (row,) in reversed(found))
        return _group(_decode(rows, self))

    def series(self, since: datetime, until: datetime, sites: Iterable[str] | None = None,
               points: int | None = None) -> dict[str, dict[str, Any]]:
        """:func:`series_of` for every site, computed by SQLite from the covering index."""
        where, args = _where(since, sites)
        width = (until.timestamp() - since.timestamp()) / points if points else 0.0
        slot = "CAST((epoch - ?) / ? AS INTEGER)" if points else "epoch"
        slot_args = [since.timestamp(), width or 1.0] if points else []
        out: dict[str, dict[str, Any]] = {}
        index: dict[tuple[str, float], tuple[int, int]] = {}  # (site, slot) -> (position, runs)
        for site, b, started, n, *values in self._db.execute(
                f"SELECT site, {slot} AS b, min(started), count(*), "
                f"{', '.join(f'avg({p})' for p in PLOTTED)} FROM runs{where} "
                "GROUP BY site, b ORDER BY site, b",
                [*slot_args, *args]):
            entry = out.setdefault(site, _empty_series(points))
            index[site, b] = (len(entry["started"]), n)
            entry["slot"].append(int(b) if points else len(entry["slot"]))
            entry["started"].append(started)
            entry["runs"].append(n)
            for name, value in zip(PLOTTED, values, strict=True):
                entry[name].append(value if value is None else round(value, 4))
        for site, b, reason, total in self._db.execute(
                f"SELECT site, {slot} AS b, j.key, sum(j.value) FROM runs, json_each(runs.dropped) AS j"
                f"{where} GROUP BY site, b, j.key", [*slot_args, *args]):
            position, n = index[site, b]
            drops = out[site]["drops"].setdefault(reason, [0.0] * len(out[site]["started"]))
            drops[position] = round(total / n, 4)
        return out

    def sites(self) -> list[str]:
        return [s for (s,) in self._db.execute("SELECT DISTINCT site FROM runs ORDER BY site")]

    def close(self) -> None:
        self._db.close()


COLUMNS = ("site", "started", "run_id", "epoch", "exported", "body_median", "share_title", "share_date",
           "share_authors", "dropped", "row")


def columns(record: RunRecord) -> tuple[Any, ...]:
    """A record as the SQLite table's columns."""
    return (record.site, record.started, record.run_id, record.start_time.timestamp(), record.exported,
            record.body_median,
            record.share_title, record.share_date, record.share_authors,
            json.dumps(record.dropped, separators=(",", ":")), record.to_json())


def _where(since: datetime | None, sites: Iterable[str] | None) -> tuple[str, list[Any]]:
    where, args = [], []
    if since is not None:
        where.append("epoch >= ?")
        args.append(since.timestamp())
    if sites is not None:
        wanted = list(sites)
        where.append(f"site IN ({', '.join('?' * len(wanted))})")
        args.extend(wanted)
    return (" WHERE " + " AND ".join(where) if where else ""), args


def _empty_series(points: int | None) -> dict[str, Any]:
    return {"slots": points, "slot": [], "started": [], "runs": [], **{name: [] for name in PLOTTED},
            "drops": {}}


def series_of(runs: list[RunRecord], since: datetime | None = None, until: datetime | None = None,
              points: int | None = None) -> dict[str, Any]:
    """The plotted signals of ``runs`` (one site's, oldest first) from ``since`` to ``until``.

    With ``points`` the span is cut into that many equal slots of time and each slot with runs
    gives one value: the mean exports, median body length and field shares of its runs (missing
    values left out; None when all are) and the mean count of each drop reason per run; ``slot``
    lists the slots that have runs, so a gap in the crawls is a gap in the plot.  Without
    ``points`` every run is a slot of its own."""
    out = _empty_series(points)
    if since is not None:
        runs = [r for r in runs if r.start_time >= since]
    if points and since is not None and until is not None:
        width = max(1e-9, (until.timestamp() - since.timestamp()) / points)
        key = [int((r.start_time.timestamp() - since.timestamp()) // width) for r in runs]
    else:
        key = list(range(len(runs)))
    slots: dict[int, list[RunRecord]] = {}
    for k, run in zip(key, runs, strict=True):
        slots.setdefault(k, []).append(run)
    for position, (k, group) in enumerate(slots.items()):
        out["slot"].append(k)
        out["started"].append(group[0].started)
        out["runs"].append(len(group))
        for name in PLOTTED:
            present = [getattr(r, name) for r in group if getattr(r, name) is not None]
            out[name].append(round(sum(present) / len(present), 4) if present else None)
        for run in group:
            for reason, n in run.dropped.items():
                drops = out["drops"].setdefault(reason, [0.0] * len(slots))
                drops[position] += n / len(group)
    out["drops"] = {k: [round(v, 4) for v in values] for k, values in out["drops"].items()}
    return out


def _is_damage(exc: BaseException) -> bool:
    """A SQLite error that means the file is not a usable database (not a lock, a full disk or a
    read-only file system: those are the machine's problem, and moving the file would not help)."""
    if isinstance(exc, sqlite3.OperationalError):
        text = str(exc).lower()
        return "malformed" in text or "not a database" in text or "no such table" in text
    return isinstance(exc, sqlite3.DatabaseError)


def _decode(rows: Iterable[str], store: Any) -> Iterable[RunRecord]:
    """Stored rows as records; a row that does not decode (not JSON, a field missing or of the
    wrong type) is skipped with a warning and counted in ``store.skipped``."""
    for text in rows:
        try:
            yield RunRecord.from_dict(json.loads(text)).checked()
        except (TypeError, ValueError, AttributeError) as exc:
            store.skipped += 1
            logger.warning("Skipped a damaged run-history row: %s", exc)


class RedisHistory:
    """:class:`HistoryStore` in Redis: ``<prefix>:health:<site>`` sorted sets (score: start time,
    member: the row as JSON) and the set ``<prefix>:health-sites``."""

    def __init__(self, client: Any, prefix: str = "newscrawl",
                 retention_days: float = DEFAULT_RETENTION_DAYS):
        self.client = client
        self.prefix = prefix
        self.retention_days = retention_days
        self.skipped = 0  # damaged rows left out of what was read

    def _key(self, site: str) -> str:
        return f"{self.prefix}:health:{site}"

    def add(self, record: RunRecord) -> None:
        score = record.start_time.timestamp()
        with self.client.pipeline(transaction=True) as pipe:
            pipe.zadd(self._key(record.site), {record.to_json(): score})
            pipe.sadd(f"{self.prefix}:health-sites", record.site)
            if self.retention_days > 0:
                horizon = score - self.retention_days * 86400
                pipe.zremrangebyscore(self._key(record.site), "-inf", f"({horizon}")
            pipe.execute()

    def sites(self) -> list[str]:
        names = self.client.smembers(f"{self.prefix}:health-sites")
        return sorted(n.decode() if isinstance(n, bytes) else n for n in names)

    def runs(self, sites: Iterable[str] | None = None,
             since: datetime | None = None) -> dict[str, list[RunRecord]]:
        low = since.timestamp() if since is not None else "-inf"
        rows: list[RunRecord] = []
        for site in (list(sites) if sites is not None else self.sites()):
            members = self.client.zrangebyscore(self._key(site), low, "+inf")
            rows.extend(_decode((m.decode() if isinstance(m, bytes) else m for m in members), self))
        return _group(rows)

    def latest(self, n: int, sites: Iterable[str] | None = None) -> dict[str, list[RunRecord]]:
        return {site: runs[-n:] for site, runs in self.runs(sites).items()}

    def series(self, since: datetime, until: datetime, sites: Iterable[str] | None = None,
               points: int | None = None) -> dict[str, dict[str, Any]]:
        return {site: series_of(runs, since, until, points) for site, runs in self.runs(sites, since).items()}

    def close(self) -> None:
        """The client belongs to the caller."""


def open_history(settings: Any, *, client: Any = None, readonly: bool = False) -> HistoryStore:
    """The history store ``settings`` name: Redis with ``NEWSCRAWL_DISTRIBUTED`` (as the seen store
    does), else SQLite in the state directory.  ``client``: an open Redis client to share;
    ``readonly``: for a report (SQLite opened read-only: nothing created, checked or moved)."""
    retention = float(settings.get("NEWSCRAWL_HEALTH_RETENTION_DAYS") or 0) \
        if settings.get("NEWSCRAWL_HEALTH_RETENTION_DAYS") is not None else DEFAULT_RETENTION_DAYS
    url = settings.get("NEWSCRAWL_DISTRIBUTED")
    if url:
        from newscrawl.state.redis_client import DEFAULT_PREFIX, connect

        prefix = settings.get("NEWSCRAWL_REDIS_PREFIX") or DEFAULT_PREFIX
        return RedisHistory(client if client is not None else connect(url), prefix, retention)
    return SqliteHistory.in_dir(settings.get("NEWSCRAWL_STATE_DIR"), retention, readonly)


def now_utc() -> datetime:
    return datetime.now(UTC)
