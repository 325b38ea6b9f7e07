"""Title by LCS similarity — He Chunhui (2019), *Automatic extraction of web news headlines
based on text similarity* (He 2019).

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
from functools import lru_cache
from urllib.parse import urljoin, urlsplit

from rapidfuzz.distance import LCSseq

from .. import dom
from ..page import MAIN_H1, Page

# " | ", "_", " - ", "——", "--" (a run of hyphens is never inside a word: "标题--频道"), ...
# White space opens a separator only where its run starts (the
# look-behind; then the alternatives in their original order), so a long run is scanned once,
# not again from each of its characters (tests/test_regex_linear.py).
_SEPARATORS = re.compile(
    r"(?<!\s)\s++(?:--+\s*|[|\-–—_·:»«/]\s+|[|｜_]\s*|-\s*|——\s*|－\s*)|[|｜_]\s*|——\s*|－\s*|--+\s*"
)
# Where a <title> splits into parts besides _SEPARATORS: a hyphen before a Han character after
# another or after CJK punctuation (Chinese titles join headline, section and site with a bare
# "-": "标题-栏目-网站", "标题！-网站"; between Latin letters it is a word's own hyphen and
# stays), and a run of colons ("SITE.RU::: Headline").
_TITLE_CUTS = re.compile(
    r"(?<=[\u3000-\u303f\u3400-\u9fff\uf900-\ufaff\uff01-\uff60])-(?=[\u3400-\u9fff\uf900-\ufaff])|::+\s*"
)
# A day written after a headline in its heading ("Headline 06.01.12 08:49", "Headline Published
# by Jo on 23 February 2020", "... February 23, 2020").  A bare time is not enough: some sites
# title their stories "Headline 【16:15】".
_DATE_STAMP = re.compile(
    r"\d{1,2}[./]\d{1,2}[./]\d{2,4}"
    r"|\b\d{1,2}\.? [^\W\d_]{3,10}\.? (?:19|20)\d\d\b|\b[^\W\d_]{3,10}\.? \d{1,2}, (?:19|20)\d\d\b"
)
# Separators strong enough to cut a leading part ("Site | Headline", "Blog » Archive » Headline");
# a leading part before " - " or ": " may be the headline's own first half ("Ozone - a new cure").
_STRONG_SEPARATORS = frozenset("|｜_»«/:")
MAX_CANDIDATE_CHARS = 600
# Markup debris a heading may carry around the headline ("[> Jens Weber").
_DEBRIS = " []<>{}()|/\\*#~=+-:;,"
# A <title> part shorter than this share of what remains is chrome (a site or section label).
CHROME_SHARE = 0.5
# He 2019 takes the heading most similar to <title> however low the similarity; below this, no
# heading is the headline (only navigation, teasers or a body-sized block) and the <title> is.
HEADING_MIN_SIMILARITY = 0.5
H1_MIN_SIMILARITY = 0.25
# ... and it yields to another heading only when that one scores this much higher.
H1_MARGIN = 0.2
# A <title> shorter than this (after its chrome is cut) is a label ("Home"), not a headline.
MIN_TITLE_HEADLINE_CHARS = 8
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
# Letters a site's host spells in ASCII where its name has them ("backenmachtgluecklich" for
# "Backen macht glücklich"); other accents are dropped (NFKD) when names are compared.
_TRANSLITERATION = str.maketrans(
    {"ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss", "æ": "ae", "ø": "oe", "å": "aa"}
)
# A title part at most this many times the length of the site name it holds is that name
# ("Grüne Wiese Köln" for gruene-wiese.de), a longer one a headline naming it.
NAME_PART_RATIO = 2
# JSON-LD types whose ``name`` is the page's headline (``name`` of a Person, an
# Organization or a WebSite is not).
_HEADLINE_NAME_TYPES = re.compile(r"Article|Posting|Report|Recipe")


def similarity(a: str, b: str) -> float:
    """He (2019) formula (2): ``2·LCS(a, b) / (len a + len b)``."""
    if not a and not b:
        return 0.0
    return 2.0 * LCSseq.similarity(a, b) / (len(a) + len(b))


def heading_texts(page: Page) -> list[str]:
    """The text of every ``<h1>``…``<h6>`` in document order (kept on the page: the body
    rules and the title both ask; callers do not change the list)."""
    texts = page.derived.get("heading_texts")
    if texts is None:
        texts = page.derived["heading_texts"] = []
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
    """He's (2019) title for ``page``; ``listing_title`` is the catalogue's external title.

    The result is kept on the page: ``auto`` asks for the title to leave it out of the
    body, and the article asks again.
    """
    key = ("title", listing_title, precise)
    if key not in page.derived:
        page.derived[key] = _find_title(page, listing_title, precise)
    return page.derived[key]


def _find_title(page: Page, listing_title: str | None, precise: bool) -> str | None:
    listing = dom.normalize_space(listing_title)[:MAX_CANDIDATE_CHARS]
    reference = page.title_tag[:MAX_CANDIDATE_CHARS]
    if reference and _learned_decoration(page):  # the site's own parts say nothing of this page
        reference = strip_decoration(reference, _learned_decoration(page))
    reference = reference or listing
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
    """Comparison key: NFKC, typographic quotes/dashes unified, invisible marks dropped, casefolded.

    The title's sources are folded again and again (each pair of them is compared): the keys of
    the last :data:`MAX_CACHED_FOLDS` texts of up to :data:`FOLD_CACHED_CHARS` are remembered."""
    if not text:
        return ""
    return _cached_fold(text) if len(text) <= FOLD_CACHED_CHARS else _read_fold(text)


def _read_fold(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).translate(_TYPOGRAPHY)
    return " ".join(text.split()).casefold()


MAX_CACHED_FOLDS = 2048
FOLD_CACHED_CHARS = 300
_cached_fold = lru_cache(maxsize=MAX_CACHED_FOLDS)(_read_fold)


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
    """The text of the first ``<h1>`` that is not the site's logo or name linked home (kept on the
    page: the body's headline vote and the title's both ask)."""
    if MAIN_H1 not in page.derived:
        page.derived[MAIN_H1] = _read_main_h1(page)
    return page.derived[MAIN_H1]


def _read_main_h1(page: Page) -> str | None:
    for el in page.root.iter("h1"):
        text = _flat_text(el)
        if text and not _is_home_link(el, page):
            return text
    return None


def _site_names(page: Page, plain: bool = False) -> set[str]:
    """The site's names (og:site_name and the like, the host's first label, the title parts the
    crawl learned for the site: :mod:`.title_decoration`; unless ``plain``, the host's registrable
    label too); kept on the page, callers do not change the set."""
    key = "site_names_plain" if plain else "site_names"
    names = page.derived.get(key)
    if names is None:
        names = page.derived[key] = _read_site_names(page, plain) | _learned_decoration(page)
    return names


class LearnedPart(str):
    """A title part learned as the site's decoration: it names the site only where a part is
    exactly it (a learned "news | site" must not cut "news | site: headline")."""


def _learned_decoration(page: Page) -> set[str]:
    """The folded title parts the site's earlier pages share (set by the crawl, else empty)."""
    return {LearnedPart(p) for p in page.derived.get("title_decoration") or ()}


def _read_site_names(page: Page, plain: bool = False) -> set[str]:
    names = {
        _fold(v)
        for v in (page.meta("og:site_name", "application-name", "twitter:site"),)
        if v
    }
    host = urlsplit(page.url or "").hostname or ""
    labels = [x for x in host.split(".") if x not in ("www", "m", "com", "co", "org", "net")]
    names.update(labels[:1])
    domain = None if plain else _host_name(host)
    if domain:  # the registrable label: "oe24" of auto.oe24.at, "bbc" of www.bbc.co.uk
        names.add(domain)
    return {n.lstrip("@") for n in names if n}


@lru_cache(maxsize=1)
def _public_suffixes():
    import tldextract

    return tldextract.TLDExtract(suffix_list_urls=(), cache_dir=None)  # the bundled list, no network


def _host_name(host: str) -> str | None:
    """The registrable label of ``host`` (``news.bbc.co.uk`` -> ``bbc``), if it has a public suffix."""
    if not host or "." not in host:
        return None
    found = _public_suffixes()(host)
    return found.domain.casefold() if found.suffix and found.domain else None


# Site names and title parts repeat through a site's pages: the keys of this many short ones
# (up to NAME_KEYS_CACHED_CHARS characters; a page's metadata can be any length) are remembered.
MAX_CACHED_NAME_KEYS = 2048
NAME_KEYS_CACHED_CHARS = 200


def _name_keys(text: str) -> frozenset[str]:
    """:func:`_read_name_keys`, remembered for short texts."""
    return _cached_name_keys(text) if len(text) <= NAME_KEYS_CACHED_CHARS else _read_name_keys(text)


def _read_name_keys(text: str) -> frozenset[str]:
    """Comparison keys of a name or part: folded, without spaces, hyphens and dots, and the same
    spelled in ASCII two ways (umlauts transliterated, or accents dropped), since a host name
    writes "Backen macht glücklich" as backenmachtgluecklich and "Habertürk" as haberturk."""
    folded = _fold(text)
    keys = set()
    for variant in (folded, folded.translate(_TRANSLITERATION)):
        ascii_ = "".join(c for c in unicodedata.normalize("NFKD", variant) if not unicodedata.combining(c))
        for v in (variant, ascii_):
            key = "".join(c for c in v if c.isalnum())
            if key:
                keys.add(key)
    return frozenset(keys)


_cached_name_keys = lru_cache(maxsize=MAX_CACHED_NAME_KEYS)(_read_name_keys)


def _host_tokens(part: str) -> list[str]:
    """Words of ``part`` that are host names ("NEWSmsk.com", "Likar.INFO"): a title part holding
    one names the site even on a page whose URL is unknown."""
    hosts = []
    for word in part.split():
        word = word.strip("()[]«»\"'.,;:!?")
        if "." in word and _host_name(word.casefold()):
            hosts.append(word)
    return hosts


def strip_site_name(
    title: str | None, site_names: set[str], plain: bool = False, shown: str | None = None
) -> str | None:
    """``Headline | Site`` → ``Headline``: drop separated parts that name the site, but not a
    part the page's h1 (``shown``) states joined to a neighbouring part as ``title`` joins them:
    "Garden pests – what to do" of a site named "Garden" keeps its first part when the h1 says it."""
    if not title:
        return title
    spans, start = [], 0
    for m in _SEPARATORS.finditer(title):
        spans.append((start, m.start()))
        start = m.end()
    spans = [(a, b) for a, b in [*spans, (start, len(title))] if title[a:b].strip()]
    if len(spans) < 2:
        return title
    site = [_names_site(title[a:b], site_names, not plain, not plain) for a, b in spans]
    heading = _fold(shown) if shown else ""
    for i in range(len(spans)) if heading else ():
        if site[i] and any(
            0 <= j < len(spans) and not site[j]
            and _fold(title[spans[min(i, j)][0]:spans[max(i, j)][1]]) in heading
            for j in (i - 1, i + 1)
        ):
            site[i] = False
    kept = [title[a:b].strip() for (a, b), cut in zip(spans, site, strict=True) if not cut]
    if kept and len(kept) < len(spans):
        return " - ".join(kept)
    return title


def _names_site(part: str, site_names: set[str], hosts: bool = True, spellings: bool = True) -> bool:
    """Does title part ``part`` name the site: is it one of ``site_names``, or hardly more than
    one (:data:`NAME_PART_RATIO`), compared as written or (``spellings``) by :func:`_name_keys`,
    or (``hosts``) a host name with little around it?  A learned part (:class:`LearnedPart`)
    names the site only where it is the part.  A heading is not judged by its host names:
    "rede.jetzt" may be the story's subject."""
    folded = _fold(part).replace(" ", "")
    keys = None
    for name in site_names:
        squeezed = name.replace(" ", "")
        if isinstance(name, LearnedPart):
            if folded == squeezed:
                return True
            continue
        if not squeezed:
            continue
        if folded == squeezed or (squeezed in folded and len(folded) <= NAME_PART_RATIO * len(squeezed)):
            return True
        if not spellings:
            continue
        keys = keys if keys is not None else _name_keys(part)
        if any(n in k and len(k) <= NAME_PART_RATIO * len(n) for n in _name_keys(name) for k in keys):
            return True
    return hosts and any(len(folded) <= NAME_PART_RATIO * len(host) for host in _host_tokens(part))


def _cut_site_prefix(title: str, site_names: set[str]) -> str:
    """``Site: Headline`` -> ``Headline`` where the part before the first colon names the site
    (``NEWSmsk.com в Москве: ...``); a colon after a topic ("Brexit: ...") stays."""
    cut = min((i for i in (title.find(": "), title.find("：")) if i > 0), default=-1)
    if cut < 0:
        return title
    rest = title[cut + 1:].strip()
    if len(rest) >= MIN_TITLE_HEADLINE_CHARS and _names_site(title[:cut], site_names):
        return rest
    return title


def _title_parts(title: str) -> list[tuple[int, int, str]]:
    """``title``'s parts between separators: ``(start, end, separator after it)``, blank parts dropped."""
    cuts = sorted(m.span() for pattern in (_SEPARATORS, _TITLE_CUTS) for m in pattern.finditer(title))
    parts, start = [], 0
    for begin, end in [*cuts, (len(title), len(title))]:
        if begin < start:  # a Han hyphen inside a separator already cut
            continue
        if title[start:begin].strip():
            parts.append((start, begin, title[begin:end].strip()))
        elif parts:  # two separators in a row ("新闻中心__网站"): the later one follows the part
            parts[-1] = (parts[-1][0], parts[-1][1], title[begin:end].strip() or parts[-1][2])
        start = end
    return parts


def strip_decoration(title: str, learned: set[str]) -> str:
    """``title`` less its leading and trailing parts that are learned decoration (at least one
    part always stays)."""
    parts = _title_parts(title)
    lo, hi = 0, len(parts)
    while hi - lo > 1 and _fold(title[parts[hi - 1][0]:parts[hi - 1][1]]) in learned:
        hi -= 1
    while hi - lo > 1 and _fold(title[parts[lo][0]:parts[lo][1]]) in learned:
        lo += 1
    if (lo, hi) == (0, len(parts)):
        return title
    return title[parts[lo][0]:parts[hi - 1][1]].strip()


def title_headline(title: str | None, site_names: set[str] = frozenset()) -> tuple[str, set[str]]:
    """The headline inside a ``<title>`` and the folded chrome parts cut off it.

    ``Headline - Section - Site`` → ``Headline``: parts that name the site go from either
    end; then trailing parts shorter than :data:`CHROME_SHARE` of what stays, and leading ones
    likewise but only before a strong separator (``Site | Headline``, ``Blog » Headline``),
    since ``Ozone - the cure nobody tried`` keeps its first word.  The text between the kept
    parts stays as written (a headline's own `` - `` survives when its halves are long).
    """
    title = _cut_site_prefix(dom.normalize_space(title)[:MAX_CANDIDATE_CHARS], site_names)
    parts = _title_parts(title)
    if len(parts) < 2:
        return title, set()
    lo, hi = 0, len(parts)

    def text(a: int, b: int) -> str:
        return title[parts[a][0]:parts[b - 1][1]].strip()

    while hi - lo > 1 and _names_site(text(hi - 1, hi), site_names):
        hi -= 1
    while hi - lo > 1 and _names_site(text(lo, lo + 1), site_names):
        lo += 1
    while hi - lo > 1 and len(text(hi - 1, hi)) < CHROME_SHARE * len(text(lo, hi - 1)):
        hi -= 1
    while (hi - lo > 1 and parts[lo][2][:1] in _STRONG_SEPARATORS
           and len(text(lo, lo + 1)) < CHROME_SHARE * len(text(lo + 1, hi))):
        lo += 1
    chrome = {_fold(text(i, i + 1)) for i in (*range(lo), *range(hi, len(parts)))}
    return text(lo, hi), chrome


def _he_title(page: Page, site_names: set[str]) -> str | None:
    """He's (2019) rule for a page without headline metadata, with guards against chrome.

    The reference is ``<title>``; the candidates are the ``<h1>``…``<h6>`` texts, less
    headings that are the site's logo (linked home), a site name, or a part the ``<title>``
    itself marks as chrome (a blog name heading every page).  A candidate scores its best
    similarity (formula 2) to the whole ``<title>`` or to its headline part
    (:func:`title_headline`).  He (2019) takes the best candidate however low its score;
    here it must reach :data:`HEADING_MIN_SIMILARITY`.  Below that no heading states what
    ``<title>`` says: the first ``<h1>`` still holds when it shares some of it, or of its
    first part (``Headline - Subtitle``), at :data:`H1_MIN_SIMILARITY`;
    else ``<title>``'s headline part is the title, unless that is only a site name or a
    word (``Home``), when the first ``<h1>`` or best heading is.
    """
    title = page.title_tag[:MAX_CANDIDATE_CHARS]
    # A page that gives its headline as its site name (og:site_name) names no site.
    learned = _learned_decoration(page)
    whole = _fold(title).replace(" ", "")
    site_names = {n for n in site_names if n in learned or n.replace(" ", "") != whole}
    headline, chrome = title_headline(title, site_names)
    references = [_fold(t) for t in dict.fromkeys((title, headline)) if t]
    first_part = [_fold(headline[a:b]) for a, b, _ in _title_parts(headline)][:1]
    best, best_score, best_el = None, -1.0, None
    h1, h1_score, h1_el = None, -1.0, None
    for el in page.root.iter(*dom.HEADING_TAGS):
        text = dom.node_text(el)[:MAX_CANDIDATE_CHARS]
        folded = _fold(text)
        if not text or folded in chrome or _names_site(text, site_names, False) or _is_home_link(el, page):
            continue
        score = max((similarity(folded, ref) for ref in references), default=0.0)
        if h1 is None and el.tag == "h1":
            score = max([score, *(similarity(folded, part) for part in first_part)])
            h1, h1_score, h1_el = text, score, el
        if score > best_score:
            best, best_score, best_el = text, score, el
    if h1 is not None and h1_score >= H1_MIN_SIMILARITY and best_score - h1_score < H1_MARGIN:
        return _without_label(h1_el, headline) or _without_stamp(h1, title)
    if best is not None and best_score >= HEADING_MIN_SIMILARITY:
        return _without_label(best_el, headline) or _without_stamp(best, title)
    if h1 is not None and h1_score >= H1_MIN_SIMILARITY:
        return _without_label(h1_el, headline) or _without_stamp(h1, title)
    if len(headline) >= MIN_TITLE_HEADLINE_CHARS and not _names_site(headline, site_names):
        return headline
    return h1 or best or headline or None


def _without_stamp(heading: str, title: str) -> str:
    """``heading`` less what its page printed around the headline in the same element:
    markup debris around a ``<title>`` part (``[> Headline``), or a day after it when the heading
    opens with that part or with a run of parts (``Headline – Second half Subtitle 06.01.12
    08:49``).  The part is returned as ``<title>`` writes it."""
    folded = _fold(heading)
    bare = folded.strip(_DEBRIS)
    parts = _title_parts(title)
    for i, (start, end, _) in enumerate(parts):
        part = title[start:end].strip()
        key = _fold(part)
        if bare != folded and bare == key:
            return part
        if len(key) >= 8 and len(folded) > len(key) and folded.startswith(key):
            # the longest run of parts from here that the heading opens with, as <title> joins them
            for _, later_end, _ in parts[i + 1:]:
                longer = title[start:later_end].strip()
                if not folded.startswith(_fold(longer)):
                    break
                part, key = longer, _fold(longer)
            if len(folded) > len(key) and _DATE_STAMP.search(folded, len(key)):
                return part
    return heading


def _without_label(el, headline: str) -> str | None:
    """The ``<title>``'s headline when heading ``el`` only puts a label before it, in an element of
    its own (``<h2><span>原创</span>Headline</h2>`` beside ``<title>Headline</title>``)."""
    children = [child for child in el if isinstance(child.tag, str)]
    if not headline or not children or (el.text or "").strip():
        return None
    label, text = _fold(dom.node_text(children[0])), _fold(dom.node_text(el))
    if not label or not text.startswith(label):
        return None
    return headline if text[len(label):].strip(" " + _KICKER_JOINS) == _fold(headline) else None


def _without_kicker(longer: str, shorter: str, unjoined: bool = False) -> bool:
    """Is ``longer`` just ``shorter`` with a kicker or tail joined by a separator?  With
    ``unjoined``, also with leading words set off by markup alone (an ``<h1>`` whose kicker is its
    own ``<span>``: "Ernährung sichern Schulze: ..." where ``<title>`` and ``og:title`` say
    "Schulze: ...").  Only a leading part, shorter than what it leads (a site name run into the
    end of a headline is no headline): the end of a long headline is what metadata truncates."""
    lf, sf = _fold(longer), _fold(shorter)
    if sf == lf or sf not in lf or len(sf) < 8:
        return False
    rest = lf.replace(sf, "", 1).strip()
    if not rest:
        return False
    if rest[0] in _KICKER_JOINS or rest[-1] in _KICKER_JOINS:
        return True
    return unjoined and lf.endswith(" " + sf) and 2 * len(sf) > len(lf)


def voted_headline(page: Page) -> str | None:
    """The headline the page's own sources vote for (:func:`_vote`), also on pages without
    headline metadata, where the article's title comes from :func:`_he_title` instead.

    ``auto`` leaves this headline out of the body: its body figures were measured with it,
    and the choice of the reported title does not move them.  So it weighs the site's names
    ``plain``ly (as written, no host-name spellings or host names in parts): that evidence is
    the reported title's (:func:`_names_site`).
    """
    if "voted_headline" not in page.derived:
        reference = page.title_tag[:MAX_CANDIDATE_CHARS]
        page.derived["voted_headline"] = _vote(
            page, reference, heading_texts(page), _site_names(page, plain=True), plain=True
        )
    return page.derived["voted_headline"]


def _precise_title(page: Page, reference: str, listing: str, candidates: list[str]) -> str | None:
    """The listing's title when the page's ``<h1>`` or headline metadata states it too (as the
    ``<h1>`` writes it), else the listing's title by He (2019), else the vote of the page's
    headline metadata (:func:`_vote`), else, on a page without any, He's (2019) rule
    (:func:`_he_title`).

    He's formula scores each heading against ``<title>``: a teaser's heading that shares the
    site's decoration (a long site name after the headline) can outscore the headline, which
    the listing, the ``<h1>`` and ``og:title`` all state."""
    names = _site_names(page)
    if listing:
        agreed = _stated_by_page(page, listing, names)
        if agreed is not None:
            return agreed
        return lcs_title(reference or listing, candidates) if candidates else listing
    if not any(_metadata_headlines(page, names)):
        return _he_title(page, names)
    return _vote(page, reference, candidates, names)


def _stated_by_page(page: Page, listing: str, names: set[str]) -> str | None:
    """``listing`` as the page writes it, when its first ``<h1>`` or its headline metadata
    (:func:`_metadata_headlines`) states the same headline (:func:`_fold`), else None."""
    key = _fold(listing)
    h1 = _main_h1(page)
    if h1 and _fold(h1) == key:
        return h1
    if any(found and _fold(found) == key for found in _metadata_headlines(page, names)):
        return listing
    return None


def _metadata_headlines(
    page: Page, names: set[str], plain: bool = False, shown: str | None = None
) -> list[str | None]:
    """JSON-LD ``headline``, ``og:title`` and ``twitter:title``, the site name cut off
    (:func:`strip_site_name`; parts ``shown`` in the h1 stay)."""
    return [
        _json_ld_headline(page),
        strip_site_name(page.meta("og:title"), names, plain, shown),
        strip_site_name(page.meta("twitter:title"), names, plain, shown),
    ]


def _vote(
    page: Page, reference: str, candidates: list[str], names: set[str], plain: bool = False
) -> str | None:
    """The headline by agreement between the page's own sources.

    Sources: the first ``<h1>`` that is not a link home (a blog's name), the He (2019)
    LCS pick, JSON-LD ``headline``, ``og:title``, ``twitter:title`` and ``<title>``, each
    with the site name cut off.  Sources equal after :func:`_fold` are one headline; the
    headline most sources state wins; a source that only adds a kicker or a site name
    to another (``Politik: Headline`` vs ``Headline``) counts for the shorter one.  The
    winner is returned as the ``<h1>`` writes it when the ``<h1>`` is among its sources.
    """
    h1 = _main_h1(page)
    if h1 and not plain:
        h1 = _without_stamp(h1, page.title_tag[:MAX_CANDIDATE_CHARS])
    lcs_pick = lcs_title(reference, candidates) if candidates and reference else None
    shown = None if plain else h1
    sources = [
        h1, lcs_pick, *_metadata_headlines(page, names, plain, shown),
        strip_site_name(page.title_tag, names, plain, shown),
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
            if a != b and _without_kicker(first_seen[a], first_seen[b], unjoined=not plain):
                votes[b] += own[a]
    best = max(votes, key=votes.get)
    if h1 and _fold(h1) == best:
        return h1
    return first_seen[best]
