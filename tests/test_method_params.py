"""The parameters each body method reads (:mod:`newscrawl.extract.method_params`)."""

import pytest

from newscrawl.extract import METHODS
from newscrawl.extract.method_params import check_params, method_params


def test_auto_reads_its_own_parameters_and_the_rules_it_hands_them_to():
    auto = method_params("auto")
    assert auto["article_end"] is True and auto["lam"] == method_params("auto-rules")["lam"]
    assert "article_end" not in method_params("auto-rules")
    assert "alpha" in method_params("cevc") and "alpha" not in auto


@pytest.mark.parametrize("method", METHODS)
def test_every_method_takes_the_standfirst_switch(method):
    check_params(method, {"lead": False})


@pytest.mark.parametrize(("params", "said"), [
    ({"article_end": "fals"}, "switch"),
    ({"article_end": 0}, "switch"),
    ({"lam": True}, "number"),
    ({"lam": "0.5"}, "number"),
    ({"cjk_mode": 1}, "text"),
    ({"alpha": 0.4}, "no parameter 'alpha'"),
])
def test_a_value_of_the_wrong_kind_or_an_unknown_name_is_refused(params, said):
    with pytest.raises(ValueError, match=said):
        check_params("auto", params)


def test_right_values_pass():
    check_params("auto", {"article_end": False, "lam": 1, "mu": 0.25, "cjk_mode": "char", "article_end_model": None})
    check_params("decay", {"T": 0.3, "dl_max": 0.6})
