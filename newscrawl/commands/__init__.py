"""newscrawl's Scrapy commands (``COMMANDS_MODULE``): ``crawlall``, ``evaluate``, ``extract``."""
