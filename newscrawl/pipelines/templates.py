"""Yan and Wang's (2020) per-site template library in the crawl: learn each site's common noise from
the pages it fetches and remove it before extraction.

:class:`ExtractStage` calls :meth:`CrawlTemplates.apply` on every parsed page, before
``extract_page``.  Order matters: the page's leaves are counted on the *raw* tree
(:meth:`SiteTemplates.learn`), and only then are the leaves matching the learned
template removed (:meth:`SiteTemplates.clean`); counting after cleaning would starve the
library of the very leaves it has to keep seeing.  The library starts empty, so a site's
first N1 (= 10) pages are extracted uncleaned.

A guard the paper does not need (its pages are distinct articles): when the template
leaves hold more than ``NEWSCRAWL_TEMPLATE_MAX_SHARE`` (default 0.5) of a page's body
text, the page is a near-duplicate of pages seen before (a republished story, a
correction) rather than noise around an article, and it is extracted uncleaned
(``newscrawl/template/pages_skipped``).

The library lives in ``templates.sqlite3`` in the crawl's state directory
(``NEWSCRAWL_STATE_DIR``, beside the seen-URL store), keyed by the site name.  It is
saved whenever a batch of N1 pages ends and when the spider closes, so a restart keeps
the template and, at worst, recounts the pages of one unfinished batch.  ``scrapy
templates SITE`` prints it.  ``NEWSCRAWL_TEMPLATES=0`` switches all of this off.

Stats: ``newscrawl/template/pages_learned``, ``newscrawl/template/pages_cleaned`` (pages
that lost at least one leaf), ``newscrawl/template/leaves_removed``, ``newscrawl/template/pages_skipped``,
``newscrawl/template/errors``.  A template failure costs the cleaning of one page, never
the article.
"""

from __future__ import annotations

import logging

from ..extract import Page, dom
from ..extract.methods.template import TemplateStore, iter_leaves

logger = logging.getLogger(__name__)

STATS = "newscrawl/template/"
SAVE_FAILED = STATS + "save_failed"  # a template library write failed: the run stops
MAX_SHARE = 0.5  # a page whose text is mostly "template" is a near-duplicate: keep it whole


class CrawlTemplates:
    """The crawl's template libraries: one :class:`TemplateStore`, opened on first use."""

    def __init__(self, crawler):
        self.crawler = crawler
        self.enabled = crawler.settings.getbool("NEWSCRAWL_TEMPLATES", True)
        self.max_share = crawler.settings.getfloat("NEWSCRAWL_TEMPLATE_MAX_SHARE", MAX_SHARE)
        self._state_dir = crawler.settings.get("NEWSCRAWL_STATE_DIR")
        self.store: TemplateStore | None = None
        self._unsaved: set[str] = set()
        self.titles = TitleDecorations(crawler, self)

    def _store(self) -> TemplateStore:
        """The SQLite store, or with ``NEWSCRAWL_DISTRIBUTED`` the one all workers share in Redis."""
        if self.store is None:
            from newscrawl.distributed.options import template_store

            self.store = template_store(self.crawler.settings) or TemplateStore.in_dir(self._state_dir)
        return self.store

    def apply(self, site: str, page: Page) -> int:
        """Count ``page``'s leaves for ``site``, then remove its template leaves in place.
        Returns the number of leaves removed."""
        if not self.enabled:
            return 0
        stats = self.crawler.stats
        try:
            library = self._store().site(site)
            page_leaves = list(iter_leaves(page.body))  # read once for learning and for cleaning
            library.learn(page.root, page_leaves)
            stats.inc_value(STATS + "pages_learned")
            self._unsaved.add(site)
            if library.pages_in_batch == 0:  # a batch just ended: persist the new template
                self.save(site)
            leaves = library.noise_leaves(page.root, page_leaves)
            if leaves and self._too_much(page, leaves):
                stats.inc_value(STATS + "pages_skipped")
                logger.info("Template matches most of %s's text (a near-duplicate page?): not cleaned",
                            page.url)
                return 0
            removed = library.clean(page, leaves)
        except Exception as exc:  # noqa: BLE001 - the article is still extracted, uncleaned
            stats.inc_value(STATS + "errors")
            logger.warning("Template library failed on %s: %s: %s", page.url, type(exc).__name__, exc)
            return 0
        if removed:
            stats.inc_value(STATS + "pages_cleaned")
            stats.inc_value(STATS + "leaves_removed", removed)
        return removed

    def _too_much(self, page: Page, leaves: list) -> bool:
        """Would removing ``leaves`` take more than ``max_share`` of the body's text?"""
        total = len(dom.normalize_space(page.body.text_content()))
        noise = sum(len(dom.normalize_space(el.text_content())) for el in leaves)
        return noise > self.max_share * total

    def save(self, site: str) -> None:
        try:
            self._store().save(site)
            self.titles.save(site)
            self._unsaved.discard(site)
        except Exception as exc:  # noqa: BLE001 - reported through the stats, see below
            self.crawler.stats.inc_value(STATS + "errors")
            if not self.crawler.settings.get("NEWSCRAWL_DISTRIBUTED"):
                # A local store that cannot be written stops the run (state_write_failed; the crawl
                # process reads this counter, also from a worker's replayed stats).  In Redis, a
                # failed save is an outage, which the distributed mode rides out or ends itself.
                self.crawler.stats.inc_value(SAVE_FAILED)
            logger.warning("Could not save the template library of %s: %s", site, exc)

    def finish(self, site: str) -> None:
        """The site's crawl closed: save its library if it changed, and drop it from memory
        (a process serving many sites one after the other keeps only the open ones)."""
        if self.store is None:
            return
        if site in self._unsaved:
            self.save(site)
        if site not in self._unsaved and isinstance(self.store, TemplateStore):
            self.store._sites.pop(site, None)  # reloaded from the file if the site comes back

    def close(self) -> None:
        """Save every site touched since its last save, then close the store."""
        if self.store is None:
            return
        for site in sorted(self._unsaved):
            self.save(site)
        self.titles.close()
        self.store.close()
        self.store = None


class TitleDecorations:
    """The crawl's per-site title decorations (:mod:`newscrawl.extract.fields.title_decoration`),
    kept beside the template library: in its SQLite file, or in Redis with ``NEWSCRAWL_DISTRIBUTED``.

    Stats: ``newscrawl/title_decoration/pages_learned``, ``.../pages_decorated`` (pages extracted
    with a learned decoration), ``.../errors``.  ``NEWSCRAWL_TITLE_DECORATION=0`` switches it off.
    """

    def __init__(self, crawler, templates: CrawlTemplates):
        self.crawler = crawler
        self.templates = templates
        self.enabled = templates.enabled and crawler.settings.getbool("NEWSCRAWL_TITLE_DECORATION", True)
        self.store = None

    def _store(self):
        if self.store is None:
            from newscrawl.state.redis_templates import RedisDecorationStore

            from ..extract.fields.title_decoration import DecorationStore

            templates = self.templates._store()
            client = getattr(templates, "client", None)
            self.store = (RedisDecorationStore(client, templates.prefix) if client is not None
                          else DecorationStore(templates.path))
        return self.store

    def apply(self, site: str, page: Page) -> None:
        """Count ``page``'s title parts for ``site`` and give the page what the site taught."""
        if not self.enabled:
            return
        stats = self.crawler.stats
        try:
            decoration = self._store().site(site)
            decoration.learn(page)
            stats.inc_value("newscrawl/title_decoration/pages_learned")
            if decoration.apply(page):
                stats.inc_value("newscrawl/title_decoration/pages_decorated")
        except Exception as exc:  # noqa: BLE001 - the title falls back to the single-page rules
            stats.inc_value("newscrawl/title_decoration/errors")
            logger.warning("Title decoration failed on %s: %s: %s", page.url, type(exc).__name__, exc)

    def save(self, site: str) -> None:
        if self.store is not None:
            self.store.save(site)

    def close(self) -> None:
        if self.store is not None:
            self.store.close()
            self.store = None
