"""What leaving the per-site template library out of ``scrapy archive`` costs, on the dataset pages.
Not a test.

    python bench/archive_templates.py                 # every set with whole-body truth

The crawl learns each site's template (Yan and Wang 2020) from its pages in order and removes the
learned noise before extraction (:mod:`newscrawl.pipelines.templates`); the archive mapper sees one
record and does not.  For every set whose truth has the whole body, pages are grouped by site
(:func:`newscrawl.evaluation.template_eval.site_of`) and run in order through the crawl's own
:func:`~newscrawl.pipelines.extraction.extract_fields` twice: with a fresh template library (as
a crawl of those pages would) and without.  Printed per set: pages, pages on sites with more than
N1 = 10 pages (the only ones a template can clean), pages whose text changed, and the body score
(Zyte's shingle F1, mean per page, as ``scrapy evaluate`` reports it) with and without.
"""

from __future__ import annotations

import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parents[1]
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(ROOT))

from scrapy.settings import Settings  # noqa: E402

from newscrawl.evaluation.datasets import load_dataset  # noqa: E402
from newscrawl.evaluation.metrics import mean_prf, zyte_prf  # noqa: E402
from newscrawl.evaluation.sites import site_of  # noqa: E402
from newscrawl.pipelines.extraction import extract_fields  # noqa: E402
from newscrawl.pipelines.pool import CountingStats  # noqa: E402
from newscrawl.pipelines.templates import CrawlTemplates  # noqa: E402

DATASETS = ROOT.parent / "shared" / "datasets"


def text_of(templates, site: str, record) -> str:
    try:
        fields = extract_fields(templates, "auto", site=site, body=record.html, url=record.url or "",
                                content_type=None, listing_title=None, feed_entry={})
    except Exception:  # noqa: BLE001 - a dropped page has no text, with or without
        return ""
    return fields["text"]


def main() -> int:
    total = defaultdict(float)
    for dataset in sorted(d for d in DATASETS.iterdir() if d.is_dir()):
        try:
            records = [r for r in load_dataset(dataset) if r.has("text")]
        except Exception:  # noqa: BLE001 - not a page set
            continue
        if not records:
            continue
        sites: dict[str, list] = defaultdict(list)
        for number, record in enumerate(records):
            sites[site_of(record) or f"page-{number}"].append(record)
        with tempfile.TemporaryDirectory() as state:
            settings = Settings({"NEWSCRAWL_STATE_DIR": state})
            crawler = SimpleNamespace(settings=settings, stats=CountingStats())
            templates = CrawlTemplates(crawler)
            off = SimpleNamespace(apply=lambda site, page: 0, enabled=False)
            with_t, without, changed, learnable = [], [], 0, 0
            for site, pages in sites.items():
                learnable += len(pages) if len(pages) > 10 else 0
                for record in pages:
                    a, b = text_of(templates, site, record), text_of(off, site, record)
                    truth = record.get("text")
                    han = (record.lang or "").startswith(("zh", "ja"))
                    with_t.append(zyte_prf(truth, a, han_chars=han))
                    without.append(zyte_prf(truth, b, han_chars=han))
                    changed += a != b
            templates.close()
        f_with, f_without = mean_prf(with_t).f1, mean_prf(without).f1
        print(f"{dataset.name:16s} {len(records):5d} pages, {learnable:5d} on sites with >10 pages, "
              f"{changed:4d} texts changed; body F1 with templates {f_with:.4f}, without {f_without:.4f} "
              f"({f_without - f_with:+.4f})")
        total["pages"] += len(records)
        total["changed"] += changed
        total["with"] += f_with * len(records)
        total["without"] += f_without * len(records)
    pages = total["pages"]
    print(f"all {int(pages)} pages: {int(total['changed'])} texts changed; "
          f"body F1 with {total['with'] / pages:.4f}, without {total['without'] / pages:.4f} (page-weighted)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
