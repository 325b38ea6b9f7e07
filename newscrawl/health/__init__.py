"""Site health over months: a history row per site and run, drift alarms against the site's own
history, and a self-contained report page (``scrapy report``).

- :mod:`.history` — :class:`RunRecord` and its stores (SQLite in the state directory, Redis in
  the distributed mode), with retention.
- :mod:`.signals` — the run's quality signals, read from the exported items and the stats.
- :mod:`.alarms` — robust baselines (median and MAD of the site's earlier runs) and the rules.
- :mod:`.report` — the HTML page (inline CSS and SVG) and its JSON form.
- :mod:`.extension` — the Scrapy extension that records a row at spider close.

Only :mod:`.extension` imports Scrapy; progress lines are :mod:`newscrawl.run.crawlstats`.
"""
