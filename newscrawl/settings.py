"""Scrapy settings for newscrawl.

Sites are configuration (``NEWSCRAWL_SITES``, default ``data/sites.toml``); per-site
politeness overrides there apply at spider priority, so ``-s`` still wins.
"""

from newscrawl.items import EXPORT_FIELDS
from newscrawl.pipelines import STAGES

BOT_NAME = "newscrawl"

SPIDER_MODULES = ["newscrawl.spiders"]
NEWSPIDER_MODULE = "newscrawl.spiders"
SPIDER_LOADER_CLASS = "newscrawl.spiders.loader.SiteSpiderLoader"
COMMANDS_MODULE = "newscrawl.commands"

# --- newscrawl ---------------------------------------------------------------------
NEWSCRAWL_SITES = None  # path of the sites file; None = data/sites.toml
NEWSCRAWL_METHOD = "auto"  # body extraction method: auto, cevc, decay
NEWSCRAWL_EXTRACT = True  # False: export listing fields only, no extraction (crawl-cost baseline)
NEWSCRAWL_EXPORT_MARKDOWN = True  # False: leave the body's Markdown (`markdown`) out of the export
NEWSCRAWL_EXPORT_HTML = True  # False: leave the body's sanitised HTML (`html`) out of the export
NEWSCRAWL_EXTRACT_PROCESSES = 1  # extraction worker processes; 0 = in the crawl process, with no time limit
NEWSCRAWL_EXTRACT_TIMEOUT = 20  # seconds per page's extraction, then its worker is replaced; 0 = no limit
NEWSCRAWL_CONCURRENT_SITES = None  # scrapy crawlall: sites crawled at once; None = twice the CPU cores
NEWSCRAWL_EXTRACT_BACKLOG = 32  # pages waiting per worker before the engine stops taking requests
NEWSCRAWL_DISTRIBUTED = None  # redis://host:port/db: workers share one frontier (newscrawl/distributed/)
NEWSCRAWL_REDIS_OUTAGE_TIMEOUT = 60  # seconds without Redis before a worker stops (redis_unavailable)
NEWSCRAWL_REDIS_RETRIES = 3  # redis-py's retries of one command, with exponential backoff
NEWSCRAWL_REDIS_HEARTBEAT_TTL = 15  # seconds without a heartbeat: a worker is gone, its claims taken over
NEWSCRAWL_STATE_DIR = None  # seen-URL store directory; None = $NEWSCRAWL_STATE_DIR or ./.newscrawl
NEWSCRAWL_FRESH = False  # True: ignore what earlier runs exported
NEWSCRAWL_RETRY_UNEXPORTED_DAYS = 30  # days until a page fetched and not exported (no text, ...) is refetched
NEWSCRAWL_LIVE_DAYS = 2  # days after its newest entry that an exported live blog is refetched for new entries
NEWSCRAWL_MIN_TEXT_CHARS = 1
NEWSCRAWL_PAGE_TYPE_FILTER = True  # drop listing/tag/author/gallery/video/error pages: not_article/<kind>
NEWSCRAWL_FINGERPRINTS_PER_SITE = 100_000  # body fingerprints kept per site (duplicate_content); 0 = off
NEWSCRAWL_TEMPLATES = True  # learn each site's template (Yan and Wang 2020) and remove it before extraction
NEWSCRAWL_URL_SHAPES = True  # learn which URL shapes of a site are articles; skip shapes that never were
NEWSCRAWL_TITLE_DECORATION = True  # learn the <title> parts each site repeats and keep them out of headlines
NEWSCRAWL_TEMPLATE_MAX_SHARE = 0.5  # a page whose text is mostly template is extracted uncleaned
NEWSCRAWL_SHARED_BODY_CHECK = True  # one body, different titles: a failed extraction, not a duplicate
NEWSCRAWL_MAX_FEED_ENTRIES = 1000  # entries read per feed document; the rest are ignored
NEWSCRAWL_MAX_LISTING_LINKS = 10_000  # a catalogue page with more links is skipped
NEWSCRAWL_MAX_LIST_APIS = 20  # list endpoints (data-list-api) read per catalogue page; the rest are dropped
NEWSCRAWL_MAX_ARTICLE_PAGES = 10  # pages of one multi-page article followed and joined; 1 = follow no pager
NEWSCRAWL_SITEMAP_MAX_AGE_DAYS = 7  # older sitemap entries skipped when no since/max_age_days; 0 = none
NEWSCRAWL_SITEMAP_MAX_DEPTH = 3  # sitemap index levels followed below a configured or robots.txt sitemap
NEWSCRAWL_SITEMAP_MAX_FILES = 1000  # sitemap files read per run; the rest are dropped (sitemap_capped)
NEWSCRAWL_DISCOVER_MAX_SECTIONS = 10  # scrapy crawl discover / addsite: section pages read from the home page
NEWSCRAWL_DISCOVER_MAX_FEEDS = 20  # scrapy crawl discover / addsite: feeds read (named or listed by the site)
NEWSCRAWL_DISCOVER_FEED_PROBES = 4  # common feed paths (/rss, /feed, ...) tried when the home page names none
NEWSCRAWL_DISCOVER_ALLOW: list[str] = []  # discover/addsite: domains allowed besides the start origin
NEWSCRAWL_SERVE_PORT = None  # port of a served (demo) site; None = stable per site name, 0 = random
NEWSCRAWL_MAX_ERROR_RATE = 0.5  # exit status 1 when a larger share of fetched articles fails extraction
NEWSCRAWL_WARC = None  # directory or .warc.gz file: record every response as WARC (middlewares/)
NEWSCRAWL_WARC_MAX_SIZE = 1_000_000_000  # bytes per WARC file before the next one starts; 0 = one file
# Rendering app shells in headless Chromium (sites.toml `render`, docs/rendering.md)
NEWSCRAWL_BROWSER = None  # Chromium binary; None = $NEWSCRAWL_BROWSER, else chromium on PATH
NEWSCRAWL_RENDER_TIMEOUT = 30  # seconds a rendered page may take to load and settle: render_timeout
NEWSCRAWL_RENDER_SCROLLS = 5  # a rendered catalogue page: scrolls or "load more" clicks at most
NEWSCRAWL_RENDER_CONTEXT_PAGES = 100  # pages a browser context renders before it is closed and replaced
PLAYWRIGHT_MAX_CONTEXTS = 2  # browser contexts open at once
PLAYWRIGHT_MAX_PAGES_PER_CONTEXT = 4  # pages open at once in one context

# --- site health (newscrawl/health, docs/monitoring.md) -------------------------------
NEWSCRAWL_HEALTH = True  # record each site's run in the history and raise drift alarms
NEWSCRAWL_HEALTH_RETENTION_DAYS = 400  # history rows older than this are deleted; 0 = keep all
NEWSCRAWL_HEALTH_BASELINE_RUNS = 14  # earlier runs a site's baseline (median, MAD) is taken from
NEWSCRAWL_HEALTH_MIN_RUNS = 3  # earlier runs needed before any alarm speaks
NEWSCRAWL_HEALTH_MAD_Z = 3.0  # a fall must also exceed this many scaled MADs below the median
NEWSCRAWL_HEALTH_EXPORT_RATIO = 0.5  # exports below this share of the baseline alarm
NEWSCRAWL_HEALTH_BODY_RATIO = 0.5  # median body length below this share of the baseline alarms
NEWSCRAWL_HEALTH_SHARE_DROP = 0.2  # title/date/author share falling by more than this alarms
NEWSCRAWL_HEALTH_LISTING_FAILED = 0.5  # share of listing pages failing above this alarms
NEWSCRAWL_HEALTH_DROP_DOMINANT = 0.5  # a drop reason above this share of the run's articles ...
NEWSCRAWL_HEALTH_DROP_RARE = 0.1  # ... that was at most this share in the baseline alarms
NEWSCRAWL_HEALTH_IGNORED_DROPS = [  # drop reasons of links that are not new: no rule watches them
    "already_exported", "already_rejected", "listed_twice", "duplicate", "too_old"]
NEWSCRAWL_HEALTH_BLOCKED_RISE = 0.1  # share of 403/429 answers rising by more than this alarms
NEWSCRAWL_HEALTH_RUN_START = None  # ISO time recorded as the run's start; None = now (simulated histories)
NEWSCRAWL_HEALTH_RUN_ID = None  # distributed workers given the same id count as one run; None = per worker
NEWSCRAWL_PROGRESS_INTERVAL = 60  # seconds between progress log lines; 0 = none
NEWSCRAWL_PROGRESS_BAR = "auto"  # progress bar on stderr: auto (only on a terminal), always, never

# --- politeness --------------------------------------------------------------------
# A placeholder: before crawling live sites, set USER_AGENT to a URL of your own that says who
# crawls and how to reach you (docs/configuration.md).
USER_AGENT = "newscrawl/0.1 (+https://example.org/newscrawl-bot)"
ROBOTSTXT_OBEY = True
ROBOTSTXT_PARSER = "scrapy.robotstxt.ProtegoRobotParser"
# A robots.txt larger than this cannot be read, so its host is disallowed (RFC 9309: 2.5
# asks for at least 500 KiB, 2.3.1.4 for "disallow" when the file is unreachable).
NEWSCRAWL_ROBOTSTXT_MAXSIZE = 512 * 1024
CONCURRENT_REQUESTS = 16
CONCURRENT_REQUESTS_PER_DOMAIN = 2
DOWNLOAD_DELAY = 1.0
DOWNLOAD_DELAY_JITTER = 0.5  # ±50%
AUTOTHROTTLE_ENABLED = True
AUTOTHROTTLE_START_DELAY = 1.0
AUTOTHROTTLE_MAX_DELAY = 30.0
AUTOTHROTTLE_TARGET_CONCURRENCY = 1.0
DOWNLOAD_TIMEOUT = 30
# Scrapy starts CONCURRENT_ITEMS asyncio workers for every response's output (2.19's
# _parallel_asyncio), however few items it holds; an article response holds one, so the
# default of 100 cost ~100 tasks per article.  A catalogue page's items only schedule
# requests, so 16 at a time lose nothing (bench/crawl_throughput.py, docs/performance.md).
CONCURRENT_ITEMS = 16
DOWNLOAD_MAXSIZE = 16 * 1024 * 1024
DOWNLOAD_WARNSIZE = 4 * 1024 * 1024
URLLENGTH_LIMIT = 2083  # Scrapy's default; held for every request (middlewares.origins.UrlLengthMiddleware)
# Only http(s) is ever fetched: no file://, ftp://, s3:// or data: requests, whatever a
# page, feed or argument says (spider arguments and the sites file are checked too).
DOWNLOAD_HANDLERS = {"file": None, "ftp": None, "s3": None, "data": None,
                     # Scrapy's HTTP handler, and Chromium for requests with meta["playwright"]
                     "http": "newscrawl.middlewares.render.BrowserHandler",
                     "https": "newscrawl.middlewares.render.BrowserHandler"}
RETRY_ENABLED = True
RETRY_TIMES = 2

# --- pipelines, extensions, feeds --------------------------------------------------
ITEM_PIPELINES = dict(STAGES)
EXTENSIONS = {
    "newscrawl.urls.ShortUrlLogs": -20,  # long URLs shortened in every log line (Scrapy's too)
    "newscrawl.run.guard.RunGuard": -10,  # locks, state and export checks: before any extension uses JOBDIR
    "scrapy.extensions.spiderstate.SpiderState": None,  # replaced by the one below
    # JOBDIR's spider.state; a damaged or unwritable one is a warning
    "newscrawl.state.spider_state.SpiderState": 0,
    "newscrawl.state.seen_urls.SeenUrls": 900,  # after FeedExporter (0): marks URLs once written
    "newscrawl.export.parquet.PendingJournals": 905,  # after SeenUrls: folds a Parquet journal a run left
    "newscrawl.run.report.CrawlReport": 910,
    # listing items handed to their detail request are not item drops (newscrawl/run/crawlstats.py)
    "scrapy.extensions.corestats.CoreStats": None,
    "newscrawl.run.crawlstats.CoreStats": 0,
    # progress lines with the site, article pages done/scheduled, the rate and the queue; a bar on a terminal
    "scrapy.extensions.logstats.LogStats": None,
    "newscrawl.run.crawlstats.Progress": 0,
    "newscrawl.health.extension.HealthRecorder": 920,  # the run's history row and drift alarms
}
FEED_STORAGES = {
    "": "newscrawl.export.storage.FlushingFileFeedStorage",
    "file": "newscrawl.export.storage.FlushingFileFeedStorage",
}
FEED_EXPORTERS = {
    "csv": "newscrawl.items.CsvArticleExporter",
    "parquet": "newscrawl.export.parquet.ParquetItemExporter",  # -O out.parquet (pyarrow, declared schema)
}
FEED_EXPORT_FIELDS = list(EXPORT_FIELDS)
FEED_EXPORT_ENCODING = "utf-8"
FEED_STORE_EMPTY = False  # a run that exports nothing leaves an earlier run's -O file as it was

# --- scheduling: JOBDIR queues survive a clean stop, a killed run's queue is discarded ---
SCHEDULER = "newscrawl.middlewares.scheduler.CrashSafeScheduler"
# Scrapy's OffsiteMiddleware (50) skips dont_filter requests, and every newscrawl request
# is dont_filter: this one holds the allow-list for all of them, redirects included.
DOWNLOADER_MIDDLEWARES = {
    "newscrawl.middlewares.origins.AllowedDomainsMiddleware": 51,  # scheme, host and port (origin)
    "newscrawl.middlewares.origins.UrlLengthMiddleware": 52,  # URLLENGTH_LIMIT for every request
    # no address that is not globally routable unless the site is on one (sites.toml: private_network)
    "newscrawl.middlewares.addresses.PrivateAddressMiddleware": 53,
    # robots.txt that cannot be read (5xx, timeout, too large) disallows its host (RFC 9309)
    "scrapy.downloadermiddlewares.robotstxt.RobotsTxtMiddleware": None,
    "newscrawl.middlewares.robots.RobotsTxtMiddleware": 100,
    # a connection GuardedResolver left without an address: private_address, not retried (after 550)
    "newscrawl.middlewares.addresses.ResolvedAddressMiddleware": 555,
    "newscrawl.middlewares.retry.RetryAfterMiddleware": 560,  # a 429/503 Retry-After slows the host down
    "newscrawl.middlewares.render.RenderMiddleware": 580,  # meta["playwright"]: the pages a site renders
    # Scrapy's decompression, refusing a body cut short (truncated) instead of exporting part of it
    "scrapy.downloadermiddlewares.httpcompression.HttpCompressionMiddleware": None,
    "newscrawl.middlewares.decompression.DecompressionMiddleware": 590,
    # NEWSCRAWL_WARC: responses as received, before decompression
    "newscrawl.middlewares.warc_recorder.WarcRecorder": 950,
}
NEWSCRAWL_RETRY_AFTER_MAX = 120  # seconds: longer Retry-After values are capped
# Scrapy's caching resolver judging every answer again at connection time (DNS rebinding)
TWISTED_DNS_RESOLVER = "newscrawl.middlewares.addresses.GuardedResolver"
# NEWSCRAWL_DISTRIBUTED swaps in scrapy-redis's scheduler and dupefilter and the Redis seen store.
ADDONS = {"newscrawl.distributed.addon.RedisAddon": 0}

# --- runtime -----------------------------------------------------------------------
TWISTED_REACTOR = "twisted.internet.asyncioreactor.AsyncioSelectorReactor"
TELNETCONSOLE_ENABLED = False
REMOTE_CONTROL_ENABLED = False
LOG_LEVEL = "INFO"
LOG_FORMATTER = "newscrawl.run.crawlstats.LogFormatter"  # a newscrawl drop is logged once, by record_drop
# LOG_FILE rotated by size (newscrawl/run/logfile.py): at most this many bytes a file, and this many
# older files kept (crawl.log.1 … .7); 0 bytes: one file without limit
NEWSCRAWL_LOG_MAX_BYTES = 10 * 1024 * 1024
NEWSCRAWL_LOG_BACKUPS = 7
HTTPCACHE_ENABLED = False  # -s HTTPCACHE_ENABLED=1 for repeatable development crawls
HTTPCACHE_DIR = "httpcache"
