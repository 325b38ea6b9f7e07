"""Title by LCS similarity — He Chunhui (2019), *Automatic extraction of web news headlines
based on text similarity* (seed 003).

§2, stage 2: the candidates are the catalogue page's external title for this URL
plus the text of every ``<h1>``…``<h6>`` of the detail page; the reference is the
page's ``<title>`` (the external title when ``<title>`` is empty); the candidate with
the highest harmonic similarity ``Sim = 2·LCS/(len a + len b)`` (formula 2) wins.
LCS lengths come from rapidfuzz (``LCSseq``), which is bit-parallel, not a Python
double loop.

``precise=True`` (used by ``auto``) adds the page's own headline metadata
(``og:title``, ``twitter:title``, JSON-LD ``headline``) to the candidates with the
site name cut off, since many pages repeat the ``<title>`` there verbatim.
"""

from __future__ import annotations

import re
import unicodedata

from rapidfuzz.distance import LCSseq

from . import dom
from .page import Page

_SEPARATORS = re.compile(r"\s+[|\-–—_·:»«/]\s+|\s*[|｜_]\s*|\s+-\s*|\s*——\s*|\s*－\s*")
MAX_CANDIDATE_CHARS = 600


def similarity(a: str, b: str) -> float:
    """Seed 003 formula (2): ``2·LCS(a, b) / (len a + len b)``."""
    if not a and not b:
        return 0.0
    return 2.0 * LCSseq.similarity(a, b) / (len(a) + len(b))


def heading_texts(page: Page) -> list[str]:
    """The text of every ``<h1>``…``<h6>`` in document order."""
    texts = []
    for el in page.root.iter(*dom.HEADING_TAGS):
        text = dom.node_text(el)
        if text:
            texts.append(text[:MAX_CANDIDATE_CHARS])
    return texts


def lcs_title(reference: str, candidates: list[str]) -> str | None:
    """The candidate most similar to ``reference``; the first one wins ties."""
    best, best_score = None, -1.0
    for cand in candidates:
        score = similarity(cand, reference)
        if score > best_score:
            best, best_score = cand, score
    return best


def find_title(page: Page, listing_title: str | None = None, *, precise: bool = False) -> str | None:
    """Seed 003's title for ``page``; ``listing_title`` is the catalogue's external title."""
    listing = dom.normalize_space(listing_title)[:MAX_CANDIDATE_CHARS]
    reference = page.title_tag[:MAX_CANDIDATE_CHARS] or listing
    candidates = ([listing] if listing else []) + heading_texts(page)
    if precise:
        return _precise_title(page, reference, listing, candidates)
    if not candidates:
        return reference or None
    if not reference:
        return candidates[0]
    return lcs_title(reference, candidates)


def _meta_titles(page: Page) -> list[str]:
    found = []
    for key in ("og:title", "twitter:title"):
        value = dom.meta_content(page.root, key)
        if value:
            found.append(value)
    for obj in page.json_ld:
        headline = obj.get("headline")
        if isinstance(headline, str) and headline.strip():
            found.append(dom.normalize_space(headline))
    return [t[:MAX_CANDIDATE_CHARS] for t in found]


def _strip_site_name(title: str, site_names: set[str]) -> str:
    """Cut a ``Headline | Site`` title down to the headline part."""
    parts = [p.strip() for p in _SEPARATORS.split(title) if p and p.strip()]
    if len(parts) < 2:
        return title
    kept = [p for p in parts if _fold(p) not in site_names]
    if kept and len(kept) < len(parts):
        return " - ".join(kept) if len(kept) > 1 else kept[0]
    return max(parts, key=len)


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold().strip()


def _precise_title(page: Page, reference: str, listing: str, candidates: list[str]) -> str | None:
    site_names = {
        _fold(v)
        for v in (dom.meta_content(page.root, "og:site_name", "application-name", "twitter:site"),)
        if v
    }
    metas = [_strip_site_name(t, site_names) if site_names else t for t in _meta_titles(page)]
    if listing:
        return lcs_title(reference or listing, candidates + metas) if candidates or metas else listing
    headings = candidates
    # A heading that is (nearly) the page's own headline metadata is the title.
    for meta in metas:
        for heading in headings:
            if similarity(_fold(heading), _fold(meta)) >= 0.9:
                return heading
    if metas:
        return metas[0]
    if headings and reference:
        best = lcs_title(reference, headings)
        if best and similarity(best, reference) >= 0.5:
            return best
    if reference:
        return _strip_site_name(reference, site_names) if site_names else reference
    return headings[0] if headings else None
