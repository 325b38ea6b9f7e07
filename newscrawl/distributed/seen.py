""":class:`RedisSeenUrls`: :class:`~newscrawl.state.seen_urls.SeenUrls` with the seen store and the
in-run sets in Redis, shared by every worker.  Exported URLs that cannot be recorded during an
outage are recorded when Redis is back, or written to ``redis-unrecorded.json`` in the state
directory for the next run.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from scrapy import signals
from scrapy.exceptions import NotConfigured

from newscrawl.distributed.claims import RedisClaims
from newscrawl.distributed.link import RedisLink
from newscrawl.distributed.options import CLAIM_TTL, HEARTBEAT_TTL, JOURNAL, SETTING, STATS, _prefix, _retries
from newscrawl.distributed.workers import RedisWorkers
from newscrawl.items import ArticleItem
from newscrawl.state.redis_client import UNREACHABLE, connect
from newscrawl.state.redis_seen import RedisSeenStore
from newscrawl.state.rejections import Rejection
from newscrawl.state.seen_store import canonical_url, state_dir
from newscrawl.state.seen_urls import SeenUrls

logger = logging.getLogger(__name__)



class RedisSeenUrls(SeenUrls):
    """:class:`~newscrawl.state.seen_urls.SeenUrls` with the store and the in-run claims in Redis.

    Owns the worker's id, its Redis client, its :class:`RedisLink` and its place in the
    job (:class:`~newscrawl.distributed.workers.RedisWorkers`).  The gate stages resolve an item's
    store checks and claims ahead (:meth:`resolve_listing`, :meth:`resolve_export`, waiting
    out an outage); the synchronous checks of the pipeline stages then read those answers.
    """

    def __init__(self, crawler):
        settings = crawler.settings
        self.client = connect(settings.get(SETTING), _retries(settings))
        prefix = _prefix(settings)
        super().__init__(crawler, store=RedisSeenStore(self.client, prefix))
        self.prefix = prefix
        self.worker = self.run_id
        self.claims = RedisClaims(self.client, prefix, owner=self.worker)
        self.workers = RedisWorkers(self.client, prefix, crawler.spidercls.name, self.worker)
        self.link = RedisLink(crawler, self.client)
        self.claim_ttl = settings.getint("NEWSCRAWL_CLAIM_TTL", CLAIM_TTL)
        self._exported_answers: dict[str, bool] = {}  # canonical URL -> in the store? (resolved ahead)
        self._rejected_answers: dict[str, tuple[str, ...] | None] = {}  # -> unexported record (ahead)
        self._detail_claims: dict[str, bool] = {}  # canonical URL -> detail claim won? (resolved ahead)
        self._to_park: set[str] = set()  # detail claims a busy worker holds: the scheduler parks them
        self._export_claims: dict[tuple[str, ...], bool] = {}  # an article's URLs -> export claim won?
        self._unrecorded: dict[str, list[str]] = {}  # site -> exported URLs Redis has not recorded yet
        self.heartbeat_ttl = settings.getfloat("NEWSCRAWL_REDIS_HEARTBEAT_TTL", HEARTBEAT_TTL)
        self.link.on_recovery(lambda: self.workers.beat(self.heartbeat_ttl, busy=True))  # alive: first
        self.link.on_recovery(self.check_data_kept)
        self.link.on_recovery(self.record_unrecorded)
        crawler.signals.connect(self._close_client, signal=signals.engine_stopped)

    @classmethod
    def from_crawler(cls, crawler) -> RedisSeenUrls:
        if not crawler.settings.get(SETTING):
            raise NotConfigured(f"{SETTING} is not set")
        return cls(crawler)

    def _canonical(self, url: str) -> str:
        return canonical_url(self._key(url))

    def _scope(self, kind: str) -> str:
        return f"{self.crawler.spidercls.name}:{kind}"

    # -- answers resolved ahead by the gate stages ------------------------------------

    def resolve_listing(self, site: str, url: str) -> None:
        """Is the listed article exported?  If not, claim its detail page (ListingGate; may raise)."""
        key = self._canonical(url)
        if not self.fresh:
            self._exported_answers[key] = exported = self.store.contains(site, self._key(url))
            if exported:
                return
            if self.retry_days > 0:
                self._rejected_answers[key] = self.store.unexported(site, self._key(url))
        if key not in self._claimed and key not in self._detail_claims:
            claim = self.claims.claim(self._scope("detail"), key, self.claim_ttl,
                                      takeover=self.link.may_take_over())
            if claim.taken_over:
                self.crawler.stats.inc_value("newscrawl/distributed/claims_taken_over", claim.taken_over)
            if claim.holder_may_fail:
                self._to_park.add(key)  # scheduled, then parked until its holder is idle, done or gone
            self._detail_claims[key] = claim.won or key in self._to_park

    def resolve_export(self, site: str, urls: list[str]) -> None:
        """Was the article exported?  If not, claim its URLs for export (ExportGate; may raise)."""
        keys = tuple(self._canonical(u) for u in urls)
        if not self.fresh:
            answers = [self.store.contains(site, self._key(u)) for u in urls]
            self._exported_answers.update(zip(keys, answers, strict=True))
            if any(answers):
                return
        if keys:
            self._export_claims[keys] = self._claim_export(keys)

    def exported(self, site: str, url: str) -> bool:
        if self.fresh:
            return super().exported(site, url)
        answer = self._exported_answers.pop(self._canonical(url), None)
        if answer is not None:
            return answer
        if self.link.up:
            try:
                return super().exported(site, url)
            except UNREACHABLE as exc:
                self.link.failed(exc)
        return False  # unresolved and unknowable: the export gate's resolved answer decides

    def listed_earlier(self, url: str) -> bool:
        return self._canonical(url) in self._claimed or canonical_url(url) in self._exported

    def rejection(self, site: str, url: str) -> Rejection | None:
        if self.fresh or self.retry_days <= 0:
            return None
        key = self._canonical(url)
        if key in self._rejected_answers:
            return self._judge(site, url, self._rejected_answers.pop(key))
        if self.link.up:
            try:
                return super().rejection(site, url)
            except UNREACHABLE as exc:
                self.link.failed(exc)
        return None  # unknowable now: fetch it

    def claim(self, url: str) -> bool:
        """Reserve ``url`` for fetching across all workers; False when any worker already did."""
        key = self._canonical(url)
        if key in self._claimed:
            return False
        won = self._detail_claims.pop(key, None)
        if won is None:  # not resolved ahead: ask Redis now; if it is down, fetch (the export gate guards)
            won = True
            if self.link.up:
                try:
                    won = self.claims.claim(self._scope("detail"), key, self.claim_ttl,
                                            takeover=self.link.may_take_over()).won
                except UNREACHABLE as exc:
                    self.link.failed(exc)
        if won:
            self._claimed.add(key)
        return won

    def _claim_export(self, keys: tuple[str, ...]) -> bool:
        claim = self.claims.claim_all(self._scope("export"), keys, self.claim_ttl,
                                      takeover=self.link.may_take_over())
        if claim.taken_over:
            self.crawler.stats.inc_value("newscrawl/distributed/claims_taken_over", claim.taken_over)
        return claim.won

    def take_park(self, url: str) -> str | None:
        """The claim key of a detail request to park (its claim is a busy worker's), else None."""
        key = self._canonical(url)
        if key in self._to_park:
            self._to_park.discard(key)
            return key
        return None

    def claim_export(self, urls: list[str]) -> bool:
        """Reserve an article's URLs for export across all workers (the export gate's check)."""
        keys = tuple(self._canonical(u) for u in urls)
        won = self._export_claims.pop(keys, None)
        if won is not None:
            return won
        try:
            return self._claim_export(keys)
        except UNREACHABLE as exc:
            self.link.failed(exc)
            logger.warning("Export claim of %s not resolved and Redis unreachable: not exported", urls[0])
            return False

    # -- recording exported URLs --------------------------------------------------------

    def item_scraped(self, item: Any, spider) -> None:
        if not isinstance(item, ArticleItem) or self.export_failed:
            return
        if self.link.up:
            try:
                super().item_scraped(item, spider)
                return
            except UNREACHABLE as exc:
                self.link.failed(exc)
        urls = [u for u in (item.url, item.listing_url) if u]
        self._unrecorded.setdefault(item.site, []).extend(self._key(u) for u in urls)
        self._exported.update(canonical_url(u) for u in urls)
        self.crawler.stats.inc_value("newscrawl/exported")
        self.crawler.stats.inc_value(STATS + "seen_writes_held")

    def record_unrecorded(self) -> None:
        """Record the URLs exported while Redis was down (a recovery hook; raises if it is down again)."""
        for site in list(self._unrecorded):
            self.store.add(site, self._unrecorded[site])
            del self._unrecorded[site]

    def _journal_path(self):
        return state_dir(self._state_dir) / JOURNAL

    def _journal(self) -> None:
        """Write the URLs Redis never recorded to the state directory, for the next run."""
        path = self._journal_path()
        try:
            pending = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            pending = {}
        count = 0
        for site, urls in self._unrecorded.items():
            key = f"{self.prefix}:{site}"
            pending[key] = list(dict.fromkeys([*pending.get(key, []), *urls]))
            count += len(set(urls))
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(pending, indent=1), encoding="utf-8")
        tmp.replace(path)
        self.crawler.stats.inc_value(STATS + "seen_writes_journaled", count)
        logger.warning("%d exported URL(s) could not be recorded in Redis; kept in %s, recorded by the "
                       "next run", count, path)
        self._unrecorded.clear()

    def replay_journal(self, site: str) -> int:
        """Record what an earlier run exported but could not record in Redis; returns how many URLs."""
        path = self._journal_path()
        try:
            pending = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return 0
        urls = pending.pop(f"{self.prefix}:{site}", [])
        if urls:
            self.store.add(site, urls)
            logger.info("Recorded %d URL(s) exported by an earlier run while Redis was unreachable",
                        len(urls))
            tmp = path.with_suffix(".tmp")
            tmp.write_text(json.dumps(pending, indent=1), encoding="utf-8")
            tmp.replace(path)
        return len(urls)

    def _marker(self) -> str:
        return f"{self.prefix}:data-kept"

    def check_data_kept(self) -> None:
        """After an outage: did Redis keep its data?  A marker set at start tells (a recovery hook)."""
        if self.client.set(self._marker(), "1", nx=True):
            self.crawler.stats.set_value(STATS + "data_lost", True)
            logger.error("Redis came back without its data (a restart without persistence? use appendonly "
                         "yes): the shared queue, the claims and the seen-URL store are gone; requests "
                         "queued before the outage are lost and articles may be exported again")

    def spider_opened(self, spider) -> None:
        try:
            self.client.set(self._marker(), "1")
            self.replay_journal(spider.name)
            super().spider_opened(spider)
        except UNREACHABLE as exc:  # the journal waits for the next run; the feeds are reconciled then too
            self.link.failed(exc)

    def spider_closed(self, spider, reason: str) -> None:
        if self._unrecorded and self.link.up:
            try:
                self.record_unrecorded()
            except UNREACHABLE as exc:
                self.link.failed(exc)
        if self._unrecorded:
            self._journal()
        super().spider_closed(spider, reason)

    def _close_client(self) -> None:
        self.client.close()

