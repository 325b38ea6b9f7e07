"""Read an evaluation dataset in the uniform layout (no Scrapy imports).

A dataset directory holds ``truth.jsonl`` (one JSON object a page: ``id``, ``file`` and
whatever the source knows: ``url``, ``lang``, ``title``, ``text``, ``text_prefix``, ``date``,
``author``, ``with``, ``without``, ``weak``) and ``pages/<id>.html.gz`` with the page's
original bytes.  :func:`load_dataset` yields :class:`Record` objects with the gunzipped
bytes; decoding is left to the consumer (the library's ``Page.from_html``), and
:func:`decode_like_scrapy` gives baselines the text a Scrapy ``TextResponse`` would.
"""

from __future__ import annotations

import gzip
import json
import logging
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from charset_normalizer import from_bytes
from w3lib.encoding import html_to_unicode, resolve_encoding

logger = logging.getLogger(__name__)

TRUTH_FILE = "truth.jsonl"


class DatasetError(ValueError):
    """The directory is not a dataset in the uniform layout."""


@dataclass
class Record:
    """One page of a dataset: its raw bytes and its ground truth."""

    id: str
    html: bytes
    truth: dict[str, Any] = field(default_factory=dict)

    @property
    def url(self) -> str | None:
        return self.truth.get("url") or None

    @property
    def lang(self) -> str | None:
        return self.truth.get("lang") or None

    def has(self, key: str) -> bool:
        """The truth has a non-empty value for ``key``."""
        return self.truth.get(key) not in (None, "", [])

    def get(self, key: str, default: Any = None) -> Any:
        return self.truth.get(key, default)


def is_dataset(path: str | Path) -> bool:
    return (Path(path) / TRUTH_FILE).is_file()


def read_truth(path: str | Path) -> list[dict[str, Any]]:
    """The truth objects of a dataset, in file order (bad lines are logged and skipped)."""
    path = Path(path)
    truth_file = path / TRUTH_FILE
    if not truth_file.is_file():
        raise DatasetError(f"{path}: no {TRUTH_FILE} (not a dataset directory)")
    rows = []
    with truth_file.open(encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except ValueError as exc:
                logger.warning("%s:%d: unreadable truth line skipped (%s)", truth_file, number, exc)
                continue
            if not isinstance(row, dict) or not row.get("id"):
                logger.warning("%s:%d: truth line without an id skipped", truth_file, number)
                continue
            rows.append(row)
    return rows


def load_dataset(path: str | Path, limit: int | None = None) -> Iterator[Record]:
    """Yield the dataset's pages (at most ``limit``) with gunzipped bytes and truth.

    A page whose file is missing or not valid gzip is logged and skipped.
    """
    path = Path(path)
    rows = read_truth(path)
    if limit is not None:
        rows = rows[:limit]
    for row in rows:
        page_file = path / (row.get("file") or f"pages/{row['id']}.html.gz")
        try:
            data = page_file.read_bytes()
            if page_file.suffix == ".gz":
                data = gzip.decompress(data)
        except (OSError, EOFError) as exc:
            logger.warning("%s: page %s unreadable, skipped (%s)", path, row["id"], exc)
            continue
        yield Record(id=str(row["id"]), html=data, truth=row)


def dataset_fields(path: str | Path) -> set[str]:
    """The truth keys that at least one page of the dataset fills."""
    return {k for row in read_truth(path) for k, v in row.items() if v not in (None, "", [])}


def _scrapy_auto_detect(data: bytes) -> str | None:
    # scrapy.http.TextResponse._auto_detect_fun: ascii, then utf-8, then charset-normalizer.
    for encoding in ("ascii", "utf-8"):
        try:
            data.decode(encoding)
        except UnicodeError:
            continue
        return resolve_encoding(encoding)
    match = from_bytes(data).best()
    return resolve_encoding(match.encoding) if match else None


def decode_like_scrapy(data: bytes, content_type: str = "") -> str:
    """The text Scrapy's ``TextResponse.text`` would give for these bytes.

    w3lib's ``html_to_unicode`` (BOM, Content-Type charset, ``<meta>`` charset) with
    Scrapy's fallback detector and its ``ascii`` default.
    """
    return html_to_unicode(content_type, data, auto_detect_fun=_scrapy_auto_detect, default_encoding="ascii")[
        1
    ]
