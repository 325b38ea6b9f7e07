# cython: language_level=3, boundscheck=False, wraparound=False
"""Compiled per-element pass of ``auto``'s :class:`~newscrawl.extract.methods.auto.Gain`, the walk
that builds :class:`~newscrawl.extract.dom.TreeIndex`, the loops of ``auto.teaser_items``, and
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

:func:`tree_walk` builds TreeIndex's lists in one walk over the libxml2 nodes (the proxies still
come from lxml); :func:`teaser_groups` and :func:`led_items` are ``teaser_items``' two loops, the
second reading text from the libxml2 nodes and answering "a letter?" for ASCII without a regex.
Each stays in Python beside it (tests/test_speedups.py compares both ways).

:func:`byte_walk` is py3langid's ``visit_counts`` (its Aho-Corasick walk over the UTF-8 bytes of
the sample), one C step per byte; language.py's numpy walk is the fallback.
"""

from cpython.unicode cimport PyUnicode_DecodeUTF8
from cpython.mem cimport PyMem_Calloc, PyMem_Free, PyMem_Malloc, PyMem_Realloc
from libc.stdint cimport int64_t, uint16_t, uint32_t
from cpython.pyport cimport PY_SSIZE_T_MAX
from libc.string cimport memcpy, strcmp, strlen

from lxml.includes cimport tree
from lxml.includes.etreepublic cimport _Element, elementFactory, import_lxml__etree

import os

import numpy as np

if os.environ.get("NEWSCRAWL_PURE_PYTHON", "0") not in ("", "0"):
    raise ImportError("NEWSCRAWL_PURE_PYTHON is set: the pure-Python code runs")
import_lxml__etree()

cdef extern from "Python.h":
    bint Py_UNICODE_ISSPACE(Py_UCS4 ch)
    bint Py_UNICODE_ISALNUM(Py_UCS4 ch)


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


cdef inline bint _word_char(Py_UCS4 ch) noexcept:
    """What the re module's ``\\w`` matches in a str pattern."""
    return ch == 95 or Py_UNICODE_ISALNUM(ch)


cdef bint _holds_word_in(str text, frozenset words) except -1:
    """``stopwords.stopword_matcher``'s test for space-separated languages: whether a token of
    ``text`` (``\\w+(?:['’]\\w+)*``), lower-cased, is in ``words``; it stops at the first."""
    cdef Py_ssize_t n = len(text), i = 0, start
    while i < n:
        if not _word_char(text[i]):
            i += 1
            continue
        start = i
        i += 1
        while True:
            while i < n and _word_char(text[i]):
                i += 1
            if i + 1 < n and (text[i] == u"'" or text[i] == u"\u2019") and _word_char(text[i + 1]):
                i += 2
                continue
            break
        if text[start:i].lower() in words:
            return True
    return False


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
    # A space-separated language's matcher carries its word set: the same test without a call.
    cdef frozenset words = getattr(holds_stopword, "words", None)
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
            elif (_holds_word_in(text, words) if words is not None else holds_stopword(text)):
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


cdef inline bint _lxml_element(tree.xmlNode* node) noexcept nogil:
    """lxml's ``_isElement``: what ``iter()`` yields (elements, comments, entities, PIs)."""
    return (node.type == tree.XML_ELEMENT_NODE or node.type == tree.XML_COMMENT_NODE
            or node.type == tree.XML_ENTITY_REF_NODE or node.type == tree.XML_PI_NODE)


cdef inline tree.xmlNode* _next_lxml_element(tree.xmlNode* node) noexcept nogil:
    while node is not NULL and not _lxml_element(node):
        node = node.next
    return node


cdef inline tree.xmlNode* _next_in_iter(tree.xmlNode* node, tree.xmlNode* stop) noexcept nogil:
    """The node after ``node`` in ``stop.iter()``'s order, or NULL past ``stop``'s subtree
    (etree_defs.h's ``_LX__TRAVERSE_TO_NEXT``)."""
    cdef tree.xmlNode* nxt = node.children
    if nxt is not NULL:
        if node.type == tree.XML_ENTITY_REF_NODE or node.type == tree.XML_DTD_NODE:
            nxt = NULL
        else:
            nxt = _next_lxml_element(nxt)
    if nxt is NULL and node is not stop:
        nxt = _next_lxml_element(node.next)
        while nxt is NULL:
            node = node.parent
            if node is NULL or node is stop or not _lxml_element(node):
                break
            nxt = _next_lxml_element(node.next)
    return nxt


def element_count(root):
    """How many of ``root.iter()``'s nodes are elements (comments, PIs and entities are not):
    ``root.xpath("count(//*)")`` for a parsed document's root, without building XPath's node set."""
    cdef _Element top = root
    cdef tree.xmlNode* stop = top._c_node
    cdef tree.xmlNode* node = stop
    cdef Py_ssize_t count = 0
    while node is not NULL:
        if node.type == tree.XML_ELEMENT_NODE:
            count += 1
        node = _next_in_iter(node, stop)
    return count


def tree_walk(root):
    """:class:`~newscrawl.extract.dom.TreeIndex`'s arrays in one walk over ``root``'s libxml2 nodes:
    ``(elements, parent, end, in_anchor)`` -- ``list(root.iter())``, each one's parent position
    (-1 for ``root``), one past its subtree's last position (int64 array) and whether it is an
    ``<a>`` or inside one below ``root`` (a uint8 array; ``root``'s ancestors are not looked at).
    The walk is lxml's ``iter()`` (etree_defs.h's ``_LX__TRAVERSE_TO_NEXT``).  None when an element
    has a namespace or the tag ``A`` (matching ``iter("a")`` there is lxml's business): the
    Python code runs."""
    cdef _Element top = root
    cdef tree.xmlNode* stop = top._c_node
    cdef tree.xmlNode* node
    cdef tree.xmlNode* nxt
    cdef Py_ssize_t size = 0, i, current, p
    cdef const char* name
    # First count, then fill: the walk costs little beside making the elements.
    node = stop
    while node is not NULL:
        size += 1
        if node.type == tree.XML_ELEMENT_NODE:
            if node.ns is not NULL:
                return None
            name = <const char*>node.name
            if name[0] == c"A" and name[1] == 0:
                return None
        node = _next_in_iter(node, stop)
    parent_array = np.empty(size, dtype=np.int64)
    end_array = np.empty(size, dtype=np.int64)
    anchor_array = np.zeros(size, dtype=np.uint8)
    cdef int64_t[::1] parent = parent_array
    cdef int64_t[::1] end = end_array
    cdef unsigned char[::1] anchor = anchor_array
    elements = [None] * size
    doc = top._doc
    node = stop
    current = 0
    parent[0] = -1
    i = 0
    while node is not NULL and i < size:
        elements[i] = elementFactory(doc, node)
        if i:
            parent[i] = current
        name = <const char*>node.name
        if node.type == tree.XML_ELEMENT_NODE and name[0] == c"a" and name[1] == 0:
            anchor[i] = 1
        elif i and anchor[current]:
            anchor[i] = 1
        nxt = node.children
        if nxt is not NULL:
            if node.type == tree.XML_ENTITY_REF_NODE or node.type == tree.XML_DTD_NODE:
                nxt = NULL
            else:
                nxt = _next_lxml_element(nxt)
        if nxt is not NULL:  # down to the first child: element i is its parent
            current = i
        elif node is not stop:
            nxt = _next_lxml_element(node.next)  # a sibling: same parent
            while nxt is NULL:  # up: the parent's sibling has the grandparent as parent
                node = node.parent
                if node is NULL or node is stop or not _lxml_element(node):
                    break
                nxt = _next_lxml_element(node.next)
                current = parent[current]
        i += 1
        node = nxt
    if i != size:
        raise RuntimeError("the tree changed during the walk")
    for i in range(size):
        end[i] = i + 1
    for i in range(size - 1, 0, -1):  # reversed pre-order: descendants before ancestors
        p = parent[i]
        if end[i] > end[p]:
            end[p] = end[i]
    return elements, parent_array.tolist(), end_array, anchor_array.astype(bool).tolist()


def teaser_groups(list elements, list parent, list chosen, list classes, class_tokens, not_teasers):
    """``teaser_items``' groups: the positions in ``chosen`` by ``(parent, tag, class_tokens(class))``,
    elements only (a comment's tag is no string), none whose tag is in ``not_teasers``; a dict in
    order of first member, as the Python loop builds it."""
    cdef dict groups = {}
    cdef Py_ssize_t i
    cdef tree.xmlNode* node
    for i in chosen:
        el = elements[i]
        node = (<_Element?>el)._c_node
        if node.type != tree.XML_ELEMENT_NODE:
            continue
        if node.ns is NULL:
            tag = PyUnicode_DecodeUTF8(<const char*>node.name, strlen(<const char*>node.name), NULL)
        else:
            tag = el.tag
        if tag in not_teasers:
            continue
        cls = classes[i]
        key = (parent[i], tag, class_tokens(cls or ""))
        items = groups.get(key)
        if items is None:
            groups[key] = [i]
        else:
            (<list>items).append(i)
    return groups


cdef int _ascii_letter_in(tree.xmlNode* first) noexcept nogil:
    """Over lxml's text run from ``first``: 1 if it holds an ASCII letter, 0 if it is ASCII
    without one, -1 if it holds other characters (then only the decoded text can tell)."""
    cdef tree.xmlNode* node = _text_or_skip(first)
    cdef const unsigned char* s
    cdef int found = 0
    while node is not NULL:
        s = <const unsigned char*>node.content
        if s is not NULL:
            while s[0]:
                if s[0] >= 128:
                    found = -1
                elif (s[0] | 32) >= 97 and (s[0] | 32) <= 122:
                    return 1
                s += 1
        node = _text_or_skip(node.next)
    return found


cdef inline bint _plain(tree.xmlNode* node) noexcept nogil:
    return node.type == tree.XML_ELEMENT_NODE and node.ns is NULL


cdef bint _worded(el, bint tail, worded) except -1:
    """``worded(el.tail if tail else el.text)`` (auto._WORDED.search: a letter of any script),
    from the libxml2 nodes for a plain element: for ASCII, a letter is [A-Za-z]."""
    cdef tree.xmlNode* node = (<_Element?>el)._c_node
    cdef tree.xmlNode* first
    cdef int letter
    if _plain(node):
        first = node.next if tail else node.children
        letter = _ascii_letter_in(first)
        if letter >= 0:
            return letter
        text = _text(first)
    else:
        text = el.tail if tail else el.text
    return text is not None and worded(text) is not None


cdef bint _leads(Py_ssize_t item, list elements, list parent, list end, list in_anchor, list text_at,
                 list tail_at, worded, block_tags, Py_ssize_t* open_elements) except -1:
    cdef Py_ssize_t stop = end[item]
    cdef Py_ssize_t owner = -1, j, k, depth = 0
    cdef tree.xmlNode* node
    cdef tree.xmlNode* up
    cdef tree.xmlNode* top
    cdef const char* name
    if text_at[item] and _worded(elements[item], False, worded):
        owner = item
    j = item + 1
    while owner < 0:
        while depth and <Py_ssize_t>end[open_elements[depth - 1]] <= j:  # innermost first
            depth -= 1
            k = open_elements[depth]
            if tail_at[k] and _worded(elements[k], True, worded):
                owner = parent[k]
                break
        if owner >= 0 or j >= stop:
            break
        if text_at[j] and _worded(elements[j], False, worded):
            owner = j
            break
        open_elements[depth] = j
        depth += 1
        j += 1
    if owner < 0 or not in_anchor[owner]:
        return False
    first = elements[owner]
    # The first "a" from the owner up, and on up while the tails are (nearly) empty; in C while
    # every element on the way is plain (no namespace, no "A", whose matching is lxml's business).
    node = (<_Element?>first)._c_node
    top = (<_Element?>elements[item])._c_node
    if not _plain(node):  # a comment, say: its ancestors through lxml
        return _leads_python(first, elements[item], block_tags)
    up = node
    while up is not NULL and up.type == tree.XML_ELEMENT_NODE:
        if up.ns is not NULL:
            break
        name = <const char*>up.name
        if name[0] == c"A" and name[1] == 0:
            break
        if name[0] == c"a" and name[1] == 0:
            break
        up = up.parent
    if up is NULL or up.type != tree.XML_ELEMENT_NODE:
        return False  # no anchor up to the document
    if not _plain(up) or (<const char*>up.name)[0] != c"a":
        return _leads_python(first, elements[item], block_tags)
    node = up
    while True:
        tail = _text(node.next)
        if tail is not None and len(tail.strip()) > 2:
            return False
        node = node.parent
        if node is NULL or node.type != tree.XML_ELEMENT_NODE or node is top:
            return True
        if not _plain(node):
            return _leads_python(first, elements[item], block_tags, elementFactory((<_Element>first)._doc, node))
        name = <const char*>node.name
        if PyUnicode_DecodeUTF8(name, strlen(name), NULL) in block_tags:
            return True


cdef bint _leads_python(first, top, block_tags, start=None) except -1:
    """The end of ``auto._leads_with_link`` through lxml's Python API (from ``start``, an element
    whose tail is already read, when given)."""
    if start is None:
        anchor = first if first.tag == "a" else next(first.iterancestors("a"), None)
        if anchor is None:
            return False
        node = anchor
        if len((node.tail or "").strip()) > 2:
            return False
        node = node.getparent()
    else:
        node = start
    while True:
        if node is None or node is top or node.tag in block_tags:
            return True
        if len((node.tail or "").strip()) > 2:
            return False
        node = node.getparent()


def led_items(list items, list links, list elements, list parent, list end, list in_anchor, list text_at,
              list tail_at, worded, block_tags):
    """``[it for it in items if links[it] and auto._leads_with_link(it, ...)]``: the items of a
    teaser group that open with a headline link (``end`` as a list)."""
    cdef Py_ssize_t it, longest = 0
    for it in items:
        if <Py_ssize_t>end[it] - it > longest:
            longest = <Py_ssize_t>end[it] - it
    cdef Py_ssize_t* open_elements = <Py_ssize_t*>PyMem_Malloc((longest + 1) * sizeof(Py_ssize_t))
    if open_elements is NULL:
        raise MemoryError
    led = []
    try:
        for it in items:
            if links[it] and _leads(it, elements, parent, end, in_anchor, text_at, tail_at, worded, block_tags,
                                    open_elements):
                led.append(it)
    finally:
        PyMem_Free(open_elements)
    return led


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


def rows_as_float32(const uint16_t[:, ::1] table, const int64_t[::1] rows, const float[::1] halves):
    """``table[rows].astype(np.float32)`` for a float16 ``table`` given as its uint16 bits:
    each value looked up in ``halves`` (the float32 of every float16 bit pattern, exact).
    numpy converts float16 one value at a time, which cost py3langid's scoring more than its
    matrix product; the rows come out bit for bit the same."""
    cdef Py_ssize_t count = rows.shape[0], width = table.shape[1], r, j, row
    out = np.empty((count, width), dtype=np.float32)
    cdef float[:, ::1] values = out
    for r in range(count):
        row = rows[r]
        if row < 0 or row >= table.shape[0]:
            raise IndexError(f"row {row} is not in a table of {table.shape[0]}")
        for j in range(width):
            values[r, j] = halves[table[row, j]]
    return out


# --- authors.py's scan of the body's attributes ------------------------------------------------

cdef inline unsigned char _ascii_lower(unsigned char c) noexcept nogil:
    return c + 32 if 65 <= c <= 90 else c


cdef inline bint _word_at(const unsigned char* text, const char* word) noexcept nogil:
    """Whether ``text`` starts with ``word`` (lower-case ASCII), ASCII letters compared case-blind
    (the terminating NUL of ``text`` never equals a letter of ``word``)."""
    cdef Py_ssize_t j = 0
    while word[j]:
        if _ascii_lower(text[j]) != <unsigned char>word[j]:
            return False
        j += 1
    return True


cdef bint _author_value(const unsigned char* text, bint is_link) noexcept nogil:
    """Whether an attribute value could make its element an author rule's: it holds "author" or
    "byline" whatever the case (as ``str.lower()`` finds them: no other character lower-cases
    into these words), or, on a link, it could hold ``_AUTHOR_PAGE``'s match: a "/" and one of
    its words, or any non-ASCII byte (re.IGNORECASE matches "ſ" with "s"; Python decides).
    One pass; a word is compared only where its first letter stands."""
    cdef Py_ssize_t i = 0
    cdef unsigned char c
    cdef bint slash = False, page_word = False, non_ascii = False
    while text[i]:
        c = _ascii_lower(text[i])
        if c == 97:  # a
            if _word_at(text + i, "author"):
                return True
            if is_link and (_word_at(text + i, "autor") or _word_at(text + i, "avtor")):
                page_word = True
        elif c == 98:  # b
            if _word_at(text + i, "byline"):
                return True
        elif is_link:
            if c == 47:  # "/"
                slash = True
            elif c >= 128:
                non_ascii = True
            elif ((c == 106 and _word_at(text + i, "journalist")) or (c == 114 and _word_at(text + i, "reporter"))
                  or (c == 119 and _word_at(text + i, "writer")) or (c == 112 and _word_at(text + i, "profile"))):
                page_word = True
        i += 1
    return is_link and (non_ascii or (slash and page_word))


def author_candidates(body):
    """``(candidates, metas)`` below ``body`` in document order, for ``authors._elements_by_rule``:
    every element an author rule could take (an attribute value holds "author" or "byline"
    whatever the case, or a link's could hold an author's page; a value held in several nodes
    counts too) -- a superset the Python rule then decides on -- and every ``<meta>`` with
    attributes.  Elements only: comments and processing instructions have no attributes."""
    cdef _Element top = body
    cdef tree.xmlNode* stop = top._c_node
    cdef tree.xmlNode* node = stop
    cdef tree.xmlNode* child
    cdef tree.xmlAttr* attr
    cdef const char* name
    cdef bint is_link, candidate
    candidates = []
    metas = []
    doc = top._doc
    while node is not NULL:
        if node is not stop and node.type == tree.XML_ELEMENT_NODE and node.properties is not NULL:
            name = <const char*>node.name
            is_link = name[0] == c"a" and name[1] == 0
            candidate = False
            attr = node.properties
            while attr is not NULL and not candidate:
                child = attr.children
                if child is not NULL:
                    if child.next is not NULL or (child.type != tree.XML_TEXT_NODE
                                                  and child.type != tree.XML_CDATA_SECTION_NODE):
                        candidate = True
                    elif child.content is not NULL:
                        candidate = _author_value(<const unsigned char*>child.content, is_link)
                attr = attr.next
            if candidate:
                candidates.append(elementFactory(doc, node))
            if strcmp(name, "meta") == 0:
                metas.append(elementFactory(doc, node))
        node = _next_in_iter(node, stop)
    return candidates, metas


# --- dates.py's walk over the visible text ------------------------------------------------------

cdef inline tree.xmlNode* _element_from(tree.xmlNode* node) noexcept nogil:
    """``node`` or its first following sibling that is an element (what iterwalk's tag="*" sees)."""
    while node is not NULL and node.type != tree.XML_ELEMENT_NODE:
        node = node.next
    return node


cdef inline tree.xmlNode* _after_end(tree.xmlNode* node, bint* at_end) noexcept nogil:
    """The event after ``node``'s end in iterwalk's order (elements only): its next element
    sibling's start, else its parent's end (``at_end`` says which)."""
    cdef tree.xmlNode* sibling = _element_from(node.next)
    if sibling is not NULL:
        at_end[0] = False
        return sibling
    at_end[0] = True
    return node.parent


cdef class TextWalk:
    """``dates._TextWalk`` over the libxml2 nodes: the same ``run(window)``, the same text.

    The walk is ``etree.iterwalk(body, events=("start", "end"), tag="*")``: at an element's start
    its text (lxml's ``.text``: the text and CDATA nodes before its first other child) and, for
    ``line_tags``, a line break; at its end the first ``<h1>`` whose ``text_content().strip()``
    has 4 characters or more marks the headline's end, and its tail follows (not the body's).
    Where a run stops, the next one goes on from the next event.  The text is gathered as UTF-8
    and decoded once a run; ``size`` counts characters (bytes that start one)."""

    cdef _Element body
    cdef object at  # the element of the next event (a proxy keeps its node alive), None when done
    cdef bint at_end  # whether that event is its end
    cdef list line_tags  # bytes
    cdef Py_ssize_t fallback_limit
    cdef char* buffer
    cdef Py_ssize_t length, capacity
    cdef Py_ssize_t size
    cdef Py_ssize_t headline_end

    def __cinit__(self, body, line_tags, Py_ssize_t fallback_limit):
        self.body = body
        self.at = body
        self.at_end = False
        self.line_tags = [tag.encode("ascii") for tag in line_tags]
        self.fallback_limit = fallback_limit
        self.buffer = NULL
        self.length = self.capacity = 0
        self.size = 0
        self.headline_end = -1

    def __dealloc__(self):
        PyMem_Free(self.buffer)

    cdef bint _line_tag(self, const char* name):
        for tag in self.line_tags:
            if strcmp(name, <const char*>(<bytes>tag)) == 0:
                return True
        return False

    cdef Py_ssize_t _add(self, const char* text) except -1:
        """Appends ``text`` (UTF-8) to the buffer; its length in characters."""
        cdef Py_ssize_t n = strlen(text), i, chars = 0
        cdef char* grown
        if self.length + n > self.capacity:
            grown = <char*>PyMem_Realloc(self.buffer, max(2 * self.capacity, self.length + n, 4096))
            if grown is NULL:
                raise MemoryError
            self.buffer = grown
            self.capacity = max(2 * self.capacity, self.length + n, 4096)
        memcpy(self.buffer + self.length, text, n)
        self.length += n
        for i in range(n):
            if (<unsigned char>text[i] & 0xC0) != 0x80:
                chars += 1
        return chars

    cdef Py_ssize_t _add_text(self, tree.xmlNode* first) except -1:
        """Appends lxml's ``_collectText(first)`` (``.text``, or ``.tail`` from the next sibling)."""
        cdef tree.xmlNode* node = _text_or_skip(first)
        cdef Py_ssize_t chars = 0
        while node is not NULL:
            if node.content is not NULL:
                chars += self._add(<const char*>node.content)
            node = _text_or_skip(node.next)
        return chars

    def run(self, window):
        """The text to ``window`` characters after the headline (None: the whole body), and
        where the headline ends (-1)."""
        cdef Py_ssize_t size = self.size, headline_end = self.headline_end, limit
        cdef bint whole = window is None
        cdef tree.xmlNode* stop = self.body._c_node
        cdef tree.xmlNode* node
        cdef tree.xmlNode* nxt
        cdef bint at_end
        if whole:
            limit = PY_SSIZE_T_MAX
        elif headline_end >= 0:
            limit = headline_end + <Py_ssize_t>window
        else:
            limit = self.fallback_limit
        if self.at is not None and size <= limit:
            doc = self.body._doc
            node = (<_Element>self.at)._c_node
            at_end = self.at_end
            while True:
                if not at_end:
                    size += self._add_text(node.children)
                    if self._line_tag(<const char*>node.name):
                        size += self._add("\n")
                    nxt = _element_from(node.children)
                    if nxt is not NULL:
                        node = nxt
                    else:
                        at_end = True
                else:
                    if (headline_end < 0 and strcmp(<const char*>node.name, "h1") == 0
                            and len((elementFactory(doc, node).text_content() or "").strip()) >= 4):
                        headline_end = size
                        if not whole:
                            limit = size + <Py_ssize_t>window
                    if node is stop:
                        node = NULL
                    else:
                        size += self._add_text(node.next)
                        node = _after_end(node, &at_end)
                if node is NULL or size > limit:
                    break
            self.at = None if node is NULL else elementFactory(doc, node)
            self.at_end = at_end
            self.size, self.headline_end = size, headline_end
        text = PyUnicode_DecodeUTF8(self.buffer, self.length, NULL) if self.length else ""
        return text[:limit], headline_end


# --- dom.render_paragraphs without a text filter ---------------------------------------------------

cdef object _collected_text(tree.xmlNode* first):
    """lxml's ``_collectText(first)`` (``.text``, or ``.tail`` from the next sibling), white space
    and all; None when there is none or it is empty."""
    cdef tree.xmlNode* node = _text_or_skip(first)
    cdef tree.xmlNode* start = node
    cdef bytes joined
    if node is NULL:
        return None
    if _text_or_skip(node.next) is NULL:
        if node.content is NULL or node.content[0] == 0:
            return None
        return PyUnicode_DecodeUTF8(<const char*>node.content, strlen(<const char*>node.content), NULL)
    joined = b""
    while node is not NULL:
        if node.content is not NULL:
            joined += <bytes>(<const char*>node.content)
        node = _text_or_skip(node.next)
    return joined.decode("utf-8") or None


cdef inline object _tag(tree.xmlNode* node):
    """The element's tag as the lxml API spells it, or "" for a namespaced one (no plain tag)."""
    if node.ns is not NULL:
        return ""
    return PyUnicode_DecodeUTF8(<const char*>node.name, strlen(<const char*>node.name), NULL)


cdef inline void _flush(list current, list paragraphs):
    line = " ".join("".join(current).split())
    if line:
        paragraphs.append(line)
    del current[:]


def render_paragraphs(root, skip, block_tags):
    """``dom.render_paragraphs(root, skip)`` (no ``keep`` filter) over the libxml2 nodes: the
    same walk as its ``etree.iterwalk`` loop (elements only; a skipped element's subtree is left
    out, its end and tail are not), the same paragraphs."""
    cdef _Element top = root
    cdef tree.xmlNode* stop = top._c_node
    cdef tree.xmlNode* node = stop
    cdef tree.xmlNode* child
    cdef bint at_end = False, skipped
    cdef set skip_set = set(skip)
    cdef list current = []
    cdef list paragraphs = []
    doc = top._doc
    while True:
        if not at_end:
            tag = _tag(node)
            if skip_set and elementFactory(doc, node) in skip_set:
                at_end = True  # its end and tail follow at once
                continue
            if tag in block_tags or tag == "br":
                _flush(current, paragraphs)
            text = _collected_text(node.children)
            if text is not None:
                current.append(text)
            child = _element_from(node.children)
            if child is not NULL:
                node = child
                continue
            at_end = True
        tag = _tag(node)
        skipped = bool(skip_set) and elementFactory(doc, node) in skip_set
        if tag in block_tags and not skipped:
            _flush(current, paragraphs)
        elif tag == "img":
            current.append(" ")
        if node is stop:
            break
        text = _collected_text(node.next)
        if text is not None:
            current.append(text)
        node = _after_end(node, &at_end)
    _flush(current, paragraphs)
    return paragraphs


def markup_weights(list own_weight, list parent, double strong, double max_weight):
    """``Gain.__init__``'s weights down the tree: an element's own weight times its parent's,
    capped at ``max_weight``, and ``strong`` wherever its own markup is at least ``strong``
    (element 0, the root, weighs 1).  The same float operations in the same order."""
    cdef Py_ssize_t size = len(own_weight), i
    cdef double own_i, w
    cdef double* weight = <double*>PyMem_Malloc(max(size, 1) * sizeof(double))
    if weight is NULL:
        raise MemoryError
    try:
        weight[0] = 1.0
        for i in range(1, size):
            own_i = own_weight[i]
            if own_i >= strong:
                weight[i] = strong
            else:
                w = weight[<Py_ssize_t>parent[i]] * own_i
                weight[i] = w if w < max_weight else max_weight
        return [weight[i] for i in range(size)]
    finally:
        PyMem_Free(weight)


# --- features._text_stats' character classes ---------------------------------------------------

cdef extern from "Python.h":
    bint Py_UNICODE_ISALPHA(Py_UCS4 ch)
    bint Py_UNICODE_ISDIGIT(Py_UCS4 ch)

import unicodedata

cdef bint _ascii_punct[128]
for _i in range(128):
    _ascii_punct[_i] = unicodedata.category(chr(_i)).startswith("P")
cdef dict _punct_of = {}  # other characters met so far: punctuation (Unicode category P*)?


def char_counts(str text):
    """``(spaces, letters, digits, punctuation)`` of ``text`` as ``features._text_stats`` counts
    them: white space first, then ``str.isalpha``, then ``str.isdigit``, then category P*."""
    cdef Py_ssize_t spaces = 0, letters = 0, digits = 0, punct = 0
    cdef Py_UCS4 ch
    for ch in text:
        if Py_UNICODE_ISSPACE(ch):
            spaces += 1
        elif Py_UNICODE_ISALPHA(ch):
            letters += 1
        elif Py_UNICODE_ISDIGIT(ch):
            digits += 1
        elif ch < 128:
            punct += _ascii_punct[ch]
        else:
            found = _punct_of.get(ch)
            if found is None:
                if len(_punct_of) > 65536:
                    _punct_of.clear()
                found = _punct_of[ch] = unicodedata.category(chr(ch)).startswith("P")
            punct += found
    return spaces, letters, digits, punct


def text_nodes(root, skip):
    """``list(dom.iter_text_nodes(root, skip))`` over the libxml2 nodes: ``(owner, text)`` for
    each element's text (owned by it) and tail (owned by its parent), in document order; a
    skipped element's subtree is left out, its tail is not; the root's own tail is outside."""
    cdef _Element top = root
    cdef tree.xmlNode* stop = top._c_node
    cdef tree.xmlNode* node = stop
    cdef tree.xmlNode* child
    cdef bint at_end = False
    skip_set = skip if isinstance(skip, (set, frozenset)) else set(skip)  # iter_text_nodes made it one
    cdef list found = []
    doc = top._doc
    while True:
        if not at_end:
            element = elementFactory(doc, node)
            if skip_set and element in skip_set:
                at_end = True
            else:
                text = _collected_text(node.children)
                if text is not None:
                    found.append((element, text))
                child = _element_from(node.children)
                if child is not NULL:
                    node = child
                    continue
                at_end = True
        if node is stop:
            break
        text = _collected_text(node.next)
        if text is not None:
            found.append((elementFactory(doc, node.parent), text))
        node = _after_end(node, &at_end)
    return found


# --- dom.parse_html's </html> and </body> end tags ----------------------------------------------

cdef extern from "string.h":
    const void* memchr(const void* s, int c, size_t n) nogil

# The characters str.isspace() accepts beyond ASCII, in UTF-8 (tests/test_speedups.py lists them).
cdef inline Py_ssize_t _space_at(const unsigned char* s, Py_ssize_t i, Py_ssize_t n) noexcept nogil:
    """Bytes of the white-space character (``str.isspace``) that starts at ``s[i]``, 0 if none."""
    cdef unsigned char c = s[i]
    if c == 32 or 9 <= c <= 13 or 28 <= c <= 31:
        return 1
    if c == 0xC2 and i + 1 < n and (s[i + 1] == 0x85 or s[i + 1] == 0xA0):
        return 2
    if i + 2 >= n:
        return 0
    if c == 0xE1 and s[i + 1] == 0x9A and s[i + 2] == 0x80:  # U+1680
        return 3
    if c == 0xE2 and s[i + 1] == 0x80 and (0x80 <= s[i + 2] <= 0x8A or s[i + 2] == 0xA8 or s[i + 2] == 0xA9
                                           or s[i + 2] == 0xAF):  # U+2000-200A, 2028, 2029, 202F
        return 3
    if c == 0xE2 and s[i + 1] == 0x81 and s[i + 2] == 0x9F:  # U+205F
        return 3
    if c == 0xE3 and s[i + 1] == 0x80 and s[i + 2] == 0x80:  # U+3000
        return 3
    return 0


def strip_end_tags(bytes data):
    """``_END_HTML_BODY_RE.sub("", text).encode()`` for ``data = text.encode()``: every
    ``</html>`` and ``</body>`` in any case, white space before its ``>``, removed from the
    UTF-8 bytes; memchr finds each "<" (no other byte of UTF-8 is 0x3C)."""
    cdef const unsigned char* s = data
    cdef Py_ssize_t n = len(data), i = 0, j, k, last = 0
    cdef const unsigned char* at
    cdef list pieces = []
    while i < n:
        at = <const unsigned char*>memchr(s + i, 60, n - i)  # "<"
        if at is NULL:
            break
        i = at - s
        if (i + 7 <= n and s[i + 1] == 47  # "/"
                and (_word_at(s + i + 2, "html") or _word_at(s + i + 2, "body"))):
            j = i + 6
            while j < n:
                k = _space_at(s, j, n)
                if not k:
                    break
                j += k
            if j < n and s[j] == 62:  # ">"
                pieces.append(data[last:i])
                last = i = j + 1
                continue
        i += 1
    if not pieces:
        return data
    pieces.append(data[last:])
    return b"".join(pieces)
