"""A feed file that cannot be written: :func:`export_failed` ends the crawl as ``export_failed``
(the local feeds of :mod:`.storage` and the Parquet export's fold, :mod:`.parquet`, both call it)."""

from __future__ import annotations

import logging

from scrapy.utils.defer import deferred_from_coro

from newscrawl.state.seen_urls import SeenUrls

logger = logging.getLogger(__name__)


def export_failed(crawler, path: str, exc: OSError,
                  what: str = "articles not written are not marked as exported and will be fetched again "
                              "by the next run") -> None:
    """A feed write failed: one error line (saying ``what`` becomes of the articles), nothing more
    marked as exported, the crawl stops."""
    seen = crawler.get_extension(SeenUrls)
    if seen is not None:
        seen.export_failed = True
    crawler.stats.set_value("newscrawl/export_failed", f"{path}: {exc.strerror or exc}")
    logger.error("Cannot write the export file %s: %s. Stopping the crawl; %s.", path,
                 exc.strerror or exc, what)
    if crawler.engine is not None and crawler.engine.spider is not None:
        deferred_from_coro(crawler.engine.close_spider_async(reason="export_failed"))
