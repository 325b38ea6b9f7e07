"""Gates that hold items while Redis is away (:class:`ListingGate` before the seen filter,
:class:`ExportGate` before the export claim), so they resume with their seen-store checks and
claims when it is back (``newscrawl/redis/items_held``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from newscrawl.distributed.link import RedisGaveUp, RedisLink, RedisUnavailable
from newscrawl.distributed.options import REASON
from newscrawl.distributed.scheduler import _seen
from newscrawl.items import ArticleItem, ListingItem
from newscrawl.run.drops import DROP_PREFIX
from newscrawl.state.redis_client import UNREACHABLE

logger = logging.getLogger(__name__)



class _Gate:
    """Base of the gate stages: resolve an item's Redis answers ahead, waiting out an outage."""

    def __init__(self, crawler):
        self.crawler = crawler

    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler)

    def _resolved(self, item: Any, fn: Callable[..., None], *args: Any) -> Any:
        """``item`` once ``fn(*args)`` ran; a coroutine that waits for Redis when it is down."""
        link = _seen(self.crawler).link
        if link.up:
            try:
                fn(*args)
                return item
            except UNREACHABLE as exc:
                link.failed(exc)
        return self._wait(link, item, fn, *args)

    async def _wait(self, link: RedisLink, item: Any, fn: Callable[..., None], *args: Any) -> Any:
        try:
            await link.call(fn, *args)
        except RedisGaveUp:
            self.crawler.stats.inc_value(DROP_PREFIX + REASON)
            raise RedisUnavailable(getattr(item, "url", None)) from None
        return item



class ListingGate(_Gate):
    """Before the seen filter: a listing item's store check and detail claim, resolved in Redis."""

    def process_item(self, item: Any) -> Any:
        if not isinstance(item, ListingItem):
            return item
        return self._resolved(item, _seen(self.crawler).resolve_listing, item.site, item.url)



class ExportGate(_Gate):
    """Before the export gate: an article's store check and export claim, resolved in Redis."""

    def process_item(self, item: Any) -> Any:
        if not isinstance(item, ArticleItem):
            return item
        urls = [u for u in (item.url, item.listing_url) if u]
        return self._resolved(item, _seen(self.crawler).resolve_export, item.site, urls)

