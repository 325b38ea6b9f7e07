"""A rendered page's deadline holds from the request's start: a Playwright start or a browser page
that never comes (a ``new_page()`` made as the browser was killed is never answered) ends as a
:class:`~newscrawl.middlewares.render.RenderTimeout`, not a crawl that waits for ever.

The handler is the real one; only the Playwright calls are replaced by ones that never return,
so no browser is needed."""

from __future__ import annotations

import asyncio

import pytest
import pytest_twisted
from scrapy import Request
from scrapy.utils.test import get_crawler
from twisted.internet.defer import Deferred

pytest.importorskip("scrapy_playwright", reason="scrapy-playwright is not installed (pip install 'newscrawl[render]')")

from scrapy_playwright.handler import ScrapyPlaywrightDownloadHandler  # noqa: E402

from newscrawl.middlewares.render import BrowserHandler, RenderTimeout  # noqa: E402


async def never(*_args, **_kwargs):
    await asyncio.get_running_loop().create_future()


async def started(handler):
    handler.browser_provider = object()


@pytest.mark.parametrize("hangs", ["playwright start", "browser page"])
@pytest_twisted.ensureDeferred
async def test_a_page_that_never_gets_its_browser_page_is_a_render_timeout(hangs, monkeypatch):
    monkeypatch.setattr(BrowserHandler, "_launch", never if hangs == "playwright start" else started)
    monkeypatch.setattr(ScrapyPlaywrightDownloadHandler, "_download_request", never)
    crawler = get_crawler(settings_dict={"NEWSCRAWL_RENDER_TIMEOUT": 1})
    crawler._apply_settings()
    handler = BrowserHandler(crawler)
    handler.deadline = 0.5  # the crawl's is 2 x NEWSCRAWL_RENDER_TIMEOUT + 10 s
    request = Request("http://127.0.0.1/news/1.html", meta={"playwright": True})
    with pytest.raises(RenderTimeout, match="not rendered within 0.5 s"):
        await Deferred.fromFuture(asyncio.ensure_future(handler._download_request(request)))
    assert crawler.stats.get_value("newscrawl/render/pages") == 1
    assert not handler._deadlines
