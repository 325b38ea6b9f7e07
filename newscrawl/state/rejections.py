"""The memory of rejected pages: :class:`RejectionMemory`, the part of
:class:`~newscrawl.state.seen_urls.SeenUrls` that remembers a fetched page dropped without an
article, with its reason and cause class, and decides when it is fetched again.

- ``lasting`` (:data:`UNEXPORTED_REASONS`: the page's own: no text, not an article, a copy): not
  fetched again for ``NEWSCRAWL_RETRY_UNEXPORTED_DAYS``;
- ``degraded`` (:data:`DEGRADED_REASONS`, :data:`DEGRADED_PREFIXES`: the site's own failure, a wall
  or a body shared by pages of other titles; and every rejection of a run judged failing,
  :meth:`RejectionMemory._judge_site`): fetched again as soon as the site is healthy, in the same
  run (:meth:`RejectionMemory._exported_one`); a probe in each run while the site is marked failing;
- ``recheck`` (``scrapy recheck SITE``): fetched on the next run.

A page fetched again that fails again the same way counts under ``again/<reason>``, not as a new
failure (:mod:`newscrawl.commands.outcome`).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from newscrawl.items import ArticleItem
from newscrawl.run.drops import DROP_PREFIX
from newscrawl.state.seen_store import DEGRADED, LASTING, RECHECK, canonical_url

logger = logging.getLogger(__name__)


#: Drop reasons of a fetched page that a later fetch would most likely drop again, of the page's own
#: making (cause ``lasting``): remembered, and not fetched again for NEWSCRAWL_RETRY_UNEXPORTED_DAYS.
#: A copy of an exported article (duplicate, duplicate_content) stays one.  Not transient failures
#: (HTTP errors, timeouts, worker crashes) nor reasons that depend on the run's options (too_old).
UNEXPORTED_REASONS = ("no_text", "no_title", "empty_body", "binary", "unparseable", "too_deep",
                      "duplicate", "duplicate_content")


UNEXPORTED_PREFIXES = ("not_article/",)


COPIES = ("duplicate", "duplicate_content")


#: Drop reasons of a page that failed because of its site (a wall in front of the articles, a layout
#: the extraction no longer reads): cause ``degraded``, fetched again once the site is healthy.
DEGRADED_REASONS = WALLS = ("consent_wall", "login_wall")


DEGRADED_PREFIXES = ("extraction_failed/",)


RETRY_UNEXPORTED_DAYS = 30.0


UNEXPORTED_STATS = "newscrawl/unexported/"  # recorded, retried, probed, requeued, again/<reason>



def remembered(reason: str) -> bool:
    """Is a page dropped for ``reason`` remembered as unexported (lasting or degraded)?"""
    return (reason in UNEXPORTED_REASONS or reason.startswith(UNEXPORTED_PREFIXES)
            or cause_of(reason) == DEGRADED)


def cause_of(reason: str) -> str:
    """The cause class a drop reason has by its name: ``degraded`` (the site's failure) or ``lasting``."""
    return DEGRADED if reason in DEGRADED_REASONS or reason.startswith(DEGRADED_PREFIXES) else LASTING


@dataclass(frozen=True)
class Rejection:
    """Why an earlier run fetched a page and exported nothing: its drop reason and cause class."""

    reason: str
    cause: str



class RejectionMemory:
    """Mixin of :class:`~newscrawl.state.seen_urls.SeenUrls` (its crawler, store, claims and keys)."""

    def _init_rejections(self) -> None:
        self._retrying: dict[str, Rejection] = {}  # canonical URL of a rejected page fetched again -> why
        self._unexported_warned = False
        self._healthy: set[str] = set()  # sites this run has shown healthy (:meth:`_exported_one`)
        self._exports: dict[str, int] = {}  # site -> articles exported in this run before it was healthy
        self._want_probe: set[str] = set()  # sites whose next held listing is fetched as a probe
        self._probed: set[str] = set()  # sites of a degraded mark whose run fetched one rejection again
        self._degraded: dict[str, bool] = {}  # site -> marked degraded by the run before (read once)
        self._held: dict[str, list[tuple[Any, Rejection]]] = {}  # site -> degraded rejections skipped
        self._recorded: dict[str, dict[tuple[str, ...], tuple[str, str, bool]]] = {}  # site -> this
        # run's rejections: URLs -> (reason, cause, failed again after a fetch again)

    def rejected(self, site: str, url: str) -> str | None:
        """The reason of :meth:`rejection`, or None."""
        found = self.rejection(site, url)
        return found.reason if found else None

    def rejection(self, site: str, url: str) -> Rejection | None:
        """Why an earlier run fetched ``url`` and exported nothing, when that still holds it back;
        None when it is to be fetched (always with ``NEWSCRAWL_FRESH`` or
        ``NEWSCRAWL_RETRY_UNEXPORTED_DAYS = 0``).  See :meth:`_judge`."""
        if self.fresh or self.retry_days <= 0:
            return None
        lookup = getattr(self._store(), "unexported", None)
        found = lookup(site, self._key(url)) if lookup is not None else None
        return self._judge(site, url, found)

    def _judge(self, site: str, url: str, found: tuple[str, ...] | None) -> Rejection | None:
        """A remembered rejection holds a page back unless it is older than
        ``NEWSCRAWL_RETRY_UNEXPORTED_DAYS`` or marked by ``scrapy recheck`` (``retried``).  A
        ``degraded`` one is fetched again once this run has shown the site healthy (``requeued``,
        :meth:`_exported_one`), a wall (:data:`WALLS`) at once when the site is not marked failing
        (a wall in front of one page of a working site comes and goes); while the site is marked
        failing, one of them is fetched as a probe (``probed``): the site may be fixed.  A page fetched
        again is noted, so that failing again the same way is not a new failure
        (:meth:`item_dropped`)."""
        if found is None:
            return None
        reason, stamp, cause = (*found, LASTING)[:3]
        try:
            when = datetime.fromisoformat(stamp)
        except ValueError:
            return None
        rejection = Rejection(reason, cause)
        if cause == RECHECK or datetime.now(UTC) - when >= timedelta(days=self.retry_days):
            return self._retry(url, rejection, "retried")
        if cause == DEGRADED:
            if site in self._healthy or (rejection.reason in WALLS and not self._site_degraded(site)):
                return self._retry(url, rejection, "requeued")
            if site not in self._probed and self._site_degraded(site):
                self._probed.add(site)
                return self._retry(url, rejection, "probed")
        return rejection

    def _retry(self, url: str, rejection: Rejection, why: str) -> None:
        self._retrying[canonical_url(url)] = rejection
        self.crawler.stats.inc_value(UNEXPORTED_STATS + why)
        return None

    def _site_degraded(self, site: str) -> bool:
        if site not in self._degraded:
            lookup = getattr(self._store(), "degraded", None)
            self._degraded[site] = bool(lookup(site)) if lookup is not None else False
        return self._degraded[site]

    def hold(self, item: Any, rejection: Rejection) -> None:
        """Keep a listing skipped for a ``degraded`` rejection: fetched if the site proves healthy."""
        if rejection.cause == DEGRADED:
            self._held.setdefault(item.site, []).append((item, rejection))
            if item.site in self._want_probe:  # an export is waiting for its further probe
                self._want_probe.discard(item.site)
                self._requeue(item.site, 1, "probed")

    def _exported_one(self, site: str) -> None:
        """An article of ``site`` was exported.  The first one shows the site healthy, or the second
        when the run before found its extraction failing (a wall's first page of a run can pass
        for an article; its second cannot): then the listings held back for a degraded rejection
        are fetched now.  Before that, each export of such a site lets one held listing through,
        as a further probe."""
        if site in self._healthy:
            return
        self._exports[site] = self._exports.get(site, 0) + 1
        if self._exports[site] >= (2 if self._site_degraded(site) else 1):
            self._healthy.add(site)
            self._requeue(site, len(self._held.get(site, ())), "requeued")
        elif not self._requeue(site, 1, "probed"):
            self._want_probe.add(site)  # the next held listing is the probe

    def _requeue(self, site: str, count: int, why: str) -> int:
        """Fetch ``count`` held listings of ``site`` now (their ``already_rejected`` drop is taken
        back: the closing line counts each listing once); returns how many."""
        spider, engine, held = self.crawler.spider, self.crawler.engine, self._held.get(site, [])
        done = 0
        while held and done < count and spider is not None and engine is not None:
            item, rejection = held.pop(0)
            if not self.claim(item.url):
                continue
            done += 1
            self._retry(item.url, rejection, why)
            self.crawler.stats.inc_value(DROP_PREFIX + "already_rejected", -1)
            self.crawler.stats.inc_value("newscrawl/scheduled")
            engine.crawl(spider.detail_request(item, self.run_id))
        return done

    def item_dropped(self, item: Any, spider, exception: BaseException) -> None:
        """Remember a fetched page dropped for a reason a new fetch would likely repeat
        (:func:`remembered`).  A page fetched again after an earlier rejection that fails again in
        the same way (the same reason or cause class) counts under ``again/<reason>``, not as a
        new failure, and keeps its cause."""
        reason = getattr(exception, "reason", None)
        if not isinstance(item, ArticleItem) or not reason or self.state_failed:
            return
        urls = [u for u in (item.url, item.listing_url) if u]
        before = next((self._retrying[k] for u in urls if (k := canonical_url(u)) in self._retrying), None)
        again = before is not None and remembered(reason) and (before.reason == reason
                                                                or before.cause == cause_of(reason))
        if again:
            self.crawler.stats.inc_value(f"{UNEXPORTED_STATS}again/{reason}")
        if reason == "extraction_failed/shared_body":
            self._take_back(item.site, getattr(exception, "detail", ""))
        if not remembered(reason):
            return
        cause = before.cause if again and before.cause != RECHECK else cause_of(reason)
        self._remember(item.site, urls, reason, cause, again)

    def _take_back(self, site: str, detail: str) -> None:
        """The page a shared body was first extracted from, exported earlier in this run, exported
        that body too: its export record is taken back and it is remembered as a degraded rejection,
        so it is fetched (and exported) again once the site is healthy."""
        from newscrawl.pipelines.shared_body import first_page  # the pipelines import this module

        first = first_page(detail or "")
        urls = self._exported_urls.pop(canonical_url(first), None) if first else None
        forget = getattr(self._store(), "forget", None)
        if not urls or forget is None:
            return
        try:
            forget(site, [self._key(u) for u in urls])
        except Exception as exc:  # noqa: BLE001 - it stays exported, as before
            logger.warning("Cannot take back the export of %s: %s", first, exc)
            return
        self._exported.difference_update(canonical_url(u) for u in urls)
        self._claimed.update(canonical_url(u) for u in urls)  # not fetched again in this run
        self.crawler.stats.inc_value(UNEXPORTED_STATS + "taken_back")
        logger.warning("The text exported for %s is a body other pages share, not its article: it is "
                       "fetched and exported again once the site is healthy", first)
        self._remember(site, urls, "extraction_failed/shared_body", DEGRADED, again=False)

    def _remember(self, site: str, urls: list[str], reason: str, cause: str, again: bool) -> None:
        """Record a rejection of this run, and note it for :meth:`judge_run`."""
        if self._record(site, urls, reason, cause):
            self._recorded.setdefault(site, {})[tuple(urls)] = (reason, cause, again)

    def _record(self, site: str, urls: list[str], reason: str, cause: str, count: bool = True) -> bool:
        add = getattr(self._store(), "add_unexported", None)
        if add is None:
            return False
        try:
            add(site, [self._key(u) for u in urls], reason, cause)
        except Exception as exc:  # noqa: BLE001 - a missed record costs one fetch next run, nothing more
            if not self._unexported_warned:
                self._unexported_warned = True
                logger.warning("Cannot record unexported pages in %s: %s (they are fetched again next run)",
                               self._store_name(), exc)
            return False
        if count:
            self.crawler.stats.inc_value(UNEXPORTED_STATS + "recorded")
        return True

    def _taken_back(self, site: str, url: str, fetched_at: Any) -> bool:
        """Was the export of ``url`` (fetched at ``fetched_at``) taken back by a later rejection?"""
        lookup = getattr(self._store(), "unexported", None)
        found = lookup(site, self._key(url)) if lookup is not None else None
        try:
            return found is not None and datetime.fromisoformat(found[1]) >= datetime.fromisoformat(
                fetched_at)
        except (TypeError, ValueError):
            return False

    def _judge_site(self, site: str) -> None:
        stats = self.crawler.stats
        recorded = self._recorded.get(site, {})
        # copies are not failures of the extraction: a site that syndicates much is not failing
        new = sum(1 for reason, _, again in recorded.values() if not again and reason not in COPIES)
        exported = stats.get_value("newscrawl/exported", 0)
        exported -= stats.get_value(UNEXPORTED_STATS + "taken_back", 0)  # their text was no article
        try:
            max_rate = self.crawler.settings.getfloat("NEWSCRAWL_MAX_ERROR_RATE", 0.5)
        except ValueError:
            max_rate = 0.5
        alarmed = bool(stats.get_value("newscrawl/health/alarms"))
        degraded = alarmed or (new > 0 and new / (new + exported) > max_rate)
        mark = getattr(self.store, "set_degraded", None)
        if degraded:
            changed = {urls: reason for urls, (reason, cause, _) in recorded.items() if cause != DEGRADED}
            stats.set_value(UNEXPORTED_STATS + "site_degraded", 1)
        elif exported:
            changed = {urls: reason for urls, (reason, cause, again) in recorded.items()
                       if again and cause != LASTING}
        else:
            return
        for urls, reason in changed.items():
            self._record(site, list(urls), reason, DEGRADED if degraded else LASTING, count=False)
        if mark is not None:
            mark(site, degraded)
