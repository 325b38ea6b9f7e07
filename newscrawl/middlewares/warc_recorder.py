"""WARC out: :class:`WarcRecorder`, a downloader middleware, records a crawl's HTTP traffic
(on with ``-s NEWSCRAWL_WARC=PATH``).

WARC is the web archive format (ISO 28500; WARC 1.1,
https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/), written here
with warcio through :mod:`newscrawl.archives.warc_files`.  Every response the crawl downloads
(robots.txt, catalogue pages, feeds, list endpoints, detail pages, redirects and error pages)
is written with its request:

- a ``response`` record (WARC 1.1 §6.3) holding the HTTP status line, headers and body, a
  ``request`` record (§6.4) with ``WARC-Concurrent-To`` naming it, and for an article page a
  ``metadata`` record (§6.5, ``application/json``) with what the listing said about it (the
  site, listing title and feed fields), so that extraction from the archive exports the same
  fields as the crawl did;
- **the body as the server sent it**: the middleware sits at 950, before the decompression
  middleware (590), so a gzip/deflate/br body is stored compressed with its
  ``Content-Encoding`` header.  Twisted has already undone chunked transfer coding, so
  ``Transfer-Encoding`` is stored as ``X-Crawler-Transfer-Encoding`` and ``Content-Length``
  states the stored length (a differing original is kept as ``X-Crawler-Content-Length``):
  Common Crawl's convention, so any WARC reader replays the record as stored;
- each record is its own gzip member and a response's records go to the file in one write,
  flushed at once: a killed crawl leaves at most a cut last member, which readers skip;
- files rotate once they reach ``NEWSCRAWL_WARC_MAX_SIZE`` bytes (default 1 GB; 0: never),
  each starting with a ``warcinfo`` record (§6.2) naming the software, the spider and a
  summary of the settings.

``NEWSCRAWL_WARC`` is a directory (files ``<spider>-<UTC time>-<pid>-<serial>.warc.gz`` in it)
or a file name ending in ``.warc.gz`` (its rotations are ``<name>-00001.warc.gz``, ...).  An
existing file is never appended to or overwritten: the next free serial is used.  A write that
fails (disk full) stops the recording with an error line and ``newscrawl/warc/write_failed``;
the crawl goes on.

"""

from __future__ import annotations

import io
import json
import logging
import socket
from datetime import UTC, datetime
from http import HTTPStatus
from typing import Any
from urllib.parse import urlsplit

from scrapy import signals
from scrapy.exceptions import NotConfigured

from newscrawl.archives.warc_files import (
    DEFAULT_MAX_SIZE,
    METADATA_TYPE,
    STATS,
    SUMMARY_SETTINGS,
    WarcFiles,
    _http_headers,
    _warc_date,
    software,
)

logger = logging.getLogger(__name__)



class WarcRecorder:
    """Downloader middleware (at 950) writing every response and its request to WARC files.

    See the module docstring; settings ``NEWSCRAWL_WARC`` (a directory or a ``.warc.gz`` file;
    unset: off) and ``NEWSCRAWL_WARC_MAX_SIZE`` (bytes per file, default 1 GB, 0: no rotation).
    Stats: ``newscrawl/warc/records`` (responses recorded), ``newscrawl/warc/bytes``,
    ``newscrawl/warc/files``, ``newscrawl/warc/write_failed`` (the error; recording stopped),
    ``newscrawl/warc/record_failed`` (responses whose records could not be built; not recorded).
    """

    def __init__(self, crawler, target: str, max_size: int):
        self.crawler = crawler
        self.target = target
        self.max_size = max_size
        self.files: WarcFiles | None = None
        self.failed = False
        crawler.signals.connect(self.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(self.spider_closed, signal=signals.spider_closed)

    @classmethod
    def from_crawler(cls, crawler):
        target = crawler.settings.get("NEWSCRAWL_WARC")
        if not target:
            raise NotConfigured  # no message: Scrapy warns "Disabled ..." only for a NotConfigured with one
        max_size = crawler.settings.getint("NEWSCRAWL_WARC_MAX_SIZE", DEFAULT_MAX_SIZE)
        if max_size < 0:
            raise ValueError(f"NEWSCRAWL_WARC_MAX_SIZE must be 0 or more bytes, got {max_size}")
        return cls(crawler, str(target), max_size)

    def warcinfo(self, spider) -> dict[str, Any]:
        """The warcinfo fields (WARC 1.1 §6.2 and its annex: software, format, isPartOf, ...)."""
        settings = self.crawler.settings
        summary = {name: settings.get(name) for name in SUMMARY_SETTINGS if settings.get(name) is not None}
        return {
            "software": software(),
            "format": "WARC File Format 1.1",
            "conformsTo": "https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/",
            "isPartOf": spider.name,
            "hostname": socket.gethostname(),
            "http-header-user-agent": settings.get("USER_AGENT"),
            "robots": "obey" if settings.getbool("ROBOTSTXT_OBEY") else "ignore",
            "description": f"newscrawl crawl of {spider.name}",
            "newscrawl-settings": json.dumps(summary, sort_keys=True, default=str),
        }

    def spider_opened(self, spider) -> None:
        self.files = WarcFiles(self.target, self.max_size, self.warcinfo(spider), prefix=spider.name)

    def spider_closed(self, spider) -> None:
        if self.files is not None:
            self.files.close()
            self.crawler.stats.set_value(STATS + "files", len(self.files.paths))

    def process_response(self, request, response, spider=None):
        if self.files is None or self.failed:
            return response
        try:
            records = self.records(request, response)
        except Exception as exc:  # noqa: BLE001 - a record that cannot be built must not cost the page
            self.crawler.stats.inc_value(STATS + "record_failed")
            logger.warning("Cannot record %s in the WARC archive: %s: %s", response.url,
                           type(exc).__name__, exc)
            return response
        try:
            written = self.files.write(records)
        except OSError as exc:
            self.failed = True
            self.crawler.stats.set_value(STATS + "write_failed", str(exc))
            logger.error("Cannot write the WARC archive (%s); the crawl goes on without recording", exc)
        else:
            self.crawler.stats.inc_value(STATS + "records")
            self.crawler.stats.inc_value(STATS + "bytes", written)
        return response

    def records(self, request, response) -> list:
        """The response, request and (for an article page) metadata records of one download."""
        from warcio.statusandheaders import StatusAndHeaders

        from newscrawl.middlewares.scheduler import DETAIL_META

        builder = self.files.builder
        body = response.body
        fetched = _warc_date(datetime.now(UTC))
        warc_headers = {"WARC-Date": fetched}
        if getattr(response, "ip_address", None) is not None:
            warc_headers["WARC-IP-Address"] = str(response.ip_address)
        if "dataloss" in (response.flags or ()):
            warc_headers["WARC-Truncated"] = "disconnect"
        try:
            reason = HTTPStatus(response.status).phrase
        except ValueError:
            reason = ""
        http = StatusAndHeaders(f"{response.status} {reason}".strip(),
                                _http_headers(response.headers, len(body)), protocol="HTTP/1.1")
        record = builder.create_warc_record(response.url, "response", payload=io.BytesIO(body),
                                            length=len(body), http_headers=http,
                                            warc_headers_dict=warc_headers)
        record_id = record.rec_headers.get_header("WARC-Record-ID")
        records = [record, self._request_record(request, response, record_id, fetched)]
        listing = request.cb_kwargs.get("listing") if DETAIL_META in request.meta else None
        if isinstance(listing, dict):
            payload = json.dumps({"site": listing.get("site"), "listing": listing},
                                 ensure_ascii=False).encode("utf-8")
            records.append(builder.create_warc_record(
                response.url, "metadata", payload=io.BytesIO(payload), length=len(payload),
                warc_content_type=METADATA_TYPE,
                warc_headers_dict={"WARC-Date": fetched, "WARC-Concurrent-To": record_id}))
        return records

    def _request_record(self, request, response, response_id: str, fetched: str):
        from warcio.statusandheaders import StatusAndHeaders

        parts = urlsplit(request.url)
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        headers = [(name.decode("latin-1"), value.decode("latin-1"))
                   for name, values in request.headers.items() for value in values]
        if not any(name.lower() == "host" for name, _ in headers):
            headers.insert(0, ("Host", parts.netloc))
        http = StatusAndHeaders(f"{request.method} {target} HTTP/1.1", headers, protocol="",
                                is_http_request=True)
        body = request.body or b""
        return self.files.builder.create_warc_record(
            response.url, "request", payload=io.BytesIO(body), length=len(body), http_headers=http,
            warc_headers_dict={"WARC-Date": fetched, "WARC-Concurrent-To": response_id})

