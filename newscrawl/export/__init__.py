"""What leaves the crawl: the records and the files that hold them.

- :mod:`.storage` — local feed files flushed per item, cut back to the last complete record
  after a failed write;
- :mod:`.files` — a site's feed files read back (the seen store's reconciliation);
- :mod:`.parquet` — the Parquet feed exporter (``-O out.parquet``);
- :mod:`.schema` — the record's Arrow schema, shared with ``scrapy archive``.

The record's fields and their cleaning are :mod:`newscrawl.items`.
"""
