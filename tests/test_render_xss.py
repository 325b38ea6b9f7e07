"""Hostile markup never reaches ``html`` or ``markdown``.

The vectors follow the classes of OWASP's XSS Filter Evasion Cheat Sheet: script and style
elements, event-handler attributes, ``javascript:``/``vbscript:``/``data:`` URLs (cased,
entity-encoded, split by white space or control characters), embedded frames and objects,
SVG and MathML with script, a hostile ``<base>``, attribute break-outs, and Markdown injection
through link text and alt text.  Both renderings are read back as a browser and a Markdown
reader would (lxml; markdown-it-py with raw HTML on, its CommonMark default) and checked
against the allow-list.
"""

import re

import pytest
from lxml import html as lxml_html

from newscrawl.evaluation.rich import _reader
from newscrawl.extract import extract
from tests.pages import english_article

VECTORS = [
    "<script>alert('s1')</script>",
    "<SCRIPT SRC=https://xss.example/xss.js></SCRIPT>",
    "<img src=x onerror=alert('img1')>",
    "<img src=\"https://ok.example/a.jpg\" onload=\"alert('img2')\" alt='\"><script>alert(1)</script>'>",
    "<a href=\"javascript:alert('a1')\">click javascript one</a>",
    "<a href=\"JaVaScRiPt:alert('a2')\">click javascript two</a>",
    "<a href=\"&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;alert('a3')\">entity link</a>",
    "<a href=\"jav&#x09;ascript:alert('a4')\">tab link</a>",
    "<a href=\" &#14;  javascript:alert('a5')\">control link</a>",
    "<a href=\"vbscript:msgbox('a6')\">vb link</a>",
    "<a href=\"data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==\">data link</a>",
    "<img src=\"data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+\">",
    "<iframe src=\"https://evil.example/\"></iframe><object data=\"https://evil.example/x.swf\"></object>",
    "<embed src=\"https://evil.example/x.swf\"><applet code=x></applet>",
    "<svg onload=alert('svg1')><script>alert('svg2')</script><a xlink:href=\"javascript:alert(3)\">s</a></svg>",
    "<math><mtext><table><mglyph><style><img src=x onerror=alert('m1')></style></mglyph></table></mtext></math>",
    "<style>@import 'javascript:alert(1)';</style><p style=\"background:url(javascript:alert(1))\">styled p</p>",
    "<p onclick=\"alert('p1')\" onmouseover=alert(2)>A paragraph with handlers that stays as text.</p>",
    "<form action=\"javascript:alert(1)\"><button formaction=javascript:alert(2)>b</button><input onfocus=alert(3)></form>",
    "<a href=\"https://ok.example/\">evil](javascript:alert('md1'))</a>",
    "<p>[injected](javascript:alert('md2')) and ![img](javascript:alert('md3')) and <b>**bold**</b></p>",
    "<p>&lt;script&gt;alert('md4')&lt;/script&gt; &lt;img src=x onerror=alert(5)&gt;</p>",
    "<a href=\"https://ok.example/a) [x](javascript:alert('md6')\">paren link</a>",
    "<img src=\"https://ok.example/b.jpg\" alt=\"](javascript:alert('md7'))\">",
    "<a href=\"https://ok.example/\" title=\"x\" onclick=\"alert('a7')\" style=\"x\">titled link</a>",
    "<video src=x onerror=alert(1)></video><audio src=x onerror=alert(1)></audio>",
    "<details open ontoggle=alert(1)><summary>summary text</summary></details>",
    "<a href=\"java\x00script:alert('a8')\">null link</a>",
    "<meta http-equiv=\"refresh\" content=\"0;url=javascript:alert(1)\">",
    "<link rel=stylesheet href=\"javascript:alert(1)\">",
    "<table background=\"javascript:alert(1)\"><tr><td onmouseover=alert(1)>cell one</td><td>cell two</td></tr></table>",
]

HTML_TAGS = {"p", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li", "blockquote", "table", "thead", "tbody", "tr",
             "th", "td", "figure", "img", "figcaption", "a", "em", "strong", "br", "pre", "code", "sub", "sup"}
ATTRIBUTES = {"a": {"href"}, "img": {"src", "alt"}}
SAFE_URL = re.compile(r"^(?:https?://|mailto:)", re.IGNORECASE)


def hostile_page(vector: str, base: str = "") -> str:
    body = "".join(f"<p>Paragraph {i} of the hostile story, long enough to read as prose in the body.</p>"
                   for i in range(3))
    page = english_article(extra_body=body + vector + body.replace("Paragraph", "Closing paragraph"))
    return page.replace("<head>", f"<head>{base}")


def assert_safe_html(fragment: str, where: str) -> None:
    if not fragment.strip():
        return
    root = lxml_html.fragment_fromstring(fragment, create_parent="div")
    for el in root.iter():
        if el is root:
            continue
        assert isinstance(el.tag, str), f"{where}: comment or PI in output"
        assert el.tag in HTML_TAGS, f"{where}: <{el.tag}> is not allow-listed"
        for name, value in el.attrib.items():
            assert name in ATTRIBUTES.get(el.tag, set()), f"{where}: attribute {name} on <{el.tag}>"
            if name in ("href", "src"):
                assert SAFE_URL.match(value), f"{where}: unsafe URL {value!r}"
                assert "javascript" not in value.lower() or "%" in value or value.startswith("https://ok.example")


@pytest.mark.parametrize("vector", VECTORS)
def test_hostile_markup_never_reaches_html_or_markdown(vector):
    article = extract(hostile_page(vector), url="https://example.com/news/1")
    assert "Paragraph 0 of the hostile story" in article.text  # the vector sat in the body
    assert_safe_html(article.html, "html")
    # The Markdown as a reader with raw HTML enabled renders it.
    rendered = _reader().render(article.markdown)
    assert_safe_html(rendered, "markdown")
    root = lxml_html.fragment_fromstring(article.html or "<p></p>", create_parent="div")
    md_root = lxml_html.fragment_fromstring(rendered or "<p></p>", create_parent="div")
    # No link or image appears in the Markdown that is not in the HTML (no injection via text).
    assert len(md_root.xpath("//a")) == len(root.xpath("//a"))
    assert len(md_root.xpath("//img")) == len(root.xpath("//img"))
    for image in article.images:
        assert SAFE_URL.match(image["url"])


def test_a_hostile_base_href_does_not_turn_links_into_script():
    page = hostile_page('<a href="/relative">relative link text</a><img src="/a.jpg">',
                        base='<base href="javascript:alert(1)//">')
    article = extract(page, url="https://example.com/news/1")
    assert_safe_html(article.html, "html")
    assert_safe_html(_reader().render(article.markdown), "markdown")
    assert "javascript" not in article.markdown.lower() and "javascript" not in article.html.lower()
