"""The default method (placeholder: the measured combination lands with the evaluation)."""

from __future__ import annotations

from .body import Body
from .page import Page


def extract_body(page: Page, **params) -> Body:
    from . import decay

    body = decay.extract_body(page, **params)
    body.method = "auto"
    return body
