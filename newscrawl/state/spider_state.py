""":class:`SpiderState`: Scrapy's ``JOBDIR`` spider-state extension, with a damaged or unwritable
``spider.state`` file a warning instead of a crash.
"""

from __future__ import annotations

import logging
import pickle

from scrapy.extensions.spiderstate import SpiderState as ScrapySpiderState

logger = logging.getLogger(__name__)



class SpiderState(ScrapySpiderState):
    """Scrapy's ``JOBDIR`` spider state (``spider.state``), tolerant of a damaged file.

    A run that stopped on a full disk leaves ``spider.state`` empty or cut: the next run
    starts with an empty state and a warning instead of a traceback, and a state that
    cannot be saved costs a warning (the crawl's outcome was decided already).
    """

    def spider_opened(self, spider) -> None:
        try:
            super().spider_opened(spider)
        except (OSError, EOFError, pickle.UnpicklingError, ValueError) as exc:
            logger.warning("Cannot read the spider state %s (%s): starting with an empty one",
                           self.statefn, exc)
            spider.state = {}

    def spider_closed(self, spider) -> None:
        try:
            super().spider_closed(spider)
        except OSError as exc:
            logger.warning("Cannot save the spider state %s: %s", self.statefn, exc.strerror or exc)


