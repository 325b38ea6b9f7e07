"""What a job reads: the input arguments expanded to WARC sources, local paths or remote URLs.

An argument is a ``.warc``/``.warc.gz`` file, a directory (its WARC files), a glob pattern, a
remote URL (``s3://``, ``https://``, ... read through fsspec where the workers reach it), or a
*file list*: any other file, holding one path or URL a line (Common Crawl publishes CC-NEWS as
such lists, ``warc.paths.gz``; a ``.gz`` list is unpacked; ``#`` lines are comments; a relative
line is relative to the list's own directory or URL).
"""

from __future__ import annotations

import glob
import gzip
import re
from pathlib import Path

WARC_SUFFIXES = (".warc.gz", ".warc")
_URL = re.compile(r"\A[a-zA-Z][a-zA-Z0-9+.-]{1,20}://")


def is_url(text: str) -> bool:
    return _URL.match(text) is not None and not text.startswith("file://")


def is_warc_name(name: str) -> bool:
    return name.lower().endswith(WARC_SUFFIXES)


def _list_lines(arg: str) -> list[str]:
    if is_url(arg):
        import fsspec

        with fsspec.open(arg, "rb", compression="infer") as fh:
            data = fh.read()
    else:
        data = Path(arg).read_bytes()
        if data[:2] == b"\x1f\x8b":
            data = gzip.decompress(data)
    base = arg.rsplit("/", 1)[0] if is_url(arg) else str(Path(arg).parent)
    lines = []
    for line in data.decode("utf-8", "replace").splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if not is_url(line) and not line.startswith("/"):
            line = f"{base}/{line}"
        lines.append(line.removeprefix("file://"))
    return lines


def expand(args: list[str]) -> list[str]:
    """The sources the arguments name, in order, each once.  A name that matches nothing stays in
    the list (the job counts it as a failed file); ``ValueError`` when a list cannot be read."""
    found: list[str] = []
    for arg in args:
        arg = arg.removeprefix("file://")
        if is_url(arg):
            found += [arg] if is_warc_name(arg.split("?", 1)[0]) else _list_lines(arg)
            continue
        path = Path(arg).expanduser()
        if path.is_dir():
            found += sorted(str(p) for p in path.rglob("*") if p.is_file() and is_warc_name(p.name))
        elif any(ch in arg for ch in "*?["):
            matches = sorted(p for p in glob.glob(str(path), recursive=True) if Path(p).is_file())
            found += matches or [str(path)]  # matching nothing: a missing input, counted as failed
        elif path.is_file() and not is_warc_name(path.name):
            try:
                found += _list_lines(str(path))
            except (OSError, EOFError, gzip.BadGzipFile) as exc:
                raise ValueError(f"cannot read the file list {arg}: {exc}") from exc
        else:
            found.append(str(path))
    return list(dict.fromkeys(found))


def exists(source: str) -> bool:
    """Does the source exist (remote URLs are taken on trust: the worker that reads one finds out)?"""
    return is_url(source) or Path(source).is_file()
