"""Parts of a page that React streams in after the first paint, put where the browser puts them.

React's streaming server rendering (Next.js' App Router, Remix) sends a page's slow parts — often
the article itself — after the rest, at the end of the document: each in a hidden
``<div hidden id="S:n">`` segment, with an inline script that moves it into its place in the
page.  ``$RC("B:n","S:m")`` completes a Suspense boundary: the segment replaces the boundary's
``<template id="B:n">`` and the fallback after it ("Loading paragraph…", a skeleton).
``$RS("S:m","P:n")`` replaces the placeholder ``<template id="P:n">``.  A reader's browser runs
those scripts; without them the story is hidden text at the page's end and the body holds the
placeholders.

:func:`place_streamed_segments` moves each segment as the scripts would, before the clean-up
drops scripts and templates.  Where the page was saved without the scripts, a segment
goes to the boundary or placeholder of its own number (React numbers them alike).
"""

from __future__ import annotations

import re

from lxml import html

# $RC("B:0","S:0") and $RS("S:1","P:1"): React's inline instructions.
_INSTRUCTION = re.compile(r'\$R([CS])\("([BPS]:[0-9a-z]{1,12})","([BPS]:[0-9a-z]{1,12})"\)')
_SEGMENT_MARK = re.compile(r'<div hidden(?:="")? id="S:')
FALLBACK_CHARS = 40  # a loading message is shorter


def place_streamed_segments(root: html.HtmlElement, text: str) -> int:
    """Move each streamed segment of ``root`` (parsed from ``text``) into its boundary or
    placeholder; returns how many were moved."""
    if not _SEGMENT_MARK.search(text):
        return 0
    segments = {el.get("id"): el for el in root.iter("div")
                if el.get("hidden") is not None and (el.get("id") or "").startswith("S:")}
    targets = {el.get("id"): el for el in root.iter("template") if (el.get("id") or "")[:2] in ("B:", "P:")}
    if not segments or not targets:
        return 0
    pairs: list[tuple[str, str]] = []  # (target id, segment id), in the order the scripts run
    for script in root.iter("script"):
        for kind, first, second in _INSTRUCTION.findall(script.text or ""):
            pairs.append((first, second) if kind == "C" else (second, first))
    named = {segment for _, segment in pairs}
    for segment in segments:
        if segment not in named:
            number = segment[2:]
            pairs.append((f"B:{number}" if f"B:{number}" in targets else f"P:{number}", segment))
    moved = 0
    for target_id, segment_id in pairs:
        target, segment = targets.get(target_id), segments.pop(segment_id, None)
        if target is None or segment is None or target.getparent() is None or \
                any(above is segment for above in target.iterancestors()):
            continue  # nowhere to go, or a target inside its own segment (no browser moves that)
        if target_id.startswith("B:"):
            _drop_fallback(target)
        _replace(target, segment)
        moved += 1
    return moved


def _drop_fallback(boundary: html.HtmlElement) -> None:
    """Remove the fallback React shows after ``boundary`` until the segment arrives: text or one
    element right after it that reads as a loading message (under :data:`FALLBACK_CHARS`,
    ending in an ellipsis: "Loading paragraph...", "Загрузка…") or holds no text at all (a
    skeleton of grey bars).  (The parser drops the comments that end a boundary, so the
    fallback is recognised by its look.)"""
    tail = boundary.tail or ""
    if tail.strip():
        if _loading(tail):
            boundary.tail = None
        return
    following = boundary.getnext()
    if following is None or not isinstance(following.tag, str) or following.tag in ("template", "script"):
        return
    shown = "".join(following.itertext())
    if shown.strip() and not _loading(shown):
        return
    boundary.tail = (boundary.tail or "") + (following.tail or "")
    following.getparent().remove(following)


def _loading(text: str) -> bool:
    text = text.strip()
    return len(text) < FALLBACK_CHARS and text.endswith(("...", "…"))


def _replace(target: html.HtmlElement, segment: html.HtmlElement) -> None:
    """Put ``segment``'s content where ``target`` is, and remove both (each step O(1): a page of
    thousands of boundaries under one parent costs linear time)."""
    parent = target.getparent()
    after_target = target.tail
    target.tail = None
    if segment.text:
        _append_text_before(target, segment.text)
    last = target
    for child in list(segment):
        last.addnext(child)  # moves the child, with its tail, out of the segment
        last = child
    if after_target:
        if last is target:
            _append_text_before(target, after_target)
        else:
            last.tail = (last.tail or "") + after_target
    parent.remove(target)
    holder = segment.getparent()
    if holder is not None:
        if segment.tail:
            _append_text_before(segment, segment.tail)
            segment.tail = None
        holder.remove(segment)


def _append_text_before(el: html.HtmlElement, text: str) -> None:
    """Add ``text`` right before ``el``: to its previous sibling's tail, or its parent's text."""
    previous = el.getprevious()
    if previous is not None:
        previous.tail = (previous.tail or "") + text
    else:
        parent = el.getparent()
        parent.text = (parent.text or "") + text
