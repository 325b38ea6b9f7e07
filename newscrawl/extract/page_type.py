"""Is a page an article?  Section and listing pages, collections, product pages, forum threads,
documentation and service pages, tag and author pages, galleries, video pages and error pages
served with status 200 are told apart from articles (no Scrapy imports).

:func:`page_kind` reads a parsed :class:`~newscrawl.extract.page.Page` and gives its kind and the
probability of it; :func:`page_type_of` gives the kind alone, :func:`page_type` reads raw HTML.
The kind is ``"article"`` or one of :data:`KINDS`: the page-type model's ``listing``,
``collection``, ``product``, ``forum``, ``documentation``, ``service``; the rules' ``tag``,
``author``, ``gallery``, ``video``, ``error``; or a wall that stands in for the article:
``consent_wall`` or ``login_wall``.

The decision: the rules below (:func:`kind_of`) name an error page, a wall, a listing, tag, author or
gallery page, and that stands.  Otherwise the model, a random forest over the features of
:mod:`.page_features` (``data/models/page-type.npz``, trained by ``bench/train_page_type.py``),
gives P(kind); the page is an article when P(article) reaches the model's threshold, else its
likeliest other kind (or the rules' ``video``).  Without a model file the rules decide alone.

The signals it reads are those of :mod:`.page_signals`.

The rules (and the model's threshold) are conservative, as dropping an article is worse than
exporting a listing page: for the rules,
a page with a long run of prose is an article whatever its URL or metadata says, unless its
title is an error phrase and it has little text.  A page with no prose at all (no block of
:data:`PROSE_BLOCK` characters outside links) whose text is mostly links is not an article either
(a tag page of one link, a list of links).  A wall is a wall only with little prose beside it;
a login form under a paywall's teaser (the page declared or marked paywalled) is an article.
``bench/page_type_eval.py`` measures the decision on every article page and every listing page of
``../shared/datasets``.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from .page import Page
from .page_signals import (
    _ARTICLE_TYPES,
    LINK_BLOCK_SHARE,
    LISTING_HEADLINES,
    PROSE_RUN,
    SETTLING_TYPES,
    SHORT_PROSE,
    PageSignals,
    _declared_signals,
    _read_walls,
    _walk,
)

ARTICLE = "article"
CONSENT_WALL, LOGIN_WALL = "consent_wall", "login_wall"
WALLS = (CONSENT_WALL, LOGIN_WALL)  # their own drop reasons: a later fetch may find the article
MODEL_KINDS = ("article", "listing", "collection", "product", "forum", "documentation", "service")
KINDS = (*MODEL_KINDS, "tag", "author", "gallery", "video", "error", *WALLS)
PAGE_TYPE_FILE, PAGE_TYPE_MANIFEST = "page-type.npz", "page-type.json"  # in data/models
# The rules' kinds that beat the model (the rules' video pages are often articles with a video:
# "video" only names a page the model rejects).
SURE_RULE_KINDS = ("error", *WALLS, "listing", "tag", "author", "gallery")


_NON_ARTICLE_TYPES = {
    "collectionpage": "listing", "itemlist": "listing", "searchresultspage": "listing",
    "videoobject": "video", "imagegallery": "gallery", "mediagallery": "gallery",
    "profilepage": "author",
}
_OG_KINDS = {"video": "video", "video.other": "video", "video.movie": "video", "video.episode": "video",
             "profile": "author"}
SHORT_RUN = 600  # below this a listing-shaped page at an index or tag/author/... URL is not an article
TEASER_RUN = 300  # below this a listing-shaped page at a section's index ("/world/") is a listing
NO_PROSE = 100  # below this a page of many headline links is a listing wherever it is
MANY_HEADLINES = 20
MANY_TEASERS = 20  # repeated items of a headline link and a teaser, with this share of link text:
TEASER_LINK_SHARE = 0.35  # a listing with teasers (a forum's thread list, a blog's index)
LINK_HEAVY = 0.6
LISTING_LINK_SHARE = 0.3  # and this share of link text
WALL_TEXT = SHORT_PROSE  # a wall has less text than this outside links (and outside its consent markup)


def kind_of(signals: PageSignals) -> str:
    """The page's kind from its signals (the rules; see the module docstring)."""
    s = signals
    wall = _wall(s)
    if wall is not None:
        return wall
    if s.error_title and s.longest_run < SHORT_PROSE and not (s.ld_types & _ARTICLE_TYPES):
        return "error"
    if s.longest_run >= PROSE_RUN:
        return ARTICLE
    if not s.ld_types & _ARTICLE_TYPES and _teaser_listing(s):
        return s.url_kind or "listing"
    declared = _declared_kind(s)
    if declared is not None:
        return declared
    listing_shape = s.headline_links >= LISTING_HEADLINES and s.link_share >= LISTING_LINK_SHARE
    if listing_shape and s.longest_run < SHORT_RUN:
        if s.index_url == "home" or (s.index_url == "section" and s.longest_run < TEASER_RUN):
            return "listing"
        if s.url_kind is not None:
            return s.url_kind
    if (s.headline_links >= MANY_HEADLINES and s.link_share >= LINK_HEAVY
            and s.longest_run < NO_PROSE):
        return s.url_kind or "listing"
    if s.teaser_items >= MANY_TEASERS and s.link_share >= TEASER_LINK_SHARE and s.longest_run < SHORT_RUN:
        return s.url_kind or "listing"
    if s.longest_run == 0 and s.link_share > LINK_BLOCK_SHARE:  # links and no prose at all
        return s.url_kind or "listing"
    return ARTICLE


def _wall(s: PageSignals) -> str | None:
    """``consent_wall`` or ``login_wall`` when the page is one (see the module docstring), else None."""
    if s.longest_run >= PROSE_RUN:
        return None
    if s.consent_title:
        return CONSENT_WALL
    if s.consent_markup and s.open_text < WALL_TEXT:
        return CONSENT_WALL
    if s.password and s.form and 0 < s.text - s.link_text < WALL_TEXT and not s.paywalled:
        return LOGIN_WALL
    return None


def _teaser_listing(s: PageSignals) -> bool:
    """A page of repeated teaser items with no prose of its own, or a home or section index of
    listing shape: a listing even when its ``og:type`` (a site-wide template's) says article."""
    if s.teaser_items >= MANY_TEASERS and s.longest_run < TEASER_RUN:
        return True
    listing_shape = s.headline_links >= LISTING_HEADLINES and s.link_share >= LISTING_LINK_SHARE
    return listing_shape and s.index_url is not None and s.longest_run < TEASER_RUN


def _declared_kind(s: PageSignals) -> str | None:
    """``article`` when the metadata says article, a kind when it says another, else None."""
    if s.ld_types & _ARTICLE_TYPES or s.og_type == "article":
        return ARTICLE
    for ld_type in sorted(s.ld_types):
        if ld_type in _NON_ARTICLE_TYPES:
            return _NON_ARTICLE_TYPES[ld_type]
    return _OG_KINDS.get(s.og_type)


def page_type_of(page: Page) -> str:
    """``"article"`` or the kind of non-article page ``page`` is (:func:`page_kind`'s kind)."""
    return page_kind(page)[0]


def page_kind(page: Page) -> tuple[str, float | None]:
    """The kind of ``page`` and the model's probability of it (see the module docstring):
    ``("article", P(article))``, ``("product", P(product))``, ...; for a kind the rules name
    (an error page, a wall, a tag/author/gallery/video page), the model's probability that the
    page is not an article.  A page whose JSON-LD declares an article (:data:`SETTLING_TYPES`) is one
    without the walk, and no probability (most news articles: the walk is the cost).  Without a
    model file, the rules alone, and no probability."""
    signals = _declared_signals(page)
    if _declared_article(signals):
        return ARTICLE, None
    _walk(page.body, signals)
    _read_walls(page.body, signals)
    rule = kind_of(signals)
    model = _model(str(models_dir()))
    if model is None:
        return rule, None
    if rule in SURE_RULE_KINDS:
        return rule, _not_article(model, page, signals)
    from .page_features import features_of

    proba = _predict(model, features_of(page, signals))
    if proba[0] >= model["threshold"]:
        return ARTICLE, proba[0]
    if rule != ARTICLE:
        return rule, 1.0 - proba[0]
    best = max(range(1, len(proba)), key=proba.__getitem__)
    return model["kinds"][best], proba[best]


def _declared_article(s: PageSignals) -> bool:
    """Does the page's JSON-LD declare an article (no wall's title or password input, no error
    title)?  On the shared datasets 903 articles and 10 other pages of 758 declare one."""
    if s.consent_title or (s.password and not s.paywalled) or s.error_title:
        return False
    return bool(s.ld_types & SETTLING_TYPES)


def kind_probabilities(page: Page) -> dict[str, float]:
    """The model's probability of each kind of :data:`MODEL_KINDS` for ``page`` (empty without a
    model file): what :func:`page_kind` decides on, for evaluation and debugging."""
    model = _model(str(models_dir()))
    if model is None:
        return {}
    from .page_features import page_features

    return dict(zip(model["kinds"], _predict(model, page_features(page)[0]), strict=True))


def _not_article(model: dict, page: Page, signals: PageSignals) -> float:
    from .page_features import features_of

    return 1.0 - _predict(model, features_of(page, signals))[0]


def _predict(model: dict, row: list[float]) -> list[float]:
    """P(kind) in the order of ``model["kinds"]``."""
    from .forest import predict_proba

    proba = predict_proba(model["forest"], row)
    order = {kind: i for i, kind in enumerate(model["classes"])}
    return [round(float(proba[order[kind]]), 4) if kind in order else 0.0 for kind in model["kinds"]]


def models_dir():
    from .models import MODEL_DIR

    return MODEL_DIR


@lru_cache(maxsize=4)
def _model(directory: str) -> dict | None:
    """The page-type model of ``directory`` (:data:`PAGE_TYPE_FILE`), or None when there is none."""
    from . import models

    path = Path(directory) / PAGE_TYPE_FILE
    return models.load_plain(path) if path.is_file() else None


def drop_reason(kind: str) -> str:
    """The crawl's drop reason for a page of ``kind`` (not ``article``): the wall's name for a wall
    (a later fetch may find the article: the page is not remembered as rejected), else
    ``not_article/<kind>``."""
    return kind if kind in WALLS else f"not_article/{kind}"


def page_type(html: str | bytes, url: str | None = None, content_type: str | None = None) -> str:
    """``"article"`` or the kind of non-article page (``listing``, ``tag``, ``author``,
    ``gallery``, ``video``, ``error``, ``consent_wall``, ``login_wall``) that ``html`` holds."""
    return page_type_of(Page.from_html(html, url=url, content_type=content_type))
