"""newscrawl's extraction library: one downloaded article page in, one structured :class:`Article` out.

No Scrapy imports here: the crawl pipelines, the commands, the tests and anyone
with a saved page call :func:`extract`.

- :mod:`.methods` — the body methods, one module per paper: CEVC (Wang et al. 2020), information
  decay (Chen et al. 2012), templates + block SVM (Yan and Wang 2020), the RSS-feature node
  classifier (Kazennikov and Soloviev), and their combination ``auto`` (the default);
- :mod:`.fields` — the title (He 2019, LCS title matching), the publication date, the authors;
- :mod:`.page`, :mod:`.dom`, :mod:`.encoding`, :mod:`.tokens` — one decode and one parse per
  page and the shared DOM and text helpers; :mod:`.streaming` puts the parts React streams to a
  page's end where a browser shows them.

Measuring and training live apart, in :mod:`newscrawl.evaluation` and :mod:`newscrawl.training`.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, datetime
from typing import Any

from . import dom
from .article import Article, Link
from .collector import collector_paused
from .errors import ExtractionError
from .page import Page
from .page_type import page_kind, page_type, page_type_of

__all__ = ["Article", "ExtractionError", "Link", "Page", "extract", "extract_page", "page_kind",
           "page_type", "page_type_of", "METHODS", "FIND", "check_method"]

FIND = object()  # extract_page's default for a field the caller did not find beforehand


_METHOD_FUNCTIONS = {
    "cevc": "cevc",
    "decay": "decay",
    "auto": "auto_learned",  # the rules plus the node classifier's veto on the body's edge lines
    "auto-rules": "auto",  # the rules alone
    "classifier": "classifier",  # Kazennikov & Soloviev, learned (data/models)
    "template": "template",  # Yan & Wang (2020) block SVM, learned (data/models)
}


def _body_method(name: str):
    """The ``extract_body`` of a method's module, imported on first use (``classifier`` and
    ``template`` bring scikit-learn, ~70 MB, which a crawl using ``auto`` never needs)."""
    from importlib import import_module

    check_method(name)
    return import_module(f".methods.{_METHOD_FUNCTIONS[name]}", __name__).extract_body


METHODS = ("auto", "auto-rules", "cevc", "decay", "classifier", "template")


def check_method(name: str) -> None:
    """``ValueError`` naming the methods when ``name`` is not one of :data:`METHODS`."""
    if name not in _METHOD_FUNCTIONS:
        raise ValueError(f"unknown method {name!r}; choose from {', '.join(METHODS)}")
PRECISE_TITLE_METHODS = ("auto", "auto-rules")


@collector_paused
def extract(
    html: str | bytes,
    url: str | None = None,
    *,
    listing_title: str | None = None,
    feed_entry: Mapping[str, Any] | None = None,
    method: str = "auto",
    content_type: str | None = None,
    params: Mapping[str, Any] | None = None,
    rich: bool = True,
) -> Article:
    """Extract one article from a page.

    ``html`` is text or raw bytes (decoded via BOM, ``content_type``'s charset,
    ``<meta>`` charset, then sniffing).  ``feed_entry`` is the feed item's
    mapping (``title``, ``summary``, ``published``) when the page came from a feed.
    ``params`` overrides method parameters: ``alpha`` (CEVC), ``T`` and ``dl_max``
    (decay), ``cjk_mode`` (stop-word matching).  Raises :class:`ExtractionError`
    for input that holds no page.  ``rich=False`` leaves the rich record (Markdown, HTML, images,
    lead, declared metadata: :mod:`.record`) out, for callers that want the plain fields only.
    """
    page = Page.from_html(html, url=url, content_type=content_type)
    return extract_page(
        page, listing_title=listing_title, feed_entry=feed_entry, method=method, params=params, rich=rich
    )


@collector_paused
def extract_page(
    page: Page,
    *,
    listing_title: str | None = None,
    feed_entry: Mapping[str, Any] | None = None,
    method: str = "auto",
    params: Mapping[str, Any] | None = None,
    published: datetime | date | None | object = FIND,
    authors: list[str] | object = FIND,
    rich: bool = True,
) -> Article:
    """:func:`extract` on an already parsed :class:`Page` (lets callers share one parse).

    ``published`` and ``authors``, when given, are used as found, not searched again: the
    crawl reads them before its template library removes a site's repeated leaves, since a
    site's date line and byline repeat from page to page.
    """
    from .fields.authors import find_authors
    from .fields.dates import find_published, parse_date
    from .fields.title import find_title
    from .methods.embedded import EmbeddedBody
    from .record import enrich

    extract_body = _body_method(method)
    params = dict(params or {})
    feed_entry = feed_entry or {}
    listing_title = listing_title or feed_entry.get("title")
    body = extract_body(page, **params)
    title = find_title(page, listing_title, precise=(method in PRECISE_TITLE_METHODS))
    published = find_published(page, feed_entry) if published is FIND else published
    authors = find_authors(page) if authors is FIND else authors
    if isinstance(body, EmbeddedBody):  # the article as page data: its title and date over the shell's
        title = body.title or title
        published = (parse_date(body.published) if body.published else None) or published
        authors = authors or body.authors
    article = Article(
        url=page.url,
        title=dom.drop_invisible(title),
        text=dom.drop_invisible(body.text),
        published=published,
        authors=authors,
        links=[Link(text, href) for text, href in body.links(page.base_url)],
        language=page.language,
        method=body.method if isinstance(body, EmbeddedBody) else method,
        description=(page_description(page)),
    )
    return enrich(article, page, body, standfirst=params.get("lead", True)) if rich else article


def page_description(page: Page) -> str | None:
    return page.meta("description", "og:description", "twitter:description")
