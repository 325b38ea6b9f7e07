"""Stop-word matching, and languages without a stop-word list of their own."""

from newscrawl.extract import extract
from newscrawl.extract.stopwords import SENTENCE_CHUNKS, stopword_matcher

# Written for these tests: Burmese syllables spaced as phrases, a menu of one-word items.
PHRASE = "မြန်မာ စာ ရေး သား ပုံ နမူနာ ဖြစ် ပါ သည်"
MENU = ["ပင်မ", "သတင်း", "ဆောင်းပါး", "ဗီဒီယို", "ဆက်သွယ်ရန်", "အားကစား"]


def test_a_language_with_a_list_matches_its_words_only():
    english = stopword_matcher("en")
    assert english("the council met")
    assert not english("Council Budget Vote Library Roads Taxes")


def test_a_language_without_a_list_takes_a_sentence_long_text_as_prose():
    for lang in ("my", "km", "ta", "ka"):
        holds = stopword_matcher(lang)
        assert holds(" ".join(["ဗ"] * SENTENCE_CHUNKS)), lang
        assert not holds(" ".join(["ဗ"] * (SENTENCE_CHUNKS - 1))), lang
        assert holds("the"), lang  # the union of the lists still speaks for Latin text


def test_a_burmese_article_is_read_whole_not_only_where_a_latin_name_holds_a_stop_word():
    paragraphs = [f"{PHRASE} {word} {PHRASE}။" for word in MENU[:4]]
    paragraphs[1] = f"{PHRASE} the Weekly Review {PHRASE}။"  # the one text with stop words of any list
    menu = "".join(f'<li><a href="/{i}">{item}</a></li>' for i, item in enumerate(MENU * 3))
    html = f"""<html lang="my"><head><title>နမူနာ</title></head><body><ul class="menu">{menu}</ul>
<div class="story">{"".join(f"<p>{p}</p>" for p in paragraphs)}</div></body></html>"""
    assert extract(html, method="auto").text.split("\n") == paragraphs
