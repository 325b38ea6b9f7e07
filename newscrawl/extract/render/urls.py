"""The URLs a rendering may hold: absolute, of a scheme that cannot run code.

An allow-list, not a deny-list: ``javascript:``, ``vbscript:``, ``data:`` (any media type),
``file:`` and every other scheme are dropped, whatever their case, entities or embedded
white space (the HTML parser has already decoded entities in attribute values; browsers
also drop ASCII tab and newline inside a URL, which :func:`urljoin` does too).
"""

from __future__ import annotations

from urllib.parse import urljoin, urlsplit

LINK_SCHEMES = ("http", "https", "mailto")
IMAGE_SCHEMES = ("http", "https")
MAX_URL_CHARS = 2000
# Characters percent-encoded in a Markdown link destination: those that could end it or open
# another construct (CommonMark §6.3), quotes and anything below space.
_MD_UNSAFE = {c: f"%{ord(c):02X}" for c in ' ()<>"\'\\`[]{}|^'}
_MD_UNSAFE.update({chr(i): f"%{i:02X}" for i in range(0x21)})
_MD_UNSAFE[chr(0x7F)] = "%7F"
_MD_TABLE = str.maketrans(_MD_UNSAFE)


def safe_url(value: str | None, base: str | None, schemes: tuple[str, ...] = LINK_SCHEMES) -> str | None:
    """``value`` resolved against ``base`` when its scheme is one of ``schemes``, else None."""
    if not value:
        return None
    value = "".join(value.split()) if any(c in value for c in "\t\n\r") else value.strip()
    if not value or len(value) > MAX_URL_CHARS or value.startswith("#"):
        return None
    try:
        url = urljoin(base or "", value)
        scheme = urlsplit(url).scheme.lower()
    except ValueError:
        return None
    if scheme not in schemes:
        return None
    if scheme != "mailto" and not urlsplit(url).netloc:
        return None
    return url


def markdown_destination(url: str) -> str:
    """``url`` percent-encoded where a Markdown link destination would otherwise end or break."""
    return url.translate(_MD_TABLE)
