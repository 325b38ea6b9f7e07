"""Scrapy components between the engine and the downloader, one job a module.

- :mod:`.scheduler` — a crash-aware ``JOBDIR`` scheduler;
- :mod:`.origins` — the origin allow-list (redirects and ``dont_filter`` requests included) and the
  URL length limit for every request;
- :mod:`.addresses` — no address that is not globally routable unless the site is on one, checked
  before each request and again by the resolver at connection time;
- :mod:`.robots` — robots.txt failures read as RFC 9309 says;
- :mod:`.retry` — ``Retry-After``, and the drop reason of a failed download;
- :mod:`.decompression` — content codings undone with each stream's end checked;
- :mod:`.warc_recorder` — every response recorded as WARC (``NEWSCRAWL_WARC``).
"""
