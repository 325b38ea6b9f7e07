"""What a crawl remembers between runs, on one machine (SQLite files in the state directory,
``NEWSCRAWL_STATE_DIR``, default ``.newscrawl``) or shared by workers (Redis, with
``NEWSCRAWL_DISTRIBUTED``).

- :mod:`.seen_store` — which article URLs each site has exported, and the pages it fetched and
  did not export (``seen.sqlite3``); :mod:`.redis_seen` is the same in Redis;
- :mod:`.seen_urls` — the Scrapy extension that keeps the seen store in step with the feeds;
  :mod:`.rejections` — its memory of pages fetched without an article, and when to fetch them again;
- :mod:`.run_lock` — one run at a time (``flock``);
- :mod:`.redis_client` — the Redis connection every shared store uses;
- :mod:`.redis_templates` — the per-site template library and title decoration in Redis
  (their SQLite form is ``templates.sqlite3``, :mod:`newscrawl.extract.methods.template`);
- :mod:`.spider_state` — Scrapy's ``JOBDIR`` spider state, made robust.

The learned URL shapes are in :mod:`newscrawl.discovery.url_shapes`, the site-health history in
:mod:`newscrawl.health.history`, the content fingerprints in :mod:`newscrawl.dedup`.

Keys all start with a prefix (``newscrawl`` by default) so several crawls can share a server::

    <prefix>:seen:<site>             hash   canonical URL -> ISO time exported
    <prefix>:seen-sites              set    sites with a seen hash (for count())
    <prefix>:unexported:<site>       hash   canonical URL -> JSON [reason, ISO time, cause] of a page
                                            fetched and not exported (older stores: [reason, ISO time])
    <prefix>:degraded-sites          hash   site -> ISO time since its extraction has been failing
    <prefix>:claims:<scope>          hash   SHA-1 of a claimed URL -> owner (scope = spider:kind), TTL
    <prefix>:worker:<id>             string ``busy``/``idle`` (expires unless refreshed) or ``done``
    <prefix>:workers:<spider>        set    worker ids of the spider's crawl job
    <prefix>:<spider>:requests:last-pop:<id>  string  a worker's last pop (:class:`QueuePop`)
    <prefix>:data-kept               string marker: gone after an outage = Redis lost its data
    <prefix>:template:<site>         hash   template entry (JSON ``[tag, text]``) -> count
    <prefix>:template-hits:<site>    zset   template entry -> last hit (the bound drops the lowest)
    <prefix>:template-batches:<site> list   unfinished batches (``SiteTemplates.to_json()``) of closed workers
    <prefix>:template-sites          set    sites with a template library
"""
