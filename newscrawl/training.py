"""Train and evaluate the learned methods on the shared datasets (no Scrapy imports).

**Labels from ground truth (how gold text is aligned with the DOM).**  The page's
text nodes are tokenised in document order (words; one token per Han character, as
:func:`.metrics.tokenize`).  A token is *gold* when one of the token trigrams it
belongs to (lower-cased) occurs in the ground-truth body; this tolerates the
truth's different white space and paragraphing and rejects isolated common words
in navigation.  Gold and total tokens are summed up the tree, and

- a Kazennikov and Soloviev node is a *body* node when at least :data:`BODY_SHARE` of its tokens
  are gold; a *title* node when its text matches the true title with character
  F1 ≥ :data:`TITLE_F1` (:func:`.metrics.title_char_prf`);
- a Yan and Wang (2020) block (``body``/``section``/``div``, nested blocks excluded) is *main
  text* when at least :data:`BODY_SHARE` of its own tokens are gold.

Only datasets whose truth has the full body (``text``) give body labels; titles come
from any set with ``title``.  The feed words of Kazennikov and Soloviev's group 5 come from the
page's own ``og:title``/``<title>`` and meta description, never from the truth.

**Protocols.**  :func:`cross_validate_body` scores a method with out-of-fold
predictions: pages are grouped by site (registered domain) and split into k folds, a model is
trained on k−1 folds and predicts the held-out fold, so no page — and no site — is
scored by a model that saw it.  :func:`ablation` trains on some datasets and tests on
others (Kazennikov and Soloviev's cross-site protocol).
"""

from __future__ import annotations

import logging
import random
import re
import time
import zlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
from scipy import sparse

from .evaluation import metrics
from .evaluation.datasets import Record, load_dataset
from .evaluation.runner import Prediction, score_page, summarize
from .evaluation.sites import site_key
from .extract.body import Body
from .extract.features import subtree_sums, tokens_per_owner
from .extract.methods.classifier import (
    GROUPS,
    TITLE_MAX_CHARS,
    ClassifierModel,
    FieldModel,
    Node,
    candidate_nodes,
    choose_body,
    classifier_to_data,
    dump_linear,
    hasher,
    load_classifier,
    load_linear,
)
from .extract.page import Page

logger = logging.getLogger(__name__)

SEED = 20240531
BODY_SHARE = 0.7
TITLE_F1 = 0.8
ALPHA = 1e-4
# Only permissively licensed sets train the shipped models (../shared/datasets/README.md):
# gne-zh, dragnet-train and daniel-* are GPL/AGPL and serve evaluation only.
BODY_SETS = ("aeb", "fundus", "zh-news", "newspaper4k")
TITLE_SETS = ("fundus", "newspaper4k", "goose3")
# "- License: MIT (...)", or inline "licence CC-BY-4.0 (attribution: ...)" (wcxb's SOURCE.md).
_LICENCE_LINE = re.compile(
    r"\blicen[cs]e\b(?: (?P<spdx>CC-[\w.-]++(?: \([^)\n]*+\))?)|[^:\n]{0,40}:(?P<text>[^\n]*+))",
    re.IGNORECASE,
)
# CC-BY-<version> only: CC-BY-SA, -NC and -ND add terms the shipped models cannot carry.
_PERMISSIVE = re.compile(r"\b(?:MIT|Apache|BSD|CC-BY-\d)\b")
_COPYLEFT = re.compile(r"GPL", re.IGNORECASE)


def dataset_licence(path: str | Path) -> str | None:
    """The licence line of a dataset's ``SOURCE.md`` (``- License: MIT (...)``), if it has one."""
    try:
        text = (Path(path) / "SOURCE.md").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    found = _LICENCE_LINE.search(text)
    return (found.group("spdx") or found.group("text")).strip() if found else None


def trainable(path: str | Path) -> bool:
    """Whether a dataset may train models that newscrawl ships: its licence is permissive
    (MIT, Apache, BSD, CC-BY) and not copyleft.  A set without a licence line is not trainable."""
    licence = dataset_licence(path)
    return bool(licence and _PERMISSIVE.search(licence) and not _COPYLEFT.search(licence))


def check_licences(root: str | Path, names: Iterable[str]) -> None:
    """Refuse (``ValueError``) sets whose licence does not allow training shipped models."""
    refused = [name for name in names if (Path(root) / name).is_dir() and not trainable(Path(root) / name)]
    if refused:
        raise ValueError(
            f"{', '.join(refused)}: licence not permissive (see their SOURCE.md); these sets may only "
            "evaluate. Pass --allow-copyleft to train a private model on them (never to ship)."
        )


def gold_tokens_per_element(page: Page, gold: str) -> tuple[dict, dict]:
    """``(total, gold)`` token counts per element under ``<body>`` (subtree sums)."""
    gold_tokens = [t.lower() for t in metrics.tokenize(gold)]
    trigrams = {tuple(gold_tokens[i : i + 3]) for i in range(max(1, len(gold_tokens) - 2))}
    owners = tokens_per_owner(page.body)
    flat: list[str] = []
    spans: list[tuple[Any, int, int]] = []
    for owner, tokens in owners:
        spans.append((owner, len(flat), len(flat) + len(tokens)))
        flat.extend(t.lower() for t in tokens)
    is_gold = [False] * len(flat)
    for i in range(max(0, len(flat) - 2) if len(flat) >= 3 else 0):
        if tuple(flat[i : i + 3]) in trigrams:
            is_gold[i] = is_gold[i + 1] = is_gold[i + 2] = True
    if 0 < len(flat) < 3 and tuple(flat) in trigrams:
        is_gold = [True] * len(flat)
    own_total: dict = {}
    own_gold: dict = {}
    for owner, start, end in spans:
        own_total[owner] = own_total.get(owner, 0) + end - start
        own_gold[owner] = own_gold.get(owner, 0) + sum(is_gold[start:end])
    return subtree_sums(page.body, own_total), subtree_sums(page.body, own_gold)


@dataclass
class PageData:
    """One training page: the parsed page, its candidate nodes and their labels.

    :meth:`compact` turns it into what :func:`run_training` keeps of a page (its hashed
    features, labels and block sample, no tree): training then holds one parsed page at
    a time instead of every page's tree and per-element counts at once.
    """

    record: Record
    dataset: str
    page: Page | None
    nodes: list[Node]
    body_labels: np.ndarray | None = None
    title_nodes: list[Node] = field(default_factory=list)
    title_labels: np.ndarray | None = None
    gold_counts: tuple[dict, dict] | None = None  # (total, gold) tokens per element, for block labels
    _matrices: dict = field(default_factory=dict, repr=False)
    # Set by compact(): the title candidates' rows of the body matrix (title nodes are the body
    # nodes of at most TITLE_MAX_CHARS characters), the page's block sample with text, the
    # zlib-compressed HTML to parse the page again for a prediction, and the node count.
    _title_rows: np.ndarray | None = field(default=None, repr=False)
    _blocks: tuple[np.ndarray, np.ndarray] | None = field(default=None, repr=False)
    _html: bytes | None = field(default=None, repr=False)
    _n_nodes: int = field(default=0, repr=False)

    @property
    def compacted(self) -> bool:
        return self._html is not None

    def matrix(self, which: str, groups: Sequence[int] = GROUPS) -> sparse.csr_matrix:
        """The hashed features of the body (``which="body"``) or title candidates, hashed
        once per page and feature-group set (CV folds and the final fit reuse them)."""
        key = (which, tuple(groups))
        found = self._matrices.get(key)
        if found is None and self.compacted:
            if key == ("title", tuple(GROUPS)):
                return self._matrices[("body", key[1])][self._title_rows]
            raise ValueError("this page was compacted: only the full feature set is available")
        if found is None:
            found = design_matrix([self.nodes if which == "body" else self.title_nodes], groups)
            self._matrices[key] = found
        return found

    def compact(self) -> None:
        """Keep only what training with the full feature set needs: the body matrix (float32:
        hashed counts are small integers, exact in float32), the title rows, the block sample
        with text; free the tree, its nodes, the feature strings and the per-element counts.
        Other feature-group sets (the ablations) are then unavailable for this page;
        :meth:`tree` parses the page again (the same tree) when a prediction needs it."""
        if self.compacted:
            return
        body = self.matrix("body")
        self._matrices = {("body", tuple(GROUPS)): body.astype(np.float32)}
        self._title_rows = np.array([i for i, n in enumerate(self.nodes) if n.stats.text <= TITLE_MAX_CHARS],
                                    dtype=np.int32)
        if self.gold_counts is not None:
            blocks, X, y = block_samples(self)
            self._blocks = _with_text(blocks, X, y)
        self._n_nodes = len(self.nodes)
        self._html = zlib.compress(self.record.html, 1)
        self.record = replace(self.record, html=b"")  # parsed already: the bytes are not read again
        self.page, self.nodes, self.title_nodes, self.gold_counts = None, [], [], None

    def tree(self) -> tuple[Page, list[Node]]:
        """The parsed page and its candidate nodes (without feature strings once compacted:
        the page is parsed again from its bytes, the same nodes in the same order)."""
        if self.page is not None:
            return self.page, self.nodes
        page = Page.from_html(zlib.decompress(self._html), url=self.record.url)
        nodes = candidate_nodes(page, ())  # which nodes are candidates does not depend on the groups
        if len(nodes) != self._n_nodes:
            raise RuntimeError(f"{self.dataset}/{self.record.id}: parsed again, {len(nodes)} nodes "
                               f"instead of {self._n_nodes}")
        return page, nodes

    def block_sample(self) -> tuple[np.ndarray, np.ndarray]:
        """R1–R5 and labels of the page's blocks with text (:func:`block_samples`)."""
        if self._blocks is not None:
            return self._blocks
        if self.compacted:
            return np.zeros((0, 5)), np.zeros(0, dtype=bool)
        return _with_text(*block_samples(self))

    @property
    def group(self) -> str:
        """The page's site, its registered domain (``blog.x.com`` and ``x.com`` are one site)."""
        return site_key(self.record) or f"{self.dataset}:{self.record.id}"


def prepare_page(record: Record, dataset: str) -> PageData | None:
    """Parse one record and label its nodes; ``None`` when the page cannot be parsed."""
    try:
        page = Page.from_html(record.html, url=record.url)
    except Exception as exc:  # noqa: BLE001 - a broken page is skipped, not fatal for training
        logger.warning("%s/%s: skipped (%s)", dataset, record.id, exc)
        return None
    nodes = candidate_nodes(page, GROUPS)
    data = PageData(record, dataset, page, nodes)
    if record.has("text"):
        total, gold = data.gold_counts = gold_tokens_per_element(page, record.get("text"))
        data.body_labels = np.array(
            [total.get(n.element, 0) > 0 and gold[n.element] / total[n.element] >= BODY_SHARE for n in nodes]
        )
    if record.has("title"):
        data.title_nodes = [n for n in nodes if n.stats.text <= TITLE_MAX_CHARS]
        truth = record.get("title")
        data.title_labels = np.array(
            [metrics.title_char_prf(_node_text(n), truth).f1 >= TITLE_F1 for n in data.title_nodes]
        )
    return data


def _node_text(node: Node) -> str:
    from .extract.dom import node_text

    return node_text(node.element)


def load_pages(root: str | Path, names: Iterable[str], limit: int | None = None,
               compact: bool = False) -> list[PageData]:
    """Parse and label every page of the named sets.  ``compact``: :meth:`PageData.compact`
    each page as soon as it is labelled (hashed features, labels and block sample kept, tree
    freed), for callers that only use the full feature set (:func:`run_training`): one tree
    is held at a time."""
    pages = []
    for name in names:
        path = Path(root) / name
        if not path.is_dir():
            logger.warning("%s: no such dataset, skipped", path)
            continue
        for record in load_dataset(path, limit):
            data = prepare_page(record, name)
            if data is None:
                continue
            if compact:
                data.compact()
            pages.append(data)
    return pages


def _filter(features: list[str], groups: Sequence[int]) -> list[str]:
    allowed = {str(g) for g in groups}
    return [f for f in features if f[0] in allowed]


def design_matrix(node_lists: Iterable[list[Node]], groups: Sequence[int] = GROUPS) -> sparse.csr_matrix:
    h = hasher()
    node_lists = [nodes for nodes in node_lists if nodes]
    if not node_lists:  # FeatureHasher refuses an empty input
        return sparse.csr_matrix((0, h.n_features))
    if set(groups) >= set(GROUPS):  # the nodes carry exactly these groups: nothing to filter
        return h.transform(n.features for nodes in node_lists for n in nodes)
    return h.transform(_filter(n.features, groups) for nodes in node_lists for n in nodes)


def fit_field(pages: list[PageData], field_name: str, groups: Sequence[int] = GROUPS, C: float | None = None):
    """A balanced linear SVM for one field on the labelled nodes of ``pages``."""
    from sklearn.linear_model import SGDClassifier

    if field_name == "body":
        usable = [p for p in pages if p.body_labels is not None]
        y = np.concatenate([p.body_labels for p in usable]) if usable else np.zeros(0)
    else:
        usable = [p for p in pages if p.title_labels is not None]
        y = np.concatenate([p.title_labels for p in usable]) if usable else np.zeros(0)
    if len(set(y.tolist())) < 2:
        raise ValueError(f"{field_name}: training data has a single class")
    X = _stack_rows([p.matrix(field_name, groups) for p in usable])
    # Hinge loss + L2 penalty is the linear SVM objective; SGD fits 10^5 hashed rows in seconds.
    svm = SGDClassifier(
        loss="hinge", alpha=ALPHA, class_weight="balanced", random_state=SEED, max_iter=30, tol=1e-4
    )
    svm.fit(X, y)
    return FieldModel(svm=svm, groups=tuple(groups))


def _stack_rows(matrices: list[sparse.csr_matrix]) -> sparse.csr_matrix:
    """``sparse.vstack(matrices, format="csr")`` as float64 (what the fit takes, whatever the
    pages keep), written straight into the result's arrays: no per-page float64 copies."""
    n_features = matrices[0].shape[1] if matrices else hasher().n_features
    nnz = sum(m.nnz for m in matrices)
    n_rows = sum(m.shape[0] for m in matrices)
    index = np.int32 if max(nnz, n_features) < np.iinfo(np.int32).max else np.int64
    data = np.empty(nnz, dtype=np.float64)
    indices = np.empty(nnz, dtype=index)
    indptr = np.zeros(n_rows + 1, dtype=index)
    row = at = 0
    for m in matrices:
        rows, count = m.shape[0], m.nnz
        data[at : at + count] = m.data[m.indptr[0] : m.indptr[-1]]
        indices[at : at + count] = m.indices[m.indptr[0] : m.indptr[-1]]
        indptr[row + 1 : row + rows + 1] = m.indptr[1:] - m.indptr[0] + at
        row, at = row + rows, at + count
    return sparse.csr_matrix((data, indices, indptr), shape=(n_rows, n_features), copy=False)


def predict_body(data: PageData, model: FieldModel, two_stage: bool = True) -> str:
    if not (data._n_nodes if data.compacted else data.nodes):
        return ""
    X = data.matrix("body", model.groups)
    _, nodes = data.tree()  # a compacted page is parsed again, and freed on return
    chosen, skip = choose_body(nodes, model.svm.decision_function(X), two_stage)
    return Body("classifier", chosen.element, skip).text if chosen is not None else ""


def score_texts(pages: list[PageData], texts: list[str]) -> dict[str, Any]:
    return summarize([score_page(p.record, Prediction(text)) for p, text in zip(pages, texts, strict=False)])


def group_folds(pages: list[PageData], k: int) -> list[list[int]]:
    """Page indices in ``k`` folds, whole sites per fold (seeded shuffle of the sites)."""
    groups = sorted({p.group for p in pages})
    random.Random(SEED).shuffle(groups)
    fold_of = {g: i % k for i, g in enumerate(groups)}
    folds: list[list[int]] = [[] for _ in range(k)]
    for i, p in enumerate(pages):
        folds[fold_of[p.group]].append(i)
    return folds


def out_of_fold(
    pages: list[PageData],
    predict: Callable[[PageData, FieldModel], str],
    k: int = 5,
    groups: Sequence[int] = GROUPS,
) -> list[str]:
    """Each page's body text predicted by a model trained on the other folds."""
    texts = [""] * len(pages)
    for fold in group_folds(pages, k):
        held = set(fold)
        model = fit_field([p for i, p in enumerate(pages) if i not in held], "body", groups)
        for i in fold:
            texts[i] = predict(pages[i], model)
    return texts


def cross_validate_body(
    pages: list[PageData], predictors: dict[str, Callable[[PageData, FieldModel], str]], k: int = 5
) -> dict[str, dict[str, dict[str, Any]]]:
    """Out-of-fold body figures per predictor and dataset (sites never straddle folds)."""
    labelled = [p for p in pages if p.body_labels is not None]
    results: dict[str, dict[str, dict[str, Any]]] = {}
    for name, predict in predictors.items():
        texts = out_of_fold(labelled, predict, k)
        per_set: dict[str, dict[str, Any]] = {}
        for dataset in sorted({p.dataset for p in labelled}):
            idx = [i for i, p in enumerate(labelled) if p.dataset == dataset]
            per_set[dataset] = score_texts([labelled[i] for i in idx], [texts[i] for i in idx])
        results[name] = per_set
    return results


ABLATION_GROUPS = ((1,), (1, 2), (1, 2, 3), (1, 2, 3, 4), (1, 2, 3, 4, 5))


@dataclass
class AblationRow:
    groups: str
    train: str
    test: str
    scheme: str
    figures: dict[str, Any]


def ablation(
    root: str | Path,
    splits: Sequence[tuple[Sequence[str], Sequence[str]]] = (
        (("fundus",), ("aeb",)),
        (("aeb",), ("fundus",)),
    ),
    limit: int | None = None,
) -> tuple[list[AblationRow], list[AblationRow]]:
    """Kazennikov and Soloviev's Tables 1 and 2 with disjoint training and test datasets."""
    names = sorted({n for tr, te in splits for n in (*tr, *te)})
    pages = load_pages(root, names, limit)
    table1: list[AblationRow] = []
    table2: list[AblationRow] = []
    for train_sets, test_sets in splits:
        train = [p for p in pages if p.dataset in train_sets and p.body_labels is not None]
        test = [p for p in pages if p.dataset in test_sets and p.body_labels is not None]
        for groups in ABLATION_GROUPS:
            model = fit_field(train, "body", groups)
            one = score_texts(test, [predict_body(p, model, two_stage=False) for p in test])
            label = "+".join(map(str, groups))
            table1.append(AblationRow(label, "+".join(train_sets), "+".join(test_sets), "one-stage", one))
            if groups == GROUPS:
                two = score_texts(test, [predict_body(p, model, two_stage=True) for p in test])
                for scheme, figures in (("one-stage", one), ("two-stage", two)):
                    row = AblationRow(label, "+".join(train_sets), "+".join(test_sets), scheme, figures)
                    table2.append(row)
    return table1, table2


def format_rows(rows: list[AblationRow], first: str) -> str:
    head = f"| {first} | train | test | P | R | F1 | LCS F1 |\n|---|---|---|---|---|---|---|"
    lines = [head]
    for r in rows:
        f = r.figures
        key = r.groups if first == "groups" else r.scheme
        lines.append(
            f"| {key} | {r.train} | {r.test} | {f.get('body_zyte_p', 0):.3f} | {f.get('body_zyte_r', 0):.3f} "
            f"| {f.get('body_zyte_f1', 0):.3f} | {f.get('body_lcs_f1', 0):.3f} |"
        )
    return "\n".join(lines)


def train_classifier(pages: list[PageData], k: int = 5) -> tuple[ClassifierModel, dict[str, Any]]:
    """Fit the body SVM on all pages (the title SVM is :func:`run_training`'s, on the title
    sets); report grouped k-fold CV scores."""
    started = time.perf_counter()
    cv = cross_validate_body(pages, {"classifier": predict_body}, k)["classifier"]
    fields = {"body": fit_field(pages, "body")}
    report = {
        "fields": list(fields),
        "alpha": ALPHA,
        "body_share": BODY_SHARE,
        "title_f1": TITLE_F1,
        "cv_protocol": f"{k}-fold out-of-fold, pages grouped by site",
        "cv_body": cv,
        "pages": {name: sum(p.dataset == name for p in pages) for name in sorted({p.dataset for p in pages})},
        "seconds": round(time.perf_counter() - started, 1),
    }
    return ClassifierModel(fields=fields), report


# --- Yan and Wang (2020): block SVM ----------------------------------------------------------------------

BLOCK_MAX_TRAIN = 6000  # balanced sample size cap (RBF SVC training is quadratic in samples)
# C and γ searched by 10-fold CV.  Measured on the full grid {1, 10, 100, 1000} × {scale, 1, 10, 100}
# (all body sets, 4636 samples): every cell scored F1 0.80–0.82, the best was C = 100, γ = 10
# (0.822); C = 1000 and γ = 100 never beat a smaller value and took 60 % of the search's fit time.
BLOCK_GRID = {"C": [1, 10, 100], "gamma": ["scale", 1, 10]}


def block_samples(data: PageData) -> tuple[list, np.ndarray, np.ndarray]:
    """The page's blocks, their R1–R5 and their labels (own tokens ≥ BODY_SHARE gold)."""
    return block_samples_of(data.page, data.record.get("text"), data.gold_counts)


def block_samples_of(
    page: Page, gold_text: str, gold_counts: tuple[dict, dict] | None = None
) -> tuple[list, np.ndarray, np.ndarray]:
    """:func:`block_samples` for a parsed page and its true body text (``gold_counts``:
    :func:`gold_tokens_per_element` already computed for it)."""
    from .extract.methods.template import block_features, blocks_of

    blocks = blocks_of(page)
    total, gold = _own_gold(page, gold_counts or gold_tokens_per_element(page, gold_text),
                            {b.element for b in blocks})
    labels = np.array([total.get(b.element, 0) > 0 and gold[b.element] / total[b.element] >= BODY_SHARE
                       for b in blocks])
    return blocks, block_features(blocks), labels


def _own_gold(page: Page, counts: tuple[dict, dict], block_elements: set) -> tuple[dict, dict]:
    """Token and gold-token counts of each block's own content (nested blocks excluded)."""
    total, gold = counts
    own_total, own_gold = dict(total), dict(gold)
    for el in block_elements:
        parent = el.getparent()
        while parent is not None and parent not in block_elements:
            parent = parent.getparent()
        if parent is not None and el in total:
            own_total[parent] = own_total.get(parent, 0) - total[el]
            own_gold[parent] = own_gold.get(parent, 0) - gold[el]
    return own_total, own_gold


def _with_text(blocks: list, X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The rows of :func:`block_samples` whose block has text."""
    keep = np.array([b.text > 0 for b in blocks], dtype=bool)
    return X[keep], y[keep]


def balanced_block_sample(samples) -> tuple[np.ndarray, np.ndarray, dict[str, int]]:
    """The blocks with text of ``samples`` (``(blocks, X, y)`` per page; ``blocks`` ``None``:
    ``X`` and ``y`` hold the blocks with text only), as many of each class (at most
    :data:`BLOCK_MAX_TRAIN` in all), drawn with the fixed seed; and how many blocks and
    positive blocks there were to draw from."""
    X_parts, y_parts = [], []
    for blocks, X, y in samples:
        if blocks is not None:
            X, y = _with_text(blocks, X, y)
        X_parts.append(X)
        y_parts.append(y)
    X = np.vstack(X_parts)
    y = np.concatenate(y_parts).astype(int)
    rng = np.random.default_rng(SEED)
    pos, neg = np.flatnonzero(y == 1), np.flatnonzero(y == 0)
    n = min(len(pos), len(neg), BLOCK_MAX_TRAIN // 2)
    idx = np.concatenate([rng.choice(pos, n, replace=False), rng.choice(neg, n, replace=False)])
    return X[idx], y[idx], {"blocks": int(len(y)), "positive_blocks": int(len(pos))}


def fit_block_svm(pages: list[PageData], folds: int = 10):
    """RBF SVC on balanced R1–R5 samples; C and γ by ``folds``-fold CV (Yan and Wang (2020) §6).
    Returns the fitted estimator and the CV report."""
    from sklearn.model_selection import GridSearchCV, StratifiedKFold
    from sklearn.svm import SVC

    samples = ((None, *data.block_sample()) for data in pages if data.record.has("text"))
    X, y, counts = balanced_block_sample(samples)
    search = GridSearchCV(
        SVC(kernel="rbf", class_weight="balanced"),
        BLOCK_GRID,
        cv=StratifiedKFold(folds, shuffle=True, random_state=SEED),
        scoring="f1",
        n_jobs=2,
    )
    search.fit(X, y)
    report = {
        "samples": int(len(y)),
        **counts,
        "grid": BLOCK_GRID,
        "best_params": search.best_params_,
        "cv_f1": round(float(search.best_score_), 4),
        "cv_protocol": f"{folds}-fold stratified CV on the balanced block sample",
    }
    return search.best_estimator_, report


def evaluate_block_svm(model, pages: list[PageData]) -> dict[str, Any]:
    """Yan and Wang (2020) §8.1 leaf-tag precision and recall, plus the body figures, on ``pages``."""
    from .extract.methods.template import block_body, iter_leaves, leaf_prf

    tp = fp = fn = 0
    texts = []
    for data in pages:
        page = data.tree()[0]  # a compacted page is parsed again
        total, gold = counts = data.gold_counts or gold_tokens_per_element(page, data.record.get("text"))
        blocks, X, _ = block_samples_of(page, data.record.get("text"), counts)
        keep = (model.predict(X) == 1) & np.array([b.text > 0 for b in blocks], dtype=bool)
        leaves = [el for el, _ in iter_leaves(page.body)]
        gold_leaf = [total.get(el, 0) > 0 and gold[el] / total[el] >= BODY_SHARE for el in leaves]
        a, b, c = leaf_prf(page, blocks, keep, gold_leaf, leaves)
        tp, fp, fn = tp + a, fp + b, fn + c
        texts.append(block_body(page, blocks, keep).text)
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    return {"leaf_p": round(p, 4), "leaf_r": round(r, 4), "leaf_f1": round(metrics.f1_score(p, r), 4),
            **score_texts(pages, texts)}


# --- the `scrapy train` entry point -----------------------------------------------------------


def _versions() -> dict[str, str]:
    import platform

    import scipy
    import sklearn
    import skops

    return {"python": platform.python_version(), "scikit-learn": sklearn.__version__,
            "skops": skops.__version__, "numpy": np.__version__, "scipy": scipy.__version__}


def run_training(
    root: str | Path,
    out: str | Path,
    body_sets: Sequence[str] = BODY_SETS,
    title_sets: Sequence[str] = TITLE_SETS,
    limit: int | None = None,
    echo: Callable[[str], None] = print,
    allow_copyleft: bool = False,
) -> dict[str, Any]:
    """Fit and save both models with their manifest; print the CV scores.

    Sets whose licence is not permissive are refused unless ``allow_copyleft``; the
    manifest records the choice so such a model is never mistaken for a shippable one.
    """
    from .extract import models

    started = time.perf_counter()
    names = list(dict.fromkeys([*body_sets, *title_sets]))
    if not allow_copyleft:
        check_licences(root, names)
    pages = load_pages(root, names, limit, compact=True)
    if not pages:
        raise ValueError(f"{root}: none of the datasets {', '.join(names)} is there")
    body_pages = [p for p in pages if p.dataset in body_sets and p.body_labels is not None]
    title_pages = [p for p in pages if p.dataset in title_sets]
    echo(f"{len(pages)} pages loaded ({time.perf_counter() - started:.0f} s)")
    classifier, report = train_classifier(body_pages, k=5)
    titled = [p for p in title_pages if p.title_labels is not None and p.title_labels.any()]
    if titled:
        classifier.fields["title"] = fit_field(titled, "title")
    for dataset, figures in report["cv_body"].items():
        echo(f"classifier body, {report['cv_protocol']}: {dataset} F1 {figures.get('body_zyte_f1', 0):.3f}")
    block_svm, block_report = fit_block_svm(body_pages)
    echo(
        f"block SVM: {block_report['cv_protocol']}: F1 {block_report['cv_f1']:.3f}, "
        f"{block_report['best_params']}"
    )
    out = Path(out)
    models.dump(classifier_to_data(classifier), out / models.CLASSIFIER_FILE)
    dump_linear(classifier, out / models.LINEAR_FILE)
    models.dump(block_svm, out / models.BLOCK_SVM_FILE)
    manifest = {
        "seed": SEED,
        "datasets_root": "../shared/datasets",
        "body_sets": list(body_sets),
        "title_sets": list(title_sets),
        "licences": {name: dataset_licence(Path(root) / name) for name in names},
        "shippable": all(trainable(Path(root) / name) for name in names),
        "labels": {"body_share": BODY_SHARE, "title_char_f1": TITLE_F1,
                   "alignment": "token trigrams of the page matched against the truth text (training.py)"},
        "versions": _versions(),
        "classifier": {**report, "title_pages": len(titled), "feature_groups": list(GROUPS),
                       "svm": "SGDClassifier(loss='hinge', class_weight='balanced')", "alpha": ALPHA},
        "block_svm": block_report,
        "seconds": round(time.perf_counter() - started, 1),
    }
    models.write_manifest(out, manifest)
    load_classifier.cache_clear()
    load_linear.cache_clear()
    models.load_block_svm.cache_clear()
    echo(f"models written to {out} ({manifest['seconds']:.0f} s)")
    return manifest
