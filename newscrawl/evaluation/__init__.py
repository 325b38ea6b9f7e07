"""Measuring the extraction: nothing here runs in a crawl.

- :mod:`.datasets` — reading a dataset folder (``truth.jsonl`` + ``pages/``);
- :mod:`.metrics` — the scores (body P/R/F1 as the Zyte benchmark and CEVC compute them,
  titles, dates, authors, snippets);
- :mod:`.runner` — running methods and peer extractors over datasets (``scrapy evaluate``);
- :mod:`.quality_gate` — the floors CI holds every figure to;
- :mod:`.template_eval` — leaf-tag precision/recall of the template method;
- :mod:`.per_site` — each site's pages in order through the crawl's learning;
- :mod:`.sites` — which site a page belongs to, and the site split (``--site-half``).

Training the shipped models is :mod:`newscrawl.training`.
"""
