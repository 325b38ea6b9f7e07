"""A site's article-URL forms, learned from what its fetched links turned out to be and from its feeds.

The catalogue stage (:mod:`newscrawl.discovery.links`) judges a link by generic evidence; a crawl
learns more: every link it follows is fetched, and the page type filter
(:func:`newscrawl.extract.page_type_of`) says whether it was an article.  Links of one kind
on a site share a URL template (:func:`newscrawl.discovery.url_forms.url_template`: digit runs, slugs and
ids as placeholders, per host), so the outcome of a few fetched links speaks for the rest:

- a template whose fetched links were all non-articles (a columnist index, a channel page, an
  app-download page), :data:`MIN_EVIDENCE` of them or more, is skipped on later listing pages
  (``newscrawl/catalogue/rejected/learned_not_article``): the columnists' pages are fetched a
  few times, not two hundred;
- a template whose fetched links were articles in at least :data:`ARTICLE_SHARE` of
  :data:`MIN_EVIDENCE` or more cases lifts its links by :data:`LEARNED_LIFT` (a short headline
  of the site's article form passes).

The site's feeds and news sitemaps say more before anything is fetched: the URLs they list
are its articles, so a form of :data:`MIN_EVIDENCE` or more listed URLs (:func:`listed_shape`:
the template with its last segment's name left open, as slugs and ids vary there) is a *listed
article form*, lifted like a fetched one.  On a listing page that links articles of a listed
form, a link of another shape that nothing proved yet is a probe:
:meth:`SiteUrlShapes.probes_left` of that shape are followed, the rest wait (``off_listed_form``)
until the fetched probes have spoken — a channel index or a columnist's page linked 200 times
from the home page is fetched :data:`MIN_EVIDENCE` times, and skipped from then on.

This is the URL-side counterpart of He's (2019) use of the catalogue page (stage 1 collects
each article's URL from it) and of Yan and Wang's (2020) per-site learning: what one site's
pages teach is kept for that site.  No Scrapy imports.
"""

from __future__ import annotations

import json
from urllib.parse import urlsplit

from .url_forms import url_template

MIN_EVIDENCE = 3  # fetched links of a template before its outcome counts
ARTICLE_SHARE = 0.8  # share of articles among them for a template to be the site's article form
LEARNED_LIFT = 1.0  # points a link of a learned article form gains
REJECT = float("-inf")  # the adjustment of a link of a learned non-article form
MAX_TEMPLATES = 5_000  # templates kept per site; the least seen go first


def shape_of(url: str) -> str:
    """The key a link's outcome is kept under: its host and URL template."""
    return f"{(urlsplit(url).hostname or '').lower()}/{url_template(url)}"


def listed_shape(url: str) -> str:
    """The key a feed-listed URL counts under: its shape with the last segment's name left open
    (``/ru/society/20261115/tramvai-marshrut-7.html`` and ``.../novaya-shkola.html`` are one form)."""
    shape = shape_of(url)
    head, sep, last = shape.rpartition("/")
    dot = last.find(".")
    return f"{head}{sep}*{last[dot:] if dot >= 0 else ''}"


ARTICLES, OTHERS, LISTED = 0, 1, 2  # the counts kept per shape


class SiteUrlShapes:
    """One site's evidence per URL shape: ``shape -> [articles, others, listed]`` (fetched links
    that were articles, that were not, and URLs its feeds and news sitemaps listed)."""

    def __init__(self, counts: dict[str, list[int]] | None = None):
        self.counts: dict[str, list[int]] = {
            k: [int(n) for n in (list(v) + [0, 0, 0])[:3]] for k, v in (counts or {}).items()}
        self.changed = False

    def record(self, url: str, is_article: bool) -> None:
        """One fetched link's outcome."""
        self._add(shape_of(url), ARTICLES if is_article else OTHERS)

    def record_listed(self, url: str) -> None:
        """A URL a feed or news sitemap of the site lists as an article."""
        self._add(listed_shape(url), LISTED)

    def _add(self, shape: str, kind: int) -> None:
        self.counts.setdefault(shape, [0, 0, 0])[kind] += 1
        self.changed = True
        if len(self.counts) > MAX_TEMPLATES:
            kept = sorted(self.counts.items(), key=lambda item: -sum(item[1]))[: MAX_TEMPLATES * 3 // 4]
            self.counts = dict(kept)

    def adjustment(self, url: str) -> float:
        """Points for a link of ``url``'s shape: :data:`REJECT`, :data:`LEARNED_LIFT` or 0."""
        articles, others, _ = self.counts.get(shape_of(url), (0, 0, 0))
        if articles + others < MIN_EVIDENCE:
            return LEARNED_LIFT if self.is_listed(url) else 0.0
        if articles == 0:
            return REJECT
        return LEARNED_LIFT if articles >= ARTICLE_SHARE * (articles + others) else 0.0

    def is_listed(self, url: str) -> bool:
        """Is ``url`` of a form the site's feeds and news sitemaps list?"""
        return self.counts.get(listed_shape(url), (0, 0, 0))[LISTED] >= MIN_EVIDENCE

    def has_listed_form(self) -> bool:
        """Do the site's feeds or news sitemaps show an article form (a listed shape)?"""
        return any(counts[LISTED] >= MIN_EVIDENCE for counts in self.counts.values())

    def probes_left(self, url: str) -> int | None:
        """How many more links of ``url``'s shape to follow before their outcomes speak: ``None``
        (no limit) for a listed form, a shape with fetched evidence, or a site with no listed
        form; else :data:`MIN_EVIDENCE` less the links of the shape fetched so far."""
        articles, others, _ = self.counts.get(shape_of(url), (0, 0, 0))
        if self.is_listed(url) or articles + others >= MIN_EVIDENCE or not self.has_listed_form():
            return None
        return MIN_EVIDENCE - articles - others

    def learned(self) -> list[tuple[str, int, int, str]]:
        """``(shape, articles, others, verdict)`` of the shapes with enough evidence."""
        out = []
        for shape, (articles, others, listed) in sorted(self.counts.items(), key=lambda item: -sum(item[1])):
            total = articles + others
            if total >= MIN_EVIDENCE:
                verdict = "skip" if articles == 0 else (
                    "article form" if articles >= ARTICLE_SHARE * total else "mixed")
                out.append((shape, articles, others, verdict))
            elif listed >= MIN_EVIDENCE:
                out.append((shape, articles, others, "listed form"))
        return out

    def dumps(self) -> str:
        return json.dumps(self.counts, ensure_ascii=False)

    @classmethod
    def loads(cls, raw: str | bytes | None) -> SiteUrlShapes:
        """Shapes from :meth:`dumps`; an unreadable value starts empty."""
        try:
            data = json.loads(raw) if raw else {}
            return cls({str(k): list(v)[:3] for k, v in dict(data).items()})
        except (ValueError, TypeError, IndexError, AttributeError):
            return cls()
