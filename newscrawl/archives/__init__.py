"""WARC archives: recording a crawl, reading archives back, and WARC files to article rows as a job
on Dask distributed.

- :mod:`.warc_files` — the WARC files a crawl records into (the recording middleware is
  :mod:`newscrawl.middlewares.warc_recorder`);
- :mod:`.warc_reader` — the article pages of one archive, and a counted skip for every other
  record (no Scrapy imports; the ``warc`` spider and the job read through it);
- :mod:`.mapper` — one decoded WARC page to one article row (the crawl's extraction) or a skip;
- :mod:`.budget` — the per-record time budget;
- :mod:`.inputs` — paths, globs, file lists and remote URLs to the job's input files;
- :mod:`.output` — one input file's output, Parquet or JSON lines, committed atomically with a
  done marker (exactly once at file level);
- :mod:`.job` — the files as tasks of a Dask cluster, with progress and a summary;
- :mod:`.dedup` — near-duplicate bodies as a pass over a finished job's output.

``scrapy archive`` (:mod:`newscrawl.commands.archive`) is the command; docs/archives.md the guide.
"""
