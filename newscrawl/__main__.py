"""The ``newscrawl`` command (and ``python -m newscrawl``): Scrapy's command line for this project.

``newscrawl crawl demo -O out.jsonl``, ``newscrawl list``, ``newscrawl extract page.html`` and
every other ``scrapy`` command of the project work from any directory: Scrapy finds a project
through ``SCRAPY_SETTINGS_MODULE`` (or a ``scrapy.cfg`` in the current or a parent directory),
and this sets the variable to ``newscrawl.settings`` unless it is already set.
"""

from __future__ import annotations

import os
import sys

SETTINGS_MODULE = "newscrawl.settings"


def main(argv: list[str] | None = None) -> None:
    """Run the Scrapy command line with this project's settings; exits with the command's status."""
    os.environ.setdefault("SCRAPY_SETTINGS_MODULE", SETTINGS_MODULE)
    from scrapy.cmdline import execute  # after the variable: Scrapy reads it when it loads the settings

    execute(["newscrawl", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    main()
