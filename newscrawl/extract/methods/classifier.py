"""``classifier`` — Kazennikov & Soloviev, *Extracting a structured news message from web
pages using RSS* (Kazennikov and Soloviev).

Every DOM node with one of the tags :data:`CANDIDATE_TAGS` becomes a bag of
categorical features (the paper's model: each feature=value pair is one binary
dimension), hashed with scikit-learn's ``FeatureHasher``.  The five groups of the
paper, in the order of its Table 1:

1. text — length, words, mean word length, sentences, mean sentence length;
2. position — children, depth, siblings, whether block elements are nested inside;
3. node — tag name and CSS classes;
4. extension — character 2/3/4-grams of the class and id, the parent's n-grams,
   class/id × parent class/id pairs, shares of letters, digits, punctuation and spaces;
5. feed — how many words of the feed entry (title and summary) the node holds.

Additions (documented because the paper does not list them): group 1 also carries
the node's link-text share and its share of the page's text, and the candidate tags
include the HTML5 containers ``article``, ``section`` and ``main``.  All numbers are
bucketed (log2 for counts, tenths for ratios) so they fit the categorical model.

A linear SVM per field scores nodes (:mod:`.training` fits them).  Extraction has the
paper's two stages: (1) pick the node most likely to hold the field — for the body,
the accepted node maximising score × log2(length), for the title the best-scoring one; (2)
remove the chosen node's descendants that the same classifier rejects at least as
firmly as it accepts the chosen node (the Lenta.ru "related story" inset).  Without a
feed entry, the feed words come from what a feed would carry: the page's
``og:title``/``<title>`` and its meta description.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import mmh3
import numpy as np
from lxml import html

from .. import dom, models
from ..body import Body
from ..features import Stats, element_stats
from ..page import Page
from ..tokens import tokenize

CANDIDATE_TAGS = frozenset(
    "div span table td li h1 h2 h3 h4 h5 h6 p article section main".split()
)
GROUPS = (1, 2, 3, 4, 5)
GROUP_NAMES = {1: "text", 2: "position", 3: "node", 4: "extension", 5: "feed"}
FIELDS = ("body", "title")
N_FEATURES = 2**20
# Feature strings are mostly new on each page (about 20 a page on the dataset pages): a bound
# reached within a worker's first thousand pages keeps its memory flat (issue 27).
MAX_CACHED_COLUMNS = 8192
TITLE_MAX_CHARS = 300
STAGE_TWO_MARGIN = 1.0
_DIGITS = re.compile(r"\d+")


def hasher(n_features: int = N_FEATURES):
    """scikit-learn's ``FeatureHasher`` for training (imported here: inference needs only
    :class:`LinearFieldModel`, which hashes the same way without scikit-learn)."""
    from sklearn.feature_extraction import FeatureHasher

    return FeatureHasher(n_features=n_features, input_type="string", alternate_sign=False)


def feature_column(feature: str, n_features: int = N_FEATURES) -> int:
    """The column ``FeatureHasher`` (``alternate_sign=False``) gives a feature string: the signed
    32-bit MurmurHash3 (seed 0) of its UTF-8 bytes, absolute value modulo ``n_features``."""
    return abs(mmh3.hash(feature, 0, signed=True)) % n_features


def _log2(n: float) -> int:
    return int(math.log2(n + 1))


def _tenth(x: float) -> int:
    return int(round(10 * x))


def _tokens_of(value: str | None) -> list[str]:
    return [_DIGITS.sub("0", t.lower()) for t in (value or "").split() if t]


def _ngrams(text: str, sizes=(2, 3, 4)) -> set[str]:
    text = _DIGITS.sub("0", text.lower())
    return {text[i : i + n] for n in sizes for i in range(len(text) - n + 1)}


@dataclass
class Node:
    """One candidate node: the element, its subtree statistics and its feature strings."""

    element: html.HtmlElement
    stats: Stats
    features: list[str] = field(default_factory=list)


def feed_words(page: Page, feed_entry: Mapping[str, Any] | None = None) -> set[str]:
    """Lower-cased words a feed entry would carry: its title and summary, else the page's
    ``og:title`` (or ``<title>``) and meta description — never any ground truth."""
    feed_entry = feed_entry or {}
    title = (
        feed_entry.get("title") or page.meta("og:title", "twitter:title") or page.title_tag
    )
    summary = feed_entry.get("summary") or page.meta("description", "og:description", "twitter:description")
    return {t.lower() for t in tokenize(f"{title or ''} {summary or ''}")}


class _Descriptors:
    """Class/id tokens and n-grams per element, cached (a parent serves many children)."""

    def __init__(self):
        self._cache: dict[html.HtmlElement, tuple[list[str], set[str]]] = {}

    def __call__(self, el: html.HtmlElement | None) -> tuple[list[str], set[str]]:
        if el is None:
            return [], set()
        found = self._cache.get(el)
        if found is None:
            tokens = _tokens_of(el.get("class")) + [f"#{t}" for t in _tokens_of(el.get("id"))]
            found = (tokens, _ngrams(" ".join(tokens)))
            self._cache[el] = found
        return found


def node_features(
    el: html.HtmlElement,
    st: Stats,
    page_text: int,
    depth: int,
    words: set[str],
    descriptors: _Descriptors,
    groups: Iterable[int] = GROUPS,
    shared: int | None = None,
) -> list[str]:
    """The feature strings of one node for the chosen feature ``groups``."""
    groups = set(groups)
    out: list[str] = []
    if 1 in groups:
        words_n = st.words or 0
        out += [
            f"1len={_log2(st.text)}",
            f"1words={_log2(words_n)}",
            f"1wlen={_log2(st.text / words_n) if words_n else -1}",
            f"1sent={_log2(st.sentences)}",
            f"1slen={_log2(words_n / st.sentences) if st.sentences else -1}",
            f"1link={_tenth(st.link_text / st.text) if st.text else -1}",
            f"1share={_tenth(st.text / page_text) if page_text else -1}",
        ]
    parent = el.getparent()
    if 2 in groups:
        siblings = len(parent) if parent is not None else 0
        out += [
            f"2kids={_log2(len(el))}",
            f"2depth={min(depth, 40)}",
            f"2sibs={_log2(siblings)}",
            f"2nested={int(st.blocks > 0)}",
        ]
    tokens, grams = descriptors(el)
    if 3 in groups:
        out.append(f"3tag={el.tag}")
        out += [f"3cls={t}" for t in tokens]
        if not tokens:
            out.append("3cls=")
    if 4 in groups:
        p_tokens, p_grams = descriptors(parent)
        out += [f"4ng={g}" for g in grams]
        out += [f"4png={g}" for g in p_grams]
        own = tokens or ["-"]
        out += [f"4cxp={a}|{b}" for a in own for b in (p_tokens or ["-"])]
        out.append(f"4tagxp={el.tag}|{parent.tag if parent is not None else '-'}")
        chars = st.text + st.spaces
        if chars:
            out += [
                f"4letters={_tenth(st.letters / chars)}",
                f"4digits={_tenth(st.digits / chars)}",
                f"4punct={_tenth(st.punct / chars)}",
                f"4spaces={_tenth(st.spaces / chars)}",
            ]
    if 5 in groups:
        if words and shared is not None:
            out += [
                f"5feedin={_tenth(shared / len(words))}",
                f"5nodein={_tenth(min(1.0, shared / st.words)) if st.words else -1}",
            ]
        else:
            out.append("5nofeed")
    return out


def candidate_nodes(
    page: Page,
    groups: Iterable[int] = GROUPS,
    feed_entry: Mapping[str, Any] | None = None,
    max_chars: int | None = None,
) -> list[Node]:
    """The page's candidate nodes with their features (document order)."""
    body = page.body
    stats = element_stats(body)
    page_text = stats[body].text
    words = feed_words(page, feed_entry) if 5 in set(groups) else set()
    descriptors = _Descriptors()
    own_words: dict[html.HtmlElement, set[str]] = {}
    if words:
        for owner, text in dom.iter_text_nodes(body):
            if text.strip():
                own_words.setdefault(owner, set()).update(t.lower() for t in tokenize(text))
    nodes: list[Node] = []
    depth = {body: 0}
    order = list(stats)
    # The feed words under each element, bottom-up (small sets: feed words only).
    subtree_words: dict[html.HtmlElement, set[str]] = {}
    if words:
        for el in reversed(order):
            acc = own_words.get(el, set()) & words
            for child in el:
                acc |= subtree_words.get(child, set())
            subtree_words[el] = acc
    for el in order:
        parent = el.getparent()
        if el is not body:
            depth[el] = depth.get(parent, 0) + 1
        if not isinstance(el.tag, str) or el.tag not in CANDIDATE_TAGS:
            continue
        st = stats[el]
        if not st.text or (max_chars is not None and st.text > max_chars):
            continue
        shared = len(subtree_words.get(el, ())) if words else None
        feats = node_features(el, st, page_text, depth[el], words, descriptors, groups, shared)
        nodes.append(Node(el, st, feats))
    return nodes


# page.derived key of the non-space length of the page's <body> text (1share's denominator).
BODY_CHARS = "body_chars"


def body_text_length(page: Page) -> int:
    """Non-space characters of the text under the page's ``<body>``, once a page: :class:`.auto.Gain`,
    which counts every text node anyway, leaves the figure in ``page.derived``."""
    found = page.derived.get(BODY_CHARS)
    if found is None:
        found = page.derived[BODY_CHARS] = dom.non_space_len(page.body.xpath("string()"))  # joined in C
    return found


def nodes_for(
    page: Page,
    elements: Iterable[html.HtmlElement],
    groups: Iterable[int] = GROUPS,
    feed_entry: Mapping[str, Any] | None = None,
) -> list[Node]:
    """:func:`candidate_nodes` for the given elements only, with the same features: each
    element's statistics come from its own subtree and the page's text length from one
    pass over the text nodes, instead of features for every node of the page (scoring a
    few nodes of a large page costs a fraction of scoring them all)."""
    groups = tuple(groups)
    body = page.body
    page_text = body_text_length(page)
    words = feed_words(page, feed_entry) if 5 in set(groups) else set()
    descriptors = _Descriptors()
    body_depth = sum(1 for _ in body.iterancestors())
    nodes: list[Node] = []
    for el in elements:
        if not isinstance(el.tag, str) or el.tag not in CANDIDATE_TAGS:
            continue
        st = element_stats(el)[el]
        if not st.text:
            continue
        depth = sum(1 for _ in el.iterancestors()) - body_depth
        shared = None
        if words:
            own = {t.lower() for _, text in dom.iter_text_nodes(el) if text.strip() for t in tokenize(text)}
            shared = len(own & words)
        features = node_features(el, st, page_text, depth, words, descriptors, groups, shared)
        nodes.append(Node(el, st, features))
    return nodes


@dataclass
class FieldModel:
    """A fitted linear SVM for one field and the feature groups it was trained on."""

    svm: Any
    groups: tuple[int, ...] = GROUPS
    n_features: int = N_FEATURES

    def scores(self, nodes: list[Node]) -> np.ndarray:
        if not nodes:
            return np.zeros(0)
        X = hasher(self.n_features).transform(n.features for n in nodes)
        return self.svm.decision_function(X)


@dataclass
class LinearFieldModel:
    """A fitted linear field model as plain weights: the decision value of a node is
    ``intercept + Σ weights[feature_column(f)]`` over its feature strings, as
    :meth:`FieldModel.scores` computes it with scikit-learn.  What ``auto`` scores its
    edge nodes with: no scikit-learn import (~70 MB) and no per-call set-up in the crawl."""

    weights: np.ndarray  # dense, one weight per hashed column
    intercept: float
    groups: tuple[int, ...] = GROUPS
    n_features: int = N_FEATURES
    # feature string -> column: most feature strings recur from page to page ("1len=7",
    # the n-grams of common class names), and a dict look-up costs a quarter of a hash.
    _columns: dict[str, int] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_field_model(cls, model: FieldModel) -> LinearFieldModel:
        return cls(
            weights=np.asarray(model.svm.coef_, dtype=np.float64).ravel(),
            intercept=float(np.ravel(model.svm.intercept_)[0]),
            groups=tuple(model.groups),
            n_features=model.n_features,
        )

    def scores(self, nodes: list[Node]) -> np.ndarray:
        return np.array(
            [self.weights.take(self.columns(node.features)).sum() + self.intercept for node in nodes],
            dtype=np.float64,
        )

    def columns(self, features: list[str]) -> list[int]:
        """:func:`feature_column` of each feature, remembered (at most :data:`MAX_CACHED_COLUMNS`)."""
        known = self._columns
        if len(known) >= MAX_CACHED_COLUMNS:  # strings unique to a page must not pile up in a crawl
            known.clear()
        found = []
        for feature in features:
            column = known.get(feature)
            if column is None:
                column = known[feature] = feature_column(feature, self.n_features)
            found.append(column)
        return found


def stage_one(nodes: list[Node], scores: np.ndarray) -> int:
    """Index of the node most likely to hold the body: among nodes scored positive, the one
    maximising score × log2(length + 2) (a confident large node over a confident paragraph);
    the best-scoring node when none is positive."""
    weighted = [s * math.log2(n.stats.text + 2) if s > 0 else s for n, s in zip(nodes, scores, strict=True)]
    return int(np.argmax(weighted))


def stage_two(element: html.HtmlElement, nodes: list[Node], scores: np.ndarray, tau: float) -> set:
    """Descendants of ``element`` scored below ``tau``, outermost only."""
    score_of = {n.element: s for n, s in zip(nodes, scores, strict=True)}
    skip: set = set()
    for el in element.iterdescendants():
        s = score_of.get(el)
        if s is not None and s < tau and not any(anc in skip for anc in el.iterancestors()):
            skip.add(el)
    return skip


def choose_body(nodes: list[Node], scores: np.ndarray, two_stage: bool = True) -> tuple[Node | None, set]:
    """Stage 1 (:func:`stage_one`) and, with ``two_stage``, stage 2: the chosen node's
    descendants that the classifier rejects at least as firmly as it accepts the chosen
    node (score < −score(chosen); :data:`STAGE_TWO_MARGIN` scales this)."""
    if not nodes:
        return None, set()
    best = stage_one(nodes, scores)
    chosen = nodes[best]
    skip = set()
    if two_stage:
        skip = stage_two(chosen.element, nodes, scores, -STAGE_TWO_MARGIN * max(scores[best], 0.0))
    return chosen, skip


def extract_body(
    page: Page,
    model: Any = None,
    two_stage: bool = True,
    feed_entry: Mapping[str, Any] | None = None,
    **_ignored,
) -> Body:
    """The node classifier end to end with the shipped model (or ``model``, a :class:`ClassifierModel`)."""
    model = model or load_classifier()
    field_model = model.fields["body"]
    nodes = candidate_nodes(page, field_model.groups, feed_entry)
    chosen, skip = choose_body(nodes, field_model.scores(nodes), two_stage)
    if chosen is None:
        return Body(method="classifier", root=page.body)
    return Body(method="classifier", root=chosen.element, skip=skip)


def find_title(page: Page, model: Any = None, feed_entry: Mapping[str, Any] | None = None) -> str | None:
    """The text of the node the title SVM scores highest (stage 1; a title has no parts to remove)."""
    model = model or load_classifier()
    field_model = model.fields.get("title")
    if field_model is None:
        return None
    nodes = candidate_nodes(page, field_model.groups, feed_entry, max_chars=TITLE_MAX_CHARS)
    if not nodes:
        return None
    scores = field_model.scores(nodes)
    return dom.node_text(nodes[int(np.argmax(scores))].element) or None


@dataclass
class ClassifierModel:
    """The per-field models plus the manifest they were trained with."""

    fields: dict[str, FieldModel]
    manifest: dict[str, Any] = field(default_factory=dict)


def classifier_to_data(model) -> dict[str, Any]:
    """A :class:`ClassifierModel` as plain data skops can store safely."""
    return {
        name: {"svm": fm.svm, "groups": list(fm.groups), "n_features": fm.n_features}
        for name, fm in model.fields.items()
    }


def classifier_from_data(data: dict[str, Any], manifest: dict[str, Any] | None = None):
    fields = {
        name: FieldModel(svm=d["svm"], groups=tuple(d["groups"]), n_features=int(d["n_features"]))
        for name, d in data.items()
    }
    return ClassifierModel(fields=fields, manifest=manifest or {})


@lru_cache(maxsize=4)
def load_classifier(directory: str | Path = models.MODEL_DIR):
    """The shipped Kazennikov and Soloviev classifier (cached per directory)."""
    directory = Path(directory)
    path = directory / models.CLASSIFIER_FILE
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no classifier model; run `scrapy train`")
    return classifier_from_data(models.load(path), models.read_manifest(directory).get("classifier"))


def dump_linear(model, path: str | Path) -> None:
    """The linear field models of a :class:`ClassifierModel` as plain arrays
    (``numpy.savez_compressed``: the non-zero weights, the intercept, the feature groups):
    what ``auto`` scores with at run time, without scikit-learn.  Written by ``scrapy train``
    beside the skops file it is derived from."""
    arrays = {}
    for name, fm in model.fields.items():
        coef = np.asarray(fm.svm.coef_, dtype=np.float64).ravel()
        columns = np.flatnonzero(coef)
        arrays[f"{name}.columns"] = columns.astype(np.int32)
        arrays[f"{name}.weights"] = coef[columns]
        arrays[f"{name}.intercept"] = np.asarray(np.ravel(fm.svm.intercept_)[:1], dtype=np.float64)
        arrays[f"{name}.groups"] = np.asarray(fm.groups, dtype=np.int32)
        arrays[f"{name}.n_features"] = np.asarray([fm.n_features], dtype=np.int64)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, **arrays)


@lru_cache(maxsize=4)
def load_linear(directory: str | Path = models.MODEL_DIR) -> dict[str, Any]:
    """The shipped classifier's field models as :class:`LinearFieldModel` objects
    (numeric arrays only: ``allow_pickle=False``), cached per directory."""
    path = Path(directory) / models.LINEAR_FILE
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no linear classifier weights; run `scrapy train`")
    with np.load(path, allow_pickle=False) as data:
        names = sorted({key.split(".")[0] for key in data.files})
        fields = {}
        for name in names:
            n_features = int(data[f"{name}.n_features"][0])
            weights = np.zeros(n_features, dtype=np.float64)
            weights[data[f"{name}.columns"]] = data[f"{name}.weights"]
            fields[name] = LinearFieldModel(
                weights=weights,
                intercept=float(data[f"{name}.intercept"][0]),
                groups=tuple(int(g) for g in data[f"{name}.groups"]),
                n_features=n_features,
            )
    return fields
