"""Did a crawl work?  The verdict behind the exit status of ``scrapy crawl`` and ``scrapy crawlall``.

A site's crawl *failed* (exit status 1) when any of these holds, read from the crawler's
stats after the run:

- it did not run at all (no ``finish_reason``: the spider could not start);
- its ``finish_reason`` is not ``finished`` (or one of Scrapy's CLOSESPIDER_* limits that the
  user asked for): e.g. ``export_failed``, ``shutdown`` (Ctrl-C), ``locked``,
  ``state_unwritable``, ``state_write_failed``, ``redis_unavailable``;
- a feed could not be written (``newscrawl/export_failed``, or Scrapy's
  ``feedexport/failed_count/*`` for remote storages);
- every listing page it requested failed (``newscrawl/listing_error/*`` — a download error,
  an HTTP error, robots.txt, or a page that listed nothing readable — for all of
  ``newscrawl/listing_requests``): the site could not be crawled at all; or the listing
  pages it read listed no article on the site (``newscrawl/listed`` is 0);
- the site's ``article_pattern`` rejected every link of every catalogue page it read
  (``newscrawl/catalogue/pattern_matched_none``): the pattern matches none of its articles;
- more than ``NEWSCRAWL_MAX_ERROR_RATE`` (default 0.5) of the article pages it could have
  exported failed extraction or met a consent or login wall (drop reasons in
  :data:`EXTRACTION_FAILURES`), e.g. after a site redesign.  Only new failures count: pages an
  earlier run fetched without exporting are remembered with their reason (``already_rejected``,
  :mod:`newscrawl.state.rejections`), and a page fetched again that fails again in the same way
  does not count
  (``newscrawl/unexported/again/<reason>``): an unchanged site stays ok.

The summary line (:meth:`Outcome.line`) accounts for every listed link: ``listed`` = ``exported``
+ the links ``skipped`` by design (:data:`~newscrawl.run.drops.QUIET_REASONS`) + the ``dropped``
ones + those the run did not finish (stopped early).  Drops of links before they were listed
(off-site feed or sitemap entries, unreadable sitemaps, feed entries without a link, list APIs
over the cap: :func:`not_listed`) are shown apart.

Spidermon (the Scrapy monitoring framework) was considered: its monitors run as unit tests at
``spider_closed`` and report through actions (mail, Slack, Sentry), but nothing of it sets the
process exit status, so the command would read the stats after the run either way; these
checks are the few lines below rather than a dependency tree (jsonschema[format],
python-slugify, and the ``monitoring`` extra for notifications).  The verdict's figures are all
in the stats, so a Spidermon suite can watch the same values.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass, field
from pathlib import Path

from scrapy.exceptions import UsageError
from w3lib.url import file_uri_to_path

from newscrawl.export.files import pending
from newscrawl.run.drops import DROP_PREFIX, QUIET_REASONS
from newscrawl.run.guard import StartRefused
from newscrawl.state.rejections import UNEXPORTED_STATS

from ..spiders.site import (
    LISTING_ERROR_PREFIX,
    LISTING_REQUESTS,
    PATTERN_MATCHED_NONE,
    SITEMAP_OUTSIDE_WINDOW,
    SITEMAP_SKIPPED_OLD,
)

logger = logging.getLogger("newscrawl.crawl")

#: Finish reasons of a crawl that did its work: normal end, or a limit the user set.
OK_FINISH_REASONS = frozenset({"finished", "closespider_itemcount", "closespider_pagecount",
                               "closespider_timeout"})
#: Drop reasons of an article page that was fetched but gave no article (a wall in front of it too).
EXTRACTION_FAILURES = ("extraction_error", "extraction_timeout", "extraction_crash", "unparseable",
                       "too_deep", "empty_body", "binary", "no_text", "no_title",
                       "extraction_failed/shared_body", "extraction_failed/boilerplate",
                       "consent_wall", "login_wall")
DEFAULT_MAX_ERROR_RATE = 0.5
AGAIN_PREFIX = UNEXPORTED_STATS + "again/"  # refetched pages rejected again, by reason
LISTING_OFFSITE = "newscrawl/listing_offsite"  # the offsite drops of listed entries (before newscrawl/listed)
NOT_LISTED = ("no_link", "list_api_capped")  # with sitemap_*: drops of entries that were never listed


def not_listed(reason: str) -> bool:
    """Is ``reason`` a drop of a listing's entry before it became a listed link?"""
    return reason in NOT_LISTED or reason.startswith("sitemap_")


@dataclass
class Outcome:
    """One site's crawl in figures, and what went wrong (empty: it worked)."""

    site: str
    finish_reason: str | None
    listed: int = 0
    exported: int = 0
    listing_requests: int = 0
    listing_failed: int = 0
    dropped: dict[str, int] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    store_empty: bool = False  # FEED_STORE_EMPTY: a run that exported nothing still writes its feeds
    alarms: list[str] = field(default_factory=list)  # site-health drift alarms (newscrawl.health)
    again: int = 0  # pages fetched again after an earlier rejection and rejected again the same way
    taken_back: int = 0  # exports whose text proved to be a body other pages share
    listing_offsite: int = 0  # offsite drops of feed/sitemap entries (not listed)

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def known(self) -> int:
        """Listed links that earlier runs exported or fetched and rejected (not fetched this run)."""
        return self.dropped.get("already_exported", 0) + self.dropped.get("already_rejected", 0)

    @property
    def nothing_new(self) -> bool:
        """It worked, exported nothing, and what it listed earlier runs had exported or rejected."""
        return self.ok and self.exported == 0 and self.known > 0

    def accounts(self) -> tuple[dict[str, int], dict[str, int], dict[str, int], int]:
        """The drops split as the line shows them: ``(skipped, dropped, not listed, unfinished)``,
        so that ``listed = exported + sum(skipped) + sum(dropped) + unfinished``."""
        skipped, dropped, unlisted = {}, {}, {}
        for reason, n in sorted(self.dropped.items()):
            if reason == "offsite" and self.listing_offsite:
                unlisted[reason], n = min(n, self.listing_offsite), max(0, n - self.listing_offsite)
            if n <= 0:
                continue
            group = skipped if reason in QUIET_REASONS else unlisted if not_listed(reason) else dropped
            group[reason] = n
        unfinished = self.listed - self.exported - sum(skipped.values()) - sum(dropped.values())
        return skipped, dropped, unlisted, unfinished

    def line(self) -> str:
        """The one-line summary: site, verdict, listed, exported, failed listings, then what became
        of the other listed links (skipped, dropped by reason, unfinished), and drops of entries
        that were never listed."""
        skipped, dropped, unlisted, unfinished = self.accounts()
        verdict = "ok" if self.ok else "FAILED (" + "; ".join(self.problems) + ")"
        parts = [f"{self.site}: {verdict}", f"listed {self.listed}, exported {self.exported}, "
                 f"failed listing pages {self.listing_failed}/{self.listing_requests}"]
        for name, group in (("skipped", skipped), ("dropped", dropped)):
            listed = ", ".join(f"{reason}={n}" for reason, n in group.items())
            parts.append(f"{name} {sum(group.values())}" + (f": {listed}" if listed else ""))
        if self.again:
            parts.append(f"{self.again} of the dropped failed again as before (not new failures)")
        if unfinished > 0:
            parts.append(f"unfinished {unfinished}")
        elif unfinished < 0:
            parts.append(f"{-unfinished} from an earlier run's queue")
        if self.taken_back:
            parts.append(f"{self.taken_back} exported text(s) taken back (a body other pages share)")
        if unlisted:
            parts.append("not listed: " + ", ".join(f"{reason}={n}" for reason, n in unlisted.items()))
        if self.alarms:
            parts.append("HEALTH ALARM: " + "; ".join(self.alarms))
        return "; ".join(parts)


def quiet_refusal(task) -> None:
    """Done-callback for a crawl's task: a run refused at start (:class:`StartRefused`: locked,
    unwritable state, bad export path) has logged its one line already, so its exception is
    taken here instead of asyncio printing it again with a traceback; any other start failure
    is logged with its traceback."""
    if task.cancelled():
        return
    exc = task.exception()  # taking it marks it retrieved
    if exc is not None and not isinstance(exc, StartRefused):
        logger.error("The crawl could not start", exc_info=exc)


def error_rate(exported: int, dropped: dict[str, int],
               again: dict[str, int] | None = None) -> tuple[float, int, int]:
    """(share of fetched article pages that failed extraction, failed, attempted).  ``again``:
    pages refetched after an earlier run rejected them, rejected again, by reason: not counted."""
    again = again or {}
    failed = sum(max(0, dropped.get(reason, 0) - again.get(reason, 0)) for reason in EXTRACTION_FAILURES)
    attempted = exported + failed
    return (failed / attempted if attempted else 0.0), failed, attempted


def max_error_rate(settings) -> float:
    """``NEWSCRAWL_MAX_ERROR_RATE``; a usage error unless it is a number from 0 to 1."""
    try:
        value = settings.getfloat("NEWSCRAWL_MAX_ERROR_RATE", DEFAULT_MAX_ERROR_RATE)
    except ValueError:
        value = math.nan
    if not 0.0 <= value <= 1.0:
        raise UsageError(f"NEWSCRAWL_MAX_ERROR_RATE must be a number from 0 to 1, got "
                         f"{settings.get('NEWSCRAWL_MAX_ERROR_RATE')!r}", print_help=False)
    return value


def outcome_of(crawler) -> Outcome:
    """The verdict on ``crawler``'s finished run, from its stats."""
    stats = crawler.stats.get_stats()
    dropped = {k[len(DROP_PREFIX):]: v for k, v in stats.items() if k.startswith(DROP_PREFIX)}
    listing_failed = sum(v for k, v in stats.items() if k.startswith(LISTING_ERROR_PREFIX))
    outcome = Outcome(
        site=getattr(crawler.spider, "name", None) or getattr(crawler.spidercls, "name", "?"),
        finish_reason=stats.get("finish_reason"),
        listed=stats.get("newscrawl/listed", 0),
        exported=stats.get("newscrawl/exported", 0),
        listing_requests=stats.get(LISTING_REQUESTS, 0),
        listing_failed=listing_failed,
        dropped=dropped,
        store_empty=crawler.settings.getbool("FEED_STORE_EMPTY"),
        alarms=list(stats.get("newscrawl/health/alarms") or []),
        again=sum(v for k, v in stats.items() if k.startswith(AGAIN_PREFIX)),
        taken_back=stats.get(UNEXPORTED_STATS + "taken_back", 0),
        listing_offsite=stats.get(LISTING_OFFSITE, 0),
    )
    outcome.problems = problems(stats, outcome, max_error_rate(crawler.settings))
    return outcome


def problems(stats: dict, outcome: Outcome, max_rate: float) -> list[str]:
    """Why the crawl counts as failed (see the module docstring); empty when it worked."""
    found = []
    reason = outcome.finish_reason
    if reason is None:
        return ["the crawl did not start"]
    if reason not in OK_FINISH_REASONS:
        found.append(f"finish reason {reason}")
    if stats.get("newscrawl/export_failed"):
        found.append(f"export failed: {stats['newscrawl/export_failed']}")
    elif any(k.startswith("feedexport/failed_count/") and v for k, v in stats.items()):
        found.append("a feed could not be stored")
    # In the distributed mode another worker reads the listing pages claimed elsewhere.
    own_listings = outcome.listing_requests - stats.get("newscrawl/distributed/listing_claimed_elsewhere", 0)
    if outcome.listing_failed and outcome.listing_failed >= own_listings:
        found.append(f"every listing page failed ({outcome.listing_failed}/{own_listings})")
    elif (own_listings > 0 and outcome.listed == 0 and not stats.get(SITEMAP_SKIPPED_OLD)
          and not stats.get(SITEMAP_OUTSIDE_WINDOW)):
        # (sitemaps whose entries are all older than the date window listed nothing new: not a failure)
        found.append("no article link on any listing page")
    if stats.get(PATTERN_MATCHED_NONE):
        found.append(f"article_pattern matched none of {stats[PATTERN_MATCHED_NONE]} catalogue links")
    again = {k[len(AGAIN_PREFIX):]: v for k, v in stats.items() if k.startswith(AGAIN_PREFIX)}
    rate, failed, attempted = error_rate(outcome.exported, outcome.dropped, again)
    if rate > max_rate:
        found.append(f"extraction failed on {failed} of {attempted} article pages "
                     f"({rate:.0%} > NEWSCRAWL_MAX_ERROR_RATE {max_rate:.0%})")
    return found


def overwritten_feeds(settings, site: str) -> dict[str, int]:
    """Local feed files of ``FEEDS`` with ``overwrite`` (``-O``) that hold data now: path -> bytes."""
    held = {}
    for uri, options in settings.getdict("FEEDS").items():
        uri = str(uri)
        if not (options or {}).get("overwrite") or ("://" in uri and not uri.startswith("file:")):
            continue
        path = Path(file_uri_to_path(uri) if uri.startswith("file:") else uri.replace("%(name)s", site))
        try:
            size = path.stat().st_size
        except OSError:
            continue
        if size and not ((options or {}).get("format") == "parquet" and pending(path)):  # kept: not replaced
            held[str(path)] = size
    return held


def report(outcome: Outcome, replaced: dict[str, int] | None = None) -> None:
    """Log the crawl's summary line, and the notices a re-run needs."""
    if outcome.ok:
        logger.info("Crawl %s", outcome.line())
    else:
        logger.error("Crawl %s", outcome.line())
    if outcome.nothing_new:
        feed = ("the feed file holds no article (FEED_STORE_EMPTY)" if outcome.store_empty
                else "the feed file was left as it was")
        rejected = outcome.dropped.get("already_rejected", 0)
        logger.info("%s: nothing new: %d listed link(s) were exported by earlier runs%s; %s "
                    "(NEWSCRAWL_FRESH=1 exports them again)",
                    outcome.site, outcome.dropped.get("already_exported", 0),
                    f", {rejected} fetched by earlier runs gave no article" if rejected else "", feed)
    elif outcome.exported:
        for path, size in (replaced or {}).items():
            logger.warning("-O replaced the %d bytes an earlier run had written to %s with this run's %d "
                           "new article(s); use -o to append across runs", size, path, outcome.exported)
