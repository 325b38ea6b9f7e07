"""One parsed page, shared by every method: decoded once, parsed once, cleaned once."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cached_property

from lxml import html

from . import dom
from .collector import collector_paused
from .fields.images import noscript_holders, noscript_images
from .language import declared_language, detect_language
from .mojibake import repair_double_encoding, repair_mixed_encoding

# Limits that bound the time and memory of one extraction (README, "Reliability").  Pages
# over them are refused with ExtractionError("too-large"), not cut to a prefix: a prefix
# would be exported as a silently partial article.  Of 1,635 real pages in ../shared the
# largest is 2.9 MB and 10,112 elements; a page over the limits is not an article.
MAX_HTML_CHARS = 8_000_000
MAX_ELEMENTS = 50_000
# page.derived key of ``(elements, text lengths, link text lengths)`` under <body>, by position,
# when a body method has counted them already (auto's Gain): Page.lengths reads them from there.
TEXT_LENGTHS = "text_lengths"
# page.derived key of the class attributes of the elements under <body> (None where there is none;
# the <body> element's own is not among them), when a body method has read them (auto's Gain).
BODY_CLASSES = "body_classes"
# page.derived key of the first <h1> that is not the site's name linked home (title and body ask).
MAIN_H1 = "main_h1"


@dataclass
class Page:
    """A decoded and parsed article page.

    ``root`` is the cleaned tree (Chen et al. (2012) §2.1: no script/style/... subtrees);
    ``json_ld`` keeps the page's JSON-LD objects, read before scripts are dropped.
    """

    url: str | None
    text: str
    root: html.HtmlElement
    json_ld: list[dict] = field(default_factory=list)
    declared_language: str | None = None
    derived: dict = field(default_factory=dict, repr=False)  # values several steps ask for (the title)
    # "utf-8"/"gbk": the text was double-encoded (.mojibake); "utf-8-runs": runs inside it were
    encoding_repaired: str | None = None

    @classmethod
    @collector_paused
    def from_html(
        cls,
        data: str | bytes,
        url: str | None = None,
        content_type: str | None = None,
    ) -> Page:
        from .errors import ExtractionError

        if isinstance(data, bytes) and len(data) > 4 * MAX_HTML_CHARS:  # refuse before decoding
            raise ExtractionError("too-large", f"{len(data)} bytes > {4 * MAX_HTML_CHARS}")
        text, repaired = repair_double_encoding(dom.decode_html(data, content_type))
        if len(text) > MAX_HTML_CHARS:
            raise ExtractionError("too-large", f"{len(text)} characters > {MAX_HTML_CHARS}")
        if repaired is None and (mixed := repair_mixed_encoding(text)) is not text and mixed != text:
            text, repaired = mixed, "utf-8-runs"
        root = dom.parse_html(text)
        elements = dom.element_count(root)
        if elements > MAX_ELEMENTS:
            raise ExtractionError("too-large", f"more than {MAX_ELEMENTS} elements")
        json_ld = _read_json_ld(root)
        declared = declared_language(root)
        fallbacks = noscript_images(root)  # the <img> a <noscript> shows, read before the clean-up
        holders = noscript_holders(root, fallbacks)
        root = dom.clean_tree(root, text, elements)
        page = cls(url=url, text=text, root=root, json_ld=json_ld, declared_language=declared,
                   encoding_repaired=repaired)
        page.derived["noscript_images"] = fallbacks
        page.derived["noscript_holders"] = holders
        page.elements  # noqa: B018 - held from the start, so every traversal below reuses the proxies
        return page

    @cached_property
    def elements(self) -> list[html.HtmlElement]:
        """Every node of the cleaned tree, in document order.

        Holding them keeps lxml's Python proxies alive: without it every traversal
        (each method, title, dates, authors) re-creates one object per element through
        lxml.html's class lookup, which runs in Python; with it tree walks are ~3-5×
        faster (bench/extract_speed.py, docs/performance.md).
        """
        return list(self.root.iter())

    @cached_property
    def body(self) -> html.HtmlElement:
        return dom.body_of(self.root)

    @cached_property
    def base_url(self) -> str | None:
        return dom.document_base(self.root, self.url)

    @cached_property
    def title_tag(self) -> str:
        el = next(self.root.iter("title"), None)  # tag filter in C, not ElementPath
        return dom.node_text(el) if el is not None else ""

    @cached_property
    def lengths(self) -> dict[html.HtmlElement, tuple[int, int]]:
        """``(text, link text)`` non-space lengths of every element under ``<body>``."""
        counted = self.derived.get(TEXT_LENGTHS)
        if counted is not None:
            elements, text, links = counted
            return dict(zip(elements, zip(text.tolist(), links.tolist(), strict=True), strict=True))
        return dom.text_and_link_lengths(self.body)

    @cached_property
    def metas(self) -> list[tuple[str, str]]:
        """The page's ``<meta>`` names and contents (:func:`.dom.meta_contents`), read on first
        use: after the crawl's template stage, which may drop elements, has run."""
        return dom.meta_contents(self.root)

    def meta(self, *names: str) -> str | None:
        """First non-empty ``<meta>`` content named one of ``names`` (:func:`.dom.meta_content`)."""
        return dom.first_meta(self.metas, *names)

    @cached_property
    def language(self) -> str | None:
        return detect_language(self.body, self.declared_language)


def _read_json_ld(root: html.HtmlElement) -> list[dict]:
    objects: list[dict] = []
    for script in root.iter("script"):
        if (script.get("type") or "").strip().lower() != "application/ld+json":
            continue
        try:
            data = json.loads(script.text or "")
        except (ValueError, RecursionError):
            continue
        stack = [data]
        while stack:
            item = stack.pop()
            if isinstance(item, list):
                stack.extend(item)
            elif isinstance(item, dict):
                objects.append(item)
                if isinstance(item.get("@graph"), list):
                    stack.extend(item["@graph"])
    return objects
