"""Where the article ends: the trailing sections of a body that are not the article.

Below an article's last section many pages put sections of their own under a heading of their
own: a call to action ("Request a demo", "Join 52k readers"), the author's box, "More you might
like", "Share this post", a paywall's notice.  They sit inside the block the rules chose, hold
few links and read as prose, so neither the rules (:mod:`.auto`) nor the node classifier's veto
on the last lines (:mod:`.auto_learned`, three lines at most) removes them.

Each kept heading near the body's end (what follows it is at most :data:`MAX_SHARE` of the
body's characters) is described by its layout, in no language's words (:data:`FEATURES`): how
much of the body and of the main container's paragraphs follow it, how far up its own
container joins the main one, the share of links and pictures in what follows, how many of
what follows's words the article above used, its level among the body's headings.  A random
forest (flat arrays, :mod:`..forest`) gives P(the rest is not the article); the body ends
before the first heading with P above the model's threshold, in ``text``, ``markdown`` and
``html`` alike (the heading and all after it join ``skip``).

Trained and measured by ``bench/train_article_end.py`` (labels: the truth's text holds under
10 % of what follows the heading, in 3-word shingles; folds grouped by site; the threshold is
the highest whose out-of-fold body F1 is within 0.0002 of the best).  Figures are in
``data/models/article-end.json`` and ``docs/methods.md``.  Without the model file the body is
left as it is.
"""

from __future__ import annotations

import json
import logging
from bisect import bisect_left, bisect_right
from functools import lru_cache
from pathlib import Path

from .. import dom
from ..body import Body
from ..tokens import tokenize

logger = logging.getLogger(__name__)

ARTICLE_END_FILE = "article-end.npz"
MANIFEST_FILE = "article-end.json"  # data, threshold and figures of the model (bench/train_article_end.py)
MAX_SHARE = 0.15  # of the body's characters a cut may remove: it trims an end, never the body
MAX_CANDIDATES = 64  # the last headings weighed (wcxb and fundus pages have 55 at most)
FEATURES = (
    "after_share",  # the body's characters from the heading on
    "heads_after",  # kept headings after it
    "heading_index",
    "lines_after",
    "main_after",  # paragraphs of the main container (the parent of the most paragraph text) after it
    "main_after_share",
    "main_distance",  # steps up from the main container to where the heading's branch joins it
    "in_main",  # the heading's branch joins at the main container itself
    "branch",  # elements between the heading and that join
    "link_share",  # of what follows, the characters in links
    "level",
    "level_above_min",  # its level minus the body's highest heading level
    "seen_words",  # share of what follows's words the body used before the heading
    "question",
    "heading_words",
    "pictures_after",
)
_QUESTION = ("?", "？")
_WEIGHED = (*dom.HEADING_TAGS, "p", "a", "img")
MAX_DISTANCE = 10


def heading_rows(body: Body) -> list[tuple[int, list[float], object]]:
    """``(line index, feature row, heading element)`` of each candidate heading of ``body``:
    kept, rendered as one of its lines, with at most :data:`MAX_SHARE` of the body's characters
    from it to the end.  One walk over the block's headings, paragraphs, links and pictures,
    and the body's words read once, for the pages with a candidate."""
    root, lines = body.root, body.text_paragraphs()
    if root is None or not lines:
        return []
    kept = _kept(root, body.skip)
    order = {el: i for i, el in enumerate(kept)}
    headings = [el for el in kept if el.tag in dom.HEADING_TAGS]
    if not headings:
        return []
    suffix = [0] * (len(lines) + 1)
    for i in range(len(lines) - 1, -1, -1):
        suffix[i] = suffix[i + 1] + len(lines[i])
    total = suffix[0]
    line_at: dict[str, list[int]] = {}  # each line's text -> where it stands
    for i, line in enumerate(lines):
        line_at.setdefault("".join(line.split()), []).append(i)
    positions, at = [], 0
    for heading in headings:  # each heading's line, in order; -1: not a line of its own (demoted, dropped)
        places = line_at.get("".join(dom.node_text(heading).split()), ())
        k = bisect_left(places, at)
        found = places[k] if k < len(places) else -1
        positions.append(found)
        if found >= 0:
            at = found + 1
    candidates = [(n, i) for n, i in enumerate(positions) if i >= 0 and suffix[i] <= MAX_SHARE * total]
    candidates = candidates[-MAX_CANDIDATES:]  # each reads what follows it: the cost stays linear
    if not candidates:
        return []

    paragraph_chars: dict = {}
    for el in kept:
        if el.tag == "p":
            parent = el.getparent()
            paragraph_chars[parent] = paragraph_chars.get(parent, 0) + len(el.text_content())
    main = max(paragraph_chars, key=paragraph_chars.get) if paragraph_chars else root
    main_chain = [main, *main.iterancestors()]
    up_from_main = {el: n for n, el in enumerate(main_chain)}
    main_paragraphs = [order[el] for el in kept if el.tag == "p" and el.getparent() is main]
    link_at, picture_at = [], []  # positions of outermost links and of pictures
    link_chars = [0]
    for el in kept:
        if el.tag == "a" and next(el.iterancestors("a"), None) is None:
            link_at.append(order[el])
            link_chars.append(link_chars[-1] + len(el.text_content()))
        elif el.tag == "img":
            picture_at.append(order[el])
    top = min(int(h.tag[1]) for h in headings)
    line_words = [tokenize(line) for line in lines]
    seen: set[str] = set()
    seen_to = 0
    rows = []
    for n, i in candidates:
        heading = headings[n]
        while seen_to < i:
            seen.update(line_words[seen_to])
            seen_to += 1
        branch, up = 0, heading
        while up is not None and up not in up_from_main:
            branch += 1
            up = up.getparent()
        distance = up_from_main[up] if up is not None else MAX_DISTANCE
        here = order[heading]
        after = [w for words in line_words[i:] for w in words]
        links = link_chars[-1] - link_chars[bisect_right(link_at, here)]
        text = dom.node_text(heading)
        main_after = len(main_paragraphs) - bisect_right(main_paragraphs, here)
        row = [suffix[i] / total, len(headings) - n - 1, n, len(lines) - i, main_after,
               main_after / max(1, len(main_paragraphs)), min(distance, MAX_DISTANCE), float(up is main),
               branch, links / max(1, suffix[i]), int(heading.tag[1]), int(heading.tag[1]) - top,
               sum(map(seen.__contains__, after)) / max(1, len(after)),
               float(text.rstrip().endswith(_QUESTION)), len(tokenize(text)),
               len(picture_at) - bisect_right(picture_at, here)]
        rows.append((i, row, heading))
    return rows


def _kept(root, skip) -> list:
    """The headings, paragraphs, links and pictures under ``root`` outside the ``skip`` subtrees,
    in document order (lxml's tag-filtered walks: the other elements are never visited)."""
    left_out = set()
    for el in skip:
        if isinstance(el.tag, str):
            left_out.update(el.iter(*_WEIGHED))
    return [el for el in root.iter(*_WEIGHED) if el not in left_out and el is not root]


def without_tail(body: Body, line: int, heading) -> Body:
    """``body`` ending before ``heading`` (rendered as ``lines[line]``): the heading and every
    element after it in the block join ``skip``."""
    skip = set(body.skip)
    skip.add(heading)
    el = heading
    while el is not None and el is not body.root:  # what follows the heading and each of its ancestors
        skip.update(el.itersiblings())
        el = el.getparent()
    return Body(method=body.method, root=body.root, skip=skip, keep=body.keep,
                paragraphs=body.text_paragraphs()[:line])


def cut(body: Body, model: dict | None = None) -> Body:
    """``body`` ended before its first heading the model says the article has ended at."""
    model = model if model is not None else shipped_model()
    if model is None:
        return body
    rows = heading_rows(body)
    if not rows:
        return body
    from ..forest import predict_proba_rows

    proba = predict_proba_rows(model["forest"], [row for _line, row, _heading in rows])
    for (line, _row, heading), p in zip(rows, proba[:, int(model["ended_class"])], strict=True):
        if p > float(model["threshold"]):
            return without_tail(body, line, heading)
    return body


@lru_cache(maxsize=4)
def _load(directory: str) -> dict | None:
    """The model of ``directory``, else the shipped one (a ``scrapy train`` directory holds none);
    None, with a warning for a stale file, when there is none this version can read."""
    from .. import models

    path = Path(directory) / ARTICLE_END_FILE
    if not path.is_file():
        path = models.SHIPPED_MODEL_DIR / ARTICLE_END_FILE
    if not path.is_file():
        return None
    model = models.load_plain(path)
    if tuple(model.get("features", ())) != FEATURES:
        logger.warning("%s was trained on other features than this version's: bodies are not cut", path)
        return None
    return model


def trained_on() -> list[str]:
    """The datasets the model in use was trained on (its manifest, :data:`MANIFEST_FILE`)."""
    from ..models import MODEL_DIR, SHIPPED_MODEL_DIR

    for directory in (MODEL_DIR, SHIPPED_MODEL_DIR):
        if (Path(directory) / ARTICLE_END_FILE).is_file():
            path = Path(directory) / MANIFEST_FILE
            return list(json.loads(path.read_text()).get("trained_on", [])) if path.is_file() else []
    return []


def shipped_model() -> dict | None:
    from ..models import MODEL_DIR

    return _load(str(MODEL_DIR))
