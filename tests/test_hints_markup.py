"""The hints' markup weight, found token by token (the patterns' words found by one automaton,
a pattern run only to decide a guarded word), equals the regexes over the whole descriptor."""

from __future__ import annotations

import random

from lxml import html

from newscrawl.extract import hints
from newscrawl.extract.hints import (
    DOMINANT_NEGATIVE,
    NEGATIVE,
    NEGATIVE_TAGS,
    POSITIVE,
    STRONG,
    STRONG_POSITIVE,
)


def outranked(token: str) -> bool:
    """A class token naming boilerplate that outranks any body word in it."""
    return bool(NEGATIVE.search(token) and DOMINANT_NEGATIVE.search(token))


def positive_token(token: str) -> bool:
    return bool(POSITIVE.search(token)) and not outranked(token)


def reference_weight(tag: str, cls: str | None, ident: str | None, role: str | None, itemprop: str | None) -> float:
    """hints._markup_weight written plainly: the negative pattern searched over the whole
    descriptor, the strong and positive ones over each space-separated token with its space."""
    if itemprop == "articleBody":
        return STRONG
    desc = f"{cls or ''} {ident or ''} {role or ''}".lower()
    tokens = desc.split(" ")
    tokens = [token + (" " if k < len(tokens) - 1 else "") for k, token in enumerate(tokens)]
    if any(STRONG_POSITIVE.search(token) and not outranked(token) for token in tokens):
        return STRONG
    negative_name = bool(desc.strip() and NEGATIVE.search(desc))
    if tag in NEGATIVE_TAGS and negative_name or tag == "footer":
        return 0.0
    negative = tag in NEGATIVE_TAGS or negative_name
    positive = tag in ("article", "main") or any(positive_token(token) for token in tokens)
    if negative and not positive:
        return 0.0
    if positive and not negative:
        return 1.25
    return 1.0


PIECES = ["ad", "ads", "nav", "foot", "tag", "tags", "article", "body", "text", "main", "post", "content",
          "side-bar", "comment", "story", "news", "menu", "-", "_", " ", "  ", "\n", "\t", "x", "AD", "Nav",
          "\u212a", "\u0130", "\u03a3", "entry", "caption", "share", "1", "meta",
          "related", "footer", "widget"]
# Every word of the three patterns, and what their guarded alternatives look around them for.
WORDS = [*hints._NEGATIVE_WORDS, *hints._NEGATIVE_GUARDED, *hints._POSITIVE_WORDS, "elementor-", "ck-", "dialogue",
         "the", "bio", "box", "card", "ue", "s", "-", "_", " ", "x", "1", "WIDGET", "Text", "has-", "with-", "--",
         "-off-canvas-main", "article-", "post-", "data", "__", "entry", "entries", "stor", "new"]


def random_name(rng: random.Random) -> str | None:
    if rng.random() < 0.2:
        return None
    return "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 6)))


def test_token_votes_equal_whole_descriptor_search():
    rng = random.Random(7)
    for _ in range(20_000):
        tag = rng.choice(["div", "nav", "article", "figcaption", "span", "main", "footer"])
        args = (tag, random_name(rng), random_name(rng), random_name(rng), rng.choice([None, "articleBody", "x"]))
        assert hints._markup_weight.__wrapped__(*args) == reference_weight(*args), args


def test_token_votes_equal_the_three_searches_on_strings_of_the_patterns_words():
    rng = random.Random(11)
    cache: dict = {}
    for _ in range(50_000):
        text = "".join(rng.choice(WORDS) for _ in range(rng.randint(0, 5))) + rng.choice(["", " "])
        lower = text.lower()
        expected = (bool(STRONG_POSITIVE.search(lower)) and not outranked(lower), bool(NEGATIVE.search(lower)),
                    positive_token(lower))
        assert hints._token_votes(text, text, cache) == expected, text


def test_the_automaton_holds_every_word_of_the_patterns():
    for words in (hints._NEGATIVE_WORDS, hints._NEGATIVE_GUARDED, hints._POSITIVE_WORDS, hints._STRONG_GUARDS):
        for word in words:
            assert hints._HINT_WORDS.exists(word), word
    assert all(NEGATIVE.fullmatch(word) for word in hints._NEGATIVE_WORDS)  # a plain word is a match alone
    assert all(POSITIVE.fullmatch(word) for word in hints._POSITIVE_WORDS)


def test_markup_matches_element_weight_and_is_hidden():
    snippets = [
        '<div class="sidebar" style="display:none">x</div>',
        "<article>x</article>",
        "<p hidden>x</p>",
        '<span aria-hidden="true" class="article-body">x</span>',
        "<nav>x</nav>",
        '<div id="main-text" role="main">x</div>',
        '<div itemprop="articleBody" style="visibility: hidden">x</div>',
        "<div>x</div>",
    ]
    for snippet in snippets:
        el = html.fragment_fromstring(snippet)
        attributes = dict(el.items()) or None
        assert hints.markup(el.tag, attributes) == (hints.element_weight(el), hints.is_hidden(el)), snippet
