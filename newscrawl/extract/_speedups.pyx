# cython: language_level=3, boundscheck=False, wraparound=False
"""Compiled per-element pass of ``auto``'s :class:`~newscrawl.extract.methods.auto.Gain`, and
py3langid's byte walk for :mod:`newscrawl.extract.language`.

What it computes is Wang et al.'s (2020) valid characters (Definition 1: the non-space
characters of a text node outside ``<a>`` that holds a stop word; the rest are noise, link
text counted apart) per element, and each element's markup weight and hidden flag
(:func:`~newscrawl.extract.hints.weigh_markup` of the key :func:`~newscrawl.extract.hints.markup_key`
gives) -- exactly what the Python loop at the top of ``Gain.__init__`` computes, which stays as
the fallback when this module is not built (or ``NEWSCRAWL_PURE_PYTHON=1``).
tests/test_speedups.py checks both give the same arrays on written pages and every dataset page.

It reads lxml's libxml2 nodes directly (struct fields only, no libxml2 call: lxml links libxml2
statically), so white-space-only text and tails (most of them: indentation) and attribute values
the markup key does not read never become Python strings.  What it reads mirrors lxml:

* ``.text`` / ``.tail``: the run of text and CDATA nodes from the first child / next sibling,
  XInclude markers skipped, concatenated (lxml's ``_collectText``);
* ``.items()``: an attribute's value is its single text child, "" without one (lxml's
  ``xmlGetNsProp``); the first of two same-named attributes wins, as there.

Anything else (comments, processing instructions, namespaced names, attribute values held in
several nodes) is read through the element's Python API, as the fallback does.

:func:`byte_walk` is py3langid's ``visit_counts`` (its Aho-Corasick walk over the UTF-8 bytes of
the sample), one C step per byte; language.py's numpy walk is the fallback.
"""

from cpython.unicode cimport PyUnicode_DecodeUTF8
from cpython.mem cimport PyMem_Calloc, PyMem_Free, PyMem_Malloc
from libc.stdint cimport int64_t, uint32_t
from libc.string cimport strcmp, strlen

from lxml.includes cimport tree
from lxml.includes.etreepublic cimport _Element, import_lxml__etree

import os

import numpy as np

if os.environ.get("NEWSCRAWL_PURE_PYTHON", "0") not in ("", "0"):
    raise ImportError("NEWSCRAWL_PURE_PYTHON is set: the pure-Python code runs")
import_lxml__etree()

cdef extern from "Python.h":
    bint Py_UNICODE_ISSPACE(Py_UCS4 ch)


cdef inline tree.xmlNode* _text_or_skip(tree.xmlNode* node) noexcept nogil:
    """lxml's ``_textNodeOrSkip``: ``node`` if a text or CDATA node, past XInclude markers,
    else NULL."""
    while node is not NULL:
        if node.type == tree.XML_TEXT_NODE or node.type == tree.XML_CDATA_SECTION_NODE:
            return node
        if node.type == tree.XML_XINCLUDE_START or node.type == tree.XML_XINCLUDE_END:
            node = node.next
            continue
        return NULL
    return NULL


cdef inline int _ascii_space(unsigned char c) noexcept nogil:
    # The ASCII characters str.isspace() accepts: \t \n \v \f \r, \x1c-\x1f and the space.
    return c == 32 or 9 <= c <= 13 or 28 <= c <= 31


cdef object _text(tree.xmlNode* first):
    """lxml's ``_collectText(first)`` when it is more than white space, else None."""
    cdef tree.xmlNode* node = _text_or_skip(first)
    cdef tree.xmlNode* start = node
    cdef const unsigned char* s
    cdef bint non_ascii = False
    cdef bint seen = False
    cdef int count = 0
    while node is not NULL:  # look before decoding: most text here is indentation
        s = <const unsigned char*>node.content
        count += 1
        if s is not NULL:
            while s[0]:
                if s[0] >= 128:
                    non_ascii = True
                elif not _ascii_space(s[0]):
                    seen = True
                s += 1
        node = _text_or_skip(node.next)
    if not seen and not non_ascii:
        return None  # no text, empty, or ASCII white space only
    cdef bytes joined
    if count == 1:
        s = <const unsigned char*>start.content
        text = PyUnicode_DecodeUTF8(<const char*>s, strlen(<const char*>s), NULL)
    else:
        joined = b""
        node = start
        while node is not NULL:
            if node.content is not NULL:
                joined += <bytes>(<const char*>node.content)
            node = _text_or_skip(node.next)
        text = joined.decode("utf-8")
    if not seen and text.isspace():  # only non-ASCII white space (a no-break space, U+3000)
        return None
    return text


cdef inline Py_ssize_t _non_space_len(str text):
    """``dom.non_space_len``: ``sum(map(len, text.split()))`` counts exactly these."""
    cdef Py_ssize_t n = 0
    cdef Py_UCS4 ch
    for ch in text:
        if not Py_UNICODE_ISSPACE(ch):
            n += 1
    return n


# The attributes hints.markup_key reads (auto.MARKUP_ATTRIBUTES), by slot in the key.
cdef enum:
    A_CLASS, A_ID, A_ROLE, A_ITEMPROP, A_HIDDEN, A_ARIA_HIDDEN, A_STYLE, A_COUNT


cdef inline int _markup_slot(const char* name) noexcept nogil:
    if strcmp(name, "class") == 0:
        return A_CLASS
    if strcmp(name, "id") == 0:
        return A_ID
    if strcmp(name, "role") == 0:
        return A_ROLE
    if strcmp(name, "itemprop") == 0:
        return A_ITEMPROP
    if strcmp(name, "hidden") == 0:
        return A_HIDDEN
    if strcmp(name, "aria-hidden") == 0:
        return A_ARIA_HIDDEN
    if strcmp(name, "style") == 0:
        return A_STYLE
    return -1


cdef object _attribute_value(tree.xmlAttr* attr):
    cdef tree.xmlNode* child = attr.children
    if child is NULL:
        return ""
    if child.next is NULL and (child.type == tree.XML_TEXT_NODE or child.type == tree.XML_CDATA_SECTION_NODE):
        if child.content is NULL:
            return ""
        return PyUnicode_DecodeUTF8(<const char*>child.content, strlen(<const char*>child.content), NULL)
    raise LookupError  # held in several nodes: read through lxml


cdef object _python_key(el, Py_ssize_t i, list classes):
    """The fallback's key for one element, read through lxml's Python API."""
    items = el.items()
    if not items:
        return el.tag
    if len(items) == 1:
        name, value = items[0]
        if name == "class":
            classes[i] = value
            return (el.tag, value, None, None, None, False, None, None)
        if name in ("id", "role", "itemprop", "hidden", "aria-hidden", "style"):
            attributes = {name: value}
            get = attributes.get
            return (el.tag, None, get("id"), get("role"), get("itemprop"), "hidden" in attributes,
                    get("aria-hidden"), get("style"))
        return el.tag
    attributes = dict(items)
    get = attributes.get
    classes[i] = cls = get("class")
    return (el.tag, cls, get("id"), get("role"), get("itemprop"), "hidden" in attributes,
            get("aria-hidden"), get("style"))


cdef inline object _value(tree.xmlAttr* attr):
    return None if attr is NULL else _attribute_value(attr)


cdef object _c_key(tree.xmlNode* node, Py_ssize_t i, list classes):
    """The key of an element without namespaces, from its libxml2 node; LookupError when an
    attribute must be read through lxml."""
    cdef tree.xmlAttr* attr = node.properties
    cdef tree.xmlAttr* slots[A_COUNT]  # the first attribute of each name the key reads
    cdef int count = 0
    cdef int slot, only = -1
    for slot in range(A_COUNT):
        slots[slot] = NULL
    while attr is not NULL:
        if attr.ns is not NULL:
            raise LookupError
        slot = _markup_slot(<const char*>attr.name)
        if slot >= 0 and slots[slot] is NULL:  # lxml reads the first of two same-named attributes
            slots[slot] = attr
        count += 1
        only = slot
        attr = attr.next
    tag = PyUnicode_DecodeUTF8(<const char*>node.name, strlen(<const char*>node.name), NULL)
    if count == 0:
        return tag
    cls = _value(slots[A_CLASS])
    if count == 1:
        if only == A_CLASS:
            classes[i] = cls
            return (tag, cls, None, None, None, False, None, None)
        if only < 0:  # an href, a src: weighs as no attribute at all
            return tag
    else:
        classes[i] = cls
    return (tag, cls, _value(slots[A_ID]), _value(slots[A_ROLE]), _value(slots[A_ITEMPROP]),
            slots[A_HIDDEN] is not NULL, _value(slots[A_ARIA_HIDDEN]), _value(slots[A_STYLE]))


def gain_pass(list elements, list parent, list in_anchor, dict markups, weigh_markup, holds_stopword,
              double mu):
    """``Gain.__init__``'s per-element pass over ``elements`` (a TreeIndex's pre-order list).

    Returns ``(own, own_weight, classes, hidden, text_at, tail_at, chars)``: ``own`` the
    (3, size) float64 array of own valid, noise and link characters, the others as the
    Python loop leaves them (lists by position, a set of positions, the character total).
    """
    cdef Py_ssize_t size = len(elements)
    cdef Py_ssize_t i, owner, n
    cdef Py_ssize_t chars = 0
    cdef tree.xmlNode* node
    cdef bint native
    cdef int part
    own_weight = [1.0] * size
    classes = [None] * size
    hidden = set()
    text_at = [False] * size
    tail_at = [False] * size
    own = np.zeros((3, size), dtype=np.float64)
    cdef double[:, ::1] counts = own
    for i in range(size):
        el = elements[i]
        node = (<_Element?>el)._c_node
        native = node.type == tree.XML_ELEMENT_NODE and node.ns is NULL
        for part in range(2):  # the text, then the tail (owned by the parent)
            if part == 0:
                owner = i
                if native:
                    text = _text(node.children)
                else:
                    text = el.text
                    if not text or text.isspace():
                        text = None
                if text is not None:
                    text_at[i] = True
            else:
                if i == 0:
                    break
                owner = parent[i]
                if native:
                    text = _text(node.next)
                else:
                    text = el.tail
                    if not text or text.isspace():
                        text = None
                if text is not None:
                    tail_at[i] = True
            if text is None:
                continue
            n = _non_space_len(text)
            chars += n
            if in_anchor[owner]:
                counts[1, owner] += n
                counts[2, owner] += n
            elif holds_stopword(text):
                counts[0, owner] += n
            else:
                counts[1, owner] += mu * n
        if i == 0:
            continue
        if native:
            try:
                key = _c_key(node, i, classes)
            except LookupError:
                classes[i] = None
                key = _python_key(el, i, classes)
        else:
            key = _python_key(el, i, classes)
        found = markups.get(key)
        weight, is_hidden = found if found is not None else weigh_markup(key)
        if is_hidden:
            hidden.add(i)
            weight = 0.0
        own_weight[i] = weight
    return own, own_weight, classes, hidden, text_at, tail_at, chars


# Counts by feature number, all zero between calls: a call sets and clears only what it meets
# (an array of every feature allocated and zeroed per call costs more than the walk).
cdef int* _counts = NULL
cdef Py_ssize_t _counts_size = 0


def byte_walk(const unsigned char[::1] data, const uint32_t[::1] moves, const int64_t[::1] rows,
              const int64_t[::1] outputs, Py_ssize_t features):
    """py3langid's ``visit_counts(tk_nextmove, rowbase, tk_output, data)`` as a dict in order of
    first occurrence (what ``_sparse_score`` sums in), or None when no feature is seen.
    ``rows`` and ``outputs`` are ``_rowbase`` and ``tk_output`` as int64 arrays; ``features``
    bounds the feature numbers."""
    global _counts, _counts_size
    cdef Py_ssize_t size = data.shape[0]
    cdef Py_ssize_t i, seen = 0
    cdef int64_t state = 0, feature
    cdef bint bad = False
    if _counts_size < features:
        PyMem_Free(_counts)
        _counts_size = 0
        _counts = <int*>PyMem_Calloc(features, sizeof(int))
        if _counts is NULL:
            raise MemoryError
        _counts_size = features
    cdef int64_t* order = <int64_t*>PyMem_Malloc((size + 1) * sizeof(int64_t))
    cdef int* found = <int*>PyMem_Malloc((size + 1) * sizeof(int))
    if order is NULL or found is NULL:
        PyMem_Free(order)
        PyMem_Free(found)
        raise MemoryError
    for i in range(size):  # no Python code runs in here: nothing else can use _counts meanwhile
        state = moves[rows[state] + data[i]]
        feature = outputs[state]
        if feature >= 0:
            if feature >= features:
                bad = True
                break
            if _counts[feature] == 0:
                order[seen] = feature
                seen += 1
            _counts[feature] += 1
    for i in range(seen):  # back to all zero before any Python object is made
        found[i] = _counts[order[i]]
        _counts[order[i]] = 0
    try:
        if bad:
            raise IndexError(f"a feature number past {features}")
        if not seen:
            return None
        return {order[i]: found[i] for i in range(seen)}
    finally:
        PyMem_Free(order)
        PyMem_Free(found)
