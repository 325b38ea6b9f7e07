"""How well :func:`newscrawl.discovery.links.find_article_links` finds the article links of real
listing pages.

Reads ``catalogue-labelled/`` of ``../shared/datasets`` (real 163, qq, CNN and Wired listing
pages; ``article_urls`` are the page's links in the site's own article-URL form, see its
SOURCE.md) and scores the links the catalogue stage yields **without** the site's pattern:
per page and micro (all links of all pages pooled) precision, recall and F1.  The domains
given are the registrable domain of the page's URL (``news.163.com`` -> ``163.com``), as a
zero-configuration crawl would use.  Beside it, when newspaper4k is installed (optional, not a
project dependency), its ``urls.valid_url`` on the same same-site links, for scale.

    python bench/catalogue_eval.py [--datasets ../shared/datasets] [--show N] [--set catalogue-more]

``--set catalogue-more`` scores the 41 pages of 24 sites the link model is trained on instead
(in-sample for the shipped model: its out-of-fold figures come from ``bench/train_links.py``).

Then the same pages in order with feedback (:func:`with_feedback`): a site's later listing pages
scored with the URL shapes its earlier pages' taken links taught.

``--show N`` prints up to N false positives and false negatives per page.  Exit status 1 when
micro F1 is below :data:`F1_BAR`.

Then discovery (:mod:`newscrawl.discovery`) on the CNN home page of ``catalogue-pages/newspaper4k``
against the section and feed URLs newspaper4k's tests expect its ``Source`` to find there:
recall and precision of our section and feed URLs from that one page (URLs compared without a
trailing slash), beside newspaper4k's own ``Source`` on the same page offline when installed.
newspaper4k's expected feeds come mostly from its fetching the site's RSS page; offline, from
the home page alone, neither tool can see those.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urljoin, urlsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from newscrawl.discovery.links import find_article_links, parse, score_links  # noqa: E402
from newscrawl.discovery.survey import feed_links, registrable_domain, section_links  # noqa: E402
from newscrawl.discovery.url_shapes import SiteUrlShapes  # noqa: E402

DATASETS = ROOT.parent / "shared" / "datasets"
LABELLED = "catalogue-labelled"
F1_BAR = 0.95


@dataclass
class Score:
    """Counts of one page (or of all pages pooled: micro)."""

    true_pos: int = 0
    false_pos: int = 0
    false_neg: int = 0
    wrong: list[str] = field(default_factory=list)  # yielded, not an article
    missed: list[str] = field(default_factory=list)  # an article, not yielded

    def add(self, other: Score) -> None:
        self.true_pos += other.true_pos
        self.false_pos += other.false_pos
        self.false_neg += other.false_neg

    @property
    def precision(self) -> float:
        found = self.true_pos + self.false_pos
        return self.true_pos / found if found else 1.0

    @property
    def recall(self) -> float:
        relevant = self.true_pos + self.false_neg
        return self.true_pos / relevant if relevant else 1.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0


def load_pages(datasets: Path = DATASETS, name: str = LABELLED) -> list[dict]:
    """The labelled listing pages, each with its decoded ``html``; [] when the set is absent."""
    folder = datasets / name
    truth = folder / "truth.jsonl"
    if not truth.is_file():
        return []
    pages = []
    for line in truth.read_text(encoding="utf-8").splitlines():
        if line.strip():
            record = json.loads(line)
            record["html"] = gzip.decompress((folder / record["file"]).read_bytes())
            pages.append(record)
    return pages


def score_page(found: set[str], expected: set[str]) -> Score:
    return Score(len(found & expected), len(found - expected), len(expected - found),
                 sorted(found - expected), sorted(expected - found))


def ours(page: dict) -> set[str]:
    """The article links our catalogue stage yields on ``page`` (no pattern)."""
    domain = registrable_domain(page["url"])
    return {link.url for link in find_article_links(page["html"], page["url"], [domain])}


def with_feedback(pages: list[dict]) -> tuple[Score, list[tuple]]:
    """The crawl path: each site's listing pages in the set's order, each scored with the URL shapes
    the links taken on its earlier pages taught (:mod:`newscrawl.discovery.url_shapes`).  The set has no
    linked pages, so a taken link's page type is its label (in ``article_urls`` or not): the
    feedback a crawl gets from fetching it, as if the page type filter were always right."""
    shapes: dict[str, SiteUrlShapes] = {}
    micro, rows = Score(), []
    for page in pages:
        domain = registrable_domain(page["url"])
        learned = shapes.setdefault(domain, SiteUrlShapes())
        expected = set(page["article_urls"])
        found = {link.url for link in score_links(page["html"], page["url"], [domain],
                                                  learned=learned.adjustment).accepted}
        score = score_page(found, expected)
        micro.add(score)
        rows.append((page["id"], score))
        for url in found:
            learned.record(url, url in expected)
    return micro, rows


def newspaper4k_valid_url() -> Callable[[str], bool] | None:
    """newspaper4k's ``urls.valid_url`` when newspaper4k is installed (it is no dependency of the
    project: ``pip install newspaper4k`` to see the baseline), else None."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from newspaper.urls import valid_url
    except ImportError:
        return None
    return valid_url


def baseline(page: dict, valid_url: Callable[[str], bool]) -> set[str]:
    """The page's same-site links that newspaper4k's ``valid_url`` accepts."""
    domain = registrable_domain(page["url"])
    root = parse(page["html"])
    found = set()
    for href in root.xpath("//a/@href") if root is not None else []:
        url = urljoin(page["url"], href.strip()).split("#")[0]
        host = urlsplit(url).hostname or ""
        if (host == domain or host.endswith("." + domain)) and valid_url(url):
            found.add(url)
    return found


def evaluate(pages: list[dict], finder: Callable[[dict], set[str]] = ours) -> tuple[Score, list[tuple]]:
    """Micro score over ``pages`` and each page's (id, score)."""
    micro, rows = Score(), []
    for page in pages:
        score = score_page(finder(page), set(page["article_urls"]))
        micro.add(score)
        rows.append((page["id"], score))
    return micro, rows


def _norm(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{(parts.hostname or '').lower()}{parts.path.rstrip('/')}" + (
        f"?{parts.query}" if parts.query else "")


def recall_precision(found: list[str], expected: list[str]) -> tuple[float, float, int]:
    """(recall, precision, hits) of ``found`` against ``expected``, URLs normalised."""
    found_set, expected_set = {_norm(u) for u in found}, {_norm(u) for u in expected}
    hits = len(found_set & expected_set)
    return (hits / len(expected_set) if expected_set else 1.0,
            hits / len(found_set) if found_set else 1.0, hits)


def discovery_on_cnn(datasets: Path = DATASETS) -> dict | None:
    """Our sections and feeds from the CNN home page, and newspaper4k's when installed."""
    folder = datasets / "catalogue-pages" / "newspaper4k"
    expected_file = folder / "cnn_main_site.expected.json"
    if not expected_file.is_file():
        return None
    expected = json.loads(expected_file.read_text(encoding="utf-8"))
    page = (folder / "cnn_main_site.html").read_bytes()
    root = parse(page)
    url = expected["url"]
    domains = [registrable_domain(url)]
    result = {"expected": expected, "ours": {"sections": section_links(root, url, domains),
                                              "feeds": feed_links(root, url, domains)}}
    theirs = newspaper4k_source(url, page.decode("utf-8", "replace"))
    if theirs is not None:
        result["newspaper4k"] = theirs
    return result


def newspaper4k_source(url: str, page: str) -> dict | None:
    """newspaper4k's categories and feeds from the home page alone (no network), when installed."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from newspaper import Source
            from newspaper.source import Category

            source = Source(url, memorize_articles=False)
            source.html = page
            source.parse()
            source.set_categories()
            sections = [c.url for c in source.categories]
            source.categories = [Category(url=source.url, html=page, doc=source.doc)]
            source.set_feeds()
            return {"sections": sections, "feeds": [f.url for f in source.feeds]}
    except ImportError:
        return None


def print_discovery(result: dict | None) -> None:
    if result is None:
        print("no catalogue-pages/newspaper4k/cnn_main_site.expected.json: discovery not measured")
        return
    print("\ndiscovery on the CNN home page (expected: newspaper4k's test values)")
    for tool in ("ours", "newspaper4k"):
        if tool not in result:
            print("newspaper4k is not installed: no side-by-side")
            continue
        for kind, key in (("sections", "category_urls"), ("feeds", "feeds")):
            found, expected = result[tool][kind], result["expected"][key]
            recall, precision, hits = recall_precision(found, expected)
            print(f"  {tool:12} {kind:8} found {len(found):3}  expected {len(expected):3}  hits {hits:3}  "
                  f"recall {recall:.3f}  precision {precision:.3f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", type=Path, default=DATASETS)
    parser.add_argument("--show", type=int, default=0, help="false positives/negatives to print per page")
    parser.add_argument("--set", default=LABELLED, choices=(LABELLED, "catalogue-more"), help="the page set")
    args = parser.parse_args(argv)
    pages = load_pages(args.datasets, args.set)
    if not pages:
        print(f"no labelled listing pages under {args.datasets / args.set}")
        return 0
    micro, rows = evaluate(pages)
    valid_url = newspaper4k_valid_url()
    base_micro, base_rows = (None, [])
    if valid_url:
        base_micro, base_rows = evaluate(pages, lambda page: baseline(page, valid_url))
    print(f"{'page':52} {'P':>6} {'R':>6} {'F1':>6}" + ("   newspaper4k valid_url F1" if valid_url else ""))
    for i, (page_id, score) in enumerate(rows):
        base = f"   {base_rows[i][1].f1:6.3f}" if valid_url else ""
        print(f"{page_id:52} {score.precision:6.3f} {score.recall:6.3f} {score.f1:6.3f}{base}")
        for url in score.wrong[: args.show]:
            print(f"    FP {url}")
        for url in score.missed[: args.show]:
            print(f"    FN {url}")
    base = f"   {base_micro.f1:6.3f}" if valid_url else ""
    print(f"{'micro':52} {micro.precision:6.3f} {micro.recall:6.3f} {micro.f1:6.3f}{base}")
    if valid_url:
        print(f"newspaper4k valid_url micro: P {base_micro.precision:.3f} R {base_micro.recall:.3f} "
              f"F1 {base_micro.f1:.3f}")
    else:
        print("newspaper4k is not installed: no baseline (pip install newspaper4k to see it)")
    print(f"bar: micro F1 >= {F1_BAR}: {'met' if micro.f1 >= F1_BAR else 'NOT met'}")
    fed, fed_rows = with_feedback(pages)
    print("\nwith each site's earlier pages' feedback (learned URL shapes; page type = the set's label)")
    for page_id, score in fed_rows:
        print(f"{page_id:52} {score.precision:6.3f} {score.recall:6.3f} {score.f1:6.3f}")
    print(f"{'micro':52} {fed.precision:6.3f} {fed.recall:6.3f} {fed.f1:6.3f}")
    print_discovery(discovery_on_cnn(args.datasets))
    return 0 if micro.f1 >= F1_BAR else 1


if __name__ == "__main__":
    sys.exit(main())
