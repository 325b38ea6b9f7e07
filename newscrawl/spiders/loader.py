"""A spider loader that adds one spider per configured site to the project's spider classes."""

from __future__ import annotations

import warnings

from scrapy.spiderloader import SpiderLoader

from ..sites import SiteConfig, SiteConfigError, load_sites
from .site import SiteSpider, check_politeness_settings


def spider_class(site: SiteConfig) -> type[SiteSpider]:
    """A :class:`SiteSpider` subclass named after ``site``."""
    cls_name = "".join(part.capitalize() for part in site.name.split("_")) + "Spider"
    return type(cls_name, (SiteSpider,), {"name": site.name, "site": site, "__module__": __name__})


class SiteSpiderLoader(SpiderLoader):
    """Spider classes from ``SPIDER_MODULES`` plus one per site in ``NEWSCRAWL_SITES``.

    The sites file and the politeness settings given with ``-s`` are validated here, so a
    bad key or value stops ``scrapy list``/``crawl`` with one line naming the file, site and
    key or the setting (the :class:`~newscrawl.sites.SiteConfigError`'s message, as
    :class:`SystemExit`: no traceback).  A coded spider with the same name as a configured
    site wins (with a warning).
    """

    def __init__(self, settings):
        super().__init__(settings)
        try:
            self.sites = load_sites(settings.get("NEWSCRAWL_SITES"))
            check_politeness_settings(settings)  # -s values, in the sites file's ranges
        except SiteConfigError as exc:
            raise SystemExit(f"error: {exc}") from None
        for name, site in self.sites.items():
            if name in self._spiders:
                msg = f"spider {name!r} is both coded and configured; using the coded one"
                warnings.warn(msg, stacklevel=2)
                continue
            self._spiders[name] = spider_class(site)
