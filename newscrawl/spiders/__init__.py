"""Spiders: one per configured site (see :mod:`newscrawl.sites` and :mod:`.loader`).

:class:`~newscrawl.spiders.site.SiteSpider` is the one generic spider; the spider loader
registers a subclass of it for every ``[sites.<name>]`` table of the sites file, so
``scrapy list`` shows every site and ``scrapy crawl <name>`` runs one.
"""
