"""Article author (placeholder until the dates/authors module lands)."""

from __future__ import annotations

from .page import Page


def find_author(page: Page) -> str | None:
    return None
