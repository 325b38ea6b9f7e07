"""Language of a page: the text's own evidence first (py3langid), the declared ``lang`` as fallback."""

from __future__ import annotations

from functools import lru_cache
from itertools import islice

from lxml import html

from .dom import normalize_space

_SAMPLE_CHARS = 4000
_MIN_SAMPLE = 40


@lru_cache(maxsize=1)
def _identifier():
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    return LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)


def identify(text: str) -> tuple[str, float]:
    """``(ISO 639-1 code, probability)`` of ``text`` according to py3langid."""
    lang, prob = _identifier().classify(text)
    return lang, float(prob)


def detect_language(body: html.HtmlElement, declared: str | None = None) -> str | None:
    """Identify the language from a sample of paragraph text, falling back to ``declared``.

    Template ``lang`` attributes are often wrong (a Chinese page declaring ``en``),
    so a confident reading of the text wins over the declaration.
    """
    pieces = (normalize_space(p.text_content()) for p in body.iter("p"))
    sample = " ".join(islice((t for t in pieces if len(t) > 20), 30))[:_SAMPLE_CHARS]
    if len(sample) < _MIN_SAMPLE:
        sample = normalize_space(body.text_content())[:_SAMPLE_CHARS]
    if len(sample) < _MIN_SAMPLE:
        return declared
    lang, prob = identify(sample)
    if declared and prob < 0.9:
        return declared
    return lang
