"""One record from an article's pages: the pages' extracted fields joined in page order.

The spider follows an article's pager (:mod:`newscrawl.spiders.pages`) and hands the extract
stage one :class:`~newscrawl.items.ArticleItem` with the first page's body and the continuation
pages (``more_pages``).  Each page is extracted by the normal extraction
(:func:`~newscrawl.pipelines.extraction.extract_fields`); :func:`join_pages` joins their
``text``, ``markdown`` and ``html`` in page order, leaving out the lines that several pages
repeat (the lead once kept: :func:`repeated_lines`), and sets ``pages``.  The other fields (title, date,
authors, ...) are the first page's.

:class:`~newscrawl.state.seen_urls.SeenUrls` records the continuation URLs (``page_urls``) of an
exported article beside its first URL, so that a later run that finds one listed skips it
(``already_exported``) instead of exporting that page alone.
"""

from __future__ import annotations

from lxml import html as lxml_html

from ..extract.record import word_count

PAGES_STATS = "newscrawl/pages/"
REPEATED_LEAD_LINES = 3  # leading lines of the first page that other pages may repeat (a lead)
_MARKUP = "#>*_-+` \t"


def _lines(text: str | None) -> list[str]:
    return [" ".join(line.split()) for line in (text or "").split("\n") if line.strip()]


def _drop_markdown(markdown: str, dropped: set[str]) -> str:
    return "\n\n".join(block for block in markdown.split("\n\n")
                        if " ".join(block.strip(_MARKUP).split()) not in dropped)


def _drop_html(rendered: str, dropped: set[str]) -> str:
    try:
        parts = lxml_html.fragments_fromstring(rendered)
    except Exception:  # noqa: BLE001 - a rendering lxml cannot read again is joined as it is
        return rendered
    return "".join(lxml_html.tostring(part, encoding="unicode", with_tail=False) for part in parts
                   if not isinstance(part, str) and " ".join(part.text_content().split()) not in dropped)


def repeated_lines(pages: list[dict]) -> tuple[set[str], set[str]]:
    """``(lines left out of the first page, lines left out of the others)``.

    An article's own paragraphs are not repeated from page to page; a line extracted from two
    pages or more is the page's furniture (a rating widget, a teaser) and is left out of every
    page, unless it is one of the first page's leading lines: a lead the portal repeats at the
    top of each page is kept once, on the first page."""
    counts: dict[str, int] = {}
    for page in pages:
        for line in set(_lines(page.get("text"))):
            counts[line] = counts.get(line, 0) + 1
    repeated = {line for line, count in counts.items() if count > 1}
    lead = set(_lines(pages[0].get("text"))[:REPEATED_LEAD_LINES]) & repeated
    return repeated - lead, repeated


def continued(pages: list[dict]) -> list[dict]:
    """The pages up to the first that repeats the pages before it (half its lines or more: the
    article again, under a pager that was not the article's), which ends the article."""
    kept, seen = pages[:1], set(_lines(pages[0].get("text")))
    for page in pages[1:]:
        lines = _lines(page.get("text"))
        if not lines or 2 * sum(line in seen for line in lines) >= len(lines):
            break
        kept.append(page)
        seen.update(lines)
    return kept


def join_pages(pages: list[dict]) -> dict:
    """The first page's fields with the bodies of its :func:`continued` pages joined in order
    (:func:`repeated_lines` left out); ``pages`` = how many."""
    pages = continued(pages)
    joined = dict(pages[0])
    first_dropped, dropped = repeated_lines(pages) if len(pages) > 1 else (set(), set())
    lines, markdown, rendered = [], [], []
    images, links = [], []
    capped: dict[str, int] = {}
    seconds = 0.0
    for number, page in enumerate(pages):
        left_out = first_dropped if number == 0 else dropped
        lines.extend(line for line in (page.get("text") or "").split("\n")
                     if " ".join(line.split()) not in left_out)
        if page.get("markdown"):
            markdown.append(_drop_markdown(page["markdown"], left_out) if left_out else page["markdown"])
        if page.get("html"):
            rendered.append(_drop_html(page["html"], left_out) if left_out else page["html"])
        known = {image.get("url") for image in images}
        images.extend(image for image in page.get("images") or () if image.get("url") not in known)
        known_links = {link.get("url") for link in links}
        links.extend(link for link in page.get("links") or () if link.get("url") not in known_links)
        for part, count in (page.get("capped") or {}).items():
            capped[part] = capped.get(part, 0) + count
        seconds += page.get("extraction_seconds") or 0.0
    if len(pages) > 1:
        joined["text"] = "\n".join(line for line in lines if line.strip())
    if joined.get("markdown") is not None:
        joined["markdown"] = "\n\n".join(part for part in markdown if part)
    if joined.get("html") is not None:
        joined["html"] = "".join(rendered)
    joined.update(images=images, links=links, capped=capped, pages=len(pages), extraction_seconds=seconds)
    if len(pages) > 1:
        joined["word_count"] = word_count(joined["text"])
        joined.pop("fingerprint", None)  # the joined text's fingerprint is computed at the export gate
    return joined
