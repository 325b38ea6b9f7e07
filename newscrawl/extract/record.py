"""The rich record: the fields an :class:`~.article.Article` carries besides title, date,
authors and text — the body as Markdown and HTML, its images, the lead, the declared metadata.

Every field is read from the page and from the body the method chose (:class:`~.body.Body`), never
by a second extraction: the renderings are of the nodes whose text is ``text``.
"""

from __future__ import annotations

import re

from .article import Article
from .body import Body
from .fields import meta
from .fields.lead import find_lead
from .fields.modified import find_modified
from .page import Page
from .render import render_body

# Characters of the scripts written without spaces between words: each counts as a word.
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_WORD = re.compile(r"\w+")


def word_count(text: str) -> int:
    """Words of ``text``: ``\\w+`` runs, each Han or kana character one word."""
    cjk = len(_CJK.findall(text))
    if cjk:
        text = _CJK.sub(" ", text)
    return cjk + len(_WORD.findall(text))


def enrich(article: Article, page: Page, body: Body) -> Article:
    """``article`` with the rich fields filled from ``page`` and ``body``."""
    lines = body.text_paragraphs()
    rendering = render_body(body.root, body.skip, lines, page.base_url, page.url,
                            page.derived.get("noscript_images"))
    article.markdown = rendering.markdown
    article.html = rendering.html
    article.images = rendering.images
    article.capped = rendering.capped
    article.description = meta.description(page)
    article.canonical_url = meta.canonical_url(page)
    article.site_name = meta.site_name(page)
    article.tags = meta.tags(page)
    article.keywords = meta.keywords(page)
    article.section = meta.section(page)
    article.paywalled = meta.paywalled(page)
    article.modified = find_modified(page)
    article.word_count = word_count(article.text)
    article.lead = find_lead(page, body, article.title, article.description)
    article.image = main_image(page, rendering.images)
    return article


def main_image(page: Page, body_images: list[dict]) -> str | None:
    """The declared main image (Open Graph, Twitter card, JSON-LD), else the body's first."""
    return meta.meta_image(page) or (body_images[0]["url"] if body_images else None)
