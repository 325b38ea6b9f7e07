"""The crawl's side of :mod:`newscrawl.discovery.url_shapes`: each fetched article page's outcome
(exported, or dropped by the page type filter as ``not_article/<kind>``) and each URL the site's
feeds and news sitemaps list teach the site's URL shapes, which the site spider's catalogue stage
uses on later listing pages; :meth:`CrawlUrlShapes.admit` holds back the links of an unproven
shape beyond its probes (counted per worker in a distributed crawl).

Kept per site with the template library: a table of ``templates.sqlite3`` in the state
directory, or with ``NEWSCRAWL_DISTRIBUTED`` a Redis hash ``<prefix>:template-urls:<site>``
(``shape\\ta`` / ``shape\\to`` / ``shape\\tl`` -> count; workers add their counts, ``HINCRBY``).  Loaded when
the first listing page or outcome needs it, saved when the spider closes; ``scrapy templates SITE`` prints it.
``NEWSCRAWL_URL_SHAPES=0`` turns the learning off.
"""

from __future__ import annotations

import logging
from pathlib import Path

from scrapy import signals

from newscrawl.discovery.url_shapes import LISTED, SiteUrlShapes, listed_shape, shape_of
from newscrawl.run.drops import Dropped
from newscrawl.state.site_blobs import read_blob, write_blob

from ..items import ArticleItem

logger = logging.getLogger(__name__)

STATS = "newscrawl/url_shapes/"
TABLE = "url_shapes"  # in the state file


def sqlite_path(settings) -> Path:
    from newscrawl.state.seen_store import state_dir

    from ..extract.methods.template import TEMPLATE_DB

    return state_dir(settings.get("NEWSCRAWL_STATE_DIR")) / TEMPLATE_DB


def load_sqlite(path: Path, site: str) -> SiteUrlShapes:
    return SiteUrlShapes.loads(read_blob(path, TABLE, site))


def save_sqlite(path: Path, site: str, shapes: SiteUrlShapes) -> None:
    write_blob(path, TABLE, site, shapes.dumps())


_KINDS = ("a", "o", "l")  # the Redis field suffix of each count: articles, others, listed


def redis_key(prefix: str, site: str) -> str:
    return f"{prefix}:template-urls:{site}"


def load_redis(client, prefix: str, site: str) -> SiteUrlShapes:
    counts: dict[str, list[int]] = {}
    for field, value in client.hgetall(redis_key(prefix, site)).items():
        field = field.decode() if isinstance(field, bytes) else field
        shape, _, kind = field.rpartition("\t")
        if kind in _KINDS and shape:
            counts.setdefault(shape, [0, 0, 0])[_KINDS.index(kind)] += int(value)
    return SiteUrlShapes(counts)


class CrawlUrlShapes:
    """One spider's learned URL shapes, fed by the item signals."""

    def __init__(self, crawler, site: str):
        self.crawler = crawler
        self.site = site
        settings = crawler.settings
        self.redis_url = settings.get("NEWSCRAWL_DISTRIBUTED")
        self.prefix = settings.get("NEWSCRAWL_REDIS_PREFIX") or "newscrawl"
        self.added: dict[str, list[int]] = {}  # this run's outcomes, for an additive Redis save
        self.probing: dict[str, set[str]] = {}  # per unproven shape: links followed, not yet fetched
        self._shapes: SiteUrlShapes | None = None

    @property
    def shapes(self) -> SiteUrlShapes:
        """Loaded on first use: after the run's state checks (a corrupt store moved aside)."""
        if self._shapes is None:
            self._shapes = self._load()
        return self._shapes

    @classmethod
    def from_crawler(cls, crawler, site: str) -> CrawlUrlShapes | None:
        if not crawler.settings.getbool("NEWSCRAWL_URL_SHAPES", True):
            return None
        learning = cls(crawler, site)
        crawler.signals.connect(learning.item_scraped, signal=signals.item_scraped)
        crawler.signals.connect(learning.item_dropped, signal=signals.item_dropped)
        crawler.signals.connect(learning.save, signal=signals.spider_closed)
        return learning

    def _client(self):
        from newscrawl.state.redis_client import connect

        return connect(self.redis_url)

    def _load(self) -> SiteUrlShapes:
        try:
            if self.redis_url:
                return load_redis(self._client(), self.prefix, self.site)
            return load_sqlite(sqlite_path(self.crawler.settings), self.site)
        except Exception as exc:  # noqa: BLE001 - the crawl scores links without what earlier runs learned
            self.crawler.stats.inc_value(STATS + "errors")
            logger.warning("Could not load the learned URL shapes of %s: %s", self.site, exc)
            return SiteUrlShapes()

    def adjustment(self, url: str) -> float:
        return self.shapes.adjustment(url)

    def admit(self, url: str) -> bool:
        """May the catalogue stage follow ``url``, on a listing page that links articles of a listed
        form?  Not when its shape is unproven and its probes are all out (fetched or on their way)."""
        left = self.shapes.probes_left(url)
        if left is None:
            return True
        probing = self.probing.setdefault(shape_of(url), set())
        if url in probing or len(probing) < left:
            probing.add(url)
            return True
        return False

    def listed(self, url: str | None) -> None:
        """A URL one of the site's feeds or news sitemaps lists."""
        if url:
            self.shapes.record_listed(url)
            self.added.setdefault(listed_shape(url), [0, 0, 0])[LISTED] += 1
            self.crawler.stats.inc_value(STATS + "listed")

    def _record(self, url: str | None, is_article: bool) -> None:
        if not url:
            return
        self.shapes.record(url, is_article)
        self.probing.get(shape_of(url), set()).discard(url)
        self.added.setdefault(shape_of(url), [0, 0, 0])[0 if is_article else 1] += 1
        self.crawler.stats.inc_value(STATS + ("articles" if is_article else "not_articles"))

    def item_scraped(self, item, response=None, spider=None) -> None:
        if isinstance(item, ArticleItem):
            self._record(item.url, True)

    def item_dropped(self, item, response=None, exception=None, spider=None) -> None:
        if isinstance(item, ArticleItem) and isinstance(exception, Dropped) and \
                exception.reason.startswith("not_article/"):
            self._record(item.url, False)

    def save(self, spider=None, reason=None) -> None:
        if self._shapes is None or not self._shapes.changed:
            return
        try:
            if self.redis_url:
                client = self._client()
                with client.pipeline(transaction=True) as pipe:
                    for shape, counts in self.added.items():
                        for kind, count in zip(_KINDS, counts, strict=True):
                            if count:
                                pipe.hincrby(redis_key(self.prefix, self.site), f"{shape}\t{kind}", count)
                    pipe.execute()
            else:
                save_sqlite(sqlite_path(self.crawler.settings), self.site, self.shapes)
            self.shapes.changed = False
            self.added = {}
        except Exception as exc:  # noqa: BLE001 - the next run learns again
            self.crawler.stats.inc_value(STATS + "errors")
            logger.warning("Could not save the learned URL shapes of %s: %s", self.site, exc)
