"""The HTML site-health report opened in headless Chromium: it renders (a screenshot with content),
one table row per site, the site with an alarm first, nothing fetched, no console error.
Skipped without a ``chromium`` binary (``apt-get install -y chromium``, as .ci/run does)."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from chromium import chromium, open_page
from lxml import html as lxml_html

from newscrawl.health import report
from newscrawl.health.history import RunRecord

pytestmark = pytest.mark.skipif(chromium() is None, reason="no chromium binary on PATH "
                                "(apt-get install -y chromium; .ci/run installs it)")
NOW = datetime(2026, 11, 27, 6, 0, tzinfo=UTC)
SITES = ["alpha", "bravo", "<b>charlie</b> & co", "delta", "echo"]


def history(bad: str = "delta", days: int = 40) -> dict[str, list[RunRecord]]:
    rng = random.Random(7)
    out = {}
    for site in SITES:
        runs = []
        for d in range(days):
            broken = site == bad and d == days - 1
            runs.append(RunRecord(
                site=site, started=(NOW - timedelta(days=days - d)).isoformat(), exported=rng.randint(40, 60),
                listed=70, fetched=62, listing_requests=4, responses=70,
                body_median=300.0 if broken else float(rng.randint(1800, 2200)), body_p10=700.0,
                share_title=1.0, share_date=0.1 if broken else 0.95, share_authors=0.8,
                dropped={"no_text": rng.randint(0, 3), "duplicate_content": rng.randint(0, 2)}))
        out[site] = runs
    return out


def write_report(tmp_path: Path, hist: dict) -> Path:
    page = tmp_path / "report.html"
    built = report.from_history(hist, since=NOW - timedelta(days=90), now=NOW, days=90)
    page.write_text(report.to_html(built), encoding="utf-8")
    return page


def test_report_renders_in_chromium_with_the_alarm_first(tmp_path):
    from PIL import Image

    page = write_report(tmp_path, history())
    opened = open_page(page, tmp_path)
    assert opened.console == []
    image = Image.open(opened.screenshot).convert("RGB")
    colours = image.getcolors(maxcolors=1 << 20)
    assert colours is not None and len(colours) > 50, "the screenshot is (nearly) blank"
    assert (253, 236, 234) in {c for _, c in colours}, "no alarm-red row background painted"

    dom = lxml_html.fromstring(opened.dom)
    rows = dom.xpath("//table/tbody/tr")
    assert [r.get("data-site") for r in rows][0] == "delta"
    assert sorted(r.get("data-site") for r in rows) == sorted(SITES)  # one row per site, names escaped
    assert rows[0].get("class") == "alarm" and all(r.get("class") == "ok" for r in rows[1:])
    assert "median body length halved" in rows[0].text_content()
    assert len(rows[0].xpath(".//svg")) == 4
    assert not dom.xpath("//script") and not dom.xpath("//*[@src]")
    assert not dom.xpath("//link[@href]")


def test_console_errors_are_seen(tmp_path):
    """The console check above can fail: a page with a script error is caught."""
    page = tmp_path / "broken.html"
    page.write_text("<html><body>x<script>console.error('boom'); noSuchFunction();</script></body></html>",
                    encoding="utf-8")
    opened = open_page(page, tmp_path)
    assert any("boom" in line for line in opened.console)
    assert any("noSuchFunction" in line for line in opened.console)
