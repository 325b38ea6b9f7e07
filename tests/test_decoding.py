"""Decoding page bytes as browsers do (WHATWG HTML §13.2.3.2), and parsing whatever the decoder gives.

Pages are written here in Chinese, English, Russian and Japanese; each test asserts the
decoded title and body text.
"""

import pytest
import pytest_twisted
from conftest import crawl_settings, read_jsonl, run_crawl, site_spider

from newscrawl.extract import ExtractionError, extract
from newscrawl.extract.dom import decode_html, parse_html, render_paragraphs
from newscrawl.extract.encoding import (
    declared_encoding,
    detect_encoding,
    encoding_for_label,
    prescan,
    transport_encoding,
    xml_declaration_encoding,
)
from newscrawl.extract.page import Page

ZH = "<html><head><title>新闻</title></head><body><p>本报讯 记者昨日从市政府获悉，今年全市共新建公园十二座。</p></body></html>"

ZH_TITLE = "市政府公布今年新建公园名单"
ZH_BODY = [
    "本报讯 记者昨日从市政府获悉，今年全市共新建公园十二座，总面积超过三百公顷，惠及周边数十万居民。",
    "市园林局负责人表示，新建公园将在五月底前全部向市民免费开放，并配套建设停车场、公共厕所和儿童游乐设施。",
    "据介绍，明年还将继续推进城市绿道建设，力争让市民出门五百米就能见到绿地，出门一公里就能走进公园。",
]
RU_TITLE = "Городской совет утвердил бюджет на следующий год"
RU_BODY = [
    "Во вторник вечером депутаты городского совета обсуждали новый бюджет и спорили о том, сколько денег выделить школам.",
    "Несколько жителей выступили на публичных слушаниях и попросили оставить библиотеку открытой по выходным дням.",
    "Мэр сообщил, что окончательное голосование пройдёт в следующем месяце, после того как комиссия опубликует выводы.",
]
EN_TITLE = "Harbour bridge reopens after two years of repairs"
EN_BODY = [
    "The harbour bridge reopened to traffic on Monday morning after two years of repairs that cost the city "
    "far more than the engineers had first estimated when the work began.",
    "Commuters who had spent months on crowded ferries welcomed the news, and the first buses crossed the "
    "bridge shortly after six o'clock to the applause of a small crowd on the pavement.",
    "The transport department said that cyclists will get a separate lane from next week, once the last "
    "railings have been painted and the lamps along the footpath have been tested.",
]
JA_TITLE = "市議会が来年度の予算案を可決"
JA_BODY = [
    "市議会は火曜日の夜に本会議を開き、来年度の予算案を賛成多数で可決しました。学校の改修費が大きく増えます。",
    "傍聴席には多くの市民が詰めかけ、週末も図書館を開けてほしいという声が相次ぎました。①番目の議題です。",
    "市長は来月、財政委員会の報告を受けて補正予算の編成に着手する考えを示しました。",
]


def page_html(title: str, body: list[str], head: str = "", before: str = "") -> str:
    paragraphs = "".join(f"<p>{p}</p>" for p in body)
    return (f"{before}<html><head>{head}<title>{title}</title></head><body>"
            f"<article><h1>{title}</h1>{paragraphs}</article></body></html>")


def decoded(data: bytes | str, content_type: str | None = None) -> tuple[str, list[str]]:
    """The page's ``<title>`` and body paragraphs after the ``<h1>``, as the extraction sees them."""
    page = Page.from_html(data, content_type=content_type)
    heading, *paragraphs = render_paragraphs(page.body)
    assert heading == page.title_tag
    return page.title_tag, paragraphs


def test_header_charset_then_meta_then_sniffing():
    gbk = ZH.encode("gbk")
    assert decode_html(gbk, "text/html; charset=gbk") == ZH
    meta = ZH.replace("<head>", '<head><meta charset="gbk">')
    assert decode_html(meta.encode("gbk"), "text/html") == meta
    undeclared = (ZH * 3).encode("gb18030")
    assert decode_html(undeclared, "text/html") == ZH * 3


def test_utf8_bytes_under_a_legacy_declaration_are_read_as_utf8():
    page = ZH.replace("<head>", '<head><meta charset="gb2312">')
    assert decode_html(page.encode("utf-8"), None) == page


def test_bom_wins():
    assert decode_html("\ufeff<p>é</p>".encode("utf-8"), "text/html; charset=latin-1") == "<p>é</p>"


def test_bom_beats_header_and_meta():
    ru = page_html(RU_TITLE, RU_BODY, head='<meta charset="windows-1251">')
    assert decoded(b"\xef\xbb\xbf" + ru.encode("utf-8"), "text/html; charset=gbk") == (RU_TITLE, RU_BODY)
    zh = page_html(ZH_TITLE, ZH_BODY, head='<meta charset="utf-8">')
    assert decoded(b"\xff\xfe" + zh.encode("utf-16-le"), "text/html; charset=utf-8") == (ZH_TITLE, ZH_BODY)


def test_header_beats_meta_and_meta_beats_detection():
    ru = page_html(RU_TITLE, RU_BODY, head='<meta charset="koi8-r">').encode("cp1251")
    assert decoded(ru, "text/html; charset=windows-1251") == (RU_TITLE, RU_BODY)
    ru_meta = page_html(RU_TITLE, RU_BODY, head='<meta http-equiv="Content-Type" content="text/html; charset=windows-1251">')
    assert decoded(ru_meta.encode("cp1251"), "text/html") == (RU_TITLE, RU_BODY)


def test_the_prescan_skips_comments_and_the_attributes_of_other_tags():
    head = ('<!-- <meta charset="koi8-r"> --><link title=\'<meta charset="koi8-r">\' href="/a.css">'
            '<meta name="description" content="charset=koi8-r"><meta charset="windows-1251">')
    ru = page_html(RU_TITLE, RU_BODY, head=head).encode("cp1251")
    assert prescan(ru[:1024]) == "windows-1251"
    assert decoded(ru) == (RU_TITLE, RU_BODY)


@pytest.mark.parametrize(
    ("head", "expected"),
    [
        (b'<meta http-equiv="Content-Type" content="text/html; charset=gbk">', "gbk"),
        (b"<meta content='text/html; charset=\"gbk\"' http-equiv=content-type>", "gbk"),
        (b'<meta content="text/html; charset=gbk">', None),  # a content charset needs the pragma
        (b"<meta charset=no-such-thing><meta charset=latin1>", "windows-1252"),
        (b"<!--><meta charset=shift_jis>", "shift_jis"),  # "<!-->" is a whole comment
        (b"<meta charset=x-user-defined>", "windows-1252"),
        (b"<meta charset=unicodeFFFE>", "utf-8"),
        (b"<meta charset=iso-2022-kr>", None),  # the "replacement" encoding: no declaration
        (b'<meta charset="gbk"', "gbk"),  # the value is whole; the tag ran out
        (b"<meta charset=gbk", None),  # the bytes ran out inside the value
        (b"<\x00?\x00x\x00m\x00l\x00", "utf-16le"),
    ],
)
def test_prescan_steps(head, expected):
    assert prescan(head) == expected


def test_the_prescan_reads_the_first_1024_bytes_and_a_later_meta_changes_a_tentative_encoding():
    filler = "<link rel=preload href='/static/app.js'>" * 30
    ru = page_html(RU_TITLE, RU_BODY, head=filler + '<meta charset="windows-1251">').encode("cp1251")
    assert ru.index(b"<meta") > 1024
    assert prescan(ru[:1024]) is None and prescan(ru) == "windows-1251"
    assert declared_encoding(ru) == "windows-1251"  # the tree builder's "change the encoding"
    assert decoded(ru) == (RU_TITLE, RU_BODY)
    cut = ru[:ru.index(b"<meta") + 8]  # a <meta> cut by the end of the window is not read
    assert prescan(cut) is None


def test_a_utf16_meta_label_means_utf8():
    zh = page_html(ZH_TITLE, ZH_BODY, head='<meta charset="utf-16">')
    assert declared_encoding(zh.encode("utf-8")) == "utf-8"
    assert decoded(zh.encode("utf-8")) == (ZH_TITLE, ZH_BODY)


def test_an_xml_declaration_claiming_utf16_on_ascii_bytes_means_utf8():
    en = page_html(EN_TITLE, EN_BODY, before='<?xml version="1.0" encoding="UTF-16"?>\n')
    assert xml_declaration_encoding(en.encode()) == "utf-8"
    assert decoded(en.encode("ascii")) == (EN_TITLE, EN_BODY)
    ru = page_html(RU_TITLE, RU_BODY, before='<?xml version="1.0" encoding="utf-16"?>')
    assert decoded(ru.encode("utf-8")) == (RU_TITLE, RU_BODY)
    # Real UTF-16 without a BOM is recognised by the bytes of "<?x" alone.
    assert decoded(ru.encode("utf-16-le")) == (RU_TITLE, RU_BODY)
    assert decoded(ru.encode("utf-16-be")) == (RU_TITLE, RU_BODY)


def test_the_xml_declaration_is_a_hint_after_the_meta_prescan():
    ru = page_html(RU_TITLE, RU_BODY, head='<meta charset="windows-1251">',
                   before='<?xml version="1.0" encoding="koi8-r"?>')
    assert decoded(ru.encode("cp1251")) == (RU_TITLE, RU_BODY)
    ru_xml_only = page_html(RU_TITLE, RU_BODY, before="<?xml version='1.0' encoding='windows-1251'?>")
    assert decoded(ru_xml_only.encode("cp1251")) == (RU_TITLE, RU_BODY)


@pytest.mark.parametrize(
    "declaration",
    [
        '<?xml version="1.0" encoding="utf-8"\n',  # never closed
        '<?xml version="1.0" encoding="utf-8">',  # closed without "?"
        '<?xml version="1.0" encoding="utf-16"?>',  # lying
        '<?xml version="1.0" encoding="no-such-codec"?>',  # unknown
        '<?xml version="1.0" encoding=utf-8?><?xml-stylesheet href="a.xsl"?>',  # broken, and a second PI
        '\ufeff <?xml version="1.0" encoding="utf-8"?>',  # after a BOM and a space
    ],
)
def test_a_page_with_a_broken_lying_or_unterminated_xml_declaration_is_extracted(declaration):
    html = page_html(EN_TITLE, EN_BODY, before=declaration + "<!DOCTYPE html>\n")
    for data in (html.encode("utf-8"), html):  # bytes, and a str already decoded
        article = extract(data)
        assert article.title == EN_TITLE
        assert article.text.split("\n") == EN_BODY


def test_a_lying_header_loses_to_the_bytes_when_its_decode_is_riddled_with_errors():
    # Browsers trust the header and show mojibake; the declared decode is replaced when
    # detection's has fewer U+FFFD (README "Reliability": a GBK page under a wrong charset header).
    zh = page_html(ZH_TITLE, ZH_BODY).encode("gbk")
    assert decoded(zh, "text/html; charset=utf-8") == (ZH_TITLE, ZH_BODY)
    zh_meta = page_html(ZH_TITLE, ZH_BODY, head='<meta charset="utf-8">').encode("gbk")
    assert decoded(zh_meta) == (ZH_TITLE, ZH_BODY)


def test_a_gbk_page_without_declaration_is_detected():
    zh = page_html(ZH_TITLE, ZH_BODY).encode("gbk")
    assert declared_encoding(zh) is None
    assert detect_encoding(zh) in ("gb18030", "gbk")
    assert decoded(zh, "text/html") == (ZH_TITLE, ZH_BODY)


def test_shift_jis_is_decoded_with_the_standards_decoder():
    # "①" is an NEC extension: in Windows-31J (the standard's Shift_JIS), not in Python's shift_jis.
    ja = page_html(JA_TITLE, JA_BODY, head='<meta http-equiv="content-type" content="text/html; charset=Shift_JIS">')
    assert decoded(ja.encode("cp932")) == (JA_TITLE, JA_BODY)
    assert decoded(page_html(JA_TITLE, JA_BODY).encode("cp932"), "text/html; charset=sjis") == (JA_TITLE, JA_BODY)


@pytest.mark.parametrize(
    ("label", "encoding"),
    [
        ("latin1", "windows-1252"), ("ISO-8859-1", "windows-1252"), ("ascii", "windows-1252"),
        ("us-ascii", "windows-1252"), ("gb2312", "gbk"), ("GBK", "gbk"), ("x-gbk", "gbk"),
        (" utf8 ", "utf-8"), ("unicode-1-1-utf-8", "utf-8"), ("x-unicode20utf8", "utf-8"),
        ("utf-16", "utf-16le"), ("ucs-2", "utf-16le"), ("unicodefffe", "utf-16be"), ("ms932", "shift_jis"),
        ("koi8-ru", "koi8-u"), ("ks_c_5601-1987", "euc-kr"), ("tis-620", "windows-874"),
        ("hz-gb-2312", None), ("iso-2022-kr", None), ("utf-7", None), ("hex", None), ("no-such", None),
    ],
)
def test_labels_resolve_as_the_encoding_standard_says(label, encoding):
    assert encoding_for_label(label) == encoding


def test_transport_charset_parameter():
    assert transport_encoding("text/html; charset=GB2312") == "gbk"
    assert transport_encoding('text/html; charset="windows-1251"') == "windows-1251"
    assert transport_encoding('text/html; title="a;charset=koi8-r"; charset=latin1') == "windows-1252"
    assert transport_encoding("text/html") is None and transport_encoding(None) is None


def test_legacy_encodings_decode_with_the_standards_decoders():
    # gbk is decoded as gb18030 (four-byte sequences, 0x80 as the euro sign); euc-kr as UHC.
    assert decode_html("<p>€ 𠀀</p>".encode("gb18030"), "text/html; charset=gbk") == "<p>€ 𠀀</p>"
    assert decode_html(b"<p>\x80</p>", "text/html; charset=gbk") == "<p>€</p>"
    assert decode_html("<p>똠</p>".encode("cp949"), "text/html; charset=euc-kr") == "<p>똠</p>"
    # x-user-defined from the header maps 0x80-0xFF to U+F780-U+F7FF (from a <meta> it is windows-1252).
    assert decode_html(b"<p>a\x80\xff</p>", "text/html; charset=x-user-defined") == "<p>a\uf780\uf7ff</p>"
    assert decode_html(b"<meta charset=x-user-defined><p>caf\xe9</p>") == "<meta charset=x-user-defined><p>café</p>"
    # a "replacement" label is no declaration: the bytes are detected instead of becoming one U+FFFD
    undeclared = decode_html(b"<p>caf\xe9 cr\xe8me br\xfbl\xe9e</p>", "text/html; charset=iso-2022-kr")
    assert undeclared.startswith("<p>caf") and undeclared.endswith("</p>") and "\ufffd" not in undeclared


def test_a_utf16_header_on_bytes_without_nuls_is_ignored():
    en = page_html(EN_TITLE, EN_BODY)
    assert decoded(en.encode("ascii"), "text/html; charset=utf-16") == (EN_TITLE, EN_BODY)
    assert decoded(en.encode("utf-16-le"), "text/html; charset=utf-16") == (EN_TITLE, EN_BODY)


@pytest.mark.parametrize(
    ("data", "reason"),
    [(b"", "empty"), (b"   \n ", "empty"), (b"\x89PNG\r\n\x1a\n....", "binary"), (b"%PDF-1.7 ...", "binary")],
)
def test_unusable_input_raises_extraction_error_with_a_reason(data, reason):
    with pytest.raises(ExtractionError) as info:
        extract(data)
    assert info.value.reason == reason


@pytest.mark.parametrize(
    ("dirt", "kept"),
    [("\x00", ""), ("\x01\x1b\x7f", ""), ("\ud800", "\ufffd"), ("\udc00", "\ufffd"), ("\ud83d\ude00", "😀")],
)
def test_the_parser_takes_nuls_controls_and_lone_surrogates(dirt, kept):
    filler = "x" * 5000  # past the first 4,096 characters too
    root = parse_html(f"<html><body><p>Be{dirt}fore</p><p>{filler}</p><p>af{dirt}ter</p><p>end</p></body></html>")
    assert render_paragraphs(root.find("body")) == [f"Be{kept}fore", filler, f"af{kept}ter", "end"]


def test_an_xml_declaration_that_never_ends_is_an_empty_page_not_a_stall():
    # lxml's own encoding-declaration check on a str is quadratic in this input.
    with pytest.raises(ExtractionError) as info:
        parse_html("<?xml version='1.0' encoding='utf-8'" + " " * 200_000 + "x")
    assert info.value.reason == "empty"


def test_paragraphs_follow_blocks_and_line_breaks():
    page = Page.from_html("<html><body><div>One<br>Two <b>bold</b><p>Three</p>Four</div></body></html>")
    assert render_paragraphs(page.body) == ["One", "Two bold", "Three", "Four"]


@pytest_twisted.ensureDeferred
async def test_the_crawl_decodes_articles_as_browsers_do(http_server, tmp_path):
    s = http_server
    pages = {
        "/ru.html": (RU_TITLE, RU_BODY, page_html(RU_TITLE, RU_BODY).encode("cp1251"),
                     "text/html; charset=windows-1251"),
        "/zh.html": (ZH_TITLE, ZH_BODY, page_html(ZH_TITLE, ZH_BODY, head='<meta charset="gb2312">').encode("gbk"),
                     "text/html"),
        "/ja.html": (JA_TITLE, JA_BODY, page_html(JA_TITLE, JA_BODY).encode("cp932"),
                     "text/html; charset=Shift_JIS"),
        "/en.html": (EN_TITLE, EN_BODY, page_html(EN_TITLE, EN_BODY, before='<?xml version="1.0" encoding="utf-16"')
                     .encode(), "text/html"),
    }
    entries = []
    for path, (title, _, body, content_type) in pages.items():
        entries.append(f"<item><title>{title}</title><link>{s.add(path, body, headers={'Content-Type': content_type})}"
                       "</link></item>")
    feed = f'<?xml version="1.0" encoding="utf-8"?><rss version="2.0"><channel><title>F</title>{"".join(entries)}</channel></rss>'
    s.add("/feed.xml", feed, headers={"Content-Type": "application/rss+xml"})
    out = tmp_path / "out.jsonl"
    await run_crawl(site_spider(feeds=[s.url("/feed.xml")]), crawl_settings(tmp_path, out))

    items = {i["url"]: i for i in read_jsonl(out)}
    assert set(items) == {s.url(p) for p in pages}
    for path, (title, body, _, _) in pages.items():
        assert items[s.url(path)]["title"] == title
        assert items[s.url(path)]["text"].split("\n") == body
