"""Evidence on one page that the body extracted from it is not its article.

A body that came out as the site's copyright footer, an ICP licence line or a stylesheet
shows it twice: its lines are boilerplate (legal notices, licence lines, CSS/JS), and it
shares little with the page's title.  A headline names what its article is about: He (2019)
matches a page's headline candidates to its ``<title>`` by their common characters (its
formula 5 is a character-set recall); here the title is matched the same way to the body:
the share of the title's words (Chinese: characters) found in the body.

Neither alone will do.  Measured on every set of ``../shared/datasets`` (2,962 pages with a
body extracted by ``auto``; ``bench/failed_body.py``): 173 real bodies share no word of
their title (short blog titles, German compounds, a title in another language), and a real
body may hold notice lines (a reprint notice, a licence paragraph) without being one.
Together, a body at least half boilerplate (:data:`BOILERPLATE_SHARE`) that holds at most
half its title's words (:data:`RELATED_SHARE`) flags no body of the 2,962 that is its page's
article, and flags the five daniel-ru bodies that came out as one site's legal footer.

:func:`unrelated` is the weaker evidence the crawl uses when one body comes with two
titles (:mod:`newscrawl.pipelines.shared_body`): a copy republished under a new headline
is related to its titles, a footer shared by two articles to neither.
"""

from __future__ import annotations

import re

from .hints import is_notice_line
from .stopwords import stopword_list
from .tokens import HAN_RE, tokenize

BOILERPLATE_SHARE = 0.5  # of the body's characters, in boilerplate lines: the body is boilerplate
RELATED_SHARE = 0.5  # of the title's words found in the body, at most, for a boilerplate body
UNRELATED_SHARE = 0.2  # of the title's words found in the body, under it: the body is not about the title

# Notices that :func:`~.hints.is_notice_line` leaves to the sites' languages: reserved rights,
# a Russian site's legal terms (its rights holder, terms of quotation, disclaimer), the Chinese
# ICP licence and public-security filing lines.
_RIGHTS = re.compile(
    r"alle rechte vorbehalten|tous droits réservés|todos los derechos reservados|"
    r"todos os direitos reservados|tutti i diritti riservati|все права защищены|"
    r"все права на материалы|правообладател|правовые ограничения|допускается цитирование|"
    r"не несет ответственности за (?:достоверность|содержание)|"
    r"版权所有|版權所有|icp[备證证]|公网安备|網安備"
)
_CODE_CHARS = frozenset("{};=")
CODE_MIN_SHARE = 0.03  # of a line's characters in "{};=": a line of CSS or JavaScript


def is_code_line(line: str) -> bool:
    """A line of a stylesheet or a script: ``.nav { margin: 0; color: #333 }``."""
    if "{" not in line and ";" not in line:
        return False
    count = sum(ch in _CODE_CHARS for ch in line)
    return count >= 3 and count >= CODE_MIN_SHARE * len(line)


def is_boilerplate_line(line: str) -> bool:
    """A legal notice, a licence line, or code."""
    return is_notice_line(line) or bool(_RIGHTS.search(line.lower())) or is_code_line(line)


def boilerplate_share(text: str) -> float:
    """The share of the body's characters in boilerplate lines (0 for an empty body)."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    total = sum(map(len, lines))
    return sum(len(line) for line in lines if is_boilerplate_line(line)) / total if total else 0.0


def _title_words(title: str, lang: str | None) -> set[str]:
    """The title's words that say what it is about: Han characters, and the other words of
    two letters or more that are not stop words or numbers."""
    stop = stopword_list(lang or None)
    words = set()
    for token in tokenize(title):
        token = token.casefold()
        if HAN_RE.match(token) or (len(token) >= 2 and not token.isdigit() and token not in stop):
            words.add(token)
    return words


def title_relation(title: str | None, text: str, lang: str | None = None) -> float | None:
    """The share of the title's words found in the body; None when the title has none."""
    words = _title_words(title or "", lang)
    if not words:
        return None
    body = {token.casefold() for token in tokenize(text)}
    return len(words & body) / len(words)


def unrelated(title: str | None, text: str, lang: str | None = None) -> bool:
    """The body holds fewer than :data:`UNRELATED_SHARE` of the title's words (for a title of
    four words or fewer: none of them); False when the title has no words."""
    relation = title_relation(title, text, lang)
    return relation is not None and relation < UNRELATED_SHARE


def not_the_article(title: str | None, text: str, lang: str | None = None) -> str | None:
    """``"boilerplate"`` when the body is the page's boilerplate rather than its article (see
    the module docstring), else None."""
    if not text.strip() or boilerplate_share(text) < BOILERPLATE_SHARE:
        return None
    relation = title_relation(title, text, lang)
    return "boilerplate" if relation is None or relation <= RELATED_SHARE else None
