"""Peers as baselines of ``scrapy evaluate --baseline``, each imported only here and installed
with the ``baselines`` extra:

- newspaper4k: body, title, date, authors, and the rich fields it gives — top image, images,
  meta description, meta keywords, tags, and the subheadings of its article HTML;
- GNE (GeneralNewsExtractor, the Chinese-news peer): title, body, date, author;
- goose3: title, body, date, authors, top image, meta description, keywords, tags."""

from __future__ import annotations

import logging
import warnings

from .datasets import Record, decode_like_scrapy


def newspaper4k(record: Record) -> dict:
    """newspaper4k's fields of one page, as :class:`.runner.Prediction`'s keyword arguments."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # it warns once that nltk (its keyword NLP) is absent
        from newspaper import Article, Config

    logging.getLogger("newspaper").setLevel(logging.CRITICAL)
    config = Config()
    config.fetch_images = False  # no network: image sizes are not fetched
    config.keep_article_html = True
    article = Article(record.url or "http://localhost/", config=config)
    article.download(input_html=decode_like_scrapy(record.html))
    article.parse()
    markdown = _headings_markdown(article.article_html)
    return dict(
        text=article.text or "", title=article.title, published=article.publish_date,
        authors=list(article.authors or []), markdown=markdown,
        images=[{"url": u, "caption": None, "alt": None} for u in sorted(article.images or [])],
        image=article.top_image or None, lead=..., tags=sorted(article.tags or []),  # lead: none given
        description=article.meta_description or None,
        keywords=[k.strip() for k in (article.meta_keywords or []) if k and k.strip()],
    )


def _headings_markdown(article_html: str | None) -> str:
    """Only the headings of newspaper4k's article HTML, as Markdown (its body text is scored as
    text; what the rich figures ask of it is which subheadings it kept)."""
    if not article_html:
        return ""
    from lxml import html

    from ..extract import dom

    root = html.fragment_fromstring(article_html, create_parent="div")
    lines = []
    for el in root.iter("h1", "h2", "h3", "h4", "h5", "h6"):
        text = dom.normalize_space(dom.node_text(el))
        if text:
            lines.append("## " + text.replace("#", "\\#"))
    return "\n\n".join(lines)


def gne(record: Record) -> dict:
    """GNE's (0.4.3) fields of one page, with its defaults (no XPath hints)."""
    from gne import GeneralNewsExtractor

    result = GeneralNewsExtractor().extract(decode_like_scrapy(record.html))
    return dict(text=result.get("content") or "", title=result.get("title") or None,
                published=result.get("publish_time") or None, authors=result.get("author") or None)


def goose3(record: Record) -> dict:
    """goose3's (3.1.22) fields of one page, from the decoded HTML (no network: images are not
    fetched)."""
    from goose3 import Goose

    logging.getLogger("goose3").setLevel(logging.CRITICAL)
    with Goose({"enable_image_fetching": False}) as goose:
        article = goose.extract(url=record.url or None, raw_html=decode_like_scrapy(record.html))
    image = article.top_image.src if article.top_image is not None else None
    return dict(
        text=article.cleaned_text or "", title=article.title or None, published=article.publish_date,
        authors=list(article.authors or []), image=image or None,
        description=article.meta_description or None,
        keywords=[k.strip() for k in (article.meta_keywords or "").split(",") if k.strip()],
        tags=sorted(article.tags or []),
    )
