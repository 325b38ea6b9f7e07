"""Scale-out on scrapy-redis: any number of workers, on any number of machines, share one frontier.

``-s NEWSCRAWL_DISTRIBUTED=redis://host:6379/0`` (or the setting in a settings file) makes the
:class:`~.addon.RedisAddon` switch a crawl to:

- **scrapy-redis's scheduler** (:class:`~.scheduler.DistributedScheduler`, a subclass) with its
  priority queue in Redis: every request — catalogue pages, feeds *and the detail pages*
  the fetch stage schedules through ``crawler.engine.crawl()`` — goes into the shared queue
  and is downloaded by whichever worker pops it, not by the worker that read the listing;
- **scrapy-redis's duplicate filter** for requests that are not ``dont_filter``;
- **shared claims instead of the in-run sets** (:class:`~.claims.RedisClaims`):
  newscrawl's requests are all ``dont_filter`` (see :mod:`newscrawl.pipelines`), and
  de-duplication is by claims.  A detail URL is claimed when its listing item is read
  (one worker wins, so one request enters the queue, one worker pops it, one export);
  a listing page is claimed when it is scheduled, so N workers starting together read each
  catalogue page once (a worker counts as busy from the moment it joins), and every job reads it
  again (a listing claim holds off other workers only while its holder is busy); the export
  gate claims the article's URLs before export, so two listing URLs redirecting to one
  article are exported once across all workers;
- **the seen-URL store in the same Redis** (:class:`~newscrawl.state.redis_seen.RedisSeenStore`);
- **the template library in the same Redis** (Yan and Wang (2020),
  :class:`~newscrawl.state.redis_templates.RedisTemplateStore`, opened by :func:`~.options.template_store` for
  :mod:`newscrawl.pipelines.templates` instead of ``templates.sqlite3``): one library per
  site; each worker counts its own batches of N1 pages, merges what it learned into Redis
  at the end of every batch (one atomic Lua script: union of entries, the highest count)
  and reloads the shared library then, so every worker cleans with what all have learned;
  a worker that stops mid-batch leaves the batch for the next one to resume.
  ``scrapy templates SITE -s NEWSCRAWL_DISTRIBUTED=...`` prints it;
- **idle handling** (:class:`~.idle.IdleWorker`): a worker whose own work is done keeps polling the
  shared queue while it has requests or another worker is busy (it may still discover
  pages), and closes after ``NEWSCRAWL_IDLE_CLOSE`` seconds with nothing to do.

Start URLs come from the spiders' own ``start()`` (catalogues and feeds of the site
configuration), not from scrapy-redis's ``RedisSpider`` start-URL list, whose idle-time
reading its maintainers call fragile (rmax/scrapy-redis#317).

**Workers and their claims.**  Every worker has an id and a heartbeat key in Redis
(:class:`~.workers.RedisWorkers`), refreshed every :attr:`~.idle.IdleWorker.BEAT`
seconds while it runs; each claim names its owner.  A listing or detail claim whose owner's
heartbeat has expired (``kill -9``, a crashed machine, a worker cut off from Redis) is taken
over by the next worker that claims the URL (``newscrawl/distributed/claims_taken_over``);
so is an export claim, after the seen-store check found the article unexported (the dead
worker claimed it and was killed before writing it; one it wrote but had not recorded is
recorded by the next run from the same state directory first, see
:meth:`~newscrawl.state.seen_urls.SeenUrls.reconcile`).  For ``NEWSCRAWL_REDIS_HEARTBEAT_TTL``
seconds after an outage a worker takes nothing over: every worker lost its heartbeat with
Redis and needs a beat to show it is alive (pages they hold stay parked meanwhile).
A listing or detail page claimed by a worker whose last beat said *busy* is parked and
claimed again every beat, so a run started right after a killed one reads the catalogue
and fetches the pages the dead worker had in flight once its heartbeat is gone
(``NEWSCRAWL_REDIS_HEARTBEAT_TTL``), instead of listing nothing; a detail page claimed by an
*idle* or *done* worker, and a parked page whose holder became idle or done, is left to it
(it has processed what it took, or the request waits in the shared queue).  A listing page
whose holder is idle, done or gone when it is scheduled is taken over and read again: that
holder finished with it, in this job or an earlier one, and a job that continues after a
killed worker (its heartbeat not yet expired, or requests left in the queue) would otherwise
skip the listing pages and find nothing new.  A worker that finishes cleanly is ``done`` and its claims
stand until the job ends; the job's claims are cleared by its last live worker when it
finishes, and by a worker that starts when no worker is live and the shared queue is
empty (a new job).

**Redis outages** (:class:`~.link.RedisLink`).  Each Redis command is retried by redis-py itself
(``Retry`` with ``ExponentialBackoff`` on connection errors and timeouts, passed to
scrapy-redis's clients through ``REDIS_PARAMS``), so a blip or a quick restart goes
unnoticed.  When a command still fails, the worker marks Redis down (one warning,
``newscrawl/redis/outages``) and stops calling it, except for one ``PING`` per beat in a
thread: requests it schedules are held in memory and queued when Redis is back; listing and
article items wait in the pipeline (:class:`~.gates.ListingGate` before the seen filter,
:class:`~.gates.ExportGate` before the export gate; ``newscrawl/redis/items_held``) and resume with
their seen-store checks and claims; an exported article whose URLs cannot be recorded as
seen is recorded when Redis is back (``newscrawl/redis/seen_writes_held``).  If Redis stays
away for ``NEWSCRAWL_REDIS_OUTAGE_TIMEOUT`` seconds, the worker stops with finish_reason
``redis_unavailable``: the items still waiting are not exported (one error line;
``newscrawl/dropped/redis_unavailable``; their pages are fetched by a later run), requests
not queued are counted (``newscrawl/redis/requests_not_queued``), and exported URLs not yet
recorded are written to ``redis-unrecorded.json`` in the state directory, which the next
run of the site records first.  Nothing exported is lost or, from the same state
directory, exported twice.  Redis must persist its data (AOF, ``appendonly yes``) for the
shared queue and seen store to survive a Redis *restart*.

Settings (defaults):

- ``NEWSCRAWL_DISTRIBUTED`` (None) — the Redis URL; unset = the single-process crawl;
- ``NEWSCRAWL_REDIS_PREFIX`` ("newscrawl") — key prefix, so crawls can share a server;
- ``NEWSCRAWL_REDIS_OUTAGE_TIMEOUT`` (60) — seconds without Redis before a worker stops;
- ``NEWSCRAWL_REDIS_RETRIES`` (3) — redis-py's retries of one command (with backoff);
- ``NEWSCRAWL_REDIS_HEARTBEAT_TTL`` (15) — seconds without a heartbeat after which a
  worker counts as gone and its listing and detail claims are taken over;
- ``NEWSCRAWL_CLAIM_TTL`` (21600) — the claims of a crawl job expire after this many
  seconds of inactivity if no worker clears them;
- ``NEWSCRAWL_IDLE_CLOSE`` (5) — seconds an idle worker waits for work before it stops.

``docs/performance.md`` shows how to run N workers on N machines.  Compatibility with
scrapy-redis 0.9.1 on Scrapy 2.19 (its last release predates Scrapy 2.13): it works as it
is, with deprecation warnings; the one shim here is :meth:`~.scheduler.DistributedScheduler.from_crawler`
passing the crawler's settings and stats explicitly.

Modules:

- :mod:`.options` — setting names and defaults, :func:`~.options.settings_for`;
- :mod:`.addon` — the add-on that switches a crawl to the distributed mode;
- :mod:`.scheduler` — the shared queue with newscrawl's listing claims;
- :mod:`.seen` — the seen store and in-run sets in Redis (the crawl's ``SeenUrls``);
- :mod:`.claims`, :mod:`.workers`, :mod:`.queue_pop` — the Redis scripts behind claims,
  heartbeats and pops (no Scrapy imports);
- :mod:`.link` — Redis up or down, outages; :mod:`.gates` — items held during an outage;
- :mod:`.idle` — idle polling, heartbeats and the end of a job.

The shared stores a single-process crawl also has (seen URLs, templates) are in
:mod:`newscrawl.state`.
"""
