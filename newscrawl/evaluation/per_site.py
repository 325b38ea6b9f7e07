"""The crawl path scored: each site's pages of a set run in order through what the crawl learns
per site, beside the single-page figures.

A crawl does not meet pages one at a time: every page of a site it fetches teaches the site's
template library (Yan and Wang 2020) and its title decoration
(:mod:`newscrawl.extract.fields.title_decoration`), and later pages are extracted with both.
``scrapy evaluate --per-site`` replays that: the pages of a set are grouped by site
(:func:`site_key`: the registered domain of the truth's ``url``, or of the host a DAnIEL
page id names), each site's pages are taken in the set's order, and each page is

1. parsed, its date and authors read (before the template cleans the tree, as in the crawl);
2. counted into the site's template library, then cleaned with it (a page whose text would be
   mostly template is left whole, as ``NEWSCRAWL_TEMPLATE_MAX_SHARE`` does);
3. counted into the site's title decoration, which is then given to the page;
4. extracted and scored as the single-page evaluation scores it.

The sites are also split in two halves by a stable hash of their name (``A`` and ``B``), so
a rule tuned on one half can be reported on the other: sites never seen.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..extract import Page, dom, extract_page
from ..extract.fields.authors import find_authors
from ..extract.fields.dates import find_published
from ..extract.fields.title_decoration import SiteDecoration
from ..extract.methods.template import N1, N2, SiteTemplates, iter_leaves
from .datasets import Record, load_dataset
from .runner import PageScore, Prediction, _error_label, library_extractor, score_page, summarize
from .sites import site_half, site_key

MAX_SHARE = 0.5  # as the crawl's NEWSCRAWL_TEMPLATE_MAX_SHARE default




@dataclass
class SiteLearning:
    """What the crawl learns about one site, as plain library objects."""

    templates: SiteTemplates = field(default_factory=lambda: SiteTemplates(n1=N1, n2=N2))
    decoration: SiteDecoration = field(default_factory=SiteDecoration)

    def extract(self, record: Record, method: str) -> Prediction:
        page = Page.from_html(record.html, url=record.url)
        published, authors = find_published(page, {}), find_authors(page)
        leaves = list(iter_leaves(page.body))
        self.templates.learn(page.root, leaves)
        noise = self.templates.noise_leaves(page.root, leaves)
        if noise and not _too_much(page, noise):
            self.templates.clean(page, noise)
        self.decoration.learn(page)
        self.decoration.apply(page)
        article = extract_page(page, method=method, published=published, authors=authors)
        return Prediction(article.text, article.title, article.published, article.authors)


def _too_much(page: Page, leaves: list) -> bool:
    total = len(dom.normalize_space(page.body.text_content()))
    return sum(len(dom.normalize_space(el.text_content())) for el in leaves) > MAX_SHARE * total


@dataclass
class SiteScores:
    """One dataset scored both ways, page by page, with each page's site."""

    dataset: str
    sites: list[str] = field(default_factory=list)
    single: list[PageScore] = field(default_factory=list)
    per_site: list[PageScore] = field(default_factory=list)

    def figures(self, mode: str, half: str | None = None) -> dict[str, Any]:
        pages = self.single if mode == "single" else self.per_site
        return summarize([p for p, s in zip(pages, self.sites, strict=True)
                          if half is None or site_half(s) == half])


def evaluate_per_site(dataset: str | Path, method: str = "auto", limit: int | None = None) -> SiteScores:
    """Score ``dataset`` single-page and through per-site learning (see the module doc)."""
    path = Path(dataset)
    scores = SiteScores(path.name)
    learning: dict[str, SiteLearning] = {}
    single = library_extractor(method)
    for record in load_dataset(path, limit):
        site = site_key(record) or f"{path.name}:{record.id}"
        scores.sites.append(site)
        for extractor, out in ((single, scores.single),
                               (lambda r, s=site: learning.setdefault(s, SiteLearning()).extract(r, method),
                                scores.per_site)):
            error = None
            try:
                prediction = extractor(record)
            except Exception as exc:  # noqa: BLE001 - an error is an empty prediction, as in the runner
                prediction, error = Prediction(), _error_label(exc)
            score = score_page(record, prediction)
            score.error = error
            out.append(score)
    return scores


_COLUMNS = (("body_zyte_f1", "body F1"), ("title_exact", "title exact"), ("title_char_f1", "title char F1"),
            ("date_day", "date day"), ("author_f1", "author F1"))


def format_per_site(results: Iterable[SiteScores]) -> str:
    """One table per dataset: rows single/per-site × all sites/half A/half B."""
    out = []
    for result in results:
        halves = {h: sum(1 for s in set(result.sites) if site_half(s) == h) for h in "AB"}
        out.append(f"== {result.dataset} ({len(result.sites)} pages, {len(set(result.sites))} sites: "
                   f"A {halves['A']}, B {halves['B']})")
        rows = [(f"{mode} {half or 'all'}", result.figures(mode, half))
                for mode in ("single", "per-site") for half in (None, "A", "B")]
        columns = [(key, name) for key, name in _COLUMNS if any(f.get(key) is not None for _, f in rows)]
        out.append("  ".join(["pages".ljust(14), *(name for _, name in columns)]))
        for label, figures in rows:
            cells = ["-" if figures.get(k) is None else f"{figures[k]:.3f}" for k, _ in columns]
            out.append("  ".join([label.ljust(14), *(c.ljust(len(n)) for c, (_, n) in zip(cells, columns,
                                                                                          strict=True))]))
        out.append("")
    return "\n".join(out)
