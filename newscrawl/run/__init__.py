"""One run of a crawl: what it checks before it starts, how it counts and logs what it gives up
on, how it shows progress and how it ends.

- :mod:`.guard` — the start checks: locks, state and export files (finish_reason ``locked``,
  ``state_unwritable``);
- :mod:`.drops` — drop reasons: one log line and a ``newscrawl/dropped/<reason>`` counter each;
- :mod:`.crawlstats` — progress lines and bar, Scrapy's core stats and log formatter;
- :mod:`.report` — the closing summary;
- :mod:`.logfile` — ``LOG_FILE`` rotated by size.

The exit status of ``scrapy crawl`` is decided from these in :mod:`newscrawl.commands.outcome`.
"""
