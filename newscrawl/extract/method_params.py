"""The parameters each body method reads, and the check that makes a mistyped one an error.

The methods take their parameters as keywords and ignore the ones they do not know (``auto``
hands the rules' parameters on), so ``--param article_end=fals`` or ``--param artcle_end=false``
would otherwise run with the default, silently.  :func:`check_params` is called where
parameters come from a user (``scrapy extract``, ``scrapy evaluate``), not on every page.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from numbers import Real
from typing import Any

COMMON = {"lead": True}  # read by extract_page for every method: the standfirst in the rich record
_FORWARDS = {"auto": "auto-rules"}  # auto passes what it does not read on to the rules' extract_body


def method_params(method: str) -> dict[str, Any]:
    """Name -> default of every keyword parameter ``method`` reads, the methods it hands
    parameters on to included; objects a caller passes in code (a model) have default None."""
    from . import _body_method

    params = dict(COMMON)
    name: str | None = method
    while name is not None:
        for p in inspect.signature(_body_method(name)).parameters.values():
            if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and p.name != "page":
                params.setdefault(p.name, p.default)
        name = _FORWARDS.get(name)
    return params


def check_params(method: str, params: Mapping[str, Any]) -> None:
    """``ValueError`` for a parameter ``method`` does not read, or a value of the wrong kind for
    its default (true/false for a switch, a number for a number, text for text)."""
    known = method_params(method)
    for key, value in params.items():
        if key not in known:
            settable = sorted(k for k, default in known.items() if isinstance(default, bool | Real | str))
            raise ValueError(f"method {method!r} has no parameter {key!r}; "
                             f"its parameters: {', '.join(settable)}")
        default = known[key]
        if isinstance(default, bool):
            if not isinstance(value, bool):
                raise ValueError(f"parameter {key!r} is a switch: give true or false, not {value!r}")
        elif isinstance(default, Real):
            if isinstance(value, bool) or not isinstance(value, Real):
                raise ValueError(f"parameter {key!r} is a number (default {default}), not {value!r}")
        elif isinstance(default, str) and not isinstance(value, str):
            raise ValueError(f"parameter {key!r} is text (default {default!r}), not {value!r}")
