"""Language identification: the text's evidence first, the declared ``lang`` as fallback."""

from __future__ import annotations

from lxml import html

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
