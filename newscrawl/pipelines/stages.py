"""The pipeline stages (the package docstring explains the flow and its guarantees)."""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, date, datetime
from typing import Any

from newscrawl.run.drops import Dropped, Scheduled
from newscrawl.state.live import mark_new
from newscrawl.state.seen_store import canonical_url
from newscrawl.state.seen_urls import SeenUrls, state_write_failed

from ..extract import METHODS
from ..extract.page_type import drop_reason
from ..items import BODY_RENDERINGS, ArticleItem, ListingItem
from .extraction import extract_fields, warm_up
from .pages import PAGES_STATS, join_pages
from .pool import ExtractionPool, ExtractionTimeout, WorkerCrashed, release_pool, shared_pool
from .shared_body import shared_bodies
from .templates import SAVE_FAILED, CrawlTemplates

logger = logging.getLogger(__name__)

_BINARY_TYPES = ("image/", "audio/", "video/", "font/", "application/pdf", "application/zip",
                 "application/octet-stream", "application/gzip", "application/x-")


class Stage:
    """Base: keeps the crawler (pipelines receive it through ``from_crawler``)."""

    def __init__(self, crawler):
        self.crawler = crawler

    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler)

    @property
    def seen(self) -> SeenUrls:
        return self.crawler.get_extension(SeenUrls)


class SeenFilterStage(Stage):
    """Drop listing items that need no fetch, each with its own reason (logged at DEBUG, counted):

    - ``listed_twice`` — listed earlier in this run (a feed and a catalogue page, two
      catalogue pages): the first listing is being fetched, or was exported;
    - ``already_exported`` — exported by an earlier run (the seen-URL store;
      ``NEWSCRAWL_FRESH=1`` ignores it), unless a live blog still live (:mod:`newscrawl.state.live`);
    - ``already_rejected`` — fetched by an earlier run and not exported, for a reason that still
      holds (:meth:`~newscrawl.state.seen_urls.SeenUrls.rejection`: a lasting one such as no text
      or not an article for ``NEWSCRAWL_RETRY_UNEXPORTED_DAYS``; the site's own failure, such as a
      wall or a shared body, until the site is healthy again, when the held listing is fetched)."""

    def process_item(self, item: Any) -> Any:
        if not isinstance(item, ListingItem):
            return item
        if self.seen.listed_earlier(item.url):
            raise Dropped("listed_twice", "listed earlier in this run", item.url)
        if self.seen.exported(item.site, item.url) and not self.seen.still_live(item.site, item.url):
            raise Dropped("already_exported", "exported by an earlier run", item.url)
        rejection = self.seen.rejection(item.site, item.url)
        if rejection:
            self.seen.hold(item, rejection)
            raise Dropped("already_rejected", f"{rejection.reason} when an earlier run fetched it", item.url)
        return item


class FetchStage(Stage):
    """Schedule the detail page of a listing item; the item itself ends here.

    A URL claimed earlier in this run (listed twice, e.g. in a feed and on a catalogue
    page) is dropped as ``listed_twice``, so no page is fetched twice in a run.
    """

    def process_item(self, item: Any) -> Any:
        if not isinstance(item, ListingItem):
            return item
        if not self.seen.claim(item.url):
            raise Dropped("listed_twice", "already scheduled in this run", item.url)
        self.crawler.engine.crawl(self.crawler.spider.detail_request(item, self.seen.run_id))
        raise Scheduled(item.url)


class ExtractStage(Stage):
    """Title (He (2019) with the listing title), body and metadata via :func:`newscrawl.extract`.

    The page is decoded and parsed once; one ``extract_page`` call produces every field
    (title first, from the listing title and the page's headings, then the body with
    ``NEWSCRAWL_METHOD``).  The raw body is released afterwards.

    Between parsing and extraction the site's template library (Yan and Wang (2020),
    :mod:`.templates`) counts the page's leaves and removes the ones it has learned
    are the site's common noise (``NEWSCRAWL_TEMPLATES``, default on).

    ``NEWSCRAWL_EXTRACT_PROCESSES = N`` (default 1) runs extraction in N worker
    processes (:mod:`.pool`), so that crawling and extraction use separate cores and a page
    whose extraction runs past ``NEWSCRAWL_EXTRACT_TIMEOUT`` seconds (default 20; 0: no
    limit) costs only that page: its worker is killed and replaced, the page dropped as
    ``extraction_timeout``.  ``0`` extracts in the crawl process, without a time limit.  When
    ``NEWSCRAWL_EXTRACT_BACKLOG`` × N pages (default 32 × N) are waiting for the workers, the
    engine takes no new requests until half of them are back (``newscrawl/extract/backlog_pauses``).

    ``NEWSCRAWL_EXTRACT=0`` switches extraction off (the crawl then exports the listing
    fields with empty text, method ``none``): the baseline of ``bench/crawl_throughput.py``.
    """

    def __init__(self, crawler):
        super().__init__(crawler)
        self.enabled = crawler.settings.getbool("NEWSCRAWL_EXTRACT", True)
        self.method = crawler.settings.get("NEWSCRAWL_METHOD", "auto")
        if self.method not in METHODS:
            raise ValueError(f"NEWSCRAWL_METHOD={self.method!r}: choose from {', '.join(METHODS)}")
        self.templates = CrawlTemplates(crawler)
        self.templates.enabled &= self.enabled
        self.bodies = shared_bodies(crawler.settings)
        self.processes = crawler.settings.getint("NEWSCRAWL_EXTRACT_PROCESSES", 1) if self.enabled else 0
        self.timeout = crawler.settings.getfloat("NEWSCRAWL_EXTRACT_TIMEOUT", 20.0)
        self.pool: ExtractionPool | None = None
        # Pages sent to the workers and not back yet; at the limit the engine stops taking new
        # requests until half have come back, so a crawl faster than its workers does not pile
        # pages up in memory (Scrapy's own limit counts response bytes, ~1,400 small pages).
        per_worker = crawler.settings.getint("NEWSCRAWL_EXTRACT_BACKLOG", 32)
        self.backlog_limit = max(2, per_worker * max(1, self.processes))
        self.in_flight = 0
        self._paused = False

    def open_spider(self) -> None:
        if self.processes > 0:  # one pool for every crawler of the process (crawlall's sites)
            self.pool = shared_pool(self.processes, self.method, self.crawler.settings, self.timeout)
            self._sites: set[str] = set()
        elif self.enabled:
            if self.timeout > 0:
                logger.info("NEWSCRAWL_EXTRACT_PROCESSES=0: extraction runs in the crawl process, "
                            "without the NEWSCRAWL_EXTRACT_TIMEOUT limit")
            warm_up(self.method)

    async def close_spider(self) -> None:
        if self.pool is not None:
            pool, self.pool = self.pool, None
            try:  # the workers save this crawl's template libraries; the other crawls go on meanwhile
                await asyncio.wrap_future(pool.finish_sites(sorted(self._sites)))
            except Exception as exc:  # noqa: BLE001 - the libraries as saved at their last batch end
                logger.warning("The extraction workers could not save the template libraries of %s: %r",
                               ", ".join(sorted(self._sites)), exc)
            release_pool(pool)
        self.templates.close()

    def process_item(self, item: Any) -> Any:
        """The extracted item; with worker processes, a coroutine Scrapy awaits for it."""
        if not isinstance(item, ArticleItem):
            return item
        body, item.body = item.body, None
        content_type = (item.content_type or "").lower()
        if not body or not body.strip():
            raise Dropped("empty_body", f"HTTP {item.status}, {len(body or b'')} bytes", item.url)
        if content_type.startswith(_BINARY_TYPES):
            raise Dropped("binary", f"Content-Type {item.content_type}", item.url)
        if not self.enabled:
            item.method = "none"
            return item
        feed_entry = {"title": item.feed_title, "summary": item.feed_summary,
                      "published": item.feed_published}
        job = {"site": item.site, "body": body, "url": item.url, "content_type": item.content_type,
               "listing_title": item.listing_title,
               "feed_entry": {k: v for k, v in feed_entry.items() if v}}
        # an article over several pages: each page extracted alike, joined in order (.pages)
        more = [dict(job, url=url, body=page) for url, page in item.more_pages or ()]
        item.more_pages = None
        if self.pool is not None:
            return self._extract_in_worker(item, job, more)
        try:
            fields = [extract_fields(self.templates, self.method, bodies=self.bodies, **job)]
            for page in more:
                try:
                    fields.append(extract_fields(self.templates, self.method, bodies=self.bodies, **page))
                except Dropped as exc:
                    self._page_failed(item, page, exc)
                    break
            return self._joined(item, fields)
        finally:
            self._check_template_saves()

    def _joined(self, item: ArticleItem, fields: list[dict]) -> ArticleItem:
        """``item`` filled with its pages' joined fields; a page repeating the pages before it
        ends the article there (``newscrawl/pages/failed/same_text``)."""
        joined = join_pages(fields)
        if joined["pages"] < len(fields):
            self.crawler.stats.inc_value(f"{PAGES_STATS}failed/same_text")
            logger.info("Page %d of %s repeats the pages before it: joined the %d before it",
                        joined["pages"] + 1, item.url, joined["pages"])
            item.page_urls = (item.page_urls or [])[:joined["pages"]]
        return self._fill(item, joined)

    def _page_failed(self, item: ArticleItem, page: dict, exc: Dropped) -> None:
        """A continuation page without an article ends the join: the pages before it are exported."""
        self.crawler.stats.inc_value(f"{PAGES_STATS}failed/{exc.reason}")
        logger.info("Continuation page %s of %s gave no article (%s): joined the pages before it",
                    page["url"], item.url, exc.reason)
        urls = item.page_urls or []
        if page["url"] in urls:
            item.page_urls = urls[:urls.index(page["url"])]

    def _check_template_saves(self) -> None:
        """A template library that could not be saved (full disk, read-only store) stops the run
        as any other crawl-state write does (``state_write_failed``)."""
        if self.crawler.stats.get_value(SAVE_FAILED):
            state_write_failed(self.crawler, "template library",
                               OSError("the template library could not be saved (see the warning above)"))

    def _fill(self, item: ArticleItem, fields: dict) -> ArticleItem:
        settings = self.crawler.settings
        for name, value in fields.items():
            if name in BODY_RENDERINGS and not settings.getbool(BODY_RENDERINGS[name], True):
                value = None  # left out of the export (NEWSCRAWL_EXPORT_MARKDOWN / _HTML)
            setattr(item, name, value)
        for part, count in (item.capped or {}).items():
            self.crawler.stats.inc_value(f"newscrawl/extract/capped/{part}", count)
        item.language = item.language or self.crawler.spider.site.language
        return item

    def _sent(self) -> None:
        self.in_flight += 1
        if self.in_flight >= self.backlog_limit and not self._paused:
            self._paused = True
            self.crawler.engine.pause()
            self.crawler.stats.inc_value("newscrawl/extract/backlog_pauses")

    def _returned(self) -> None:
        self.in_flight -= 1
        if self._paused and self.in_flight <= self.backlog_limit // 2:
            self._paused = False
            engine = self.crawler.engine
            engine.unpause()
            slot = getattr(engine, "_slot", None)  # take the next requests now, not at the 5 s heartbeat
            if slot is not None:
                slot.nextcall.schedule()

    async def _extract_in_worker(self, item: ArticleItem, job: dict, more: list[dict]) -> ArticleItem:
        """Extraction in worker processes, page by page (:meth:`_worker_fields`)."""
        fields = [await self._worker_fields(job)]
        for page in more:
            try:
                fields.append(await self._worker_fields(page))
            except Dropped as exc:
                self._page_failed(item, page, exc)
                break
        return self._joined(item, fields)

    async def _worker_fields(self, job: dict) -> dict:
        """One page's fields, extracted in a worker process, which the pool replaces if it dies or
        runs past the time limit (then the page is dropped: ``extraction_timeout``, ``extraction_crash``)."""
        self._sent()
        self._sites.add(job["site"])
        pool = self.pool
        try:
            outcome = await asyncio.wrap_future(pool.submit(job["site"], job))
        except ExtractionTimeout as exc:
            logger.warning("Extraction of %s ran past %g s: worker stopped, page dropped",
                           job["url"], self.timeout)
            raise Dropped("extraction_timeout", str(exc), job["url"]) from None
        except WorkerCrashed as exc:
            raise Dropped("extraction_crash", str(exc), job["url"]) from None
        finally:
            self._returned()
            if pool.restarts:  # the process's pool: restarts for every crawler it serves
                self.crawler.stats.set_value("newscrawl/extract/worker_restarts", pool.restarts)
        for key, count in outcome["stats"].items():
            self.crawler.stats.inc_value(key, count)
        for name, level, message in outcome["logs"]:
            logging.getLogger(name).log(level, "%s", message)
        self._check_template_saves()
        if "dropped" in outcome:
            raise Dropped(*outcome["dropped"], job["url"])
        return outcome["fields"]


class ClassifierStage(Stage):
    """Only articles are exported: a page that :func:`newscrawl.extract.page_type` classes as
    a section or listing page, a tag or author page, a gallery, a video page or an error page
    served with status 200 is dropped as ``not_article/<kind>``, a consent interstitial or a login
    wall as ``consent_wall`` or ``login_wall`` (``NEWSCRAWL_PAGE_TYPE_FILTER``, default on), unless
    the site's ``accept_kinds`` lists its kind.  The kind is computed during extraction, on the
    parsed page."""

    def __init__(self, crawler):
        super().__init__(crawler)
        self.enabled = crawler.settings.getbool("NEWSCRAWL_PAGE_TYPE_FILTER", True)

    def process_item(self, item: Any) -> Any:
        if not self.enabled or not isinstance(item, ArticleItem):
            return item
        kind = item.page_type
        site = getattr(self.crawler.spider, "site", None)
        if kind and kind != "article" and kind not in getattr(site, "accept_kinds", ()):
            raise Dropped(drop_reason(kind), f"the page is a {kind} page, not an article", item.url)
        return item


class ValidateStage(Stage):
    """An exported article needs text (``NEWSCRAWL_MIN_TEXT_CHARS``, default 1) and a title
    (the listing title stands in when the page gives none)."""

    def __init__(self, crawler):
        super().__init__(crawler)
        self.min_chars = crawler.settings.getint("NEWSCRAWL_MIN_TEXT_CHARS", 1)
        if not crawler.settings.getbool("NEWSCRAWL_EXTRACT", True):
            self.min_chars = 0  # nothing was extracted: there is no text to require

    def process_item(self, item: Any) -> Any:
        if not isinstance(item, ArticleItem):
            return item
        if len((item.text or "").strip()) < self.min_chars:
            raise Dropped("no_text", f"{len((item.text or '').strip())} characters of text", item.url)
        item.title = item.title or item.listing_title or item.feed_title
        if not item.title:
            raise Dropped("no_title", "neither the page nor the listing gives a title", item.url)
        return item


class ExportGateStage(Stage):
    """One record per article: the store check repeated just before export, one export per
    URL per run, and the article's identity beyond the URL it was fetched by.

    An article is known by its fetched URL, its listing URL and its page's declared canonical
    URL (``<link rel="canonical">``/``og:url`` on the same site), each as the store's key
    (:func:`~newscrawl.state.seen_store.canonical_url`: tracking parameters, http/https, ``m.``/``amp.``
    and AMP variants folded).  One already exported, in this run or an earlier one, makes a
    ``duplicate``.  A body that repeats an exported article's text (MinHash of its shingles,
    :mod:`newscrawl.dedup`: syndicated copies, mirrors) is dropped as ``duplicate_content``,
    also across runs (the fingerprints are kept beside the seen-URL store).  A live blog exported
    before (:mod:`newscrawl.state.live`) goes out again when it holds entries not exported before,
    each entry marked ``new``, else is dropped as ``already_exported``."""

    def __init__(self, crawler):
        super().__init__(crawler)
        self._passed: set[str] = set()

    def process_item(self, item: Any) -> Any:
        if isinstance(item, ListingItem):  # only if FetchStage is disabled
            raise Dropped("not_fetched", "listing item reached export without a fetch stage", item.url)
        if not isinstance(item, ArticleItem):
            return item
        urls = list(dict.fromkeys(u for u in (item.url, item.listing_url, item.canonical) if u))
        keys = {canonical_url(u) for u in urls}
        before = self.seen.live_entries(item.site, urls) if item.entries else None  # a live blog's
        if keys & self._passed or (before is None and any(self.seen.exported(item.site, u) for u in urls)):
            raise Dropped("duplicate", "article already exported", item.url)
        if before is None:
            earlier = self.seen.content_duplicate(item.site, item.url, item.text, item.fingerprint)
            if earlier is not None:
                raise Dropped("duplicate_content", f"the same text as {earlier}", item.url)
        item.fingerprint = None
        if not mark_new(item.entries, before or set()) and before is not None:
            raise Dropped("already_exported", "a live blog with no new entries since its export", item.url)
        claim_export = getattr(self.seen, "claim_export", None)  # distributed mode: across workers
        if claim_export is not None and not claim_export(urls):
            raise Dropped("duplicate", "article exported by another worker", item.url)
        self._passed |= keys
        return item


class SinceFilterStage(Stage):
    """The date window after extraction: an article whose listing gave no date (no feed or
    news-sitemap date; listed dates were checked before fetching) and whose extracted
    ``published`` date is before the spider's ``date_cutoff`` (``-a since``, the site's
    ``since``/``max_age_days``) is dropped as ``too_old``.  An article with no date is kept."""

    def process_item(self, item: Any) -> Any:
        cutoff = getattr(self.crawler.spider, "date_cutoff", None)
        if cutoff is None or not isinstance(item, ArticleItem) or item.feed_published or not item.published:
            return item
        try:
            if len(item.published) == 10:  # a day ("2026-11-20"): too old only when the whole day is
                day = date.fromisoformat(item.published)
                too_old = day < cutoff.astimezone(UTC).date()
            else:
                published = datetime.fromisoformat(item.published)
                if published.tzinfo is None:
                    published = published.replace(tzinfo=UTC)
                too_old = published < cutoff
        except ValueError:
            return item
        if too_old:
            raise Dropped("too_old", f"published {item.published}, before {cutoff.isoformat()}", item.url)
        return item
