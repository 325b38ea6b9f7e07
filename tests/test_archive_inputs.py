"""What ``scrapy archive`` reads: paths, directories, globs, file lists, URLs through fsspec (local only)."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from test_archive_job import all_rows, articles_warc

from newscrawl.archives.inputs import expand


def test_paths_directories_globs_and_file_lists_expand_in_order_each_once(tmp_path):
    a = articles_warc(tmp_path / "a.warc.gz", 0, 1)
    sub = tmp_path / "dir" / "deeper"
    sub.mkdir(parents=True)
    b = articles_warc(sub / "b.warc", 1, 1, gzipped=False)
    (tmp_path / "dir" / "notes.txt").write_text("not an archive")
    listing = tmp_path / "list.paths.gz"
    listing.write_bytes(gzip.compress(b"# CC-NEWS style list\na.warc.gz\n\n/abs/elsewhere.warc.gz\n"
                                      b"https://data.example/x.warc.gz\n"))
    found = expand([str(a), str(tmp_path / "dir"), str(tmp_path / "*.warc.gz"), str(listing),
                    str(tmp_path / "nothing-*.warc.gz"), "file://" + str(b)])
    assert found == [str(a), str(b), "/abs/elsewhere.warc.gz", "https://data.example/x.warc.gz",
                     str(tmp_path / "nothing-*.warc.gz")]


def test_an_unreadable_file_list_is_a_usage_error(tmp_path):
    broken = tmp_path / "list.gz"
    broken.write_bytes(b"\x1f\x8b\x08 cut")
    with pytest.raises(ValueError, match="cannot read the file list"):
        expand([str(broken)])


def test_a_file_list_and_an_fsspec_url_are_read_by_the_job(tmp_path):
    pytest.importorskip("distributed")
    from newscrawl.archives.job import run_job

    articles_warc(tmp_path / "local.warc.gz", 0, 2)
    remote = articles_warc(tmp_path / "remote.warc.gz", 10, 2)
    listing = tmp_path / "inputs.txt"
    listing.write_text(f"local.warc.gz\nlocal://{remote}\n")  # fsspec's local file system, as a URL
    sources = expand([str(listing)])
    assert sources == [str(tmp_path / "local.warc.gz"), f"local://{remote}"]
    summary = run_job(sources, tmp_path / "out", workers=1)
    assert (summary.files_done, summary.articles, summary.files_failed) == (2, 4, [])
    assert sorted(Path(r["url"]).name for r in all_rows(tmp_path / "out")) == [
        "story-0.html", "story-1.html", "story-10.html", "story-11.html"]
