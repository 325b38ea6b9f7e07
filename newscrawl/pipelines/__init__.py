"""Item pipelines: a listing item in, an extracted article out (design card: the pipelines
fetch detail pages and apply extraction before export).

Stages, in ``ITEM_PIPELINES`` order (see :data:`STAGES`):

1. :class:`SeenFilterStage` (100) — skip links listed earlier in the run, exported by an earlier
   run, or fetched by an earlier run without an article (the seen-URL store).
2. :class:`FetchStage` (200) — turn the listing item into a detail-page request and
   schedule it; the listing item ends here.
3. :class:`ExtractStage` (300) — first the site's template library (Yan and Wang (2020),
   :mod:`.templates`) learns the page's leaves and removes the learned common noise
   (``NEWSCRAWL_TEMPLATES``, default on; saved in the state directory, shown by
   ``scrapy templates SITE``); then title (He 2019, with the listing title), body
   (``NEWSCRAWL_METHOD``, default ``auto``), date, author, links, language.
   :class:`SinceFilterStage` (400) — the date window (``-a since``, the site's ``since``/
   ``max_age_days``) on the extracted date, for articles whose listing gave none.
4. :class:`ClassifierStage` (500) — only articles go on: the page's kind
   (:mod:`newscrawl.extract.page_type`) drops the rest as ``not_article/<kind>`` or a wall.
5. :class:`ValidateStage` (600) — an article needs a title and text.
6. :class:`ExportGateStage` (700) — last check against the seen-URL store, then export; a
   multi-page article's continuation URLs are recorded with its first URL once it is exported
   (the pages are followed by the spider and joined after extraction: :mod:`.pages`).

**Why detail pages go through the scheduler.**  ``engine.download_async()`` called from a
pipeline would bypass the scheduler: no dupefilter, no ``JOBDIR`` queue, no priority,
no later scrapy-redis distribution.  So :class:`FetchStage` asks the spider for a
request (:meth:`~newscrawl.spiders.site.SiteSpider.detail_request`) and hands it to
``crawler.engine.crawl()``; downloader middlewares (robots.txt, offsite, retries,
redirects, HTTP cache, per-domain slots and AutoThrottle) all apply.  The listing item
is consumed by raising :class:`~newscrawl.run.drops.Scheduled`, a ``DropItem`` that is not
logged and is counted as ``newscrawl/scheduled``, not as a loss (nor in Scrapy's
``item_dropped_count``: :mod:`newscrawl.run.crawlstats`).  The detail response
comes back to the spider's ``parse_article``, which emits an
:class:`~newscrawl.items.ArticleItem` with the listing fields and the raw page; that
item passes stages 1–2 untouched and is extracted by 3–6.

**Exactly once, also across ``kill -9`` and ``JOBDIR`` restarts.**  ``JOBDIR``'s
``requests.seen`` records a URL when it is *scheduled*; an article fetched but killed
before export would then never be fetched again.  Instead: listing requests are
``dont_filter`` and re-issued on every run; detail requests are ``dont_filter`` and
de-duplicated by the in-run set (:meth:`SeenUrls.claim`) plus the seen-URL store, which
only learns a URL on ``item_scraped``, after the feed exporter wrote the item (the
feed file is flushed per item: :class:`~newscrawl.export.storage.FlushingFileFeedStorage`).
:class:`ExportGateStage` repeats the store check just before export, for two listing
URLs redirecting to one article and for requests restored from a ``JOBDIR`` queue.
A kill between the flushed write and the store's commit can at worst repeat that one
article on the next run; nothing exported is ever lost.
"""

from .stages import (
    ClassifierStage,
    ExportGateStage,
    ExtractStage,
    FetchStage,
    SeenFilterStage,
    SinceFilterStage,
    ValidateStage,
)

STAGES = {
    "newscrawl.pipelines.SeenFilterStage": 100,
    "newscrawl.pipelines.FetchStage": 200,
    "newscrawl.pipelines.ExtractStage": 300,
    "newscrawl.pipelines.SinceFilterStage": 400,
    "newscrawl.pipelines.ClassifierStage": 500,
    "newscrawl.pipelines.ValidateStage": 600,
    "newscrawl.pipelines.ExportGateStage": 700,
}

__all__ = [
    "STAGES",
    "ClassifierStage",
    "ExportGateStage",
    "ExtractStage",
    "FetchStage",
    "SeenFilterStage",
    "SinceFilterStage",
    "ValidateStage",
]
