"""Publication date (placeholder until the dates module lands)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from .page import Page


def find_published(page: Page, feed_entry: Mapping[str, Any] | None = None) -> datetime | None:
    return None
