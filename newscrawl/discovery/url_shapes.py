"""A site's article-URL forms, learned from what its fetched links turned out to be.

The catalogue stage (:mod:`newscrawl.discovery.links`) judges a link by generic evidence; a crawl
learns more: every link it follows is fetched, and the page type filter
(:func:`newscrawl.extract.page_type_of`) says whether it was an article.  Links of one kind
on a site share a URL template (:func:`newscrawl.discovery.links.url_template`: digit runs, slugs and
ids as placeholders, per host), so the outcome of a few fetched links speaks for the rest:

- a template whose fetched links were all non-articles (a columnist index, a channel page, an
  app-download page), :data:`MIN_EVIDENCE` of them or more, is skipped on later listing pages
  (``newscrawl/catalogue/rejected/learned_not_article``): the columnists' pages are fetched a
  few times, not two hundred;
- a template whose fetched links were articles in at least :data:`ARTICLE_SHARE` of
  :data:`MIN_EVIDENCE` or more cases lifts its links by :data:`LEARNED_LIFT` (a short headline
  of the site's article form passes).

This is the URL-side counterpart of He's (2019) use of the catalogue page (stage 1 collects
each article's URL from it) and of Yan and Wang's (2020) per-site learning: what one site's
pages teach is kept for that site.  No Scrapy imports.
"""

from __future__ import annotations

import json
from urllib.parse import urlsplit

from .links import url_template

MIN_EVIDENCE = 3  # fetched links of a template before its outcome counts
ARTICLE_SHARE = 0.8  # share of articles among them for a template to be the site's article form
LEARNED_LIFT = 1.0  # points a link of a learned article form gains
REJECT = float("-inf")  # the adjustment of a link of a learned non-article form
MAX_TEMPLATES = 5_000  # templates kept per site; the least seen go first


def shape_of(url: str) -> str:
    """The key a link's outcome is kept under: its host and URL template."""
    return f"{(urlsplit(url).hostname or '').lower()}/{url_template(url)}"


class SiteUrlShapes:
    """One site's fetched-link outcomes per URL shape: ``shape -> [articles, others]``."""

    def __init__(self, counts: dict[str, list[int]] | None = None):
        self.counts: dict[str, list[int]] = {k: [int(v[0]), int(v[1])] for k, v in (counts or {}).items()}
        self.changed = False

    def record(self, url: str, is_article: bool) -> None:
        """One fetched link's outcome."""
        counts = self.counts.setdefault(shape_of(url), [0, 0])
        counts[0 if is_article else 1] += 1
        self.changed = True
        if len(self.counts) > MAX_TEMPLATES:
            kept = sorted(self.counts.items(), key=lambda item: -sum(item[1]))[: MAX_TEMPLATES * 3 // 4]
            self.counts = dict(kept)

    def adjustment(self, url: str) -> float:
        """Points for a link of ``url``'s shape: :data:`REJECT`, :data:`LEARNED_LIFT` or 0."""
        articles, others = self.counts.get(shape_of(url), (0, 0))
        if articles + others < MIN_EVIDENCE:
            return 0.0
        if articles == 0:
            return REJECT
        return LEARNED_LIFT if articles >= ARTICLE_SHARE * (articles + others) else 0.0

    def learned(self) -> list[tuple[str, int, int, str]]:
        """``(shape, articles, others, verdict)`` of the shapes with enough evidence."""
        out = []
        for shape, (articles, others) in sorted(self.counts.items(), key=lambda item: -sum(item[1])):
            if articles + others >= MIN_EVIDENCE:
                total = articles + others
                verdict = "skip" if articles == 0 else (
                    "article form" if articles >= ARTICLE_SHARE * total else "mixed")
                out.append((shape, articles, others, verdict))
        return out

    def dumps(self) -> str:
        return json.dumps(self.counts, ensure_ascii=False)

    @classmethod
    def loads(cls, raw: str | bytes | None) -> SiteUrlShapes:
        """Shapes from :meth:`dumps`; an unreadable value starts empty."""
        try:
            data = json.loads(raw) if raw else {}
            return cls({str(k): list(v)[:2] for k, v in dict(data).items()})
        except (ValueError, TypeError, IndexError, AttributeError):
            return cls()
