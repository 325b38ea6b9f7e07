"""The learned article-link model of the catalogue stage (:mod:`newscrawl.discovery.links`).

Each candidate link of a listing page is described by :data:`FEATURES`: its anchor (text length
in weighted characters, words, headline-like, image, title attribute, menu word), its block (how
many anchors share its tag/class path, the block's link density, its placement in navigation or
an ad), its URL (path depth, digit runs, a date, the longest number, a hyphenated slug, a page
extension, a query, media/tag/author segments, the hand-set :func:`~.links.url_score`) and the
page (how many links share its URL template, and how many headline links; the template lift and
the off-form penalty of the hand-set rules, and their total).  A logistic regression over the
standardised features, trained on ``catalogue-more`` (``bench/train_links.py``, grouped by site),
gives each anchor a probability; a URL is an article link when its best anchor reaches the
model's threshold.

The model is stored as plain numbers (``data/models/links.npz``: feature names, means, scales,
weights, threshold; :data:`LINKS_MANIFEST` has its training data and scores), so scoring a page is
one matrix product with numpy.  No Scrapy imports.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from functools import lru_cache
from pathlib import Path
from urllib.parse import urlsplit

import numpy as np

from newscrawl.extract.tokens import weighted_length

from .url_forms import url_template

LINKS_MODEL = "links.npz"
LINKS_MANIFEST = "links-manifest.json"

FEATURES = (
    # the anchor
    "text_points", "headline", "text_length", "words", "numeric_text", "image", "titled", "menu_text",
    # its URL's other anchors on the page
    "url_anchors", "url_headline", "url_image",
    # its block
    "navigation", "advert", "edge_landmark", "aside_landmark", "listed", "siblings", "link_density",
    # the URL
    "url_score", "depth", "digit_runs", "date", "longest_number", "slug_words", "page_ext", "query",
    "query_id", "trailing_slash", "paging", "empty_segment", "other_host", "rare_host",
    # the page: its links of the same URL template, and the hand-set rules' verdict
    "template_links", "template_share", "template_headlines", "template_headline_share",
    "template_text_length", "template_evidence", "same_template_as_page", "lift", "off_form", "hand_score",
)

_DIGITS_RE = re.compile(r"\d+")
_DATE_RE = re.compile(r"(19|20)\d{2}[-/]?(0[1-9]|1[0-2])")
_WORDS_RE = re.compile(r"\w+")
_PAGE_EXT_RE = re.compile(r"\.(s?html?|php|aspx?)$", re.IGNORECASE)
_QUERY_ID_RE = re.compile(r"(^|&)(p|id|aid|article_?id|story_?id|post_?id)=\d+(&|$)", re.IGNORECASE)
_PAGING_RE = re.compile(r"/(page|p|pg)/\d+/?$|(^|&)(page|paged|pg|start|offset|pagen_\d)=", re.IGNORECASE)
_NUMERIC_TEXT_RE = re.compile(r"[\d\W_]*")
_EVIDENCE_MARKS = ("D", "S", "I", ".htm", ".shtml", ".php", ".asp")  # as url_forms.template_has_evidence


@lru_cache(maxsize=4096)
def url_features(url: str) -> tuple[float, ...]:
    """depth, digit_runs, date, longest_number, slug_words, page_ext, query, query_id,
    trailing_slash, paging, empty_segment."""
    parts = urlsplit(url)
    path = parts.path or "/"
    segments = [s for s in path.split("/") if s]
    runs = _DIGITS_RE.findall(path)
    last = segments[-1].rsplit(".", 1)[0] if segments else ""
    return (
        float(len(segments)), float(min(len(runs), 6)), float(bool(_DATE_RE.search(path))),
        float(min(max(map(len, runs), default=0), 20)),
        float(min(last.count("-") + last.count("_"), 12)), float(bool(_PAGE_EXT_RE.search(path))),
        float(bool(parts.query)), float(bool(_QUERY_ID_RE.search(parts.query))), float(path.endswith("/")),
        float(bool(_PAGING_RE.search(path) or _PAGING_RE.search(parts.query))), float("//" in path),
    )


def feature_rows(scored, lift: dict[str, float], off_form: dict[str, float], page_url: str,
                 min_score: float) -> np.ndarray:
    """One row of :data:`FEATURES` per scored anchor (``links._Scored``, with its ``points``)."""
    templates = Counter(link.template for link in scored)
    headline_templates = Counter(link.template for link in scored if link.headline)
    hosts = Counter(link.host for link in scored)
    page_host = (urlsplit(page_url).hostname or "").lower()
    page_template = url_template(page_url)
    lengths = [math.log1p(weighted_length(link.text)) for link in scored]
    template_length: Counter = Counter()
    by_url: dict[str, list] = {}
    for link, length in zip(scored, lengths, strict=True):
        template_length[link.template] += length
        by_url.setdefault(link.url, []).append(link)
    total = max(len(scored), 1)
    rows = []
    for link, length in zip(scored, lengths, strict=True):
        anchors = by_url[link.url]
        same = templates[link.template]
        rows.append([
            link.text_points, float(link.headline), length, math.log1p(len(_WORDS_RE.findall(link.text))),
            float(bool(link.text) and _NUMERIC_TEXT_RE.fullmatch(link.text) is not None),
            float(link.image), float(link.titled), float(link.text_points <= -3.0),
            math.log1p(len(anchors)), float(any(a.headline for a in anchors)),
            float(any(a.image for a in anchors)),
            float(2.0 <= link.placement < 4.0), float(link.placement >= 4.0),
            float(link.landmark == "edge"), float(link.landmark == "aside"), link.listed,
            math.log1p(link.siblings), link.density,
            link.shape, *url_features(link.url), float(link.host != page_host), float(hosts[link.host] < 3),
            math.log1p(same), same / total, math.log1p(headline_templates[link.template]),
            headline_templates[link.template] / same, template_length[link.template] / same,
            float(any(mark in link.template for mark in _EVIDENCE_MARKS)),
            float(link.template == page_template),
            lift.get(link.template, 0.0), off_form.get(link.url, 0.0), link.points - min_score,
        ])
    return np.asarray(rows, dtype=float).reshape(len(rows), len(FEATURES))


def logits(model: dict, rows: np.ndarray) -> np.ndarray:
    """The model's log-odds of each row being an article link."""
    if not len(rows):
        return np.zeros(0)
    scaled = (rows - np.asarray(model["mean"])) / np.asarray(model["scale"])
    return scaled @ np.asarray(model["coef"]) + float(model["intercept"])


@lru_cache(maxsize=4)
def load_model(directory: str | Path | None = None) -> dict:
    """The shipped link model (plain numbers, :func:`newscrawl.extract.models.load_plain`)."""
    from newscrawl.extract import models

    path = Path(directory or models.MODEL_DIR) / LINKS_MODEL
    if not path.is_file():
        path = models.SHIPPED_MODEL_DIR / LINKS_MODEL  # a `scrapy train` directory without it
    model = models.load_plain(path)
    if tuple(model["features"]) != FEATURES:
        raise ValueError(f"{path}: features {model['features']} are not this version's {FEATURES}")
    return model
