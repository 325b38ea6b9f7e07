"""Scores of the rich record (``../shared/datasets/README.md``, "Rich-record fields").

- subheadings: normalised heading text (:func:`normalize_text`: typography, case, white space,
  trailing punctuation), recall and precision pooled over the pages whose truth lists
  subheadings (an empty list: the page has none, and any heading predicted there counts
  against precision);
- list items: the normalised text of each Markdown list item, matched as subheadings are,
  pooled recall and precision;
- image URLs: resolved, scheme and host lower-cased, query kept; a predicted URL matches a
  truth image when it equals any of its versions (each is the same picture); pooled recall
  and precision;
- captions: token F1 of all the page's predicted captions against all its truth captions,
  averaged over pages whose truth images have captions;
- top image: the predicted main image has the file name of the truth's (any version);
- lead, description: token F1 (bag of ``\\w+`` tokens, Han characters one each); tags,
  keywords: F1 of the normalised sets; a page where both sides are empty scores 1;
- body of the Markdown: the Markdown read by a CommonMark reader (markdown-it-py), its text
  rendered as :func:`newscrawl.extract.dom.render_paragraphs` renders HTML, scored by the
  body metric (:func:`.metrics.shingle_counts`).
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable
from functools import lru_cache
from urllib.parse import urlsplit, urlunsplit

from ..extract.dom import drop_invisible_chars
from ..extract.tokens import tokenize

_TRAILING = " \t\n.:;!?,。：；！？"
_SPACES = re.compile(r"\s+")
_PLAIN_PUNCTUATION = str.maketrans({**dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212", "-"),
                                    **dict.fromkeys("\u2018\u2019\u201a\u201b\u2032", "'"),
                                    **dict.fromkeys("\u201c\u201d\u201e\u201f\u2033", '"')})
_BREAKS = ("softbreak", "hardbreak")  # a line break inside a paragraph reads as a space


@lru_cache(maxsize=1)
def _reader():
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").enable("table")


def markdown_tokens(markdown: str | None) -> list:
    return _reader().parse(markdown or "")


def markdown_text(markdown: str | None) -> str:
    """The text a reader sees in ``markdown``: one paragraph a line, images dropped."""
    from lxml import html

    from ..extract.dom import render_paragraphs

    if not markdown:
        return ""
    rendered = _reader().render(markdown)
    if not rendered.strip():
        return ""
    root = html.fragment_fromstring(rendered, create_parent="div")
    return "\n".join(render_paragraphs(root))


def markdown_headings(markdown: str | None) -> list[str]:
    """The text of each heading, its inline markup (emphasis, links, escapes) read as a reader sees it."""
    tokens = markdown_tokens(markdown)
    return [_inline_text(tokens[i + 1]) for i, t in enumerate(tokens[:-1]) if t.type == "heading_open"]


def _inline_text(token) -> str:
    return "".join(c.content if c.type in ("text", "code_inline") else " " if c.type in _BREAKS else ""
                   for c in token.children or ())


def markdown_list_items(markdown: str | None) -> list[str]:
    """The text of each list item's first paragraph (a nested list's items are items of their own)."""
    tokens = markdown_tokens(markdown)
    return [_inline_text(tokens[i + 2]) for i, t in enumerate(tokens[:-2])
            if t.type == "list_item_open" and tokens[i + 1].type == "paragraph_open"]


def markdown_images(markdown: str | None) -> list[dict]:
    """``{url, alt, caption}`` of each image in ``markdown`` (the title attribute as caption)."""
    found = []
    stack = list(markdown_tokens(markdown))
    for token in stack:
        for child in token.children or ():
            if child.type == "image":
                found.append({"url": child.attrGet("src"), "alt": child.content or None,
                              "caption": child.attrGet("title") or child.content or None})
    return found


def normalize_text(text: str | None) -> str:
    """``text`` compatibility-normalised (NFKC), its dashes and curly quotes written plain, white
    space collapsed, trailing punctuation dropped, case folded: a page's typography is not its
    structure (wcxb's reviewers type ``-`` and ``'`` for the page's ``–`` and ``’``).  Zero-width
    characters go, as they go from the extracted text (:func:`..extract.dom.drop_invisible_chars`):
    a reader does not see them."""
    text = unicodedata.normalize("NFKC", drop_invisible_chars(text) or "").translate(_PLAIN_PUNCTUATION)
    return _SPACES.sub(" ", text).strip().rstrip(_TRAILING).casefold()


def url_key(url: str | None) -> str | None:
    if not url:
        return None
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return None
    return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), parts.path, parts.query, ""))


def file_name(url: str | None) -> str:
    try:
        return urlsplit(url or "").path.rstrip("/").rsplit("/", 1)[-1].lower()
    except ValueError:
        return ""


def match_counts(predicted: Iterable[str], truth: Iterable[str]) -> tuple[int, int, int]:
    """``(matched, predicted, truth)`` of two lists of normalised strings (multiset matching)."""
    predicted = [p for p in predicted if p]
    truth = [t for t in truth if t]
    common = Counter(predicted) & Counter(truth)
    return sum(common.values()), len(predicted), len(truth)


def subheading_counts(predicted: Iterable[str], truth: Iterable[str], title: str | None = None) -> tuple:
    skip = normalize_text(title)
    return match_counts([h for h in map(normalize_text, predicted) if h != skip], map(normalize_text, truth))


def image_counts(predicted: Iterable[str], truth: list[dict]) -> tuple[int, int, int]:
    """Predicted image URLs matched to truth images (``url`` and ``versions``), one each."""
    keys = [k for k in dict.fromkeys(url_key(u) for u in predicted) if k]
    left = [{url_key(v) for v in (t.get("versions") or [])} | {url_key(t.get("url"))} for t in truth]
    matched = 0
    for key in keys:
        for i, versions in enumerate(left):
            if key in versions:
                matched += 1
                left.pop(i)
                break
    return matched, len(keys), len(truth)


def token_f1(predicted: str | None, truth: str | None) -> float:
    a, b = Counter(tokenize(predicted or "")), Counter(tokenize(truth or ""))
    if not a and not b:
        return 1.0
    common = sum((a & b).values())
    if not common:
        return 0.0
    p, r = common / sum(a.values()), common / sum(b.values())
    return 2 * p * r / (p + r)


def set_f1(predicted: Iterable[str] | None, truth: Iterable[str] | None) -> float:
    a = {normalize_text(x) for x in predicted or () if normalize_text(x)}
    b = {normalize_text(x) for x in truth or () if normalize_text(x)}
    if not a and not b:
        return 1.0
    common = len(a & b)
    if not common:
        return 0.0
    p, r = common / len(a), common / len(b)
    return 2 * p * r / (p + r)


def same_picture(predicted: str | None, truth_urls: Iterable[str]) -> bool:
    name = file_name(predicted)
    return bool(name) and any(name == file_name(u) for u in truth_urls)


def truth_top_image(record_get, has) -> list[str] | None:
    """The truth's top image URLs (all versions), or None when the truth does not say."""
    if has("top_image"):
        top = record_get("top_image")
        return [top] if top else []
    if has("images"):
        covers = [i for i in record_get("images") or [] if i.get("is_cover")]
        if covers:
            return [covers[0].get("url"), *(covers[0].get("versions") or [])]
        return None
    return None


def pooled(counts: list[tuple[int, int, int]]) -> tuple[float | None, float | None]:
    """``(recall, precision)`` of pooled ``(matched, predicted, truth)`` counts."""
    matched = sum(c[0] for c in counts)
    predicted = sum(c[1] for c in counts)
    truth = sum(c[2] for c in counts)
    return (matched / truth if truth else None, matched / predicted if predicted else None)


def score_rich(record, prediction) -> dict:
    """One page's rich scores, on every rich field the record's truth has."""
    get = record.get

    def has(key: str) -> bool:  # an empty list is the truth "none here" (datasets README), and is scored
        return key == "text" and record.has(key) or key != "text" and get(key) is not None
    out: dict = {}
    markdown = prediction.markdown
    if markdown is not None and has("text"):
        from . import metrics

        han = (record.lang or "").lower().startswith("zh")
        out["md_zyte"] = metrics.shingle_counts(get("text"), markdown_text(markdown), han_chars=han)
    if has("subheadings") and markdown is not None:
        out["subheadings"] = subheading_counts(markdown_headings(markdown), get("subheadings") or [],
                                               prediction.title)
    if has("list_items") and markdown is not None:
        out["list_items"] = match_counts(map(normalize_text, markdown_list_items(markdown)),
                                         map(normalize_text, get("list_items") or []))
    if has("images") and prediction.images is not None:
        truth = get("images") or []
        out["images"] = image_counts([i.get("url") for i in prediction.images], truth)
        truth_captions = " ".join(i.get("caption") or "" for i in truth).strip()
        if truth_captions:
            predicted = " ".join(i.get("caption") or "" for i in prediction.images)
            out["caption_f1"] = token_f1(predicted, truth_captions)
    top = truth_top_image(get, has)
    if top is not None and top and prediction.image is not ...:
        out["top_image"] = float(same_picture(prediction.image, top))
    if has("summary") and prediction.lead is not ...:
        out["lead_f1"] = token_f1(prediction.lead, " ".join(get("summary") or []))
    for key, truth_key in (("tags", "topics"), ("tags", "tags")):
        if has(truth_key) and getattr(prediction, key) is not ...:
            out["tags_f1"] = set_f1(getattr(prediction, key), get(truth_key) or [])
    if record.has("description") and prediction.description is not ...:
        out["description_f1"] = token_f1(prediction.description, get("description"))
    if has("keywords") and prediction.keywords is not ...:
        out["keywords_f1"] = set_f1(prediction.keywords, get("keywords") or [])
    return out


def summarize_rich(scores: list[dict]) -> dict:
    from . import metrics

    out: dict = {}
    md = [s["md_zyte"] for s in scores if "md_zyte" in s]
    if md:
        out["md_zyte_f1"] = metrics.aggregate_shingles(md).f1
    for key in ("subheadings", "list_items", "images"):
        counts = [s[key] for s in scores if key in s]
        if counts:
            out[f"n_{key}"] = len(counts)
            out[f"{key}_r"], out[f"{key}_p"] = pooled(counts)
    for key in ("caption_f1", "top_image", "lead_f1", "tags_f1", "description_f1", "keywords_f1"):
        values = [s[key] for s in scores if key in s]
        if values:
            out[key] = sum(values) / len(values)
            out[f"n_{key}"] = len(values)
    return out
