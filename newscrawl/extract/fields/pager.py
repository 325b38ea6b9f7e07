"""An article's own pager: the continuation pages of an article split over several pages.

Portals split long articles into pages: ``doc-abc.shtml``, ``doc-abc_2.shtml``, ...
(Sina, Sohu, 163), ``story?page=2``, ``story/2/``, with a pager under the body (``下一页``,
``第2页``, ``Следующая страница``, ``Next page``, ``rel="next"``).  A continuation of an
article is a link **to the same URL with a page number** (:func:`page_number`): the path's
``_N`` or ``-N`` before the extension, a last path segment ``N``, or a ``page``-like query parameter;
so a "next article" link (``下一篇``, ``Next article``, ``Следующая статья``), which leads to
another article's URL, is never one.  Besides the URL, the link must say it is a pager link:
``rel="next"``, a "next page" text, or the page's number as its text (``2``, ``[2]``, ``第2页``);
a link in the comments (``class="comment-pagination"``) pages the comments, not the article.

An "all on one page" link (``阅读全文``, ``单页阅读``, ``View as single page``, ``Показать на
одной странице``) to the same URL with an ``all``/``full``/``single`` page token or an added
query parameter (``?single=1``) is preferred: one page holds the whole article.

No Scrapy imports: :func:`find_pager` reads a parsed page (lxml) and its URL; :func:`may_have_pages`
tells from the page's source, before any parse, the pages that cannot have a pager.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import parse_qsl, unquote, urlencode, urljoin, urlsplit, urlunsplit

MAX_PAGE_NUMBER = 999  # larger numbers in a URL are ids or dates, not page numbers
# ``doc-abc_2.shtml``, ``NE034juu-2.html``: the page token before the extension (1–3 digits or all)
_PATH_TOKEN_RE = re.compile(r"[_-](\d{1,3}|all|full|single)(\.[A-Za-z]{2,5})$")
# ``story/2`` or ``story/2/``: a last segment that is a page number
_SEGMENT_TOKEN_RE = re.compile(r"/(\d{1,3}|all|full|single)/?$")
PAGE_PARAMS = frozenset({"page", "p", "pg", "pn", "pageno", "page_no", "pagenum", "paged", "curpage",
                         "pagina", "stranitsa"})
SINGLE_PARAMS = frozenset({"single", "singlepage", "showall", "all", "full", "onepage"})
_ALL_TOKENS = frozenset({"all", "full", "single"})
# A pager link's text: "next page" in zh, ru, en (exact, after trimming arrows and brackets)
_NEXT_TEXT_RE = re.compile(
    r"(?:下一?页|后一页|下页|next(?: page)?|следующая(?: страница)?|далее|вперёд|вперед|дальше)",
    re.IGNORECASE)
_PREVIOUS_TEXT_RE = re.compile(
    r"(?:上一?页|前一页|上页|首页|第一页|prev(?:ious)?(?: page)?|first(?: page)?|"
    r"предыдущая(?: страница)?|назад|первая(?: страница)?)", re.IGNORECASE)
_NUMBER_TEXT_RE = re.compile(r"(?:第\s?(\d{1,3})\s?页|(\d{1,3}))")
_SINGLE_TEXT_RE = re.compile(
    r"(?:阅读全文|全文阅读|全文|单页阅读|单页显示|显示全文|查看全文|"
    r"view (?:as )?(?:a )?single page|single page|view all|show all|on one page|"
    r"(?:показать |читать )?на одной странице|одной страницей)", re.IGNORECASE)
_TRIM = " \t\r\n\xa0»«›‹>→<←[]()【】［］|:：.…"
# What a continuation link's href shows in the page's source, read before parsing it
# (:func:`may_have_pages`): a relative query (``?page=2``), a relative ``2/`` under a slash-ended
# URL, or the article's own last path segment followed by a page token or a query.
# (Any attribute value: an ``href`` pattern is several times slower to scan for.)
_QUERY_HREF_RE = re.compile(r"""=\s*["']?\?""")
_RELATIVE_NUMBER_RE = re.compile(r"""=\s*["']?(?:\./)?\d{1,3}/""")
_TOKEN_STARTS = ("all", "full", "single")


@dataclass(frozen=True)
class Pager:
    """What a page's pager offers: the next page's URL, the all-on-one-page URL (either may be None)."""

    next_url: str | None = None
    single_url: str | None = None


def _split_page(url: str) -> tuple[str, str | None]:
    """``(the URL without its page token, the token)``: the token is a page number or
    ``all``; None when the URL has none (a first page)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return url, None
    query = parse_qsl(parts.query, keep_blank_values=True)
    for i, (name, value) in enumerate(query):
        lowered, value = name.lower(), value.strip().lower()
        if lowered in PAGE_PARAMS and (value.isdigit() or value in _ALL_TOKENS):
            rest = urlencode(query[:i] + query[i + 1:])
            return urlunsplit(parts._replace(query=rest, fragment="")), value.lstrip("0") or "0"
        if lowered in SINGLE_PARAMS and value in ("1", "true", "yes", "all", ""):
            rest = urlencode(query[:i] + query[i + 1:])
            return urlunsplit(parts._replace(query=rest, fragment="")), "all"
    for pattern, keep in ((_PATH_TOKEN_RE, r"\2"), (_SEGMENT_TOKEN_RE, "")):
        match = pattern.search(parts.path)
        if match:
            path = parts.path[:match.start()] + match.expand(keep)
            token = match.group(1).lower().lstrip("0") or "0"
            return urlunsplit(parts._replace(path=path, fragment="")), token
    return urlunsplit(parts._replace(fragment="")), None


def _stem(url: str) -> str:
    """A URL compared with its pages' stems: no fragment, no trailing slash."""
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=parts.path.rstrip("/") or "/", fragment=""))


def page_number(first_url: str, url: str) -> int | str | None:
    """``url``'s page number as a page of the article at ``first_url`` (``"all"`` for an
    all-on-one-page URL), or None when ``url`` is not one of its other pages: it must be
    ``first_url`` with a page token (a "next article" URL never is).  Some sites number the
    second page ``_01``: a number is the page's only as a link's text or ``rel`` says so."""
    stem, token = _split_page(url)
    if token is None:
        return None
    first_stem, first_token = _split_page(first_url)
    if first_token not in (None, "1"):
        return None
    if _stem(stem) != _stem(first_stem):
        return None
    if token in _ALL_TOKENS:
        return "all"
    number = int(token)
    return number if 1 <= number <= MAX_PAGE_NUMBER and _stem(url) != _stem(first_url) else None


def may_have_pages(source: str, url: str) -> bool:
    """Can the page at ``url``, of HTML ``source``, have other pages or be one?  False only when
    its URL has no page token and its source shows no link of a continuation's form (see
    :func:`page_number`, which a continuation must pass): no relative query link, no ``2/``
    relative to a slash-ended URL, and the URL's last path segment (its extension skipped)
    nowhere followed by ``_``, ``-`` or ``/`` and a page token, nor by a query.  A scan of the
    source, so that most article pages are not parsed for a pager."""
    _, token = _split_page(url)
    if token is not None or _QUERY_HREF_RE.search(source):
        return True
    try:
        path = urlsplit(url).path
    except ValueError:
        return True
    if path.endswith("/") and _RELATIVE_NUMBER_RE.search(source):
        return True
    segment = path.rstrip("/").rsplit("/", 1)[-1]
    stem, dot, extension = segment.rpartition(".")
    if not dot:
        stem, extension = segment, ""
    if len(stem) < 2:
        return True  # no segment of its own to look for
    for name in {stem, unquote(stem)}:
        at = source.find(name)
        while at >= 0:
            after = at + len(name)
            if extension and source.startswith("." + extension, after):
                after += 1 + len(extension)
            if source.startswith("/", after) and source.startswith(("?", "&"), after + 1):
                return True
            mark = source[after:after + 1]
            if mark in ("?", "&") or mark in ("_", "-", "/") and (
                    source[after + 1:after + 2].isdigit() or source.startswith(_TOKEN_STARTS, after + 1)):
                return True
            at = source.find(name, at + len(name))
    return False


def _resolve(base: str, href: str | None) -> str | None:
    """``href`` made absolute (no fragment); None for no link or a URL that cannot be read."""
    href = (href or "").strip()
    if not href or href.startswith(("#", "javascript:", "mailto:")):
        return None
    try:
        return urljoin(base, href).split("#")[0]
    except ValueError:  # a malformed host ("http://[x]/")
        return None


def _base(root, url: str) -> str:
    return _resolve(url, root.xpath("string(//base/@href)")) or url


def _link_text(anchor) -> str:
    text = " ".join("".join(anchor.itertext()).split())
    if not text:
        text = " ".join((anchor.get("title") or anchor.get("aria-label") or "").split())
    return text.strip(_TRIM)


def _says_next(anchor, text: str) -> bool:
    rel = (anchor.get("rel") or "").lower().split()
    return "next" in rel or _NEXT_TEXT_RE.fullmatch(text) is not None


def _says_number(text: str, number: int) -> bool:
    match = _NUMBER_TEXT_RE.fullmatch(text)
    return match is not None and int(match.group(1) or match.group(2)) == number


def _in_comments(anchor) -> bool:
    """Is ``anchor`` in the comments (their own pager pages the comments, not the article)?"""
    for parent in anchor.iterancestors():
        names = f"{parent.get('class') or ''} {parent.get('id') or ''}".lower()
        if "comment" in names:
            return True
    return False


def find_pager(root, url: str, first_url: str | None = None) -> Pager:
    """The pager of the page at ``url`` (page ``n`` of the article at ``first_url``, itself by
    default): the link to page ``n + 1``, and an all-on-one-page link.  Links resolve against
    the page's ``<base href>``."""
    first_url = first_url or url
    current = page_number(first_url, url) if url != first_url else 1
    if not isinstance(current, int):
        return Pager()
    base = _base(root, url)
    next_url = single_url = None
    for link in root.xpath("//link[@href][contains(concat(' ', normalize-space(@rel), ' '), ' next ')]"):
        target = _resolve(base, link.get("href"))
        if target and isinstance(page_number(first_url, target), int) and target != url:
            next_url = target
            break
    for anchor in root.iter("a"):
        target = _resolve(base, anchor.get("href"))
        number = page_number(first_url, target) if target else None
        if number is None or _in_comments(anchor):
            continue
        text = _link_text(anchor)
        if number == "all":
            if single_url is None and _SINGLE_TEXT_RE.fullmatch(text):
                single_url = target
        elif next_url is None and _stem(target) != _stem(url) and (
                _says_next(anchor, text) or (number == current + 1 and _says_number(text, number))):
            next_url = target
    return Pager(next_url=next_url, single_url=single_url)


def first_page_of(root, url: str) -> str | None:
    """The article's first page when the page at ``url`` is one of its continuation pages: its URL
    is a first page's URL with a page number, and its pager links that first page (``rel="prev"``,
    a "previous" or "first page" text, or the text ``1``).  None for any other page."""
    stem, token = _split_page(url)
    if token is None or not isinstance(page_number(stem, url), int):
        return None
    base = _base(root, url)
    for anchor in root.iter("a"):
        target = _resolve(base, anchor.get("href"))
        if target is None:
            continue
        target_stem, target_token = _split_page(target)
        if target_token not in (None, "1") or _stem(target_stem) != _stem(stem):
            continue
        text = _link_text(anchor)
        if "prev" in (anchor.get("rel") or "").lower().split() or _PREVIOUS_TEXT_RE.fullmatch(text) \
                or _says_number(text, 1):
            return target
    return None
