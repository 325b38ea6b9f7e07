"""The site spider's side of rendering (docs/rendering.md): which article and catalogue pages go
through the headless browser (:mod:`newscrawl.middlewares.render`).

Per site ``render`` (sites.toml): ``never`` renders nothing; ``always`` renders every article and
catalogue page (a usage error without a browser); ``auto`` (the default) renders an app shell
(:func:`newscrawl.extract.shell.is_app_shell`: scripts, no visible text, no embedded article) or
a catalogue page without article links but with scripts, after its plain fetch, and learns
(:mod:`newscrawl.state.rendering`) whether the site's pages need the browser: once they do, its
pages of that kind are rendered directly (no plain fetch first); once they do not, none is.
Without a browser, ``auto`` warns once and counts the pages it would have rendered
(``newscrawl/render/unavailable``).

In a distributed crawl (``NEWSCRAWL_DISTRIBUTED``) what ``auto`` learns is kept in Redis, and the
pages to render go to a queue that only the workers with a browser read
(:mod:`newscrawl.distributed.browsers`): a worker without one hands its shells over instead of
counting them ``unavailable``, as long as a worker with a browser is live.

Stats (``newscrawl/render/``): ``pages`` (requests rendered), ``fallback/<kind>`` (plain, then
rendered), ``direct/<kind>``, ``helped/<kind>`` and ``unhelpful/<kind>`` (what rendering showed),
``skipped_learned/<kind>`` (a shell on a site learned plain), ``unavailable``; a rendered page
that does not settle is dropped as ``render_timeout``.
"""

from __future__ import annotations

import logging

from scrapy import signals
from scrapy.http import TextResponse

from newscrawl.extract import Page
from newscrawl.extract.shell import has_scripts, is_app_shell
from newscrawl.middlewares.render import RENDER_NOW, STATS, find_browser
from newscrawl.state import rendering as store

logger = logging.getLogger(__name__)
MODES = ("auto", "always", "never")
INSTALL = ("pip install 'newscrawl[render]' (scrapy-playwright) and apt-get install chromium, "
           "or name a Chromium binary in NEWSCRAWL_BROWSER")


def rendered(response) -> bool:
    return "playwright" in (response.flags or ())


def always_problem(site, settings) -> str | None:
    """Why a site with ``render = "always"`` cannot be crawled here (no browser), else None."""
    if site.render == "always" and find_browser(settings) is None:
        return f'render = "always" needs a headless Chromium: {INSTALL}'
    return None


class Rendering:
    """One spider's rendering decisions and what they teach about its site."""

    def __init__(self, crawler, site):
        self.crawler = crawler
        self.site = site.name
        self.mode = site.render
        self.browser = find_browser(crawler.settings) if self.mode != "never" else None
        self._learned: store.SiteRendering | None = None
        self._warned = False
        self.added: dict[str, dict[str, int]] = {kind: {} for kind in store.KINDS}  # this run's counts
        self.distributed = crawler.settings.get("NEWSCRAWL_DISTRIBUTED")
        # Set by the distributed scheduler: is a worker with a browser live in the crawl?
        self.browser_elsewhere = lambda: False

    @classmethod
    def from_crawler(cls, crawler, site) -> Rendering:
        rendering = cls(crawler, site)
        crawler.signals.connect(rendering.save, signal=signals.spider_closed)
        return rendering

    @property
    def stats(self):
        return self.crawler.stats

    @property
    def learned(self) -> store.SiteRendering:
        """What earlier runs learned of the site (in the state directory, or in Redis in a
        distributed crawl), and what this run has learned since."""
        if self._learned is None:
            try:
                if self.distributed:
                    self._learned = store.load_redis(self._client(), self._prefix(), self.site)
                else:
                    self._learned = store.load(self._path(), self.site)
            except Exception as exc:  # noqa: BLE001 - the run learns again
                logger.warning("Could not load what rendering learned about %s: %s", self.site, exc)
                self._learned = store.SiteRendering()
        return self._learned

    def _client(self):
        from newscrawl.state.redis_client import connect

        return connect(self.distributed)

    def _prefix(self) -> str:
        return self.crawler.settings.get("NEWSCRAWL_REDIS_PREFIX") or "newscrawl"

    def _path(self):
        from .url_shapes import sqlite_path

        return sqlite_path(self.crawler.settings)

    def save(self, spider=None, reason=None) -> None:
        if self._learned is None or not self._learned.changed:
            return
        try:
            if self.distributed:  # the workers' counts add up
                store.add_redis(self._client(), self._prefix(), self.site, self.added)
                self.added = {kind: {} for kind in store.KINDS}
                self._learned.changed = False
            else:
                store.save(self._path(), self.site, self._learned)
        except Exception as exc:  # noqa: BLE001 - the next run learns again
            logger.warning("Could not save what rendering learned about %s: %s", self.site, exc)

    def _add(self, kind: str, outcome: str) -> None:
        self.learned.add(kind, outcome)
        self.added[kind][outcome] = self.added[kind].get(outcome, 0) + 1

    def routes_to_browser(self, kind: str, asked: bool) -> bool:
        """Does a request for a page of ``kind`` need a worker with a browser (``asked``: its
        plain fetch was a shell)?  What :meth:`wants` decides, without counting it."""
        if self.mode == "never":
            return False
        return asked or self.mode == "always" or self.learned.verdict(kind) == "render"

    def wants(self, kind: str, asked: bool = False) -> bool:
        """Is a request for a page of ``kind`` rendered (``asked``: its plain fetch was a shell)?"""
        if self.mode == "never" or self.browser is None:
            return False
        if not asked and self.mode != "always" and self.learned.verdict(kind) != "render":
            return False
        self.stats.inc_value(f"{STATS}{'fallback' if asked else 'direct'}/{kind}")
        return True

    def article(self, response) -> bool:
        """Learn from a fetched article page; True when it is a shell to fetch again in the browser."""
        if self.mode == "never" or not isinstance(response, TextResponse) or response.status != 200:
            return False
        try:
            content_type = response.headers.get("Content-Type", b"").decode("latin-1")
            shell = is_app_shell(Page.from_html(response.body, url=response.url, content_type=content_type))
        except Exception:  # noqa: BLE001 - a page the library cannot read is the extraction's drop
            return False
        return self._learn("article", response, shell)

    def listing(self, response, links: int) -> bool:
        """Learn from a catalogue page with ``links`` article links; True: fetch it again in the browser."""
        if self.mode == "never" or not isinstance(response, TextResponse) or response.status != 200:
            return False
        try:
            shell = not links and has_scripts(Page.from_html(response.body, url=response.url))
        except Exception:  # noqa: BLE001 - a page the library cannot read gives no links either way
            return False
        return self._learn("listing", response, shell)

    def _learn(self, kind: str, response, shell: bool) -> bool:
        if rendered(response):
            outcome = "unhelpful" if shell else "helped"
            self._add(kind, outcome)
            self.stats.inc_value(f"{STATS}{outcome}/{kind}")
            return False
        request = response.request
        if request is not None and request.meta.get(RENDER_NOW):  # sent to be rendered, fetched plain
            self.stats.inc_value(STATS + "unavailable")
            return False
        self._add(kind, "shell" if shell else "plain")
        if not shell:
            return False
        if self.mode == "auto" and self.learned.verdict(kind) == "plain":
            self.stats.inc_value(f"{STATS}skipped_learned/{kind}")
            return False
        if self.browser is None and self.distributed and self.browser_elsewhere():
            self.stats.inc_value(STATS + "handed_over")  # to a worker with a browser
            return True
        if self.browser is None:
            self.stats.inc_value(STATS + "unavailable")
            if not self._warned:
                self._warned = True
                logger.warning("%s: %s looks like a page only a browser shows; no page is rendered without "
                               "one (counted in %sunavailable): %s", self.site, response.url, STATS, INSTALL)
            return False
        return True

    def describe(self) -> list[str]:
        return describe(self.learned)


def describe(learned: store.SiteRendering) -> list[str]:
    """``scrapy templates SITE``'s lines on rendering."""
    lines = []
    for kind in store.KINDS:
        c = learned.counts[kind]
        lines.append(f"rendering ({kind} pages): {learned.verdict(kind)}  ({c['plain']} plain, "
                     f"{c['shell']} shells, browser helped on {c['helped']}, not on {c['unhelpful']})")
    return lines
