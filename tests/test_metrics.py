"""The evaluation measures on tiny hand-made examples."""

from datetime import UTC, datetime, timedelta, timezone

import pytest

from newscrawl.evaluation import metrics as m


def approx(value):
    return pytest.approx(value, abs=1e-9)


# --- tokens and LCS (Wang et al. 2020) -----------------------------------------------------------------


def test_tokenize_splits_han_characters_only_when_asked():
    assert m.tokenize("新华社 reports, 北京!") == ["新", "华", "社", "reports", "北", "京"]
    assert m.tokenize("新华社 reports, 北京!", han_chars=False) == ["新华社", "reports", "北京"]
    assert m.tokenize("abc新闻def") == ["abc", "新", "闻", "def"]
    assert m.tokenize(None) == []
    assert m.tokenize("plain words, no Han_chars") == ["plain", "words", "no", "Han_chars"]


def test_lcs_length_counts_in_order_matches():
    assert m.lcs_length(list("abcd"), list("acde")) == 3
    assert m.lcs_length(["x", "y"], ["y", "x"]) == 1
    assert m.lcs_length([], ["a"]) == 0


def test_lcs_prf_english():
    # e = "the cat sat on mat" (5 tokens), g = "the cat sat on the mat" (6): LCS 5
    prf = m.lcs_prf("the cat sat on mat", "the cat sat on the mat")
    assert prf.precision == approx(1.0)
    assert prf.recall == approx(5 / 6)
    assert prf.f1 == approx(2 * (5 / 6) / (1 + 5 / 6))


def test_lcs_prf_chinese_counts_characters():
    # extracted 今天北京下雨了 (7 chars) + boilerplate 广告 (2); truth 今天北京下雨 (6): LCS 6
    prf = m.lcs_prf("今天北京下雨了 广告", "今天北京下雨")
    assert prf.precision == approx(6 / 9)
    assert prf.recall == approx(1.0)


def test_lcs_prf_order_matters_and_empty_cases():
    assert m.lcs_prf("b a", "a b").precision == approx(0.5)
    assert m.lcs_prf("", "some truth") == m.PRF(0.0, 0.0, 0.0)
    assert m.lcs_prf("", "") == m.PRF(1.0, 1.0, 1.0)


# --- Zyte shingles -----------------------------------------------------------------------------


def test_shingles_identical_text_is_all_true_positive():
    text = "one two three four five six"
    assert m.shingle_counts(text, text) == (1.0, 0.0, 0.0)


def test_shingles_counts_are_normalised_per_page():
    truth = "a b c d e"  # shingles abcd, bcde
    pred = "a b c d x"  # shingles abcd, bcdx
    assert m.shingle_counts(truth, pred) == (pytest.approx(1 / 3), pytest.approx(1 / 3), pytest.approx(1 / 3))


def test_shingles_are_a_multiset():
    truth = "w x y z w x y z"  # wxyz twice, plus xyzw, yzwx, zwxy
    pred = "w x y z"  # wxyz once
    tp, fp, fn = m.shingle_counts(truth, pred)
    assert (tp, fp, fn) == (pytest.approx(1 / 5), 0.0, pytest.approx(4 / 5))


def test_short_text_is_one_short_shingle():
    assert m.shingle_counts("hello world", "hello world") == (1.0, 0.0, 0.0)
    assert m.shingle_counts("hello world", "hello") == (0.0, pytest.approx(0.5), pytest.approx(0.5))


def test_shingles_are_case_sensitive_and_ignore_punctuation():
    assert m.shingle_counts("One, two; three four.", "One two three four") == (1.0, 0.0, 0.0)
    assert m.shingle_counts("One two three four", "one two three four")[0] == 0.0


def test_chinese_shingles_use_characters():
    # Without Han splitting the sentence is one token and a near miss scores nothing.
    truth, pred = "北京今天下雨", "北京今天下雪"
    assert m.shingle_counts(truth, pred, han_chars=False)[0] == 0.0
    tp, fp, fn = m.shingle_counts(truth, pred, han_chars=True)  # 3 shingles each, 2 shared
    assert (tp, fp, fn) == (pytest.approx(0.5), pytest.approx(0.25), pytest.approx(0.25))


def test_aggregate_follows_upstream_empty_conventions():
    perfect = m.shingle_counts("a b c d e", "a b c d e")
    empty_prediction = m.shingle_counts("a b c d e", "")
    both_empty = m.shingle_counts("", "")
    assert empty_prediction == (0.0, 0.0, 1.0)
    assert both_empty == (0.0, 0.0, 0.0)
    prf = m.aggregate_shingles([perfect, empty_prediction, both_empty])
    # precision: only the page that predicted something; recall: pages with a truth
    assert prf.precision == approx(1.0)
    assert prf.recall == approx(0.5)
    assert prf.f1 == approx(2 * 0.5 / 1.5)


def test_aggregate_is_f1_of_averages_not_average_of_f1():
    pages = [(0.5, 0.5, 0.0), (0.5, 0.0, 0.5)]  # P 0.5 / R 1 and P 1 / R 0.5
    prf = m.aggregate_shingles(pages)
    assert prf.precision == approx(0.75)
    assert prf.recall == approx(0.75)
    assert prf.f1 == approx(0.75)  # the mean of the per-page F1s would be 2/3


# --- titles ------------------------------------------------------------------------------------


def test_title_exact_normalises_width_and_space_but_not_case():
    assert m.title_exact("Ｈｅｌｌｏ\u00a0  World ", "Hello World")
    assert not m.title_exact("hello world", "Hello World")
    assert not m.title_exact(None, "Hello")
    assert not m.title_exact("", "")


def test_title_char_prf_uses_character_sets():
    prf = m.title_char_prf("北京下雨 - 新闻网", "北京下雨")
    # Se = {北,京,下,雨,-,新,闻,网} (8), Sl = {北,京,下,雨} (4)
    assert prf.precision == approx(4 / 8)
    assert prf.recall == approx(1.0)
    assert m.title_char_prf("aaa", "a").precision == approx(1.0)
    assert m.title_char_prf(None, "title") == m.PRF(0.0, 0.0, 0.0)


# --- dates -------------------------------------------------------------------------------------


def test_truth_day_reads_the_written_calendar_day():
    assert m.truth_day("2024-05-03 23:47:42.389000-05:00").isoformat() == "2024-05-03"
    assert m.truth_day("2005-07-31 12:30").isoformat() == "2005-07-31"
    assert m.truth_day("Sun Nov 23 16:00:00 EDT 2014").isoformat() == "2014-11-23"
    assert m.truth_day("") is None
    assert m.truth_day("not a date at all") is None


def test_date_day_match_uses_the_prediction_own_offset():
    late_evening = datetime(2024, 5, 3, 23, 30, tzinfo=timezone(timedelta(hours=-5)))
    assert m.date_day_match(late_evening, "2024-05-03")
    assert not m.date_day_match(late_evening.astimezone(UTC), "2024-05-03")
    assert m.date_day_match("2024-05-03T01:00:00+09:00", "2024-05-03 10:00")
    assert not m.date_day_match(None, "2024-05-03")


# --- authors, snippets, prefixes -------------------------------------------------------------------


def test_author_names_split_and_normalised():
    assert m.author_names("By Jane Doe and John Roe") == {"jane doe", "john roe"}
    assert m.author_names("KEVIN SACK, SHERI FINK") == {"kevin sack", "sheri fink"}
    prf = m.author_prf("Kevin Sack", "KEVIN SACK, SHERI FINK")
    assert (prf.precision, prf.recall) == (approx(1.0), approx(0.5))
    assert m.author_prf(None, "Jane") == m.PRF(0.0, 0.0, 0.0)


def test_author_list_items_are_whole_names():
    assert m.author_names(["Martin Luther King, Jr.", "Sarah E. Needleman"]) == {
        "martin luther king, jr.", "sarah e. needleman"}
    assert m.author_prf(["Jane Doe", "John Roe"], "Jane Doe and John Roe") == m.PRF(1.0, 1.0, 1.0)


def test_snippet_counts_follow_trafilatura():
    text = "Intro line.\nThe   main body\nsays this."
    counts = m.snippet_counts(text, ["The main body says", "missing"], ["Impressum", "Intro line."])
    assert counts == (1, 1, 1, 1)
    assert m.snippet_counts(None, ["a"], ["b"]) == (0, 0, 1, 1)
    prf, accuracy = m.snippet_prf([counts, (2, 0, 0, 2)])
    assert prf.precision == approx(3 / 4)
    assert prf.recall == approx(3 / 4)
    assert accuracy == approx(6 / 8)


def test_prefix_match():
    assert m.prefix_match("PJ Morton  Lyrics\n\nI am", "PJ Morton Lyrics")
    assert not m.prefix_match("Headline\nPJ Morton Lyrics", "PJ Morton Lyrics")
    assert not m.prefix_match("anything", "")


def test_truth_dates_without_a_day_are_not_scored_at_day_level():
    from newscrawl.evaluation.metrics import truth_day

    assert truth_day("2021-1-29 13:18").isoformat() == "2021-01-29"
    assert truth_day("Sun Nov 23 16:00:00 EDT 2014").isoformat() == "2014-11-23"
    for partial in ("1998-3", "2018", "UNKNOWN", "刘涛"):
        assert truth_day(partial) is None
