"""URL templates: the shape of a URL's path with its variable parts as placeholders (no Scrapy
imports).  Links of one kind on a site share a template, which the catalogue stage
(:mod:`.links`), its learned scorer (:mod:`.link_model`), the per-site URL shapes
(:mod:`.url_shapes`) and the suggested article patterns (:mod:`.patterns`) all read."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

ID_RE = re.compile(r"\d{5,}")  # a digit run long enough to be an id
_LONG_ID_RE = re.compile(r"[0-9a-z]{10,}", re.IGNORECASE)  # an alphanumeric id such as FGK7NCOR0001899O


def url_template(url: str) -> str:
    """The shape of ``url``'s path with its variable parts replaced by placeholders: digit runs
    by ``D<length>``, slugs (three or more hyphenated words) by ``S``, long alphanumeric ids by
    ``I``, other words by ``w``; the last segment keeps its extension.  Links of one kind on a
    listing page share a template (``D4/D2/D2/w/S/w.html``, ``D2/D4/D2/I.html``)."""
    parts = urlsplit(url)
    segments = [s for s in parts.path.split("/") if s]
    shapes = []
    for i, segment in enumerate(segments):
        stem, dot, ext = segment.rpartition(".") if i == len(segments) - 1 and "." in segment else (
            segment, "", "")
        shapes.append(_segment_shape(stem) + (dot + ext.lower() if dot else ""))
    template = "/".join(shapes)
    if parts.query and len(segments) <= 1:
        keys = sorted({pair.split("=", 1)[0] for pair in parts.query.split("&")})
        template += "?" + "&".join(keys[:5])
    return template



def _segment_shape(segment: str) -> str:
    if segment.isdigit():
        return f"D{len(segment)}"
    if segment.count("-") + segment.count("_") >= 2:
        return "S"
    if ID_RE.search(segment) or (_LONG_ID_RE.fullmatch(segment) and any(c.isdigit() for c in segment)):
        return "I"
    return "w"



def template_has_evidence(template: str) -> bool:
    """Does a template carry article evidence (a number, an id, a slug or a page extension)?"""
    return any(mark in template for mark in ("D", "S", "I", ".htm", ".shtml", ".php", ".asp"))
