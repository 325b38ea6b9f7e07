"""The ``warc`` spider: article pages from WARC archives (a recorded crawl, Common Crawl's CC-NEWS)
through the crawl's own pipelines and feed exports::

    scrapy crawl warc -a path=CC-NEWS-20240101000000-00001.warc.gz -O articles.jsonl
    scrapy crawl warc -a path=archives/ -a keep=html -s NEWSCRAWL_EXTRACT_PROCESSES=2 -O articles.csv

Why a spider and not a command: the pages then take the crawl's path after download — the
extraction stage with its worker processes, per-page time limit and per-site template library,
the validation and export gate, Scrapy's feed exports (``-o``/``-O``, every format, ``FEEDS``),
stats, drop counters and the exit status of ``scrapy crawl`` — with nothing re-implemented.
``start()`` yields the pages as items; there are no requests.

Arguments (``-a``):

- ``path`` — WARC files (``.warc.gz`` or ``.warc``): comma-separated files, directories and
  glob patterns;
- ``keep`` — ``articles`` (default): in an archive newscrawl recorded, the pages the crawl
  fetched as articles (they carry its listing metadata); in any other archive, every HTML
  page, judged by the pipeline's page-type stage as in a crawl; ``html``: every HTML page
  (the pipeline still drops pages without a title or text).

Each exported article has the record's target URI as ``url`` and its ``WARC-Date`` as
``fetched_at``; ``site`` is the crawl's site name in a newscrawl archive, the host (without
``www.``) otherwise.  Records are read one at a time and at most ``NEWSCRAWL_EXTRACT_BACKLOG`` ×
workers pages are in the pipelines at once, so memory does not grow with the archive; records
over ``DOWNLOAD_MAXSIZE`` are skipped by their stated length without being read; pages wait while
the bodies in the pipelines add up to ``SCRAPER_SLOT_MAX_ACTIVE_SIZE`` (Scrapy's bound on response
bytes in processing, default 5 MB; a larger page goes alone).  Every record
that gives no article is counted under ``newscrawl/dropped/<reason>`` (see :mod:`newscrawl.archives`),
a file that is missing, not WARC or damaged included: it never stops the run.  A progress line is
logged every ``LOGSTATS_INTERVAL`` seconds.  ``NEWSCRAWL_FRESH`` is on for this spider (an archive
is read again in full on every run); a URL met twice in one run is exported once (the second is
dropped as ``duplicate``).  As in a crawl, exported URLs are recorded in the state directory's
seen-URL store and each site's template library is learned there (``NEWSCRAWL_STATE_DIR``).

Extraction uses the crawl's worker pool (``NEWSCRAWL_EXTRACT_PROCESSES``), where a site's pages
all go to one worker so that its template library is learned in page order (a site's first page
picks the least-loaded worker): an archive of many sites (CC-NEWS) spreads over the workers, an
archive of one site keeps one worker busy.  The workers also compute each text's fingerprint for
``duplicate_content``, so the crawl process's own work per page (reading, Scrapy, export) stays
small beside theirs.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any, ClassVar

import scrapy
from scrapy import signals

from newscrawl.archives.warc_reader import (
    Progress,
    ReadOptions,
    Skip,
    WarcPage,
    archive_paths,
    page_site,
    read_archive,
)
from newscrawl.run.drops import record_drop

from ..items import ArticleItem

KEEP = ("articles", "html")


class _AnySite:
    """The stand-in for a site configuration: pages of many sites, no default language."""

    language = None
    name = "warc"


class WarcSpider(scrapy.Spider):
    """Reads WARC archives; yields one :class:`ArticleItem` (raw page) per article record."""

    name = "warc"
    site = _AnySite()
    custom_settings: ClassVar[dict[str, Any]] = {
        "NEWSCRAWL_FRESH": True,  # re-reading an archive exports its articles again
        "ROBOTSTXT_OBEY": False,  # nothing is downloaded
        "NEWSCRAWL_WARC": None,  # never record the reading of an archive
    }

    def __init__(self, *args: Any, path: str | None = None, keep: str = "articles", **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.paths = self.check_arguments(path=path, keep=keep)
        self.keep = keep
        self.in_flight = 0
        self.bytes_in_flight = 0
        self._sizes: dict[int, int] = {}  # id(item) -> its body's bytes, while in the pipelines
        self.peak_in_flight = 0  # most pages in the pipelines at once (newscrawl/warc/peak_in_flight)
        self._room: asyncio.Event | None = None
        self.sent = 0

    @staticmethod
    def check_arguments(path: str | None = None, keep: str = "articles", **_others: Any) -> list:
        """The archives ``path`` names; ValueError for arguments that cannot make a run (``scrapy
        crawl`` reports it as a usage error before the crawl starts), a named pipe or device among
        them included.  A named file that is missing while others are there costs a counted skip
        (``unreadable``) during the run, not the run."""
        if not path:
            raise ValueError("give the archives: -a path=FILE.warc.gz[,FILE...|DIR|GLOB]")
        if keep not in KEEP:
            raise ValueError(f"keep must be one of {', '.join(KEEP)}, got {keep!r}")
        paths = archive_paths(path)
        if not paths:
            raise ValueError(f"no WARC file matches {path!r}")
        if not any(p.exists() for p in paths):
            raise ValueError(f"no such file: {', '.join(map(str, paths))}")
        for p in paths:
            if p.exists() and not p.is_file():  # a pipe would block the run before it starts
                raise ValueError(f"{p} is not a regular file (a named pipe, device or socket); "
                                 "give WARC files or directories")
        return paths

    @classmethod
    def from_crawler(cls, crawler, *args: Any, **kwargs: Any):
        spider = super().from_crawler(crawler, *args, **kwargs)
        for signal in (signals.item_scraped, signals.item_dropped, signals.item_error):
            crawler.signals.connect(spider._item_done, signal=signal)
        return spider

    @property
    def max_in_flight(self) -> int:
        settings = self.crawler.settings
        workers = max(1, settings.getint("NEWSCRAWL_EXTRACT_PROCESSES", 1))
        return max(2, settings.getint("NEWSCRAWL_EXTRACT_BACKLOG", 32) * workers)

    @property
    def max_bytes_in_flight(self) -> int:
        """Scrapy's own bound on the response bytes a spider processes at once."""
        return self.crawler.settings.getint("SCRAPER_SLOT_MAX_ACTIVE_SIZE", 5_000_000)

    def _full(self) -> bool:
        return self.in_flight >= self.max_in_flight or (
            self.in_flight > 0 and self.bytes_in_flight >= self.max_bytes_in_flight)

    def _item_done(self, item: Any = None, *args: Any, **kwargs: Any) -> None:
        self.in_flight -= 1
        self.bytes_in_flight -= self._sizes.pop(id(item), 0)
        if self._room is not None and not self._full():
            self._room.set()

    async def _wait_for_room(self) -> None:
        while self._full():
            self._room = asyncio.Event()
            await self._room.wait()

    async def start(self):
        options = ReadOptions(max_bytes=self.crawler.settings.getint("DOWNLOAD_MAXSIZE", 16 * 1024 * 1024)
                              or 2**62, keep=self.keep)
        stats = self.crawler.stats
        total = sum(p.stat().st_size for p in self.paths if p.is_file())
        done_bytes = 0
        interval = self.crawler.settings.getfloat("LOGSTATS_INTERVAL", 60.0) or 60.0
        last_report = time.monotonic()
        for number, path in enumerate(self.paths, 1):
            progress = Progress()
            stats.inc_value("newscrawl/warc/files_read")
            for outcome in read_archive(path, options, progress):
                if isinstance(outcome, Skip):
                    record_drop(self.crawler, outcome.reason, outcome.url, outcome.detail)
                    continue
                await self._wait_for_room()
                item = self.item(outcome)
                self._sizes[id(item)] = len(outcome.body)
                self.in_flight += 1
                self.bytes_in_flight += len(outcome.body)
                self.peak_in_flight = max(self.peak_in_flight, self.in_flight)
                self.sent += 1
                del outcome
                yield item
                if time.monotonic() - last_report >= interval:
                    last_report = time.monotonic()
                    self.log_progress(number, path, done_bytes + progress.offset, total, progress)
            stats.inc_value("newscrawl/warc/records_read", progress.records)
            for key in ("misaligned", "resyncs"):
                if getattr(progress, key):
                    stats.inc_value(f"newscrawl/warc/{key}", getattr(progress, key))
            done_bytes += path.stat().st_size if path.is_file() else 0
        stats.set_value("newscrawl/warc/peak_in_flight", self.peak_in_flight)
        self.logger.info("Read %d WARC file(s): %d pages sent to extraction", len(self.paths), self.sent)

    def log_progress(self, number: int, path, read: int, total: int, progress: Progress) -> None:
        exported = self.crawler.stats.get_value("newscrawl/exported", 0)
        share = f"{100 * read / total:.1f}%" if total else "?"
        self.logger.info("WARC file %d/%d (%s): %s of %.1f MB read; %d records in this file, %d pages sent, "
                         "%d exported", number, len(self.paths), path.name, share, total / 1e6,
                         progress.records, self.sent, exported)

    def item(self, page: WarcPage) -> ArticleItem:
        """The raw article item of a page, as the site spider's ``parse_article`` makes it."""
        fields = {"url": page.url, "status": page.status, "content_type": page.content_type,
                  "body": page.body, "fetched_at": page.date}
        listing = page.metadata.get("listing") if page.metadata else None
        if isinstance(listing, dict):
            listing = dict(listing, site=page_site(page))
            return ArticleItem.from_listing(listing, **fields)
        return ArticleItem(site=page_site(page), **fields)
