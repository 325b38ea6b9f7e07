"""Prototype (benchmark only): the extract stage running extraction in worker processes.

Scrapy runs in one thread, so in the crawl extraction and crawling share one core.  This
subclass of :class:`newscrawl.pipelines.ExtractStage` sends each page to a
``ProcessPoolExecutor`` (``NEWSCRAWL_EXTRACT_PROCESSES`` workers, default 1) and awaits the
result, so the crawl process keeps downloading while another core extracts.  Used by
``python bench/crawl_throughput.py --pooled``; not part of the project's pipeline until the
lead adopts it (docs/performance.md).
"""

from __future__ import annotations

import asyncio
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from newscrawl.extensions import Dropped
from newscrawl.extract import ExtractionError, Page, extract_page
from newscrawl.items import ArticleItem
from newscrawl.pipelines.stages import _BINARY_TYPES, _EXTRACTION_REASONS, ExtractStage

WARM_UP = "<html><head><title>Warm-up</title></head><body><p>The warm-up page text is here.</p></body></html>"


def _warm(method: str) -> None:
    extract_page(Page.from_html(WARM_UP, url="http://localhost/"), method=method)


def _extract(body: bytes, url: str, content_type: str | None, listing_title: str | None,
             feed_entry: dict, method: str) -> tuple[str, Any]:
    """Runs in a worker process: ``("ok", fields)`` or ``("error", (reason, detail))``."""
    try:
        page = Page.from_html(body, url=url, content_type=content_type)
        article = extract_page(page, listing_title=listing_title, feed_entry=feed_entry, method=method)
    except ExtractionError as exc:
        return "error", (_EXTRACTION_REASONS.get(exc.reason, "extraction_error"), str(exc))
    except Exception as exc:  # noqa: BLE001 - a library bug costs one article
        return "error", ("extraction_error", f"{type(exc).__name__}: {exc}")
    return "ok", {
        "title": article.title, "text": article.text or "",
        "published": article.published.isoformat() if article.published else None,
        "author": article.author, "links": [{"text": lk.text, "url": lk.url} for lk in article.links],
        "language": article.language, "method": article.method,
    }


class PooledExtractStage(ExtractStage):
    """:class:`ExtractStage` with the extraction in ``NEWSCRAWL_EXTRACT_PROCESSES`` processes."""

    def __init__(self, crawler):
        super().__init__(crawler)
        self.pool = ProcessPoolExecutor(crawler.settings.getint("NEWSCRAWL_EXTRACT_PROCESSES", 1),
                                        initializer=_warm, initargs=(self.method,))

    def open_spider(self) -> None:
        """Nothing to warm here: the pool's initializer warms each worker process."""

    def close_spider(self) -> None:
        self.pool.shutdown(wait=True)

    async def process_item(self, item: Any) -> Any:
        if not isinstance(item, ArticleItem) or not self.enabled:
            return super().process_item(item)
        body, item.body = item.body, None
        if not body or not body.strip():
            raise Dropped("empty_body", f"HTTP {item.status}, {len(body or b'')} bytes", item.url)
        if (item.content_type or "").lower().startswith(_BINARY_TYPES):
            raise Dropped("binary", f"Content-Type {item.content_type}", item.url)
        feed_entry = {k: v for k, v in {"title": item.feed_title, "summary": item.feed_summary,
                                        "published": item.feed_published}.items() if v}
        started = time.perf_counter()
        status, result = await asyncio.wrap_future(self.pool.submit(
            _extract, body, item.url, item.content_type, item.listing_title, feed_entry, self.method))
        if status == "error":
            raise Dropped(result[0], result[1], item.url)
        item.extraction_seconds = time.perf_counter() - started
        for name, value in result.items():
            setattr(item, name, value)
        item.language = item.language or self.crawler.spider.site.language
        item.method = item.method or self.method
        return item
