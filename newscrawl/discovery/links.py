"""Catalogue (listing) pages: which links on a page are articles, and where the next page is.

He's (2019) first stage collects, from a news site's catalogue page, each article's
URL together with its *external title* (the anchor text), which the title stage later
matches against the detail page.  Real listing pages mix those links with navigation,
section links, ads and links to other sites.  Each candidate anchor gathers evidence:

- **anchor text** that reads like a headline: several words (or, for Chinese and
  Japanese, enough CJK characters), not a menu word such as "More" or "首页";
- **URL shape**: numeric ids, dates, ``.html``/``.shtml`` endings and long hyphenated
  slugs are article-like; the site root, one-segment section paths and query-only
  links are not (``/?p=123``, a WordPress post, is no site root);
- **repeated list structure**: links sharing the same ancestor tag/class path with
  other headline-like links (``ul.news > li > a`` repeated 20 times) are a list;
- **placement**: links inside ``nav``/``header``/``footer``/``aside`` or containers
  whose class/id says menu, footer, ad, banner, share... are navigation or ads;
- **the page's own article form**: links are grouped by URL template (digit runs, slugs and
  ids replaced by placeholders, :func:`url_template`); a template that several confident
  links share is this page's article form and lifts its weaker members (:func:`_template_lift`,
  :func:`_one_word_slugs`), and a link off the page's forms loses points (:func:`_off_form`);
  a list of :data:`HEADLINE_LIST` or more headline links of one block and one article form is
  content even inside an ``aside`` or sidebar.

These hand-set points, and the features they are made of, feed the learned link model
(:mod:`newscrawl.discovery.link_model`, trained on real listing pages of 24 sites), which
decides.  A few rules stand before it, where the real pages leave no doubt: a path naming
media, tag or people pages (``/video/``, ``/photoview/``, ``/tag/``, a ``v.``/``live.`` host) is
``not_article_path``; a query or double-slash variant of another link of the page
(``?comments=1``, ``post//``) is ``url_variant``; a link of a ``nav``/``menu`` element outside a
list of headlines is ``navigation``.  A site's ``article_pattern`` overrides all of it.

Only http(s) links on the site's own domains are considered.  Every link not taken gets a
reason (:func:`score_links`): ``not_web``, ``same_page``, ``offsite``, ``not_html``,
``site_root``, ``pattern``, ``menu_text``, ``advert``, ``navigation``, ``not_article_path``,
``url_variant``, ``anchor_text``, ``url_shape`` or ``learned_not_article``
(:mod:`newscrawl.discovery.url_shapes`); the site spider counts them as
``newscrawl/catalogue/rejected/<reason>`` and logs each at DEBUG, and the
:data:`NEAR_MISSES` in one INFO line at the end of the crawl.  No Scrapy imports.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from itertools import chain, islice
from urllib.parse import urljoin, urlsplit

from lxml import html

from newscrawl.extract.dom import normalize_space, parse_html
from newscrawl.extract.errors import ExtractionError
from newscrawl.sites import host_allowed

from .url_forms import ID_RE, template_has_evidence, url_template

MIN_SCORE = 2.0


REJECTED_STATS = "newscrawl/catalogue/rejected/"  # stats prefix: links rejected, by reason


# Reasons of links that had article evidence in their URL and list but fell short for their anchor
# text or their place on the page: the rejections a person may want to check (the crawl logs them).
NEAR_MISSES = ("anchor_text", "navigation", "advert")


TEMPLATE_SUPPORT = 3  # confident links that must share a URL template before it lifts its other members


TEMPLATE_LIFT = 1.0


HEADLINE_LIST = 5  # headline links of one block and one article form: content, wherever the block sits


OFF_FORM = 1.0  # points lost by a link of a rare URL shape, or of none, on a page with an article form


LONE_HOST = 0.5  # and more when its host is rare on the page too (a channel's subdomain)


_CJK_RE = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")


_WORD_RE = re.compile(r"\w+", re.UNICODE)


_NAV_TAGS = {"nav", "header", "footer", "aside", "menu"}


_NAV_WORDS = re.compile(
    r"(^|[-_\s])(nav|navbar|menu|footer|header|breadcrumbs?|sidebar|toolbar|login|copyright|share|social|"
    r"tags?|pagination|pager|topbar|masthead)([-_\s]|$)",
    re.IGNORECASE,
)


_AD_WORDS = re.compile(r"(^|[-_\s])(ad|ads|advert\w*|banner|sponsor\w*|promo\w*|gg|guanggao)([-_\s]|$)", re.I)


_MENU_TEXT = {
    "home", "more", "next", "previous", "prev", "login", "sign in", "subscribe", "read more", "contact us",
    "about us", "首页", "更多", "下一页", "上一页", "登录", "注册", "главная", "далее", "ещё", "еще",
}


_NEXT_TEXT = re.compile(
    r"^(next( page)?|older( posts| entries)?|more|»|›|>|>>|下一页|下页|后一页|далее|следующая( страница)?|"
    r"next\s*[»›>]|[»›>]\s*next|→)$",
    re.IGNORECASE,
)


_DATE_RE = re.compile(r"(19|20)\d{2}[-/]?(0[1-9]|1[0-2])[-/]?([0-3]\d)?")


_EXT_RE = re.compile(r"\.(s?html?|php|aspx?)$", re.IGNORECASE)


_QUERY_ID_RE = re.compile(r"(^|&)(p|id|aid|article_?id|story_?id|post_?id)=\d+(&|$)", re.IGNORECASE)


_SKIP_EXT_RE = re.compile(r"\.(jpe?g|png|gif|webp|svg|pdf|zip|mp[34]|css|js|xml|rss|json)$", re.IGNORECASE)


# One-word path segments that name a page of media, of tags or of people, not a text article.
_NOT_ARTICLE_WORDS = frozenset({
    "video", "videos", "photo", "photos", "pic", "pics", "picture", "pictures", "gallery", "galleries",
    "slideshow", "slideshows", "tv", "audio", "podcast", "podcasts", "tag", "tags", "topic", "topics",
    "keyword", "keywords", "author", "authors", "category", "categories", "search", "user", "users",
    "profile", "account", "login", "subscribe", "newsletter", "newsletters",
})


_NOT_ARTICLE_PREFIXES = ("photo", "video")  # photoview, videolist, ...


_MEDIA_HOST_LABELS = frozenset({
    "v", "video", "videos", "live", "photo", "photos", "pic", "pics", "tv", "vod",
})


_NOT_ARTICLE_PENALTY = 3.0


@dataclass(frozen=True)
class CatalogueLink:
    """One article link found on a listing page, with its external title."""

    url: str
    title: str
    score: float


@dataclass(frozen=True)
class LinkScores:
    """What the catalogue stage made of a page's links: the article links, and every other
    link (its URL, or its ``href`` when it is no http(s) URL) with the reason it was rejected."""

    accepted: list[CatalogueLink]
    rejected: dict[str, str]


@dataclass
class _Scored:
    """One anchor's evidence (see :func:`score_links`)."""

    url: str
    text: str
    headline: bool
    text_points: float
    shape: float
    placement: float
    listed: float
    template: str
    signature: str = ""
    host: str = ""
    image: bool = False  # the anchor holds an <img>
    titled: bool = False  # the anchor has a title attribute
    siblings: int = 0  # candidate anchors of the same signature on the page
    density: float = 0.0  # share of the block's text inside links
    landmark: str = ""  # "nav" in nav/menu/role=navigation, "edge" in header/footer, "aside" in an aside
    points: float = 0.0  # the hand-set points with the page's template lift and off-form penalty

    @property
    def total(self) -> float:
        return self.text_points + self.shape + self.listed - self.placement


def parse(text: str | bytes) -> html.HtmlElement | None:
    """Parse a listing page; ``None`` when it holds no HTML."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    try:
        return parse_html(text)
    except ExtractionError:
        return None


def headline_like(text: str) -> bool:
    """Does ``text`` read like a headline rather than a menu label?"""
    text = normalize_space(text)
    if not text or text.casefold() in _MENU_TEXT:
        return False
    cjk = len(_CJK_RE.findall(text))
    if cjk >= 6:
        return len(text) <= 120
    words = _WORD_RE.findall(text)
    return 4 <= len(words) and 15 <= len(text) <= 300


def _text_points(text: str, headline: bool) -> float:
    """Anchor-text evidence: a headline +1; a menu word rules the anchor out; a short label or
    an image link (no text) counts against, so only strong URL and list evidence lifts it."""
    if headline:
        return 1.0
    if not text:
        return -1.5
    if text.casefold() in _MENU_TEXT:
        return -3.0
    return -0.5


def _not_article_segment(segment: str) -> bool:
    """A one-word path segment naming a media, tag or people page (``video``, ``photoview``, ``tag``)."""
    word = segment.lower().rsplit(".", 1)[0]
    if "-" in word or "_" in word:
        return False  # a slug: "photos-of-the-week" is a headline, not a section
    return word in _NOT_ARTICLE_WORDS or word.startswith(_NOT_ARTICLE_PREFIXES)


def url_score(url: str, pattern: re.Pattern | None = None) -> float | None:
    """Evidence from the URL alone; ``None`` rejects the link outright (a file, the site root,
    or a URL the site's ``pattern`` does not match)."""
    parts = urlsplit(url)
    path = parts.path or "/"
    if _SKIP_EXT_RE.search(path):
        return None
    if pattern is not None:
        return 3.0 if pattern.search(url) else None
    segments = [s for s in path.split("/") if s]
    score = 0.0
    if not segments and not _QUERY_ID_RE.search(parts.query):
        return None  # the site root; not ``/?p=123``, a post's permalink on WordPress's default
    if _DATE_RE.search(path):
        score += 1.0
    if ID_RE.search(path):
        score += 1.0
    if _EXT_RE.search(path):
        score += 0.5
    last = segments[-1] if segments else ""
    if last.count("-") >= 3 or last.count("_") >= 3:
        score += 1.0
    if len(segments) >= 2:
        score += 0.5
    if len(segments) == 1 and path.endswith("/") and not ID_RE.search(path):
        score -= 1.5  # a section index such as /world/
    if parts.query and not segments[1:] and not ID_RE.search(parts.query):
        score -= 1.0
    if any(_not_article_segment(s) for s in segments) or _media_host(parts.hostname):
        score -= _NOT_ARTICLE_PENALTY
    return score


def _media_host(host: str | None) -> bool:
    """A subdomain that serves video, photos or live streams (``v.``, ``live.``, ``photo.``)."""
    return bool(host) and host.count(".") >= 2 and host.split(".", 1)[0].lower() in _MEDIA_HOST_LABELS


def _placement_penalty(anchor: html.HtmlElement, cache: dict | None = None) -> float:
    """4 inside an ad container, 2 inside navigation (``nav``/``header``/``footer``/``aside``,
    ``role=navigation``, a menu/footer/share... class or id), else 0; ``body`` and ``html``
    do not count (a page-wide class such as "site-navigation-left" says nothing about one link).

    ``cache`` (element -> penalty of it and its ancestors) makes a page's anchors cost one
    walk over the tree in all, not one walk up per anchor."""
    cache = {} if cache is None else cache
    uncached = []
    inherited = 0.0
    el = anchor.getparent()
    while el is not None:
        if el in cache:
            inherited = cache[el]
            break
        if el.tag in ("body", "html"):
            break
        uncached.append(el)
        el = el.getparent()
    for el in reversed(uncached):
        inherited = max(inherited, _own_penalty(el))
        cache[el] = inherited
    return inherited


def _own_penalty(el: html.HtmlElement) -> float:
    tag = el.tag if isinstance(el.tag, str) else ""
    marks = f"{el.get('class', '')} {el.get('id', '')} {el.get('role', '')}"
    if _AD_WORDS.search(marks):
        return 4.0
    if tag in _NAV_TAGS or el.get("role") == "navigation" or _NAV_WORDS.search(marks):
        return 2.0
    return 0.0


def _signature(anchor: html.HtmlElement, depth: int = 3) -> str:
    """Tag and class path of the anchor's nearest ancestors: the "list structure" key."""
    path = []
    for el in islice(chain((anchor,), anchor.iterancestors()), depth + 1):
        cls = " ".join(sorted((el.get("class") or "").split()))
        path.append(f"{el.tag}.{cls}" if cls else str(el.tag))
    return ">".join(path)


def _anchor_text(anchor: html.HtmlElement) -> str:
    text = normalize_space(anchor.text_content())
    return text or normalize_space(anchor.get("title") or "")


def _links(
    root, base_url: str, domains: Iterable[str]
) -> Iterator[tuple[html.HtmlElement, str, str, str | None]]:
    """Every ``<a href>``: (anchor, absolute URL or the raw href, text, why it is no candidate or None).

    Relative links resolve against the page's ``<base href>`` when it has one (HTML Living
    Standard, "document base URL"), else against ``base_url``."""
    domains = tuple(domains)
    page = base_url.split("#")[0]
    base_url = document_base(root, base_url)
    for anchor in root.iter("a"):
        href = (anchor.get("href") or "").strip()
        if not href:
            continue
        if href.startswith(("#", "javascript:", "mailto:", "tel:")):
            yield anchor, href[:200], "", "not_web"
            continue
        url = urljoin(base_url, href).split("#")[0]
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https"):
            yield anchor, href[:200], "", "not_web"
        elif url == page:
            yield anchor, url, "", "same_page"
        elif not host_allowed(parts.hostname, domains):
            yield anchor, url, "", "offsite"
        else:
            yield anchor, url, _anchor_text(anchor), None


def document_base(root: html.HtmlElement, page_url: str) -> str:
    """The URL relative links resolve against: the first ``<base href>``, itself resolved
    against the page's URL, when it is http(s); else the page's URL."""
    for base in root.iter("base"):
        href = (base.get("href") or "").strip()
        if href:
            resolved = urljoin(page_url, href)
            return resolved if urlsplit(resolved).scheme in ("http", "https") else page_url
    return page_url


def _candidates(root, base_url: str, domains: Iterable[str]) -> Iterator[tuple[html.HtmlElement, str, str]]:
    """The page's same-site http(s) links other than the page itself: (anchor, URL, text)."""
    for anchor, url, text, problem in _links(root, base_url, domains):
        if problem is None:
            yield anchor, url, text


def score_links(
    root: html.HtmlElement | str | bytes | None,
    base_url: str,
    domains: Iterable[str],
    pattern: str | re.Pattern | None = None,
    min_score: float = MIN_SCORE,
    learned: Callable[[str], float] | None = None,
    model: dict | None = None,
) -> LinkScores:
    """Score every link of a listing page (see the module docstring); the article links in page
    order, one per URL with its longest title, and each other link with its reason.  A link's
    score is the model's log-odds less its threshold, plus ``min_score``: ``min_score`` or more
    is an article link.  ``model``: the link model's data (default: the shipped one).

    With a site ``pattern`` the pattern decides: a same-site link matching it is an article
    whatever its text or place, any other is rejected as ``pattern``.  ``learned`` gives the
    points the site's fetched links taught for a URL (:meth:`~.url_shapes.SiteUrlShapes.adjustment`;
    minus infinity: rejected as ``learned_not_article``).
    """
    if not isinstance(root, html.HtmlElement):
        root = parse(root or "")
    if root is None:
        return LinkScores([], {})
    if isinstance(pattern, str):
        pattern = re.compile(pattern)
    rejected: dict[str, str] = {}
    found = []
    for anchor, url, text, problem in _links(root, base_url, domains):
        if problem is not None:
            rejected.setdefault(url, problem)
        else:
            found.append((anchor, url, text))
    if pattern is not None:
        return _by_pattern(found, pattern, rejected)
    scored, rows = page_links(found, rejected, base_url)
    from .link_model import load_model, logits

    model = load_model() if model is None else model
    odds = logits(model, rows)
    threshold = float(model["threshold"])
    best: dict[str, CatalogueLink] = {}
    failed: dict[str, tuple[float, _Scored]] = {}
    for link, logit in zip(scored, odds, strict=True):
        score = float(logit) - threshold + min_score  # on the hand-set points' scale: min_score passes
        if learned is not None:
            adjustment = learned(link.url)
            if adjustment == float("-inf"):
                rejected.setdefault(link.url, "learned_not_article")
                continue
            score += adjustment
        if score >= min_score and menu_link(link):
            failed[link.url] = (float("inf"), link)  # a menu's or an ad's: its placement is the reason
        elif score < min_score:
            if link.url not in failed or score > failed[link.url][0]:
                failed[link.url] = (score, link)
        elif link.url not in best or len(link.text) > len(best[link.url].title):
            best[link.url] = CatalogueLink(link.url, link.text, round(score, 2))
    for url, (score, link) in failed.items():
        if url not in best:
            if score == float("inf"):
                rejected[url] = "advert" if link.placement >= 4.0 else "navigation"
            else:
                rejected[url] = _rejection(link, link.points, min_score)
    for url in best:
        rejected.pop(url, None)
    return LinkScores(list(best.values()), rejected)


def page_links(found, rejected: dict[str, str], base_url: str):
    """The candidate anchors of a page with their hand-set evidence, and their model features
    (:func:`~.link_model.feature_rows`): what :func:`score_links` and the model's training share.
    The rules before the model (see the module docstring) add their rejections to ``rejected``."""
    from .link_model import feature_rows

    min_score = MIN_SCORE  # the hand-set points are features: always on their own scale
    scored = _score_anchors(found, rejected)
    lift = _template_lift(scored, min_score)
    if lift:
        _one_word_slugs(scored, lift)
    off_form = _off_form(scored) if lift else {}
    for link in scored:
        link.points = link.total + lift.get(link.template, 0.0) - off_form.get(link.url, 0.0)
    urls = {link.url for link in scored}
    kept = []
    for link in scored:
        if _not_article_url(link.url):
            rejected.setdefault(link.url, "not_article_path")  # a media, tag or people page
        elif _bare(link.url) != link.url and _bare(link.url) in urls:
            rejected.setdefault(link.url, "url_variant")  # ?comments=1, ?replytocom=, post//
        else:
            kept.append(link)
    return kept, feature_rows(kept, lift, off_form, base_url, min_score)


def menu_link(link: _Scored) -> bool:
    """A link of a ``nav``/``menu`` element or an ad container outside a list of headlines: not
    taken, whatever the model says (``navigation``, ``advert``).  No link of a ``nav`` element is an
    article on the real listing pages of ``catalogue-more``; of an ad container's, 11 in 63 are (the
    rule costs the model 0.002 of out-of-fold F1 there, and keeps ads out of the crawl)."""
    return (link.landmark == "nav" and link.placement > 0) or link.placement >= 4.0


def _bare(url: str) -> str:
    """``url`` without its query and with no empty path segment: a post's URL under the variants
    a page links beside it (``?comments=1``, ``?replytocom=7``, ``/2016/post//``)."""
    if "?" not in url and "//" not in url.partition("://")[2]:
        return url
    parts = urlsplit(url)
    path = "/".join(s for s in parts.path.split("/") if s)
    return f"{parts.scheme}://{parts.netloc}/{path}" + ("/" if parts.path.endswith("/") and path else "")


@lru_cache(maxsize=8192)
def _not_article_url(url: str) -> bool:
    parts = urlsplit(url)
    return _media_host(parts.hostname) or any(_not_article_segment(s) for s in parts.path.split("/") if s)


def find_article_links(
    root: html.HtmlElement | str | bytes | None,
    base_url: str,
    domains: Iterable[str],
    pattern: str | re.Pattern | None = None,
    min_score: float = MIN_SCORE,
) -> list[CatalogueLink]:
    """The article links of a listing page, in page order, one per URL with its best title."""
    return score_links(root, base_url, domains, pattern, min_score).accepted


def _by_pattern(found, pattern: re.Pattern, rejected: dict[str, str]) -> LinkScores:
    best: dict[str, CatalogueLink] = {}
    for _, url, text in found:
        if url_score(url, pattern) is None:
            rejected.setdefault(url, "not_html" if _SKIP_EXT_RE.search(urlsplit(url).path) else "pattern")
        elif url not in best or len(text) > len(best[url].title):
            best[url] = CatalogueLink(url, text, 3.0)
    for url in best:
        rejected.pop(url, None)
    return LinkScores(list(best.values()), rejected)


def _score_anchors(found, rejected: dict[str, str]) -> list[_Scored]:
    """Each candidate anchor's evidence; a file or the site root is rejected outright."""
    headlines = [headline_like(text) for _, _, text in found]
    signatures = [_signature(anchor) for anchor, _, _ in found]
    templates = [url_template(url) for _, url, _ in found]
    hosts = [(urlsplit(url).hostname or "").lower() for _, url, _ in found]
    repeated = Counter(sig for sig, headline in zip(signatures, headlines, strict=True) if headline)
    lists = Counter((sig, host, template) for sig, host, template, headline in zip(
        signatures, hosts, templates, headlines, strict=True)
        if headline and template_has_evidence(template))
    same_signature = Counter(signatures)
    scored = []
    placement_cache: dict = {}
    density_cache: dict = {}
    landmark_cache: dict = {}
    for (anchor, url, text), headline, signature, template, host in zip(
            found, headlines, signatures, templates, hosts, strict=True):
        shape = url_score(url)
        if shape is None:
            rejected.setdefault(url, "not_html" if _SKIP_EXT_RE.search(urlsplit(url).path) else "site_root")
            continue
        placement = _placement_penalty(anchor, placement_cache)
        if placement < 4.0 and lists[(signature, host, template)] >= HEADLINE_LIST:
            placement = 0.0  # a list of headlines of one article form is content, not navigation
        scored.append(_Scored(
            url=url, text=text, headline=headline, text_points=_text_points(text, headline), shape=shape,
            placement=placement, listed=1.0 if repeated[signature] >= 3 else 0.0, template=template,
            signature=signature, host=host, image=next(anchor.iter("img"), None) is not None,
            titled=bool(anchor.get("title")), siblings=same_signature[signature],
            density=_link_density(anchor, density_cache), landmark=_landmark(anchor, landmark_cache),
        ))
    return scored


_LANDMARKS = {"nav": "nav", "menu": "nav", "header": "edge", "footer": "edge", "aside": "aside"}


def _landmark(anchor: html.HtmlElement, cache: dict) -> str:
    """The innermost landmark the anchor sits in: ``"nav"`` (``nav``, ``menu``, ``role=navigation``),
    ``"edge"`` (``header``, ``footer``), ``"aside"``, or ``""`` (cached per element)."""
    walked = []
    found = ""
    el = anchor.getparent()
    while el is not None:
        if el in cache:
            found = cache[el]
            break
        walked.append(el)
        el = el.getparent()
    for el in reversed(walked):  # from the outermost down
        found = "nav" if el.get("role") == "navigation" else _LANDMARKS.get(el.tag, found)
        cache[el] = found
    return found


def _link_density(anchor: html.HtmlElement, cache: dict) -> float:
    """Share of the text of the anchor's block (its grandparent) that sits inside links: near 1 in
    a menu or a bare list of headlines, lower in a list of teasers with summaries."""
    block = anchor.getparent()
    if block is not None and block.getparent() is not None and block.getparent().tag not in ("body", "html"):
        block = block.getparent()
    if block is None:
        return 1.0
    if block not in cache:
        total = len(block.text_content().strip())
        linked = sum(len(a.text_content().strip()) for a in block.iter("a"))
        cache[block] = min(1.0, linked / total) if total else 1.0
    return cache[block]


def _off_form(scored: list[_Scored]) -> dict[str, float]:
    """Points each link loses for standing off the page's article forms (see the module docstring):
    :data:`OFF_FORM` when fewer than :data:`TEMPLATE_SUPPORT` of the page's headline links share
    its URL template, or when its URL carries no article evidence; :data:`LONE_HOST` more when
    fewer than that many links go to its host; and its list bonus unless half its list's headline
    links are of the page's forms (a list of articles keeps its odd member; a block of channels or
    columnists does not speak for it).  Called only on a page that shows an article form."""
    urls = {link.url: link for link in scored}
    headline_urls = {link.url: link.template for link in scored if link.headline}
    templates = Counter(headline_urls.values())  # the page's forms: templates of headline links
    host_links = Counter(link.host for link in urls.values())

    def on_form(link: _Scored) -> bool:
        return templates[link.template] >= TEMPLATE_SUPPORT and template_has_evidence(link.template)

    blocks: dict[str, list[int]] = {}  # per list structure: headline links, of which on a form
    for link in scored:
        if link.headline:
            counts = blocks.setdefault(link.signature, [0, 0])
            counts[0] += 1
            counts[1] += on_form(link)
    penalties = {}
    for url, link in urls.items():
        if on_form(link):
            continue
        points = OFF_FORM + (LONE_HOST if host_links[link.host] < TEMPLATE_SUPPORT else 0.0)
        headlines, on = blocks.get(link.signature, (0, 0))
        if on * 2 < headlines:
            points += link.listed  # a list of other forms (channels, columnists) does not speak for it
        penalties[url] = points
    return penalties


def _template_lift(scored: list[_Scored], min_score: float) -> dict[str, float]:
    """Per-page self-consistency: URL templates that at least :data:`TEMPLATE_SUPPORT` confident
    links share (headline text, score half a point over the bar) are this page's article form, and
    lift their weaker members (a short headline, an image link) by :data:`TEMPLATE_LIFT`."""
    confident: dict[str, set[str]] = {}
    for link in scored:
        if link.headline and link.total >= min_score + 0.5:
            confident.setdefault(link.template, set()).add(link.url)
    return {template: TEMPLATE_LIFT for template, urls in confident.items()
            if len(urls) >= TEMPLATE_SUPPORT and template_has_evidence(template)}


def _one_word_slugs(scored: list[_Scored], lift: dict[str, float]) -> None:
    """A one-word headline ("Breakthrough") gets a one-word slug (``/2026/11/20/breakthrough.html``),
    whose template ends in ``w`` where its list's other articles' ends in ``S``: a link whose
    template is a lifted slug form but for that, listed in the same block as headline links of
    that form, takes the form's template (and so its lift, and no off-form penalty)."""
    forms = {(link.signature, link.template) for link in scored if link.headline and link.template in lift}
    for link in scored:
        if link.headline or link.template in lift:
            continue
        head, sep, last = link.template.rpartition("/")
        if last.split(".", 1)[0] != "w":
            continue
        slug = f"{head}{sep}S{last[1:]}"
        if (link.signature, slug) in forms:
            link.template = slug


def _rejection(link: _Scored, score: float, min_score: float) -> str:
    """The main reason a link's best anchor fell short of ``min_score``."""
    if link.text_points <= -3.0:
        return "menu_text"
    if link.placement >= 4.0 and score + link.placement >= min_score:
        return "advert"
    if link.placement and score + link.placement >= min_score:
        return "navigation"
    parts = urlsplit(link.url)
    segments = [s for s in parts.path.split("/") if s]
    if link.shape < 0 and (_media_host(parts.hostname) or any(map(_not_article_segment, segments))):
        return "not_article_path"
    if not link.headline and score - link.text_points + 1.0 >= min_score:
        return "anchor_text"
    return "url_shape"


def find_next_page(root: html.HtmlElement | None, base_url: str, domains: Iterable[str]) -> str | None:
    """The listing's next page (``rel=next`` or a "Next"/"下一页"/"Далее" link) on the same site."""
    if root is None:
        return None
    domains = tuple(domains)
    page_url, base_url = base_url, document_base(root, base_url)
    for el in root.iter("link", "a"):
        if "next" in (el.get("rel") or "").lower().split() and el.get("href"):
            url = urljoin(base_url, el.get("href").strip()).split("#")[0]
            if host_allowed(urlsplit(url).hostname, domains) and url != page_url:
                return url
    for anchor, url, text in _candidates(root, page_url, domains):
        classes = (anchor.get("class") or "").lower().split()
        if _NEXT_TEXT.match(text) or "next" in classes or "pagination-next" in classes:
            return url
    return None

