"""``scrapy evaluate`` end to end (subprocess) and the quality gate's floor checks."""

import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from test_evaluate import write_dataset

from newscrawl.evaluation import quality_gate
from newscrawl.extract import models

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "datasets"


def scrapy_env(tmp_path: Path) -> tuple[dict, Path]:
    """Environment and cwd for running ``scrapy`` with newscrawl's commands registered.

    The project's own settings when they register the commands; otherwise a throwaway
    settings module that only sets ``COMMANDS_MODULE`` (so the commands are tested either way).
    """
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    settings = REPO / "newscrawl" / "settings.py"
    if (REPO / "scrapy.cfg").exists() and "newscrawl.commands" in settings.read_text(encoding="utf-8"):
        return env, REPO
    module_dir = tmp_path / "settings_module"
    module_dir.mkdir()
    (module_dir / "evalsettings.py").write_text('COMMANDS_MODULE = "newscrawl.commands"\n')
    env["PYTHONPATH"] = os.pathsep.join([str(module_dir), env["PYTHONPATH"]])
    env["SCRAPY_SETTINGS_MODULE"] = "evalsettings"
    return env, tmp_path


def scrapy(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    env, cwd = scrapy_env(tmp_path)
    return subprocess.run(
        [sys.executable, "-m", "scrapy", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.fixture
def dataset(tmp_path):
    return write_dataset(tmp_path / "tiny")


def test_evaluate_prints_tables_and_writes_json(tmp_path, dataset):
    out = tmp_path / "results.json"
    proc = scrapy(
        tmp_path, "evaluate", str(dataset), "--method", "auto,cevc", "--baseline", "readability",
        "--json", str(out),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "== tiny (3 pages" in proc.stdout
    for name in ("auto", "cevc", "readability"):
        assert f"\n{name} " in proc.stdout
    results = json.loads(out.read_text())
    assert [r["method"] for r in results] == ["auto", "cevc", "readability"]
    auto = results[0]
    assert auto["pages"] == 3 and auto["errors"] == 1  # the empty page
    assert 0.5 < auto["body_zyte_f1"] <= 1.0
    assert len(auto["page_scores"]) == 3


def test_evaluate_check_floors_fails_naming_the_figure(tmp_path, dataset):
    floors = tmp_path / "floors.json"
    floors.write_text(
        json.dumps({"method": "auto", "floors": {"tiny": {"body_zyte_f1": 0.99, "date_day": 0.5}}})
    )
    proc = scrapy(tmp_path, "evaluate", str(dataset), "--check-floors", str(floors))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "tiny: auto body_zyte_f1 = " in proc.stdout
    assert "date_day" not in proc.stdout.split("quality gate")[1]  # the passing figure is not named

    floors.write_text(json.dumps({"method": "auto", "floors": {"tiny": {"body_zyte_f1": 0.3}}}))
    proc = scrapy(tmp_path, "evaluate", str(dataset), "--check-floors", str(floors))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "quality gate (auto): passed" in proc.stdout


def test_evaluate_sweep_writes_a_plot(tmp_path, dataset):
    png, out = tmp_path / "sweep.png", tmp_path / "sweep.json"
    proc = scrapy(
        tmp_path, "evaluate", str(dataset), "--sweep", "alpha", "--limit", "2", "--plot", str(png),
        "--json", str(out),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    results = json.loads(out.read_text())
    assert [r["params"]["alpha"] for r in results] == [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]
    assert {r["method"] for r in results} == {"cevc"} and {r["pages"] for r in results} == {2}


def test_evaluate_rejects_a_wrong_directory(tmp_path):
    proc = scrapy(tmp_path, "evaluate", str(tmp_path / "missing"))
    assert proc.returncode == 2
    assert "not a dataset directory" in proc.stderr


def test_a_mistyped_method_is_a_usage_error_not_a_run_of_failed_pages(tmp_path, dataset):
    proc = scrapy(tmp_path, "evaluate", str(dataset), "--method", "auto-rule", "--limit", "1")
    assert proc.returncode == 2, proc.stdout
    assert "unknown method 'auto-rule'" in proc.stderr and "auto-rules" in proc.stderr


def test_a_parameter_the_method_does_not_read_is_a_usage_error(tmp_path, dataset):
    proc = scrapy(tmp_path, "evaluate", str(dataset), "--method", "cevc", "--param", "lam=0.5", "--limit", "1")
    assert proc.returncode == 2, proc.stdout
    assert "method 'cevc' has no parameter 'lam'" in proc.stderr and "alpha" in proc.stderr


def test_shipped_floors_file_is_valid():
    floors = quality_gate.load_floors(REPO / "data" / "quality-floors.json")
    assert floors.method == "auto-rules"  # the rules: auto's learned veto is in-sample on these sets
    assert {"aeb", "zh-news", "fundus"} <= set(floors.floors)
    assert all(0 < v <= 1 for figures in floors.floors.values() for v in figures.values())


@pytest.mark.skipif(not SHARED.is_dir(), reason="../shared/datasets not present")
def test_shipped_floors_cover_every_dataset_with_body_title_or_date_truth():
    from newscrawl.evaluation.datasets import dataset_fields
    from newscrawl.evaluation.runner import discover_datasets

    floors = quality_gate.load_floors(REPO / "data" / "quality-floors.json").floors
    datasets, _ = discover_datasets(sorted(SHARED.iterdir()))
    for path in datasets:
        fields = dataset_fields(path)
        name = Path(path).name
        wanted = {"title_exact"} if "title" in fields else set()
        if "date" in fields:
            wanted.add("date_day")
        if "text" in fields:
            wanted.add("body_zyte_f1")
        elif {"with", "without"} & fields:
            wanted.add("snippet_f1")
        elif "text_prefix" in fields:
            wanted.add("prefix_match")
        assert wanted <= set(floors.get(name, {})), f"{name}: no floor for {wanted - set(floors.get(name, {}))}"


def _result(method, figures, params=None):
    return SimpleNamespace(method=method, params=params or {}, figures=figures)


def test_gate_check_names_each_figure_below_its_floor():
    floors = quality_gate.Floors(
        "auto", {"aeb": {"body_zyte_f1": 0.9}, "fundus": {"title_exact": 0.7, "date_day": 0.9}}
    )
    results = {
        "aeb": [_result("cevc", {"body_zyte_f1": 0.1}), _result("auto", {"body_zyte_f1": 0.95})],
        "fundus": [_result("auto", {"title_exact": 0.6})],
    }
    failures = quality_gate.check(floors, results)
    assert failures == [
        "fundus: auto date_day missing (floor 0.900)",
        "fundus: auto title_exact = 0.600 < floor 0.700",
    ]
    assert quality_gate.check(floors, {"aeb": [_result("cevc", {"body_zyte_f1": 1.0})]}) == [
        "aeb: method auto was not evaluated"
    ]
    lines = quality_gate.report(floors, {"aeb": results["aeb"]}, [])
    assert lines[0] == "quality gate (auto): passed" and "fundus" in lines[-1]


def test_gate_rejects_malformed_floors(tmp_path):
    bad = tmp_path / "floors.json"
    bad.write_text('{"floors": {"aeb": {"body_zyte_f1": "high"}}}')
    with pytest.raises(quality_gate.FloorsError):
        quality_gate.load_floors(bad)
    with pytest.raises(quality_gate.FloorsError):
        quality_gate.load_floors(tmp_path / "absent.json")


@pytest.mark.skipif(not (SHARED / "aeb").is_dir(), reason="../shared/datasets not present: aeb")
def test_evaluate_on_shared_aeb_sample(tmp_path):
    out = tmp_path / "aeb.json"
    proc = scrapy(tmp_path, "evaluate", str(SHARED / "aeb"), "--limit", "15", "--json", str(out))
    assert proc.returncode == 0, proc.stderr
    results = {r["method"]: r for r in json.loads(out.read_text())}
    result = results["auto"]
    assert result["pages"] == 15 and result["errors"] == 0
    assert result["body_zyte_f1"] > 0.6
    if "aeb" in (models.read_manifest().get("body_sets") or []):  # in-sample: the out-of-fold row beside
        assert results["auto (out of fold)"]["pages"] == 15
    else:
        assert set(results) == {"auto"}


def test_evaluate_over_every_folder_skips_non_datasets_and_writes_markdown(tmp_path):
    """``scrapy evaluate root/*``: feed and listing folders are noted and skipped, the datasets
    are scored side by side with a peer, and ``--markdown`` writes one table per field."""
    from newscrawl.extract import models

    root = tmp_path / "datasets"
    body_sets = models.read_manifest().get("body_sets") or []
    trained_on = (body_sets or ["aeb"])[0]
    write_dataset(root / trained_on)  # a set the shipped model saw: auto's figures are in-sample
    write_dataset(root / "unseen")
    (root / "feeds" / "rss").mkdir(parents=True)  # no pages/, no truth.jsonl
    (root / "feeds" / "SOURCE.md").write_text("feeds")
    (root / "README.md").write_text("the sets")  # a file beside the folders
    listing = root / "listings"
    (listing / "pages").mkdir(parents=True)
    (listing / "truth.jsonl").write_text(json.dumps({"id": "home", "article_urls": ["https://a.example/1"]}))
    markdown = tmp_path / "tables.md"
    folders = sorted(str(p) for p in root.iterdir())
    proc = scrapy(tmp_path, "evaluate", *folders, "--method", "auto", "--baseline", "readability",
                  "--markdown", str(markdown))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"skipped {root / 'feeds'}: no pages or truth.jsonl" in proc.stdout
    assert f"skipped {listing}: its truth fills none of" in proc.stdout
    assert f"skipped {root / 'README.md'}: not a directory" in proc.stdout
    assert f"== {trained_on} (3 pages" in proc.stdout and "== unseen (3 pages" in proc.stdout

    tables = markdown.read_text()
    sections = {block.split("\n", 1)[0]: block for block in tables.split("### ")[1:]}
    assert set(sections) == {"Body F1 (Zyte benchmark: token 4-gram shingles)", "Title exact", "Date (day)",
                             "Author F1", "Body F1 of the Markdown, markup stripped"}
    for block in sections.values():
        lines = block.strip().split("\n")
        assert lines[2] == "| dataset | pages | auto | readability |"
        rows = {line.split(" | ")[0].lstrip("| "): line for line in lines[4:] if line.startswith("|")}
        assert set(rows) == {trained_on, "unseen"}
        # Only the body comes from the shipped model: only body figures can be in-sample.
        in_sample = block.startswith("Body F1") and bool(body_sets)
        if block.startswith("Body F1 of the Markdown"):
            assert rows["unseen"].endswith(" | n/a |")  # readability gives no Markdown
        assert ("\\*" in rows[trained_on].split(" | ")[2]) == in_sample and "\\*" not in rows["unseen"]
        assert "\\*" not in rows[trained_on].split(" | ")[3]  # the peer has no shipped model
    title_rows = [line for line in sections["Title exact"].split("\n") if line.startswith("| unseen")]
    assert title_rows == ["| unseen | 2 | 1.000 | 1.000 |"]  # the blank page has no title truth
    assert "| unseen | 2 | 1.000 | n/a |" in sections["Date (day)"]  # readability extracts no dates
    assert tables.rstrip().endswith("in-sample: the method's shipped model was trained on this dataset.")


def test_evaluate_with_no_dataset_among_the_folders_is_a_usage_error(tmp_path):
    (tmp_path / "feeds").mkdir()
    proc = scrapy(tmp_path, "evaluate", str(tmp_path / "feeds"))
    assert proc.returncode == 2
    assert "no dataset among" in proc.stderr
