"""One page's evidence that its extracted body is not its article (issue 29.2): boilerplate lines
that do not speak of the title.  Real pages must not be flagged: measured on real dataset pages."""

from __future__ import annotations

from pathlib import Path

import pytest

from newscrawl.evaluation.datasets import load_dataset
from newscrawl.extract import Page, extract_page
from newscrawl.extract.body_check import (
    boilerplate_share,
    is_code_line,
    not_the_article,
    title_relation,
    unrelated,
)

DATASETS = Path(__file__).resolve().parents[2] / "shared" / "datasets"
STORY = ("The council of district 4 met on Tuesday to discuss the budget for the coming year.\n"
         "Residents asked that the library stay open on weekends.\n"
         "The mayor said the final vote on the budget will take place next month.")


def test_a_copyright_footer_is_not_the_article_of_any_title():
    footer = ("Copyright 2024 Valley Evening Post and its licensors. All rights reserved.\n"
              "Valley Evening Post, 12 River Road. Tous droits réservés.")
    assert boilerplate_share(footer) == 1.0
    assert not_the_article("Mayor approves the new budget for schools", footer, "en") == "boilerplate"
    assert not_the_article(None, footer) == "boilerplate"  # no title to speak of: the lines decide
    # A notice that names what the title names (an "about" page) is the page's own text.
    assert not_the_article("Valley Evening Post: copyright and licensing", footer, "en") is None


def test_chinese_licence_lines_are_boilerplate_and_the_title_is_matched_by_characters():
    footer = "版权所有 © 2024 某某日报社\n京ICP备12345678号 京公网安备11010502030000号"
    assert boilerplate_share(footer) == 1.0
    assert not_the_article("北京地铁新线今日开通运营", footer, "zh") == "boilerplate"
    body = "北京地铁新线今日上午开通运营，沿线居民乘坐新线出行。\n版权所有 © 2024 某某日报社"
    assert title_relation("北京地铁新线今日开通运营", body, "zh") == 1.0
    assert not_the_article("北京地铁新线今日开通运营", body, "zh") is None


def test_a_russian_sites_legal_terms_are_boilerplate_and_an_article_that_names_a_rights_holder_is_not():
    # A site's rights holder, terms of quotation and disclaimer: exported as one site's bodies (issue 38, 4c).
    footer = ("Владелец и правообладатель сайта «Вечерний город»: ООО «Городские новости», 2004-2012.\n"
              "Правовые ограничения: материалы сайта публикуются по договорам с авторами и изданиями.\n"
              "Все права на материалы, опубликованные на сайте, охраняются законодательством РФ.\n"
              "Допускается цитирование не более 30% материала с прямой ссылкой на страницу источника.\n"
              "Редакция не несет ответственности за достоверность информации в рекламных объявлениях.")
    assert boilerplate_share(footer) == 1.0
    assert not_the_article("Городской совет утвердил бюджет на новый год", footer, "ru") == "boilerplate"
    story = ("Городской совет во вторник утвердил бюджет на новый год после долгих споров о школах.\n"
             "Суд признал издательство правообладателем спорных фотографий и обязал ответчика заплатить.\n"
             "Депутаты обещали вернуться к вопросу о библиотеке весной, когда станут известны доходы.")
    assert not_the_article("Городской совет утвердил бюджет на новый год", story, "ru") is None


def test_a_stylesheet_as_text_is_boilerplate_and_prose_with_a_semicolon_is_not():
    css = "body { margin: 0; font-family: Georgia, serif } .col-1 { width: 4%; float: left }"
    assert is_code_line(css)
    assert not is_code_line("The vote was close; the mayor won by three votes, and the council agreed.")
    assert not_the_article("Harbour master reports on the docks", css, "en") == "boilerplate"


def test_an_article_with_a_notice_line_is_an_article():
    body = STORY + "\nCopyright 2024 Valley Evening Post. All rights reserved."
    assert boilerplate_share(body) < 0.5
    assert not_the_article("Council debates the budget", body, "en") is None


def test_relation_of_a_body_to_a_title():
    assert title_relation("Council debates the budget", STORY, "en") == pytest.approx(2 / 3)  # debates: no
    assert title_relation("", STORY) is None and title_relation("The 4 of", STORY, "en") is None
    assert not unrelated("Council debates the budget", STORY, "en")
    assert unrelated("Storm closes the northern bridge", STORY, "en")
    assert not unrelated(None, STORY)  # no title: no evidence


@pytest.mark.skipif(not DATASETS.is_dir(), reason="../shared/datasets is not here")
@pytest.mark.parametrize("name", ["zh-news", "newspaper4k", "goose3"])
def test_no_real_page_of_a_dataset_is_flagged(name):
    """A sample of the sets (all of them: ``python bench/failed_body.py``: no body that is its article)."""
    flagged = []
    for record in load_dataset(DATASETS / name):
        article = extract_page(Page.from_html(record.html, url=record.url), method="auto")
        if not_the_article(article.title, article.text or "", article.language):
            flagged.append(record.id)
    assert flagged == []
