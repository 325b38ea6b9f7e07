"""Rendering pages in a headless browser: scrapy-playwright driving the system Chromium.

:class:`BrowserHandler` is the http(s) download handler.  A request without
``meta["playwright"]`` goes through Scrapy's own HTTP handler as always; one with it is
loaded in Chromium (``NEWSCRAWL_BROWSER``, else ``chromium`` on ``PATH``; Playwright's own
browser download is never used), given ``NEWSCRAWL_RENDER_TIMEOUT`` seconds to load and settle
(its visible text stops changing), listing pages scrolled or their "load more" button clicked up
to ``NEWSCRAWL_RENDER_SCROLLS`` times, and its DOM becomes the response.  Playwright and the
browser start with the first rendered page, not with the crawl.

Bounds: at most ``PLAYWRIGHT_MAX_CONTEXTS`` browser contexts with
``PLAYWRIGHT_MAX_PAGES_PER_CONTEXT`` pages each; a context is closed and replaced after
``NEWSCRAWL_RENDER_CONTEXT_PAGES`` pages; images, media and fonts are not loaded.  In a crawl that
refuses private addresses, the browser's own requests (the page's scripts and data) go to no
host that is or resolves to one, judged by the crawl's resolver before the browser connects
(Chromium then resolves the name itself: an answer changed in between is not seen).  A crashed
browser is started again by scrapy-playwright with the next page
(``PLAYWRIGHT_RESTART_DISCONNECTED_BROWSER``).

:class:`RenderMiddleware` decides which requests get ``meta["playwright"]``: the site spider
marks its article and catalogue requests (:data:`RENDER_KIND`), and its
:class:`~newscrawl.spiders.rendering.Rendering` says whether that kind of page is rendered.
"""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
from collections import defaultdict
from contextlib import suppress

from scrapy.core.downloader.handlers.http11 import HTTP11DownloadHandler

from newscrawl.middlewares.addresses import private_target

logger = logging.getLogger(__name__)

RENDER_KIND = "newscrawl_render_kind"  # request meta: "article" or "listing", a page the browser may render
RENDER_NOW = "newscrawl_render"  # request meta: True, render this request (a shell fetched plain)
STATS = "newscrawl/render/"
BLOCKED_TYPES = frozenset({"image", "media", "font"})
POLL_SECONDS = 0.25
STABLE_POLLS = 2  # the page is settled when its text and links did not change for this many polls
SCROLL_WAIT_SECONDS = 2.0  # how long a scroll or "load more" click may take to add items
_SIZE_JS = "() => document.body ? [document.body.innerText.length, document.links.length] : [0, 0]"
_SCROLL_JS = """() => {
  const more = Array.from(document.querySelectorAll(
    'button, [role=button], a[href="#"], a:not([href])')).find(e => e.offsetParent !== null &&
    /^\\s*(load|show|view|see) more|more (stories|articles|news)|加载更多|查看更多|показать ещ|загрузить ещ/i
      .test(e.textContent || ''));
  if (more) more.click();
  window.scrollTo(0, document.body ? document.body.scrollHeight : 0);
}"""

try:
    from playwright.async_api import Error as PlaywrightError
    from scrapy_playwright.handler import ScrapyPlaywrightDownloadHandler
    from scrapy_playwright.page import PageMethod
except ImportError:  # the optional extra `render` is not installed: no page is rendered
    ScrapyPlaywrightDownloadHandler = None
    PageMethod = None


class RenderTimeout(Exception):
    """A rendered page did not settle within ``NEWSCRAWL_RENDER_TIMEOUT``."""


def find_browser(settings) -> str | None:
    """The Chromium binary pages are rendered with: ``NEWSCRAWL_BROWSER`` (setting, else environment
    variable), else ``chromium``/``chromium-browser`` on ``PATH``; None when there is none or
    scrapy-playwright is not installed."""
    if ScrapyPlaywrightDownloadHandler is None:
        return None
    named = settings.get("NEWSCRAWL_BROWSER") or os.environ.get("NEWSCRAWL_BROWSER")
    if named:
        found = shutil.which(named)
        return found if found and os.access(found, os.X_OK) else None
    return shutil.which("chromium") or shutil.which("chromium-browser")


def browser_meta(settings, kind: str) -> dict:
    """The request meta that renders a page of ``kind`` in the browser."""
    timeout = settings.getfloat("NEWSCRAWL_RENDER_TIMEOUT", 30.0)
    scrolls = settings.getint("NEWSCRAWL_RENDER_SCROLLS", 5) if kind == "listing" else 0
    return {"playwright": True, "playwright_page_goto_kwargs": {"wait_until": "load"},
            "playwright_page_methods": [PageMethod(settle, timeout, scrolls)]}


async def _size(page) -> list:
    return await page.evaluate(_SIZE_JS)


async def _settled(page, deadline: float, grown_from: list | None = None) -> bool:
    """Wait until the page's text and links stop changing (after growing from ``grown_from``,
    for up to :data:`SCROLL_WAIT_SECONDS`); False when ``deadline`` comes first."""
    loop = asyncio.get_running_loop()
    last, same = await _size(page), 0
    if grown_from is not None:
        wait_until = min(deadline, loop.time() + SCROLL_WAIT_SECONDS)
        while last == grown_from and loop.time() < wait_until:
            await asyncio.sleep(POLL_SECONDS)
            last = await _size(page)
    while same < STABLE_POLLS:
        if loop.time() >= deadline:
            return False
        await asyncio.sleep(POLL_SECONDS)
        size = await _size(page)
        same = same + 1 if size == last else 0
        last = size
    return True


async def settle(page, timeout: float, scrolls: int) -> int:
    """Wait for the loaded page to settle, then scroll it (or click its "load more") up to
    ``scrolls`` times while that adds content; returns the scrolls that did.  Raises
    :class:`RenderTimeout` when the page does not settle within ``timeout`` seconds."""
    deadline = asyncio.get_running_loop().time() + timeout
    if not await _settled(page, deadline):
        raise RenderTimeout(f"the page did not settle within {timeout:g} s")
    done = 0
    for _ in range(scrolls):
        before = await _size(page)
        await page.evaluate(_SCROLL_JS)
        if not await _settled(page, deadline, grown_from=before) or await _size(page) == before:
            break
        done += 1
    return done


if ScrapyPlaywrightDownloadHandler is not None:

    class BrowserHandler(ScrapyPlaywrightDownloadHandler):
        """scrapy-playwright's handler with the system Chromium, a lazy start and recycled contexts."""

        def __init__(self, crawler):
            super().__init__(crawler)
            self.crawler = crawler
            settings = crawler.settings
            self.config.launch_options = {
                "executable_path": find_browser(settings), "headless": True,
                "args": ["--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
                         "--disable-component-update", "--disable-sync", "--no-first-run"],
                **self.config.launch_options}
            if self.config.navigation_timeout_ms is None:
                timeout = settings.getfloat("NEWSCRAWL_RENDER_TIMEOUT", 30.0)
                self.config.navigation_timeout_ms = 1000 * timeout
            self.deadline = 2 * settings.getfloat("NEWSCRAWL_RENDER_TIMEOUT", 30.0) + 10
            self.context_pages = max(1, settings.getint("NEWSCRAWL_RENDER_CONTEXT_PAGES", 100))
            self._generation = 0
            self._served: dict[str, int] = defaultdict(int)
            self._start_lock = asyncio.Lock()
            self._closed_contexts: set[str] = set()  # closed since the browser started
            self._deadlines: dict[int, asyncio.Timeout] = {}  # by id(request): see _within_deadline
            self._creating: dict[str, int] = defaultdict(int)  # by context: pages being made in it
            self._closing = False  # the crawl is closing its browser: its disconnection is no loss
            self.abort_request = self._abort

        async def _maybe_launch_in_thread(self) -> None:
            """Not at the engine's start: a crawl that renders nothing starts no browser."""

        def _engine_started(self):
            return None

        async def _download_request(self, request, spider=None):
            """The rendered page; a page that was open when the browser died is rendered once more
            (in the new browser), and one still not done twice ``NEWSCRAWL_RENDER_TIMEOUT`` and 10 s
            after it got its browser page (or not given one within that time) is a :class:`RenderTimeout`."""
            self.crawler.stats.inc_value(STATS + "pages")
            lost = self.crawler.stats.get_value(STATS + "browser_lost", 0)
            try:
                return await self._within_deadline(request, spider)
            except Exception:
                if self.crawler.stats.get_value(STATS + "browser_lost", 0) == lost:
                    raise
            self.crawler.stats.inc_value(STATS + "retried_after_browser_lost")
            return await self._within_deadline(request, spider)

        async def _within_deadline(self, request, spider):
            """The rendered page within the deadline, which starts again when the page has its browser
            page: the wait for a free page (``PLAYWRIGHT_MAX_PAGES_PER_CONTEXT``, the contexts cap)
            has a deadline of its own and is not counted in the page's (on a loaded machine the
            last pages of a batch timed out while they waited).  Starting Playwright with the first
            page, and a ``new_page()`` the browser never answers (made as it was killed), count in
            the first."""
            try:
                async with asyncio.timeout(self.deadline) as deadline:
                    self._deadlines[id(request)] = deadline  # set by _create_page
                    async with self._start_lock:
                        if getattr(self, "browser_provider", None) is None:
                            await self._launch()
                    return await super()._download_request(request, spider)
            except TimeoutError:
                raise RenderTimeout(f"the page was not rendered within {self.deadline:g} s") from None
            finally:
                self._deadlines.pop(id(request), None)

        async def _create_page(self, request, spider):
            """A page in the current context; a context that served ``NEWSCRAWL_RENDER_CONTEXT_PAGES``
            pages takes no more and is closed when its last page is."""
            name = f"newscrawl-{self._generation}"
            request.meta["playwright_context"] = name
            # A retired context is not closed while a page is being made in it: Playwright never
            # answered a new_page() racing with the context's close, and the page hung.
            self._creating[name] += 1
            try:
                page = await super()._create_page(request, spider)
            finally:
                self._creating[name] -= 1
            deadline = self._deadlines.get(id(request))
            if deadline is not None:  # the page's own time starts now
                deadline.reschedule(asyncio.get_running_loop().time() + self.deadline)
            self._served[name] += 1
            if self._served[name] >= self.context_pages:
                self._generation += 1

            async def closed(_page) -> None:
                wrapper = self.context_wrappers.get(name)
                retired = name != f"newscrawl-{self._generation}"
                if retired and wrapper is not None and not wrapper.context.pages and not self._creating[name]:
                    self._served.pop(name, None)
                    self._creating.pop(name, None)
                    self.crawler.stats.inc_value(STATS + "contexts_recycled")
                    with suppress(PlaywrightError):  # gone with its browser
                        await wrapper.context.close()

            page.on("close", closed)
            return page

        async def _browser_disconnected_callback(self) -> None:
            """A browser that crashed or was killed takes its contexts and pages with it, and their
            close events may never come: the places they held are freed here (a request waiting for
            one then fails on the dead context and scrapy-playwright retries it in a new browser)."""
            lost = dict(self.context_wrappers)
            await super()._browser_disconnected_callback()
            if self._closing:  # Playwright reports the handler's own browser.close() as a disconnection
                return
            self.crawler.stats.inc_value(STATS + "browser_lost")
            self._served.clear()
            self._generation += 1
            for name, wrapper in lost.items():
                for _ in range(self.config.max_pages_per_context):
                    wrapper.semaphore.release()
                if name not in self._closed_contexts and hasattr(self, "context_semaphore"):
                    self.context_semaphore.release()
            self._closed_contexts.clear()

        async def _close(self) -> None:
            self._closing = True
            await super()._close()

        def _make_close_browser_context_callback(self, name, persistent, remote, spider=None):
            release = super()._make_close_browser_context_callback(name, persistent, remote, spider)

            def closed() -> None:
                self._closed_contexts.add(name)
                release()

            return closed

        async def _abort(self, request) -> bool:
            """Requests the browser does not make: images, media, fonts; other schemes than http(s),
            data and blob; and, in a crawl that refuses private addresses
            (:mod:`newscrawl.middlewares.addresses`), any http(s) request to a host that is, or
            resolves to, an address that is not globally routable."""
            scheme = request.url.partition(":")[0].lower()
            if request.resource_type in BLOCKED_TYPES or scheme not in ("http", "https", "data", "blob"):
                return True
            guarded = getattr(self.crawler.spider, "refuse_private_addresses", False)
            if scheme not in ("http", "https") or not guarded:
                return False
            address = await private_target(request.url)
            if address is None:
                return False
            self.crawler.stats.inc_value(STATS + "blocked_private")
            logger.info("Browser request to %s refused: its host is at %s, not globally routable",
                        request.url, address)
            return True

else:

    class BrowserHandler(HTTP11DownloadHandler):  # type: ignore[no-redef]
        """Without scrapy-playwright: Scrapy's HTTP handler, nothing rendered."""


class RenderMiddleware:
    """Downloader middleware: ``meta["playwright"]`` for the requests the site's rendering wants."""

    def __init__(self, crawler):
        self.crawler = crawler

    @classmethod
    def from_crawler(cls, crawler) -> RenderMiddleware:
        return cls(crawler)

    def process_request(self, request, spider=None):
        kind = request.meta.get(RENDER_KIND)
        rendering = getattr(self.crawler.spider, "rendering", None)
        if kind is None or rendering is None or request.meta.get("playwright"):
            return None
        if rendering.wants(kind, asked=bool(request.meta.get(RENDER_NOW))):
            request.meta.update(browser_meta(self.crawler.settings, kind))
        return None
