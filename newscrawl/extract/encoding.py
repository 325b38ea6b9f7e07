"""Page bytes to text as browsers decode them: the WHATWG encoding-sniffing algorithm.

HTML Living Standard §13.2.3.2 "Determining the character encoding", in order:

1. a byte order mark (UTF-8, UTF-16LE, UTF-16BE);
2. the transport layer's charset (the ``Content-Type`` header);
3. the prescan of the first 1,024 bytes (:func:`prescan`): ``<meta charset>`` and
   ``<meta http-equiv=content-type content="...charset=...">``, comments and other tags
   skipped as the spec walks them; UTF-16 bytes are recognised by their ``<?x`` pattern;
4. a ``<meta>`` further into the head (:func:`late_meta_encoding`): the tree builder's
   "in head" rules (§13.2.6.4.4) change a still tentative encoding to the one it declares
   (§13.2.3.4 "Changing the encoding while parsing");
5. the XML declaration, as a hint (the prescan's "get an XML encoding");
6. detection (the algorithm's "frequency analysis or other algorithms"): strict UTF-8,
   then uchardet, then charset-normalizer (:func:`detect_encoding`).

Labels resolve as the WHATWG Encoding Standard's "get an encoding" says (``latin1`` and
``ascii`` are windows-1252, ``gb2312`` is GBK, a ``<meta>`` or XML declaration naming
UTF-16 means UTF-8, x-user-defined windows-1252), through ``webencodings`` plus the labels
the standard added since; each encoding is decoded with the Python codec that matches the
standard's decoder (GBK as GB18030, Shift_JIS as cp932, EUC-KR as cp949, Big5 with HKSCS).

Where newscrawl departs from a browser, it is to keep an article a browser would show as
mojibake (README "Reliability"): a declared encoding loses to strict multi-byte UTF-8 (18 of
the 2,988 evaluation pages declare GBK, windows-1252 or ISO-8859-15 over UTF-8 bytes); a
windows-1252 declaration loses to a strict CJK decode; a declaration whose decode is riddled
with U+FFFD loses to detection when detection's has fewer; a UTF-16 charset on bytes
without NULs is ignored; and labels of the "replacement" encoding (ISO-2022-KR,
HZ-GB-2312, ...) count as no declaration instead of decoding the page to one U+FFFD.
"""

from __future__ import annotations

import codecs
import re

import cchardet
import charset_normalizer
import webencodings
from w3lib.encoding import to_unicode

from .errors import ExtractionError

PRESCAN_BYTES = 1024  # §13.2.3.2: "user agents are encouraged to only prescan the first 1024 bytes"
LATE_META_BYTES = 65_536  # how far step 4 looks for a <meta> (the tree builder would read the whole head)

# Labels of the Encoding Standard (encoding.spec.whatwg.org, "Names and labels") that
# webencodings 0.5.1 (2017) lacks or maps to an encoding the standard has since retired.
_LABELS_SINCE_WEBENCODINGS = {
    **dict.fromkeys(("unicode11utf8", "unicode20utf8", "x-unicode20utf8"), "utf-8"),
    **dict.fromkeys(("csunicode", "iso-10646-ucs-2", "ucs-2", "unicode", "unicodefeff"), "utf-16le"),
    "unicodefffe": "utf-16be",
    "koi8-ru": "koi8-u",
    "ms932": "shift_jis",
    **dict.fromkeys(
        ("csiso2022kr", "hz-gb-2312", "iso-2022-cn", "iso-2022-cn-ext", "iso-2022-kr", "replacement"),
        "replacement",
    ),
}
# The Python codec whose decoder is the standard's, where the encoding's own name differs.
_DECODERS = {
    "gbk": "gb18030",  # the standard's GBK decoder is its gb18030 decoder
    "big5": "big5hkscs",  # Big5 with the HKSCS extensions
    "shift_jis": "cp932",  # index jis0208 with the NEC and IBM extensions
    "euc-kr": "cp949",  # index EUC-KR is Unified Hangul Code
    "iso-8859-8-i": "iso8859-8",
    "windows-874": "cp874",
    "ibm866": "cp866",
    "macintosh": "mac-roman",
    "x-mac-cyrillic": "mac-cyrillic",
    "utf-16le": "utf-16-le",
    "utf-16be": "utf-16-be",
}
_UTF16 = frozenset({"utf-16le", "utf-16be"})
_CJK_MULTIBYTE = ("gb", "big5", "euc-", "shift_jis", "cp932", "cp936", "cp949", "cp950")
_BINARY_SIGNATURES = (b"\x89PNG", b"%PDF", b"\x1f\x8b", b"GIF8", b"\xff\xd8\xff", b"PK\x03\x04")
_BOMS = ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_BE, "utf-16be"), (codecs.BOM_UTF16_LE, "utf-16le"))

# What the prescan's loop acts on, in the spec's order of precedence at one position.
_PRESCAN_TOKEN = re.compile(
    rb"<(?:(?P<comment>!--)|(?P<meta>[Mm][Ee][Tt][Aa][\t\n\x0c\r /])|(?P<tag>/?[A-Za-z])|[!/?])"
)
_TAG_NAME_REST = re.compile(rb"[^\t\n\x0c\r >]*+")
_SPACE_OR_SLASH = re.compile(rb"[\t\n\x0c\r /]*+")
_SPACES = re.compile(rb"[\t\n\x0c\r ]*+")
_ATTRIBUTE_NAME = re.compile(rb"[^\t\n\x0c\r />][^\t\n\x0c\r /=>]*+")  # the first byte may be "="
_UNQUOTED_VALUE = re.compile(rb"[^\t\n\x0c\r >]*+")
_LABEL_END = re.compile(rb"[\t\n\x0c\r ;]")
_MIME_PARAMETER = re.compile(
    r'(?:^|;)[ \t]*+(?P<name>[^\s;="]++)=(?:"(?P<quoted>(?:[^"\\]|\\.)*+)"?|(?P<token>[^;,\s]*+))'
)
_QUOTED_PAIR = re.compile(r"\\(.)")
_CHARSET_WORD = re.compile(rb"charset", re.IGNORECASE)
_BODY_TAG = re.compile(rb"<body[\t\n\x0c\r />]", re.IGNORECASE)


def decode_html(data: bytes | str, content_type: str | None = None) -> str:
    """The text a browser reads from page bytes and their ``Content-Type`` (see the module doc).

    Raises :class:`ExtractionError` ``binary`` for bytes that start like an image, PDF,
    gzip or zip file.  A ``str`` is returned as it is.
    """
    if isinstance(data, str):
        return data
    head = data[:16].lstrip()
    if any(head.startswith(sig) for sig in _BINARY_SIGNATURES):
        raise ExtractionError("binary", "body starts with a binary file signature")
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return _decode(data[len(bom):], encoding)
    declared = declared_encoding(data, content_type)
    if declared is None:
        return _decode(data, detect_encoding(data) or "utf-8")
    return _decode_declared(data, declared)


def declared_encoding(data: bytes, content_type: str | None = None) -> str | None:
    """The encoding the header, a ``<meta>`` or the XML declaration declares: steps 2-5 of the module doc.

    A WHATWG encoding name (``"windows-1252"``, ``"gbk"``).  A ``<meta>`` past the first
    1,024 bytes beats the XML declaration: both are tentative, and the tree builder's
    "change the encoding" acts on the ``<meta>`` after the prescan chose the declaration.
    """
    transport = transport_encoding(content_type)
    if transport in _UTF16 and b"\x00" not in data[:PRESCAN_BYTES]:
        transport = None  # UTF-16 markup has a NUL in every ASCII character
    head = data[:PRESCAN_BYTES]
    return transport or prescan(head) or late_meta_encoding(data) or xml_declaration_encoding(head)


def transport_encoding(content_type: str | None) -> str | None:
    """The encoding the ``charset`` parameter of a ``Content-Type`` value names, if it names one.

    Parameters are read as Fetch's "extract a MIME type" does: a quoted value is one
    value (a ``charset=`` inside it is not a parameter), and a comma ends the value.
    """
    if not content_type:
        return None
    for parameter in _MIME_PARAMETER.finditer(content_type):
        if parameter.group("name").lower() == "charset":
            quoted = parameter.group("quoted")
            label = parameter.group("token") if quoted is None else _QUOTED_PAIR.sub(r"\1", quoted)
            return encoding_for_label(label)
    return None


def encoding_for_label(label: str | bytes) -> str | None:
    """The Encoding Standard's "get an encoding": the encoding ``label`` names, or None.

    Labels of the "replacement" encoding give None (see the module doc).
    """
    if isinstance(label, bytes):
        label = label.decode("latin-1")
    name = _LABELS_SINCE_WEBENCODINGS.get(label.strip("\t\n\x0c\r ").lower())
    if name is None:
        encoding = webencodings.lookup(label)
        name = encoding and encoding.name
    return None if name == "replacement" else name


def codec_for(encoding: str) -> str:
    """The Python codec that decodes ``encoding`` as the Encoding Standard's decoder does."""
    return _DECODERS.get(encoding, encoding)


def prescan(head: bytes) -> str | None:
    """HTML §13.2.3.2 "prescan a byte stream to determine its encoding", over ``head``.

    A ``<meta>`` naming UTF-16 gives UTF-8 and one naming x-user-defined gives
    windows-1252, as the spec says; running out of bytes inside a tag or comment ends
    the scan with no answer.
    """
    if head.startswith(b"<\x00?\x00x\x00"):
        return "utf-16le"
    if head.startswith(b"\x00<\x00?\x00x"):
        return "utf-16be"
    if not _CHARSET_WORD.search(head):  # every declaration the loop can find spells it
        return None
    end = len(head)
    position = 0
    while (token := _PRESCAN_TOKEN.search(head, position)) is not None:
        start = token.start()
        if token.group("comment"):
            close = head.find(b"-->", start + 2)  # "<!-->" closes itself
            position = close + 3 if close >= 0 else end
        elif token.group("meta"):
            charset, position = _meta_charset(head, start + 5)
            if charset:
                return charset
            position += 1
        elif token.group("tag"):
            position = _TAG_NAME_REST.match(head, token.end()).end()
            attribute = True
            while attribute and position < end:
                attribute, position = _get_attribute(head, position)
            position += 1
        else:  # "<!", "</" or "<?" not starting a tag: skip to the next ">"
            close = head.find(b">", start)
            position = close + 1 if close >= 0 else end
    return None


def _meta_charset(head: bytes, position: int) -> tuple[str | None, int]:
    """The prescan's ``<meta>`` steps: the encoding the tag's attributes declare, and where it ends."""
    seen: set[bytes] = set()
    got_pragma = False
    need_pragma = None
    charset = None
    while (attribute := _get_attribute(head, position))[0]:
        (name, value), position = attribute
        if name in seen:
            continue
        seen.add(name)
        if name == b"http-equiv":
            got_pragma = got_pragma or value == b"content-type"
        elif name == b"content" and charset is None:
            if found := _charset_in_content(value):
                charset, need_pragma = found, True
        elif name == b"charset":
            charset, need_pragma = encoding_for_label(value), False
    position = attribute[1]
    if need_pragma is None or (need_pragma and not got_pragma) or charset is None:
        return None, position
    return _document_declared(charset), position


def _get_attribute(head: bytes, position: int) -> tuple[tuple[bytes, bytes] | None, int]:
    """HTML §13.2.3.2 "get an attribute": ``((name, value), next position)``, lowercased.

    ``(None, position)`` when the tag ends there; ``(None, len(head))`` when the bytes
    run out first.
    """
    end = len(head)
    position = _SPACE_OR_SLASH.match(head, position).end()
    if position >= end or head[position] == 0x3E:  # ">"
        return None, position
    name_match = _ATTRIBUTE_NAME.match(head, position)
    name, position = name_match.group().lower(), name_match.end()
    if position >= end:
        return None, end
    if head[position] in b"/>":
        return (name, b""), position
    position = _SPACES.match(head, position).end()
    if position >= end:
        return None, end
    if head[position] != 0x3D:  # "=": an attribute without a value
        return (name, b""), position
    position = _SPACES.match(head, position + 1).end()
    if position >= end:
        return None, end
    quote = head[position]
    if quote in b"\"'":
        close = head.find(bytes((quote,)), position + 1)
        if close < 0:
            return None, end
        return (name, head[position + 1:close].lower()), close + 1
    if quote == 0x3E:
        return (name, b""), position
    value_end = _UNQUOTED_VALUE.match(head, position + 1).end()
    if value_end >= end:
        return None, end
    return (name, head[position:value_end].lower()), value_end


def _charset_in_content(value: bytes) -> str | None:
    """HTML §2.5.5 "extracting a character encoding from a meta element" (``value`` lowercased)."""
    position = 0
    while True:
        found = value.find(b"charset", position)
        if found < 0:
            return None
        position = _SPACES.match(value, found + 7).end()
        if value[position:position + 1] == b"=":
            break
    position = _SPACES.match(value, position + 1).end()
    if position >= len(value):
        return None
    quote = value[position:position + 1]
    if quote in (b'"', b"'"):
        close = value.find(quote, position + 1)
        return encoding_for_label(value[position + 1:close]) if close >= 0 else None
    label_end = _LABEL_END.search(value, position)
    return encoding_for_label(value[position:label_end.start() if label_end else len(value)])


def _document_declared(encoding: str) -> str:
    """What a declaration inside the document means: UTF-16 is UTF-8, x-user-defined windows-1252."""
    if encoding in _UTF16:
        return "utf-8"
    return "windows-1252" if encoding == "x-user-defined" else encoding


def xml_declaration_encoding(head: bytes) -> str | None:
    """HTML §13.2.3.2 "get an XML encoding": the ``encoding`` of a leading ``<?xml ...>``.

    Only a hint, read after the ``<meta>`` prescan: one naming UTF-16 on bytes that are
    not UTF-16 (those the prescan already recognised) means UTF-8.
    """
    if not head.startswith(b"<?xml"):
        return None
    declaration_end = head.find(b">")
    if declaration_end < 0:
        return None
    declaration = head[:declaration_end]
    position = declaration.find(b"encoding")
    if position < 0:
        return None
    position = _skip_up_to_space(declaration, position + 8)
    if declaration[position:position + 1] != b"=":
        return None
    position = _skip_up_to_space(declaration, position + 1)
    quote = declaration[position:position + 1]
    if quote not in (b'"', b"'"):
        return None
    close = declaration.find(quote, position + 1)
    label = declaration[position + 1:close]
    if close < 0 or any(byte <= 0x20 for byte in label):
        return None
    encoding = encoding_for_label(label)
    return _document_declared(encoding) if encoding else None


def _skip_up_to_space(data: bytes, position: int) -> int:
    while position < len(data) and data[position] <= 0x20:
        position += 1
    return position


def late_meta_encoding(data: bytes) -> str | None:
    """Step 4: a ``<meta>`` charset past the first 1,024 bytes, in the head.

    The tree builder's "in head" rules change a tentative encoding to the one a ``<meta>``
    declares; the same prescan, run up to ``<body>`` (at most :data:`LATE_META_BYTES`),
    finds that declaration without parsing.
    """
    if len(data) <= PRESCAN_BYTES:
        return None
    window = data[:LATE_META_BYTES]
    body = _BODY_TAG.search(window)
    return prescan(window[:body.start()] if body else window)


def detect_encoding(data: bytes) -> str | None:
    """Guess an undeclared encoding: strict UTF-8 first, then uchardet (Mozilla's detector).

    uchardet recognises undeclared GBK/GB18030 pages that charset-normalizer
    mistakes for Cyrillic code pages (measured on zh-news); charset-normalizer
    remains the fallback when uchardet has no answer.  Returns a WHATWG encoding
    name where the guess has a label, else a Python codec name.
    """
    sample = data[:400_000]
    try:
        sample.decode("utf-8")
        return "utf-8"
    except UnicodeDecodeError as exc:
        if exc.start >= len(sample) - 4:  # a multi-byte character cut by the sample's end
            return "utf-8"
    guess = cchardet.detect(sample).get("encoding")
    if guess and known_codec(guess):  # uchardet also names codecs Python lacks (VISCII)
        return _detected(guess)
    best = charset_normalizer.from_bytes(sample[:200_000]).best()
    return _detected(best.encoding) if best else None


def _detected(name: str) -> str:
    """A detector's answer as the encoding a browser would decode (``SHIFT_JIS`` as cp932)."""
    encoding = encoding_for_label(name) or encoding_for_label(codecs.lookup(name).name)  # "latin_1"
    return encoding if encoding and encoding not in _UTF16 else name.lower()


def known_codec(name: str) -> bool:
    """Python has a text codec of this name."""
    try:
        b"a".decode(name, "ignore")  # not b"": an empty input is decoded without looking the codec up
    except LookupError:  # also "'hex' is not a text encoding"
        return False
    return True


def _decode(data: bytes, encoding: str) -> str:
    if encoding == "x-user-defined":
        return webencodings.decode(data, "x-user-defined", errors="replace")[0]
    return to_unicode(data, codec_for(encoding))


def _decode_declared(data: bytes, encoding: str) -> str:
    """``data`` in its declared encoding, unless the bytes prove the declaration wrong."""
    if encoding != "utf-8" and _is_utf8(data):
        # Multi-byte UTF-8 that decodes strictly is no accident of a legacy encoding:
        # the declaration is wrong (a UTF-8 page still saying gb2312).
        return data.decode("utf-8")
    if encoding == "windows-1252":
        cjk = _strict_cjk(data)
        if cjk:  # a GBK/Big5/... page under a Latin-1 header: the header is the template's default
            return cjk
    text = _decode(data, encoding)
    if text.count("\ufffd") > max(8, len(text) // 200):
        detected = detect_encoding(data)
        if detected and codec_for(detected) != codec_for(encoding):
            candidate = _decode(data, detected)
            if candidate.count("\ufffd") < text.count("\ufffd"):
                return candidate
    return text


def _strict_cjk(data: bytes) -> str | None:
    """``data`` decoded as the multi-byte CJK encoding uchardet names, if it decodes without error.

    Latin-1 text almost never decodes strictly as GBK/Big5/Shift_JIS (an accented letter
    followed by a space or punctuation is an invalid pair), so a strict decode of enough
    non-ASCII bytes is strong evidence.
    """
    sample = data[:400_000]
    if sum(1 for b in sample[:20_000] if b > 0x7F) < 20:
        return None
    guess = (cchardet.detect(sample).get("encoding") or "").lower()
    if not guess.startswith(_CJK_MULTIBYTE):
        return None
    try:
        return data.decode(guess)
    except (UnicodeDecodeError, LookupError):
        return None


def _is_utf8(data: bytes) -> bool:
    """Strictly valid UTF-8 with at least some multi-byte characters."""
    if data.isascii():
        return False
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True
