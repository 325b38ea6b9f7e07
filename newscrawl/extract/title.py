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
site name cut off, since many pages repeat the ``<title>`` there verbatim.  Sources
that differ only in typography (curly vs straight quotes, dash kinds, soft hyphens,
case) count as one; the winner is written as the page shows it in its ``<h1>``.
"""

from __future__ import annotations

import re
import unicodedata
from urllib.parse import urljoin, urlsplit

from rapidfuzz.distance import LCSseq

from . import dom
from .page import Page

# " | ", "_", " - ", "——", ...  White space opens a separator only where its run starts (the
# look-behind; then the alternatives in their original order), so a long run is scanned once,
# not again from each of its characters (tests/test_regex_linear.py).
_SEPARATORS = re.compile(
    r"(?<!\s)\s++(?:[|\-–—_·:»«/]\s+|[|｜_]\s*|-\s*|——\s*|－\s*)|[|｜_]\s*|——\s*|－\s*"
)
MAX_CANDIDATE_CHARS = 600
# Typographic variants of one character, folded before sources are compared: metadata
# often carries ASCII quotes and hyphens where the visible headline has typographic ones.
_TYPOGRAPHY = str.maketrans(
    {
        **dict.fromkeys("‘’‚‛′`´", "'"),
        **dict.fromkeys("“”„‟″«»", '"'),
        **dict.fromkeys("‐‑‒–—―−", "-"),
        **dict.fromkeys("\u00ad\u200b\u200c\u200d\u2060\ufeff"),
    }
)
# Characters that join a kicker or a tail to a headline (compared after _fold, so the
# dash kinds are already "-"); quotes are not among them.
_KICKER_JOINS = ":-|/·›‹•*~：｜ㅣ"
# JSON-LD types whose ``name`` is the page's headline (``name`` of a Person, an
# Organization or a WebSite is not).
_HEADLINE_NAME_TYPES = re.compile(r"Article|Posting|Report|Recipe")


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
    """Seed 003's title for ``page``; ``listing_title`` is the catalogue's external title.

    The result is kept on the page: ``auto`` asks for the title to leave it out of the
    body, and the article asks again.
    """
    key = ("title", listing_title, precise)
    if key not in page.derived:
        page.derived[key] = _find_title(page, listing_title, precise)
    return page.derived[key]


def _find_title(page: Page, listing_title: str | None, precise: bool) -> str | None:
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


def _flat_text(el) -> str:
    """Heading text as rendered: inline pieces joined without inserted spaces."""
    return dom.normalize_space("".join(el.itertext()))[:MAX_CANDIDATE_CHARS]


def _fold(text: str | None) -> str:
    """Comparison key: NFKC, typographic quotes/dashes unified, invisible marks dropped, casefolded."""
    text = unicodedata.normalize("NFKC", text or "").translate(_TYPOGRAPHY)
    return " ".join(text.split()).casefold()


def _json_ld_headline(page: Page) -> str | None:
    """The first JSON-LD ``headline``; else the ``name`` of an article-like object."""
    named = None
    for obj in page.json_ld:
        types = obj.get("@type")
        types = " ".join(t for t in (types if isinstance(types, list) else [types]) if isinstance(t, str))
        if types == "WebSite":
            continue
        headline = obj.get("headline")
        if isinstance(headline, str) and headline.strip():
            return dom.normalize_space(headline)[:MAX_CANDIDATE_CHARS]
        name = obj.get("name")
        if named is None and isinstance(name, str) and name.strip() and _HEADLINE_NAME_TYPES.search(types):
            named = dom.normalize_space(name)[:MAX_CANDIDATE_CHARS]
    return named


def _is_home_link(el, page: Page) -> bool:
    """Is heading ``el`` just a link to the site's home page (a logo or blog name)?"""
    text = _fold(_flat_text(el))
    for a in el.iter("a"):
        if _fold(_flat_text(a)) != text:
            continue
        target = urlsplit(urljoin(page.base_url or page.url or "", a.get("href") or ""))
        if target.path in ("", "/") and not target.query:
            return True
    return False


def _main_h1(page: Page) -> str | None:
    """The text of the first ``<h1>`` that is not the site's logo or name linked home."""
    for el in page.root.iter("h1"):
        text = _flat_text(el)
        if text and not _is_home_link(el, page):
            return text
    return None


def _site_names(page: Page) -> set[str]:
    names = {
        _fold(v)
        for v in (dom.meta_content(page.root, "og:site_name", "application-name", "twitter:site"),)
        if v
    }
    host = urlsplit(page.url or "").hostname or ""
    labels = [x for x in host.split(".") if x not in ("www", "m", "com", "co", "org", "net")]
    names.update(labels[:1])
    return {n.lstrip("@") for n in names if n}


def strip_site_name(title: str | None, site_names: set[str]) -> str | None:
    """``Headline | Site`` → ``Headline``: drop separated parts that name the site."""
    if not title:
        return title
    parts = [p for p in _SEPARATORS.split(title) if p and p.strip()]
    if len(parts) < 2:
        return title
    kept = [p.strip() for p in parts if not _names_site(p, site_names)]
    if kept and len(kept) < len(parts):
        return " - ".join(kept)
    return title


def _names_site(part: str, site_names: set[str]) -> bool:
    folded = _fold(part).replace(" ", "")
    for name in site_names:
        squeezed = name.replace(" ", "")
        if squeezed and (folded == squeezed or (squeezed in folded and len(folded) <= 2 * len(squeezed))):
            return True
    return False


def _without_kicker(longer: str, shorter: str) -> bool:
    """Is ``longer`` just ``shorter`` with a kicker or tail joined by a separator?"""
    lf, sf = _fold(longer), _fold(shorter)
    if sf == lf or sf not in lf or len(sf) < 8:
        return False
    rest = lf.replace(sf, "", 1).strip()
    return bool(rest) and (rest[0] in _KICKER_JOINS or rest[-1] in _KICKER_JOINS)


def _precise_title(page: Page, reference: str, listing: str, candidates: list[str]) -> str | None:
    """The headline by agreement between the page's own sources.

    Sources: the first ``<h1>`` that is not a link home (a blog's name), the seed-003
    LCS pick, JSON-LD ``headline``, ``og:title``, ``twitter:title`` and ``<title>``, each
    with the site name cut off.  Sources equal after :func:`_fold` are one headline; the
    headline most sources state wins; a source that only adds a kicker or a site name
    to another (``Politik: Headline`` vs ``Headline``) counts for the shorter one.  The
    winner is returned as the ``<h1>`` writes it when the ``<h1>`` is among its sources.
    """
    if listing:
        return lcs_title(reference or listing, candidates) if candidates else listing
    names = _site_names(page)
    h1 = _main_h1(page)
    lcs_pick = lcs_title(reference, candidates) if candidates and reference else None
    sources = [
        h1,
        lcs_pick,
        _json_ld_headline(page),
        strip_site_name(dom.meta_content(page.root, "og:title"), names),
        strip_site_name(dom.meta_content(page.root, "twitter:title"), names),
        strip_site_name(page.title_tag, names),
    ]
    present = [s for s in sources if s]
    if not present:
        return candidates[0] if candidates else None
    votes: dict[str, float] = {}
    first_seen: dict[str, str] = {}
    for rank, text in enumerate(present):
        key = _fold(text)
        first_seen.setdefault(key, text)
        votes[key] = votes.get(key, 0.0) + 1.0 - rank * 0.01
    own = dict(votes)  # at most six keys: the pairwise pass below is cheap
    for a in own:
        for b in own:
            if a != b and _without_kicker(first_seen[a], first_seen[b]):
                votes[b] += own[a]
    best = max(votes, key=votes.get)
    if h1 and _fold(h1) == best:
        return h1
    return first_seen[best]
