"""Double-encoded pages (UTF-8 or GBK bytes read as windows-1252, then saved as UTF-8) are repaired,
and no correctly decoded page is touched."""

import gzip
import json
from pathlib import Path

import ftfy.bad_codecs  # noqa: F401 - the "sloppy-windows-1252" codec a browser's windows-1252 is
import pytest
import pytest_twisted
from conftest import crawl_settings, read_jsonl, run_crawl, site_spider

from newscrawl.extract import extract
from newscrawl.extract.encoding import decode_html
from newscrawl.extract.mojibake import repair_double_encoding
from newscrawl.extract.page import Page

DATASETS = Path(__file__).resolve().parents[2] / "shared" / "datasets"

ZH_TITLE = "市政府公布今年新建公园名单"
ZH_BODY = [
    "本报讯 记者昨日从市政府获悉，今年全市共新建公园十二座，总面积超过三百公顷，惠及周边数十万居民。",
    "市园林局负责人表示，新建公园将在五月底前全部向市民免费开放，并配套建设停车场、公共厕所和儿童游乐设施。",
    "据介绍，明年还将继续推进城市绿道建设，力争让市民出门五百米就能见到绿地，出门一公里就能走进公园。",
]
DE_TITLE = "Für die Brücke über die Müritz beginnen die Bauarbeiten"
DE_BODY = [
    "Die Bauarbeiten für die neue Brücke über die Müritz beginnen im Frühjahr, teilte das Straßenbauamt am Dienstag mit. "
    "Während der Arbeiten wird der Verkehr über eine Behelfsbrücke geführt.",
    "Anwohner äußerten in einer Versammlung Sorgen über Lärm und über die Zufahrt zu ihren Grundstücken.",
]


def page_html(title: str, body: list[str]) -> str:
    paragraphs = "".join(f"<p>{p}</p>" for p in body)
    return (f'<html><head><meta charset="utf-8"><title>{title}</title></head>'
            f"<body><article><h1>{title}</h1>{paragraphs}</article></body></html>")


def double_encoded(html: str, inner: str) -> bytes:
    """``html`` saved as ``inner``, read back as a browser reads windows-1252, saved again as UTF-8."""
    return html.encode(inner).decode("sloppy-windows-1252").encode("utf-8")


@pytest.mark.parametrize("inner", ["gbk", "utf-8"])
def test_a_double_encoded_chinese_page_is_repaired(inner):
    data = double_encoded(page_html(ZH_TITLE, ZH_BODY), inner)
    assert "市政府" not in data.decode("utf-8")  # the bytes themselves are mojibake
    page = Page.from_html(data, url="http://127.0.0.1/a.html")
    assert page.encoding_repaired == ("gbk" if inner == "gbk" else "utf-8")
    article = extract(data, url="http://127.0.0.1/a.html")
    assert article.title == ZH_TITLE
    assert article.text.split("\n") == ZH_BODY


def test_latin_text_is_left_alone():
    """German under windows-1252 is text, even where its bytes happen to be valid GBK ("für" is)."""
    html = page_html(DE_TITLE, DE_BODY)
    assert repair_double_encoding(html) == (html, None)
    page = Page.from_html(html.encode("cp1252"), content_type="text/html; charset=windows-1252")
    assert page.encoding_repaired is None
    assert "Müritz" in page.text


def test_correct_chinese_and_lossy_mojibake_are_left_alone():
    html = page_html(ZH_TITLE, ZH_BODY)
    assert repair_double_encoding(html) == (html, None)
    lossy = html.encode("utf-8").decode("cp1252", errors="replace")  # U+FFFD: the bytes are gone
    assert repair_double_encoding(lossy) == (lossy, None)


def test_double_encoded_runs_in_a_page_decoded_right_are_repaired():
    """A CMS pasted mojibake into a page that is otherwise right (its "Müritz" and "Lâcher" stay)."""
    runs = {"Earth’s": "latin-1", "isn’t": "sloppy-windows-1252", "Тимофей набрал": "cp1251"}
    body = [*DE_BODY, "Le club de lecture « Lâcher prise » se réunit à Noël."]
    body += [f"The report on {moj} was read twice." for moj in
             (run.encode("utf-8").decode(codec) for run, codec in runs.items())]
    assert "Earth’s" not in "".join(body)
    data = page_html(DE_TITLE, body).encode("utf-8")
    assert Page.from_html(data).encoding_repaired == "utf-8-runs"  # counted in a crawl's stats
    article = extract(data, url="http://127.0.0.1/a.html")
    assert article.text.split("\n") == [*body[:3], *(f"The report on {run} was read twice." for run in runs)]


def _mixed_texts(count: int, seed: int = 7) -> list[str]:
    """Short pages of ASCII, Latin-1/Windows-1252 and CJK text, and of UTF-8 and GBK mojibake
    (with GBK characters whose trail byte is ASCII), beside spaces, digits and punctuation."""
    import random

    rng = random.Random(seed)
    mojibake = [double_encoded(t, inner).decode("utf-8") for t in ("市政府", "丂丄", "für", "公园—")
                for inner in ("utf-8", "gbk")]
    pieces = ["<p>", "</p>", " ", ".", ",", "x", "7", ":", "\n", "é", "ü", "’", "—", "€", "©", "中文",
              "Müritz", "\x81", "0", "@", *mojibake]
    plain = ["<p>", " ", ".", "x", "7", ":"]  # beside which mojibake stays repairable
    texts = []
    for _ in range(count):
        parts = rng.choices(pieces, k=rng.randint(1, 40))
        if rng.random() < 0.5:  # mostly one double-encoded text
            inner = rng.choice(mojibake)
            parts = [inner * rng.randint(5, 15), *rng.choices([inner, *plain], k=rng.randint(0, 20)),
                     *parts[: rng.randint(0, 3)]]
        texts.append("".join(parts))
    return texts


def test_the_pre_check_only_skips_pages_the_full_check_leaves_alone():
    """repair_double_encoding's regex pre-check gives what the encode-and-decode path gives."""
    from newscrawl.extract.mojibake import _repair

    texts = _mixed_texts(4000)
    assert [repair_double_encoding(t) for t in texts] == [_repair(t) for t in texts]
    assert sum(1 for t in texts if _repair(t)[1]) > 100  # the sample does reach both repairs


@pytest.mark.skipif(not DATASETS.is_dir(), reason="../shared/datasets is not present")
def test_no_correctly_decoded_evaluation_page_changes():
    changed = []
    for truth in sorted(DATASETS.glob("*/truth.jsonl")):
        for line in filter(None, truth.read_text(encoding="utf-8").split("\n")):
            row = json.loads(line)
            text = decode_html(gzip.decompress((truth.parent / row["file"]).read_bytes()))
            if repair_double_encoding(text)[1]:
                changed.append(f"{truth.parent.name}/{row['id']}")
    assert changed == []


@pytest_twisted.ensureDeferred
async def test_the_crawl_repairs_and_counts_double_encoded_pages(http_server, tmp_path):
    s = http_server
    bad = s.add("/zh.html", double_encoded(page_html(ZH_TITLE, ZH_BODY), "gbk"),
                headers={"Content-Type": "text/html; charset=utf-8"})
    good = s.add("/de.html", page_html(DE_TITLE, DE_BODY).encode("utf-8"),
                 headers={"Content-Type": "text/html; charset=utf-8"})
    feed = ('<?xml version="1.0" encoding="utf-8"?><rss version="2.0"><channel><title>F</title>'
            f"<item><title>{ZH_TITLE}</title><link>{bad}</link></item>"
            f"<item><title>{DE_TITLE}</title><link>{good}</link></item></channel></rss>")
    s.add("/feed.xml", feed, headers={"Content-Type": "application/rss+xml"})
    out = tmp_path / "out.jsonl"
    crawler = await run_crawl(site_spider(feeds=[s.url("/feed.xml")]), crawl_settings(tmp_path, out))
    items = {i["url"]: i for i in read_jsonl(out)}
    assert items[bad]["title"] == ZH_TITLE
    assert items[bad]["text"].split("\n") == ZH_BODY
    assert items[good]["title"] == DE_TITLE
    assert crawler.stats.get_value("newscrawl/extract/encoding_repaired/gbk") == 1
    assert crawler.stats.get_value("newscrawl/extract/encoding_repaired/utf-8") is None
