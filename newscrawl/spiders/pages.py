"""Following an article's pages through the scheduler (the site spider's side of multi-page articles).

An article page whose pager (:func:`newscrawl.extract.fields.pager.find_pager`) links its
next page is not handed to the pipelines at once: the spider requests the next page (a
Scrapy request: robots.txt, retries, politeness and ``JOBDIR`` apply), and the next, and
emits one :class:`~newscrawl.items.ArticleItem` when the last page is in: the first page's
URL and body, the continuation pages in ``more_pages`` (joined after extraction:
:mod:`newscrawl.pipelines.pages`).  An all-on-one-page link is fetched instead of the pager
when the first page has one (if it fails, the pager is followed).  A page whose source shows no
link of a continuation's form (:func:`~newscrawl.extract.fields.pager.may_have_pages`) is not
parsed here: extraction parses it once, in its worker.

Bounds: at most ``NEWSCRAWL_MAX_ARTICLE_PAGES`` pages an article (default 10; 1 follows
none), counted as ``newscrawl/pages/capped`` when a pager goes on; a pager leading back to a
page already read ends the article (``newscrawl/pages/loop``); a continuation page that fails
to download or is redirected off the article ends it too (``newscrawl/pages/failed/<reason>``,
``failed/redirected``): the pages before it are exported.  Every continuation URL is claimed
for the run, so a catalogue listing it does not fetch it again; a listed page that turns out
to be a continuation (its URL is an article URL with a page number, and its pager links that
article URL) is dropped as ``continuation_page`` and its first page fetched in its place,
unless claimed already.
"""

from __future__ import annotations

import logging

import scrapy
from scrapy.http import TextResponse

from newscrawl.discovery import links
from newscrawl.extract.fields.pager import find_pager, first_page_of, may_have_pages, page_number
from newscrawl.items import ArticleItem
from newscrawl.run.drops import record_drop
from newscrawl.state.seen_store import canonical_url
from newscrawl.state.seen_urls import SeenUrls

logger = logging.getLogger(__name__)
PAGES_STATS = "newscrawl/pages/"
DEFAULT_MAX_ARTICLE_PAGES = 10
CONTINUATION_PRIORITY = 11  # above new articles' pages (10): an article's pages finish first


class ArticlePages:
    """The spider's follower of article pagers (one per spider)."""

    def __init__(self, spider):  # a SiteSpider (newscrawl.spiders.site)
        self.spider = spider
        settings = spider.crawler.settings
        self.max_pages = settings.getint("NEWSCRAWL_MAX_ARTICLE_PAGES", DEFAULT_MAX_ARTICLE_PAGES)

    @property
    def stats(self):
        return self.spider.crawler.stats

    def _claim(self, url: str) -> bool:
        seen = self.spider.crawler.get_extension(SeenUrls)
        return seen is None or seen.claim(url)

    def first_page(self, response, item: ArticleItem, listing: dict):
        """The item of a fetched article page, or the request for its next page (or for its
        first page, when this page is a listed continuation)."""
        html = isinstance(response, TextResponse) and self.max_pages > 1
        root = links.parse(response.text) if html and may_have_pages(response.text, response.url) else None
        if root is None:
            yield item
            return
        first = first_page_of(root, response.url)
        if first is not None:
            record_drop(self.spider.crawler, "continuation_page", response.url,
                        f"page of the article at {first}, exported with it")
            if self._claim(first):
                yield self.spider.detail_request_for(first, listing)
            return
        pager = find_pager(root, response.url)
        state = {"item": item, "visited": [canonical_url(response.url)], "next_url": pager.next_url}
        if pager.single_url:
            self._claim(pager.single_url)
            yield self._request(pager.single_url, state, single=True)
        elif pager.next_url:
            yield from self._follow(pager.next_url, state)
        else:
            yield item

    def _request(self, url: str, state: dict, single: bool = False) -> scrapy.Request:
        spider = self.spider
        return scrapy.Request(url, callback=spider.parse_continuation, errback=spider.continuation_failed,
                              cb_kwargs={"state": state, "single": single}, dont_filter=True,
                              priority=CONTINUATION_PRIORITY)

    def _follow(self, url: str | None, state: dict):
        """The request for page ``url`` of the article, or the item when the article ends there."""
        item: ArticleItem = state["item"]
        pages = 1 + len(item.more_pages or ())
        if url is None:
            yield self._finished(item)
        elif canonical_url(url) in state["visited"]:
            self.stats.inc_value(PAGES_STATS + "loop")
            logger.info("Pager of %s leads back to %s: the article ends at page %d", item.url, url, pages)
            yield self._finished(item)
        elif pages >= self.max_pages:
            self.stats.inc_value(PAGES_STATS + "capped")
            logger.info("%s has more than %d pages (NEWSCRAWL_MAX_ARTICLE_PAGES): the first %d exported",
                        item.url, self.max_pages, pages)
            yield self._finished(item)
        else:
            self._claim(url)
            yield self._request(url, state)

    def _finished(self, item: ArticleItem) -> ArticleItem:
        if item.more_pages:
            self.stats.inc_value(PAGES_STATS + "articles")
            self.stats.inc_value(PAGES_STATS + "continuations", len(item.more_pages))
            item.page_urls = [item.url, *(url for url, _ in item.more_pages)]
        return item

    def continuation(self, response, state: dict, single: bool):
        """A continuation page (or the all-on-one-page view) is in: the next request or the item."""
        item: ArticleItem = state["item"]
        if single:
            self.stats.inc_value(PAGES_STATS + "single_view")
            item.body = response.body
            item.page_urls = [item.url, response.url]
            yield item
            return
        if page_number(item.url, response.url) is None:  # redirected off the article (a removed page)
            self.stats.inc_value(PAGES_STATS + "failed/redirected")
            logger.info("Continuation page %s of %s redirected to %s: the article ends before it",
                        response.request.url, item.url, response.url)
            yield self._finished(item)
            return
        item.more_pages = [*(item.more_pages or ()), (response.url, response.body)]
        state["visited"].append(canonical_url(response.url))
        root = links.parse(response.text) if isinstance(response, TextResponse) else None
        next_url = find_pager(root, response.url, first_url=item.url).next_url if root is not None else None
        yield from self._follow(next_url, state)

    def failed(self, failure, reason: str):
        """A continuation request failed: the article ends before it (the single view: the pager instead)."""
        state, single = failure.request.cb_kwargs["state"], failure.request.cb_kwargs["single"]
        self.stats.inc_value(f"{PAGES_STATS}failed/{reason}")
        logger.info("Continuation page %s failed (%s)", failure.request.url, reason)
        if single:
            yield from self._follow(state["next_url"], state)
        else:
            yield self._finished(state["item"])
