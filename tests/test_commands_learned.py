"""The learned-model commands (subprocess): ``scrapy train``, ``scrapy templates`` and
``scrapy evaluate --ablation``."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_evaluate import write_dataset
from test_evaluate_command import scrapy

from newscrawl.extract import Page
from newscrawl.extract.methods.template import TemplateStore

STORIES = ["Storm closes the harbour", "Budget vote delayed again", "School bridge opens early",
           "Festival draws record crowds", "Court rules on rail fares", "Farmers protest at council",
           "River levels keep rising", "New museum wing unveiled", "Tram line extended north",
           "Library hours cut in winter"]
NAV = "<ul><li><a href='/'>Home page</a></li><li><a href='/world'>World news</a></li></ul>"


@pytest.mark.parametrize("command", ["train", "templates", "evaluate"])
def test_help_runs(tmp_path, command):
    proc = scrapy(tmp_path, command, "-h")
    assert proc.returncode == 0, proc.stderr
    assert f"scrapy {command}" in proc.stdout


def test_templates_on_an_empty_state_dir_says_so(tmp_path):
    state = tmp_path / "state"
    for args in ([], ["demo"]):
        proc = scrapy(tmp_path, "templates", *args, "--state-dir", str(state))
        assert proc.returncode == 0, proc.stderr
        assert "no template library" in proc.stdout and "crawl first" in proc.stdout
    assert not (state / "templates.sqlite3").exists()  # looking does not create the store


def test_templates_lists_sites_and_prints_a_sites_entries(tmp_path):
    store = TemplateStore.in_dir(tmp_path / "state")
    site = store.site("example")
    for story in STORIES:  # one batch (N1 = 10 pages)
        site.learn(Page.from_html(f"<html><body>{NAV}<p>{story}</p></body></html>").root)
    store.save("example")
    store.close()
    listing = scrapy(tmp_path, "templates", "--state-dir", str(tmp_path / "state"))
    assert listing.stdout.split() == ["example", "2", "entries"]
    proc = scrapy(tmp_path, "templates", "example", "--state-dir", str(tmp_path / "state"))
    assert "example: 2 template entries" in proc.stdout
    assert "<a>  Home page" in proc.stdout and "<a>  World news" in proc.stdout
    assert not any(story in proc.stdout for story in STORIES)
    other = scrapy(tmp_path, "templates", "elsewhere", "--state-dir", str(tmp_path / "state"))
    assert "no template library for 'elsewhere'" in other.stdout and "sites: example" in other.stdout


def test_evaluate_ablation_prints_both_tables(tmp_path):
    write_dataset(tmp_path / "sets" / "one")
    write_dataset(tmp_path / "sets" / "two")
    proc = scrapy(tmp_path, "evaluate", "--ablation", "--train", "one", "--test", "two",
                  "--datasets-root", str(tmp_path / "sets"))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    rows = [line for line in proc.stdout.splitlines() if line.startswith("| ")]
    groups = [r.split("|")[1].strip() for r in rows]
    assert groups == ["groups", "1", "1+2", "1+2+3", "1+2+3+4", "1+2+3+4+5", "scheme", "one-stage", "two-stage"]
    assert all("| one | two |" in r for r in rows if not r.startswith(("| groups", "| scheme")))


def test_evaluate_ablation_rejects_unknown_datasets_and_half_splits(tmp_path: Path):
    missing = scrapy(tmp_path, "evaluate", "--ablation", "--train", "nope", "--test", "other",
                     "--datasets-root", str(tmp_path))  # fmt: skip
    assert missing.returncode != 0 and "no dataset nope, other" in missing.stderr
    half = scrapy(tmp_path, "evaluate", "--ablation", "--train", "nope")
    assert half.returncode != 0 and "give both --train and --test" in half.stderr
