"""One article, one record: URL identity and content fingerprints (no Scrapy imports).

- :func:`url_key` — the key under which a URL is claimed and remembered: w3lib's
  ``canonicalize_url`` (sorted query, normalised escapes, no fragment), then without
  tracking parameters (courlan's tracker list plus ``spm``, ``from``, ...), with one scheme
  for ``http``/``https``, without a ``www.``, ``m.`` or ``amp.`` host prefix and without AMP
  path and query markers (``/amp/``, ``/amp``, ``.amp.html``, ``?amp``, ``amp=1``).
  Two URLs with one key are one article; the fetched URL is still the one exported.
- :func:`page_canonical` — the page's own ``<link rel="canonical">`` (else ``og:url``),
  when it points to the same site and not to its home page (a misconfigured CMS declares the
  home page on every page): the article's identity beside the URLs it was reached by.
- :class:`ContentIndex` — MinHash fingerprints of article bodies (Broder, "On the
  resemblance and containment of documents", 1997; here 10-word shingles; datasketch's ``MinHash`` and
  ``MinHashLSH``, the banding scheme of Leskovec, Rajaraman and Ullman, *Mining of Massive
  Datasets*, §3.4) per site: a body whose estimated Jaccard similarity of word shingles
  (character 5-shingles for CJK text) with an earlier one reaches
  :data:`SIMILARITY` is the same article (syndication, mirrors), unless the two state different
  figures (:func:`same_figures`: a report built from a shared template is another report).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from functools import lru_cache
from typing import TYPE_CHECKING
from urllib.parse import parse_qsl, urlencode, urljoin, urlsplit, urlunsplit

import numpy as np
from courlan.clean import TRACKERS_RE
from w3lib.url import canonicalize_url

if TYPE_CHECKING:  # datasketch is imported where used: it brings SciPy (~0.8 s CPU), which a process
    # that never fingerprints (an archive job's worker, every scrapy command) need not load
    from datasketch import LeanMinHash, MinHash

# Query parameters that only say where a reader came from (besides courlan's TRACKERS_RE).
TRACKING_PARAMS = frozenset({
    "spm", "from", "fr", "share", "shared", "sharesource", "smid", "cmpid", "cmp", "ocid", "ito", "at_medium",
    "at_campaign", "ns_mchannel", "ns_source", "ns_campaign", "ns_linkname", "ns_fee", "scm", "wt.mc_id",
    "mbid", "_ga", "_gl", "yclid", "mc_cid", "mc_eid", "igshid", "si", "amp", "outputtype", "output",
})
_AMP_VALUES = frozenset({"", "1", "true", "amp"})
_HOST_PREFIXES = ("www.", "m.", "amp.", "mobile.", "wap.")
_AMP_SEGMENT = re.compile(r"/amp(?=/|\Z)")
_AMP_SUFFIX = re.compile(r"\.amp(?=\.html?\Z)")
_HOME_PATH = re.compile(r"\A/?(?:(?:index|default)\.\w{1,5})?\Z")


@lru_cache(maxsize=4096)  # a crawl asks about each URL several times (seen store, export, fingerprints)
def url_key(url: str) -> str:
    """The identity of ``url`` for de-duplication (see the module docstring)."""
    try:
        canonical = canonicalize_url(url, keep_fragments=False)
        parts = urlsplit(canonical)
    except ValueError:
        return url
    if parts.scheme not in ("http", "https"):
        return canonical
    netloc = parts.netloc.lower()
    for prefix in _HOST_PREFIXES:
        if netloc.startswith(prefix) and netloc.count(".") >= 2:
            netloc = netloc[len(prefix):]
            break
    path = _AMP_SUFFIX.sub("", _AMP_SEGMENT.sub("", parts.path)) or "/"
    query = urlencode([(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True)
                       if not _is_tracking(k, v)])
    return urlunsplit(("https", netloc, path, query, ""))


def _is_tracking(name: str, value: str) -> bool:
    lowered = name.lower()
    if lowered in ("amp", "outputtype", "output"):
        return value.lower() in _AMP_VALUES
    return lowered in TRACKING_PARAMS or TRACKERS_RE.search(lowered) is not None


def same_site(url: str, other: str) -> bool:
    """Do both URLs name the same host (``www.``/``m.``/``amp.`` aside)?"""
    return urlsplit(url_key(url)).netloc == urlsplit(url_key(other)).netloc


def page_canonical(root, page_url: str | None) -> str | None:
    """The page's declared URL (``<link rel="canonical">``, else ``og:url``) on the page's
    own site, absolute; None when absent, malformed or on another site."""
    if not page_url:
        return None
    declared = None
    for link in root.iter("link"):
        if "canonical" in (link.get("rel") or "").lower().split() and link.get("href"):
            declared = link.get("href")
            break
    if declared is None:
        for meta in root.iter("meta"):
            name = (meta.get("property") or meta.get("name") or "").strip().lower()
            if name == "og:url" and meta.get("content"):
                declared = meta.get("content")
                break
    if not declared or len(declared) > 2000:
        return None
    try:
        absolute = urljoin(page_url, declared.strip())
        parts = urlsplit(absolute)
        if parts.scheme not in ("http", "https") or not same_site(absolute, page_url):
            return None
    except ValueError:
        return None
    if _HOME_PATH.match(parts.path) and not parts.query:
        return None  # a CMS that declares the home page canonical on every page: no identity
    return absolute


# --- content fingerprints -------------------------------------------------------------------------

NUM_PERM = 128  # MinHash permutations: 512 bytes a fingerprint; standard error of the estimate <= 0.045
SEED = 1  # of the MinHash permutations (stored fingerprints depend on it)
SCHEME = "affine32"  # datasketch 2's hash scheme: 32-bit values (stored fingerprints depend on it)
# Estimated Jaccard similarity from which two bodies are one article.  Measured on the dataset pages
# that share a site (265 sites, 3,725 fingerprinted pairs of extracted bodies): the two true
# duplicates reach 0.98 and 0.99 (0.93 and 1.0 on the truth text), no two distinct pages pass 0.66
# (0.78 on the truth text, two columns of one series): the threshold sits between the two groups.
SIMILARITY = 0.85
MIN_SHINGLES = 20  # shorter bodies are not fingerprinted (boilerplate-sized texts would collide)
# Long shingles: two stories told with one template (a number changed in each paragraph) share
# few 10-word runs (Jaccard ~0.7), while a copy with a line of chrome more or less keeps ~0.9.
SHINGLE_WORDS = 10
SHINGLE_CHARS = 5
_WORD = re.compile(r"\w+")
_FIGURE = re.compile(r"\d++(?:[.,:/]\d++)*+")
FIGURES_SHARED = 0.5  # of the smaller text's figures, which a copy must repeat
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff\uac00-\ud7af]")


def shingles(text: str) -> set[bytes]:
    """Word 10-shingles of ``text`` (lower-cased); character 5-shingles for mostly CJK text."""
    words = _WORD.findall(text.lower())
    cjk = len(_CJK.findall(text))
    if cjk > len(words):  # CJK: words are runs of characters, split them
        chars = "".join(words)
        return {chars[i:i + SHINGLE_CHARS].encode() for i in range(max(0, len(chars) - SHINGLE_CHARS + 1))}
    return {" ".join(words[i:i + SHINGLE_WORDS]).encode()
            for i in range(max(0, len(words) - SHINGLE_WORDS + 1))}


def figures(text: str | None) -> Counter:
    """The numbers of ``text`` (a multiset): a report built from a shared template differs in them."""
    return Counter(_FIGURE.findall(text or ""))


def same_figures(one: Counter | None, other: Counter | None) -> bool:
    """Do two bodies give the same figures: at least :data:`FIGURES_SHARED` of the smaller set's
    (unknown, for a fingerprint stored by an earlier run: yes)?  A copy repeats its article's
    figures, whatever its chrome adds (a date line); a distinct report from the same template
    (a market or weather report, a match result) states other ones."""
    if one is None or other is None:
        return True
    shared = sum((one & other).values())
    return shared >= FIGURES_SHARED * min(sum(one.values()), sum(other.values()))


def fingerprint(text: str) -> MinHash | None:
    """The MinHash of ``text``'s shingles; None for a text too short to fingerprint."""
    grams = shingles(text or "")
    if len(grams) < MIN_SHINGLES:
        return None
    from datasketch import MinHash

    minhash = MinHash(num_perm=NUM_PERM, seed=SEED, scheme=SCHEME)
    minhash.update_batch(list(grams))
    return minhash


def to_bytes(minhash: MinHash) -> bytes:
    """The fingerprint as stored: the ``affine32`` scheme's hash values, 4 bytes each."""
    return minhash.hashvalues.astype("<u4").tobytes()


def from_bytes(data: bytes) -> LeanMinHash | None:
    """A stored fingerprint; None for one of another size (another NUM_PERM: ignored)."""
    values = np.frombuffer(data, dtype="<u4")
    if len(values) != NUM_PERM:
        return None
    from datasketch import LeanMinHash

    return LeanMinHash(seed=SEED, hashvalues=values, scheme=SCHEME)  # no permutations: 25x cheaper


@lru_cache(maxsize=1)
def _lsh_bands() -> tuple[int, int]:
    """The (bands, rows) datasketch's ``MinHashLSH`` chooses for ``SIMILARITY``: found once, not
    by its numeric search per site (8-66 ms each, which dominated a many-site WARC read)."""
    from datasketch import MinHashLSH

    lsh = MinHashLSH(threshold=SIMILARITY, num_perm=NUM_PERM)
    return lsh.b, lsh.r


class ContentIndex:
    """Fingerprints of one site's exported bodies: which earlier article does a body repeat?

    Holds the fingerprints as bytes (the LSH keeps only band hashes); about 2.2 KB a body in
    all, so 100,000 bodies take ~220 MB."""

    def __init__(self, stored: Iterable[tuple[str, bytes]] = ()):
        from datasketch import MinHashLSH

        self._lsh = MinHashLSH(threshold=SIMILARITY, num_perm=NUM_PERM, params=_lsh_bands())
        self._hashes: dict[str, bytes] = {}
        self._figures: dict[str, Counter] = {}  # of the bodies indexed in this run
        for url, data in stored:
            minhash = from_bytes(data)
            if minhash is not None:
                self.add(url, minhash)

    def __len__(self) -> int:
        return len(self._hashes)

    def match(self, minhash: MinHash, body_figures: Counter | None = None) -> str | None:
        """The URL of an indexed body with estimated similarity at least :data:`SIMILARITY` and,
        when both are known, the same figures (:func:`same_figures`)."""
        for url in self._lsh.query(minhash):
            if from_bytes(self._hashes[url]).jaccard(minhash) >= SIMILARITY \
                    and same_figures(body_figures, self._figures.get(url)):
                return url
        return None

    def add(self, url: str, minhash: MinHash, body_figures: Counter | None = None) -> None:
        if url not in self._hashes:
            self._hashes[url] = to_bytes(minhash)
            self._lsh.insert(url, minhash)
            if body_figures is not None:
                self._figures[url] = body_figures
