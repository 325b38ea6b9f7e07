"""Language identification: the text's evidence first, the declared ``lang`` as fallback."""

from __future__ import annotations

import random

import numpy as np
from lxml import html

from newscrawl.extract import language
from newscrawl.extract.language import detect_language, identify

ZH = "国务院常务会议今天在北京召开，会议研究部署了进一步稳定经济增长的若干措施，并听取了有关部门的工作汇报。"
JA = "東京都は今日、新しい交通計画を発表しました。計画では、駅の周辺に自転車の駐車場を増やすことになっています。"
EN = "The council met on Tuesday and agreed to keep the harbour open for the rest of the winter season."
RU = "Городской совет во вторник решил оставить порт открытым до конца зимы, сообщили в администрации."


def _body(*paragraphs: str):
    return html.fromstring("<html><body>" + "".join(f"<p>{p}</p>" for p in paragraphs) + "</body></html>").body


def test_han_text_without_kana_is_chinese_whatever_the_page_declares():
    assert identify(ZH) == ("zh", 1.0)
    assert detect_language(_body(ZH, ZH), declared="en") == "zh"


def test_han_text_with_kana_is_left_to_the_statistical_model():
    lang, _ = identify(JA)
    assert lang == "ja"


def test_other_scripts_are_identified_by_py3langid():
    assert detect_language(_body(EN, EN)) == "en"
    assert detect_language(_body(RU, RU)) == "ru"


def test_a_page_with_too_little_text_keeps_its_declared_language():
    assert detect_language(_body("Hi"), declared="de") == "de"
    assert detect_language(_body("Hi")) is None


def _visit_counts_of_py3langid(identifier, data: bytes):
    from py3langid.langid import visit_counts

    return visit_counts(identifier.tk_nextmove, identifier._rowbase, identifier.tk_output, data)


def test_the_windowed_walk_counts_what_py3langid_s_byte_walk_counts():
    identifier = language._identifier()
    rng = random.Random(7)
    texts = [EN, RU, JA, ZH, EN + " " + RU, "", "a", "ab cd", "¿Qué tal? ça va, 12:30 — ok"]
    texts += ["".join(chr(rng.choice((rng.randrange(32, 127), rng.randrange(0x400, 0x500), rng.randrange(0x3040, 0x30ff))))
                      for _ in range(rng.randrange(1, 300))) for _ in range(50)]
    data = [identifier._encode(t) for t in texts] + [bytes(rng.randrange(256) for _ in range(200)) for _ in range(20)]
    for sample in data:
        expected = _visit_counts_of_py3langid(identifier, sample)
        found = identifier.visits(sample)
        assert (None if expected is None else list(expected.items())) == (None if found is None else list(found.items()))
    assert identifier.classify(EN) == language.LanguageIdentifier.classify(identifier, EN)


def test_the_model_s_automaton_is_no_deeper_than_the_window():
    """Every state is reached from the root within WINDOW bytes (the trie's depth): a state
    deeper than that would depend on bytes the window leaves out."""
    identifier = language._identifier()
    moves = np.frombuffer(identifier.tk_nextmove, dtype=np.dtype(identifier.tk_nextmove.typecode))
    rows = np.asarray(identifier._rowbase, dtype=np.int64)
    seen = np.zeros(len(rows), dtype=bool)
    seen[0] = True
    frontier = np.array([0])
    for _ in range(language.WINDOW):
        reached = np.unique(moves[(rows[frontier][:, None] + np.arange(256)[None, :]).ravel()])
        frontier = reached[~seen[reached]]
        seen[frontier] = True
    assert seen.all()


def test_a_declared_tag_gives_its_language_and_junk_gives_none():
    from newscrawl.extract.language import language_code

    assert language_code("zh-TW") == "zh"
    assert language_code(" en_US ") == "en"
    assert language_code("yue-Hant") == "yue"  # three letters the model reads
    assert language_code("utf-8") is None  # a charset in a language <meta>
    assert language_code("x-default") is None
    assert language_code("english") is None
    assert language_code("") is None


def test_a_page_declaring_a_charset_as_its_language_falls_back_to_the_next_declaration():
    from newscrawl.extract import Page

    page = Page.from_html('<html lang="utf-8"><head><meta name="language" content="utf-8">'
                          '<meta http-equiv="Content-Language" content="ru-RU"></head>'
                          "<body><p>Короткий текст.</p></body></html>")
    assert page.declared_language == "ru"
    junk_only = Page.from_html('<html><head><meta name="language" content="utf-8"></head>'
                               "<body><p>短文。</p></body></html>")
    assert junk_only.declared_language is None


POST = ("Dear all, I would love to invite you to the book event at the little shop down the road this "
        "coming Saturday at eleven in the morning. There will be readings for the children, drawings "
        "to take home and tea for everyone who comes along. Hope to see you there, and bring a friend "
        "or two if you can, because the more the merrier.")
COMMENT = "J'aurais bien aimé venir et admirer vos oeuvres, mais je suis un peu loin. Gros bisous !"
LONG_GERMAN = ("Die Gemeinde hat am Dienstag beschlossen, die alte Brücke über den Fluss im kommenden Jahr "
               "zu erneuern. Die Arbeiten sollen im Frühjahr beginnen und bis zum Herbst dauern. ")


def test_a_post_without_paragraphs_is_read_by_its_text_not_by_a_comment_in_p():
    """A blog post whose lines are split by <br> and whose only <p> is a French comment."""
    body = html.fromstring(f"<html><body><div class='post'><h3>Little gifts</h3>{POST.replace('. ', '.<br>')}"
                           f"</div><div class='comments'><p>{COMMENT}</p></div></body></html>").find("body")
    assert detect_language(body) == "en"
    from newscrawl.extract import extract

    page = f"<html><body><div class='post'><h3>Little gifts</h3>{POST}</div><p>{COMMENT}</p></body></html>"
    article = extract(page)
    assert article.language == "en" and "invite you to the book event" in article.text


def test_enough_paragraph_text_speaks_for_the_page_whatever_runs_before_it():
    english_banner = "<div>" + "This website uses cookies to improve your experience while you navigate. " * 3 + "</div>"
    body = html.fromstring(f"<html><body>{english_banner}<p>{LONG_GERMAN * 2}</p></body></html>").find("body")
    assert detect_language(body) == "de"
