"""HTTP content codings undone with the end of each stream checked: one decoder for the crawl
(:class:`newscrawl.middlewares.decompression.DecompressionMiddleware`) and for WARC archives
(:mod:`newscrawl.archives`), so that a page read back from an archive is the page the crawl read.

The codings are the ones Scrapy's HttpCompressionMiddleware asks for (its
``ACCEPTED_ENCODINGS``: ``gzip``, ``deflate``, ``br``, ``zstd``; RFC 9110 §8.4.1, RFC 7932,
RFC 8878), decoded with the libraries Scrapy decodes them with (zlib, Brotli, zstd), in
64 KiB steps so that a decompression bomb stops at ``max_size``.  Two differences from
Scrapy's decoders, which return what they could get from a cut stream:

- a stream that ends before its coding's end mark (a gzip member without its trailer, a
  deflate stream without its final block, a Brotli stream not finished, a zstd frame cut
  short) raises :class:`Truncated`: the page is partial, not a shorter page;
- gzip and zstd bodies of several members/frames are read to the last one.

No Scrapy imports: the WARC reader runs without a crawler.
"""

from __future__ import annotations

import sys
import zlib

try:
    import brotli
except ImportError:  # pragma: no cover - Scrapy falls back to brotlicffi, and so do we
    import brotlicffi as brotli

if sys.version_info >= (3, 14):  # pragma: no cover
    from compression import zstd
else:
    from backports import zstd

CHUNK = 65536
CODINGS = ("gzip", "x-gzip", "deflate", "br", "zstd")


class Truncated(ValueError):
    """The coded stream ends before its end mark: the body was cut short."""


class TooLarge(ValueError):
    """Decoding would give more than ``max_size`` bytes."""

    def __init__(self, size: int, max_size: int):
        super().__init__(f"more than {max_size} bytes once decoded ({size} so far)")
        self.size = size
        self.max_size = max_size


def codings(header: str | bytes | None) -> list[str]:
    """The codings a ``Content-Encoding`` value lists, in the order they were applied
    (``identity`` left out)."""
    if isinstance(header, bytes):
        header = header.decode("latin-1")
    return [c for c in (part.strip().lower() for part in (header or "").split(",")) if c and c != "identity"]


def decode(body: bytes, coding: str, max_size: int = 0) -> bytes:
    """``body`` with one content coding undone (``max_size`` 0: no limit).

    Raises :class:`Truncated`, :class:`TooLarge`, ValueError for an unknown coding, and the
    libraries' own errors (``zlib.error``, ``brotli.error``, ``zstd.ZstdError``) for garbage.
    """
    coding = coding.strip().lower()
    if not body:  # an empty body (a redirect, a HEAD answer) codes nothing
        return body
    if coding in ("gzip", "x-gzip"):
        return _members(body, lambda: zlib.decompressobj(16 + zlib.MAX_WBITS), max_size, b"\x1f\x8b")
    if coding == "deflate":
        return _deflate(body, max_size)
    if coding == "br":
        return _brotli(body, max_size)
    if coding == "zstd":
        return _members(body, zstd.ZstdDecompressor, max_size, b"(\xb5/\xfd")
    raise ValueError(f"unsupported content coding {coding!r}")


def _grow(out: list[bytes], size: int, chunk: bytes, max_size: int) -> int:
    size += len(chunk)
    if max_size and size > max_size:
        raise TooLarge(size, max_size)
    out.append(chunk)
    return size


def _members(body: bytes, new, max_size: int, magic: bytes) -> bytes:
    """gzip members or zstd frames, one after the other (RFC 1952 §2.2; RFC 8878 §3)."""
    out: list[bytes] = []
    size = 0
    data = body
    while True:
        decompressor = new()
        chunk = decompressor.decompress(data, CHUNK)
        size = _grow(out, size, chunk, max_size)
        while not decompressor.eof:
            if isinstance(decompressor, zstd.ZstdDecompressor):
                if decompressor.needs_input:
                    raise Truncated("the stream ends inside a frame")
                chunk = decompressor.decompress(b"", CHUNK)
            else:
                if not decompressor.unconsumed_tail and not chunk:
                    raise Truncated("the stream ends before its gzip trailer")
                chunk = decompressor.decompress(decompressor.unconsumed_tail, CHUNK)
            size = _grow(out, size, chunk, max_size)
        data = decompressor.unused_data
        if not data.startswith(magic):  # padding after the last member is ignored, as gzip(1) does
            return b"".join(out)


def _deflate(body: bytes, max_size: int) -> bytes:
    """``deflate``: a zlib stream (RFC 1950), or raw deflate as some servers send it."""
    decompressor = zlib.decompressobj()
    try:
        chunk = decompressor.decompress(body, CHUNK)
    except zlib.error:
        decompressor = zlib.decompressobj(-zlib.MAX_WBITS)
        chunk = decompressor.decompress(body, CHUNK)
    out: list[bytes] = []
    size = _grow(out, 0, chunk, max_size)
    while not decompressor.eof:
        if not decompressor.unconsumed_tail and not chunk:
            raise Truncated("the stream ends before its final deflate block")
        chunk = decompressor.decompress(decompressor.unconsumed_tail, CHUNK)
        size = _grow(out, size, chunk, max_size)
    return b"".join(out)


def _brotli(body: bytes, max_size: int) -> bytes:
    decompressor = brotli.Decompressor()
    chunk = decompressor.process(body, output_buffer_limit=CHUNK)
    out: list[bytes] = []
    size = _grow(out, 0, chunk, max_size)
    while not decompressor.is_finished():
        chunk = decompressor.process(b"", output_buffer_limit=CHUNK)
        if not chunk:
            raise Truncated("the Brotli stream ends before it is finished")
        size = _grow(out, size, chunk, max_size)
    return b"".join(out)
