"""newscrawl's extraction library: one downloaded article page in, one structured :class:`Article` out.

No Scrapy imports here: the crawl pipelines, the commands, the tests and anyone
with a saved page call :func:`extract`.  One module per published method:

- :mod:`.title` — He (2019), LCS title matching;
- :mod:`.cevc` — Wang et al. (2020), content extraction via valid characters;
- :mod:`.decay` — Chen et al. (2012), information-decay amplitude;
- :mod:`.auto` — the rule-based combination of Wang et al. (2020) and Chen et al. (2012)
  (method ``auto-rules``);
- :mod:`.auto_learned` — ``auto``, the default: those rules plus Kazennikov and Soloviev's classifier
  as a veto on the body's edge lines;

plus :mod:`.dates` and :mod:`.authors` for metadata, :mod:`.dom` for the shared DOM
helpers and :mod:`.metrics` for the evaluation measures.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .article import Article, Link
from .errors import ExtractionError
from .page import Page
from .page_type import page_type, page_type_of

__all__ = ["Article", "ExtractionError", "Link", "Page", "extract", "extract_page", "page_type",
           "page_type_of", "METHODS"]


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

    if name not in _METHOD_FUNCTIONS:
        raise ValueError(f"unknown method {name!r}; choose from {', '.join(METHODS)}")
    return import_module(f".methods.{_METHOD_FUNCTIONS[name]}", __name__).extract_body


METHODS = ("auto", "auto-rules", "cevc", "decay", "classifier", "template")
PRECISE_TITLE_METHODS = ("auto", "auto-rules")


def extract(
    html: str | bytes,
    url: str | None = None,
    *,
    listing_title: str | None = None,
    feed_entry: Mapping[str, Any] | None = None,
    method: str = "auto",
    content_type: str | None = None,
    params: Mapping[str, Any] | None = None,
) -> Article:
    """Extract one article from a page.

    ``html`` is text or raw bytes (decoded via BOM, ``content_type``'s charset,
    ``<meta>`` charset, then sniffing).  ``feed_entry`` is the feed item's
    mapping (``title``, ``summary``, ``published``) when the page came from a feed.
    ``params`` overrides method parameters: ``alpha`` (CEVC), ``T`` and ``dl_max``
    (decay), ``cjk_mode`` (stop-word matching).  Raises :class:`ExtractionError`
    for input that holds no page.
    """
    page = Page.from_html(html, url=url, content_type=content_type)
    return extract_page(
        page, listing_title=listing_title, feed_entry=feed_entry, method=method, params=params
    )


def extract_page(
    page: Page,
    *,
    listing_title: str | None = None,
    feed_entry: Mapping[str, Any] | None = None,
    method: str = "auto",
    params: Mapping[str, Any] | None = None,
) -> Article:
    """:func:`extract` on an already parsed :class:`Page` (lets callers share one parse)."""
    from .fields.authors import find_authors
    from .fields.dates import find_published
    from .fields.title import find_title

    extract_body = _body_method(method)
    params = dict(params or {})
    feed_entry = feed_entry or {}
    listing_title = listing_title or feed_entry.get("title")
    body = extract_body(page, **params)
    return Article(
        url=page.url,
        title=find_title(page, listing_title, precise=(method in PRECISE_TITLE_METHODS)),
        text=body.text,
        published=find_published(page, feed_entry),
        authors=find_authors(page),
        links=[Link(text, href) for text, href in body.links(page.base_url)],
        language=page.language,
        method=method,
        description=(page_description(page)),
    )


def page_description(page: Page) -> str | None:
    return page.meta("description", "og:description", "twitter:description")
