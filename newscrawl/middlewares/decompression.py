""":class:`DecompressionMiddleware` is Scrapy's HttpCompressionMiddleware with the end of each
coded stream checked (:mod:`newscrawl.codings`), and with a body that the download itself
cut short (Scrapy's ``dataloss`` flag, fewer bytes than ``Content-Length``) refused: reason
``truncated``, never a shorter page.
"""

from __future__ import annotations

import logging

from scrapy.downloadermiddlewares.httpcompression import HttpCompressionMiddleware
from scrapy.utils._compression import _DecompressionMaxSizeExceeded

from newscrawl import codings
from newscrawl.middlewares.origins import Refused

logger = logging.getLogger(__name__)



class DecompressionMiddleware(HttpCompressionMiddleware):
    """Scrapy's HttpCompressionMiddleware (same place, 590; same codings and ``DOWNLOAD_MAXSIZE``
    limit) refusing a body that was cut short: reason ``truncated``.

    A body is cut short when Scrapy flags it ``dataloss`` (with ``DOWNLOAD_FAIL_ON_DATALOSS``
    off), when it holds fewer bytes than its ``Content-Length`` says, or when its content
    coding ends before the coding's end mark (a gzip member without its trailer, an unfinished
    Brotli stream, ...).  Scrapy's own decoders return what a cut stream gave, and the crawl
    would export the first part of the article as if it were the whole.
    """

    def process_response(self, request, response, spider=None):
        if request.method != "HEAD" and response.status not in (204, 304):
            if "dataloss" in (response.flags or ()):
                raise Refused("truncated", "the connection closed before the whole body arrived (dataloss)")
            stated = response.headers.get("Content-Length")
            if stated and stated.strip().isdigit() and int(stated) > len(response.body):
                raise Refused("truncated", f"{len(response.body)} of its {int(stated)} bytes "
                                           "(Content-Length)")
        try:
            return super().process_response(request, response)
        except codings.Truncated as exc:
            coding = response.headers.get("Content-Encoding", b"").decode("latin-1")
            raise Refused("truncated", f"Content-Encoding {coding}: {exc}") from None

    @staticmethod
    def _decode(body: bytes, encoding: bytes, max_size: int) -> bytes:
        try:
            return codings.decode(body, encoding.decode("latin-1"), max_size)
        except codings.TooLarge as exc:
            exc.__traceback__ = None  # its frames hold the output decoded so far: let it go now
            raise _DecompressionMaxSizeExceeded(exc.size, exc.max_size) from None

