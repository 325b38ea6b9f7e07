"""warcio against FastWARC on identical records: the reader of ``scrapy archive``.  Not a test.

    python bench/archive_readers.py --records 3000 --repeat 3

Builds a gzip-per-record WARC of dataset pages at run time (as ``bench/warc_speed.py`` does), then
reads every response record's HTTP payload (status, headers parsed; body bytes) with:

- **warcio** (``ArchiveIterator``, its gzip inflate through zlib), the library newscrawl reads with;
- **warcio + ISA-L** — the same with python-isal's inflate: what
  :func:`newscrawl.archives.warc_reader.read_archive` uses;
- **FastWARC** (``fastwarc.warc.ArchiveIterator``, Rust, its own gzip stream);
- **read_archive** — newscrawl's full reader (the above plus skip rules, content decoding,
  article test, resynchronisation after damage).

and checks that warcio and FastWARC give the same (URL, body) pairs.  CPU seconds per 1,000
records, medians of ``--repeat`` rounds.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(ROOT))


def _bench_module():
    import importlib.util

    spec = importlib.util.spec_from_file_location("warc_speed", ROOT / "bench" / "warc_speed.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def read_warcio(path: Path, isal: bool) -> list[tuple[str, bytes]]:
    from warcio.archiveiterator import ArchiveIterator

    from newscrawl.archives.warc_reader import _gzip_reader

    found = []
    with open(path, "rb") as fh:
        records = ArchiveIterator(fh)
        if isal:
            records.reader = _gzip_reader()(fh, block_size=records.reader.block_size)
        for record in records:
            if record.rec_type == "response":
                url = record.rec_headers.get_header("WARC-Target-URI")
                found.append((url, record.content_stream().read()))
    return found


def read_fastwarc(path: Path) -> list[tuple[str, bytes]]:
    from fastwarc import ArchiveIterator, WarcRecordType

    found = []
    with open(path, "rb") as fh:
        for record in ArchiveIterator(fh, record_types=WarcRecordType.response, parse_http=True):
            found.append((record.headers.get("WARC-Target-URI"), record.reader.read()))
    return found


def read_newscrawl(path: Path) -> int:
    from newscrawl.archives.warc_reader import ReadOptions, read_archive

    return sum(1 for _ in read_archive(path, ReadOptions(keep="html")))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=3000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    speed = _bench_module()
    with tempfile.TemporaryDirectory() as scratch:
        path = speed.write_archive(Path(scratch) / "pages.warc.gz",
                                   speed.dataset_pages(speed.DATASETS_DIR), args.records)
        readers = {"warcio": lambda: read_warcio(path, False), "warcio+isal": lambda: read_warcio(path, True),
                   "fastwarc": lambda: read_fastwarc(path), "read_archive": lambda: read_newscrawl(path)}
        a, b = read_warcio(path, True), read_fastwarc(path)
        bodies = sum(x[1] == y[1] for x, y in zip(a, b, strict=True))
        urls = sum(x[0] == y[0] for x, y in zip(a, b, strict=True))
        print(f"{len(a)} response records (FastWARC: {len(b)}); same body {bodies}, same URL {urls} "
              "(warcio turns spaces in a WARC-Target-URI into %20, FastWARC keeps them)")
        times: dict[str, list[float]] = {name: [] for name in readers}
        for _ in range(args.repeat):
            for name, read in readers.items():
                started = time.process_time()
                read()
                times[name].append(time.process_time() - started)
        for name, values in times.items():
            per = statistics.median(values) / args.records * 1e6
            print(f"{name:13s} {per:8.1f} ms CPU per 1,000 records")


if __name__ == "__main__":
    main()
