"""Item serialisation: stable columns, ISO dates, links as JSON in CSV, no raw body."""

from __future__ import annotations

import csv
import io
import json

from scrapy.exporters import JsonLinesItemExporter

from newscrawl.items import EXPORT_FIELDS, ArticleItem, CsvArticleExporter


def sample_item() -> ArticleItem:
    return ArticleItem(
        url="https://example.com/a/1.html",
        site="example",
        listing_title="Listing, with comma",
        title="Title",
        published="2024-05-12T08:30:00+02:00",
        text="Line one\nLine two",
        links=[{"text": "report", "url": "https://example.com/r"}, {"text": "b, c", "url": "https://x.org"}],
        body=b"<html>raw page bytes</html>",
        content_type="text/html",
    )


def test_csv_columns_and_links_as_json():
    buf = io.BytesIO()
    exporter = CsvArticleExporter(buf, fields_to_export=list(EXPORT_FIELDS))
    exporter.start_exporting()
    exporter.export_item(sample_item())
    exporter.finish_exporting()
    rows = list(csv.reader(io.StringIO(buf.getvalue().decode("utf-8"))))
    assert rows[0] == list(EXPORT_FIELDS)
    row = dict(zip(rows[0], rows[1], strict=True))
    assert json.loads(row["links"]) == sample_item().links
    assert row["listing_title"] == "Listing, with comma"
    assert row["text"] == "Line one\nLine two"
    assert "raw page bytes" not in buf.getvalue().decode()


def test_jsonlines_keeps_links_as_objects_and_never_the_body():
    buf = io.BytesIO()
    exporter = JsonLinesItemExporter(buf, fields_to_export=list(EXPORT_FIELDS))
    exporter.export_item(sample_item())
    data = json.loads(buf.getvalue())
    assert list(data) == list(EXPORT_FIELDS)
    assert data["links"][0] == {"text": "report", "url": "https://example.com/r"}
    assert data["published"] == "2024-05-12T08:30:00+02:00"
    assert b"raw page bytes" not in buf.getvalue()


def test_listing_fields_carry_over_to_the_article():
    listing = {"url": "https://e.com/1", "site": "e", "listing_title": "T", "feed_title": "F",
               "feed_summary": "S", "feed_published": "2024-01-01T00:00:00+00:00", "source": "feed"}
    item = ArticleItem.from_listing(listing, url="https://e.com/1-final")
    assert (item.url, item.listing_url, item.listing_title, item.feed_summary) == (
        "https://e.com/1-final", "https://e.com/1", "T", "S")
