"""The dataset loader and the evaluation runner, on a three-page dataset the tests write."""

import gzip
import json
from pathlib import Path

import pytest

from newscrawl.evaluation import runner
from newscrawl.evaluation.datasets import DatasetError, dataset_fields, decode_like_scrapy, load_dataset

PARAGRAPHS = {
    "harbour": [
        "The town council voted on Tuesday to rebuild the old harbour wall before the winter storms arrive.",
        "Engineers said that the stones had been moving for years and that the repair could not wait any "
        "longer, because the next high tide might flood the fish market.",
        "The work will cost about two million euros and it should be finished in the spring, when the "
        "fishing boats return to the port.",
    ],
    "library": [
        "The city library is opening its doors on Sundays for the first time in its long history.",
        "Readers have asked for weekend hours for many years, and the new budget finally pays for the "
        "extra staff that the library needs on those days.",
        "The director said that families with children were the ones who asked most often, and that she "
        "expects the reading rooms to be full from the first week.",
    ],
}

NAV = "".join(f'<li><a href="/section/{i}">Section number {i}</a></li>' for i in range(12))


def article_html(title: str, paragraphs: list[str], date: str, author: str) -> str:
    body = "".join(f"<p>{p}</p>" for p in paragraphs)
    return (
        f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>{title} | Daily Example</title>"
        f'<meta property="article:published_time" content="{date}">'
        f'<meta name="author" content="{author}"></head><body>'
        f"<header><ul>{NAV}</ul></header>"
        f"<main><article><h1>{title}</h1><p class='byline'>By {author}</p>{body}</article></main>"
        f"<footer><ul>{NAV}</ul><p>Copyright Daily Example. All rights reserved.</p></footer>"
        "</body></html>"
    )


def write_dataset(root: Path) -> Path:
    """Three pages: two articles with full truth, one empty page (an extraction error)."""
    pages = root / "pages"
    pages.mkdir(parents=True)
    rows = []
    for i, (key, paragraphs) in enumerate(PARAGRAPHS.items()):
        title = f"News about the {key}"
        date = f"2024-0{i + 3}-1{i}T09:30:00+02:00"
        author = "Ann Writer"
        (pages / f"{key}.html.gz").write_bytes(
            gzip.compress(article_html(title, paragraphs, date, author).encode("utf-8"))
        )
        rows.append(
            {
                "id": key,
                "file": f"pages/{key}.html.gz",
                "url": f"https://news.example/{key}.html",
                "title": title,
                "text": "\n".join(paragraphs),
                "date": date[:10],
                "author": author,
                "with": [paragraphs[1][:40]],
                "without": ["All rights reserved", "Section number 3"],
            }
        )
    (pages / "blank.html.gz").write_bytes(gzip.compress(b""))
    rows.append({"id": "blank", "file": "pages/blank.html.gz", "text": "Some text that cannot be found."})
    (root / "truth.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return root


@pytest.fixture
def dataset(tmp_path):
    return write_dataset(tmp_path / "tiny")


def test_loader_yields_gunzipped_bytes_and_truth(dataset):
    records = list(load_dataset(dataset))
    assert [r.id for r in records] == ["harbour", "library", "blank"]
    assert records[0].html.startswith(b"<!DOCTYPE html>")
    assert records[0].url == "https://news.example/harbour.html"
    assert records[0].has("title") and not records[2].has("title")
    assert "text" in dataset_fields(dataset) and "weak" not in dataset_fields(dataset)
    assert [r.id for r in load_dataset(dataset, limit=1)] == ["harbour"]


def test_loader_skips_bad_lines_and_missing_pages(dataset, caplog):
    with (dataset / "truth.jsonl").open("a") as f:
        f.write("{not json\n")
        f.write('{"id": "gone", "file": "pages/gone.html.gz"}\n')
    assert [r.id for r in load_dataset(dataset)] == ["harbour", "library", "blank"]
    assert "gone" in caplog.text


def test_loader_rejects_a_directory_without_truth(tmp_path):
    with pytest.raises(DatasetError):
        list(load_dataset(tmp_path))


def test_decode_like_scrapy_honours_meta_charset_and_sniffs():
    cp1252 = "<html><head><meta charset='windows-1252'></head><body>café</body></html>".encode("cp1252")
    assert "café" in decode_like_scrapy(cp1252)
    assert "日本語" in decode_like_scrapy("<html><body>日本語</body></html>".encode())


def _truth_extractor(record):
    return runner.Prediction(
        record.get("text", ""), record.get("title"), record.get("date"), record.get("author")
    )


def _failing_extractor(record):
    raise RuntimeError("boom")


def test_runner_gives_full_marks_to_the_truth(dataset):
    result = runner.evaluate(dataset, _truth_extractor, "oracle", progress=False)
    fig = result.figures
    assert result.errors == 0 and len(result.pages) == 3
    for key in ("body_zyte_f1", "body_lcs_f1", "title_exact", "title_char_f1", "date_day", "author_f1"):
        assert fig[key] == pytest.approx(1.0), key
    assert fig["n_body"] == 3 and fig["n_title"] == 2
    # the truth text holds every `with` snippet and no `without` one
    assert fig["snippet_r"] == 1.0 and fig["snippet_acc"] == 1.0


def test_runner_counts_errors_as_empty_predictions(dataset):
    result = runner.evaluate(dataset, _failing_extractor, "broken", progress=False)
    fig = result.figures
    assert result.errors == 3
    assert result.error_reasons() == {"RuntimeError": 3}
    assert fig["body_zyte_r"] == 0.0 and fig["body_lcs_f1"] == 0.0
    assert fig["title_exact"] == 0.0 and fig["date_day"] == 0.0
    data = result.to_dict()
    assert data["errors"] == 3 and data["pages"] == 3


def test_runner_end_to_end_with_the_library(dataset):
    results = runner.run_all([dataset], ["auto", "cevc", "decay"], progress=False)["tiny"]
    assert [r.method for r in results] == ["auto", "cevc", "decay"]
    for result in results:
        fig = result.figures
        # the empty page raises in the library and counts as an error, not a crash
        assert result.errors == 1, result.error_reasons()
        assert "ExtractionError" in next(iter(result.error_reasons()))
        # two clean articles found, one page lost: recall cannot pass 2/3
        assert 0.5 < fig["body_zyte_r"] <= 2 / 3 + 1e-9, (result.method, fig)
        assert fig["body_zyte_p"] > 0.8, (result.method, fig)
        assert fig["snippet_p"] > 0.5
    auto = results[0].figures
    assert auto["title_exact"] == 1.0
    assert auto["date_day"] == 1.0
    table = runner.format_table(results)
    assert table.splitlines()[0].startswith("== tiny (3 pages")
    assert "body Zyte P/R/F1" in table and "errors" in table


def test_runner_passes_parameters_to_the_method(dataset, monkeypatch):
    seen = []
    import newscrawl.extract as library

    real = library.extract

    def spy(html, url=None, **kwargs):
        seen.append(kwargs.get("params"))
        return real(html, url, **kwargs)

    monkeypatch.setattr(library, "extract", spy)
    runner.evaluate(
        dataset, runner.library_extractor("cevc", {"alpha": 0.3}), "cevc", params={"alpha": 0.3}
    )
    # one untimed warm-up call, then one per page
    assert seen == [{"alpha": 0.3}] * 4


def test_baselines_run_on_the_same_pages(dataset):
    results = runner.run_all([dataset], [], ["trafilatura", "readability"], progress=False)["tiny"]
    assert [r.method for r in results] == ["trafilatura", "readability"]
    for result in results:
        assert result.figures["body_zyte_r"] > 0.3, result.method


def test_gne_and_goose3_baselines_read_titles_and_bodies(dataset):
    pytest.importorskip("gne", reason="GNE is in the optional baselines extra")
    pytest.importorskip("goose3", reason="goose3 is in the optional baselines extra")
    results = runner.run_all([dataset], [], ["gne", "goose3"], progress=False)["tiny"]
    assert [r.method for r in results] == ["gne", "goose3"]
    for result in results:
        assert result.errors <= 1, result.method  # the blank page at most
        assert result.figures["title_char_f1"] > 0.5, result.method  # goose3 keeps "| Daily Example"
        assert result.figures["body_zyte_r"] > 0.3, result.method


def test_parse_params():
    assert runner.parse_params(["alpha=0.4", "cjk_mode=char"]) == {"alpha": 0.4, "cjk_mode": "char"}
    with pytest.raises(ValueError):
        runner.parse_params(["alpha"])


def test_a_learned_method_on_its_own_training_set_is_flagged_in_sample():
    from newscrawl.extract import models

    trained_on = models.read_manifest().get("body_sets")
    if not trained_on:
        pytest.skip("no shipped model manifest")
    assert "in-sample" in runner.in_sample_note("auto", f"../shared/datasets/{trained_on[0]}")
    assert runner.in_sample_note("auto", "../shared/datasets/a-set-no-model-saw") is None
    assert runner.in_sample_note("auto-rules", f"../shared/datasets/{trained_on[0]}") is None


def test_auto_on_a_set_only_the_article_end_model_trained_on_is_flagged_in_sample():
    from newscrawl.extract import models
    from newscrawl.extract.methods import article_end

    only_end = [name for name in article_end.trained_on() if name not in models.read_manifest().get("body_sets", [])]
    if not only_end:
        pytest.skip("no shipped article-end model trained on a set the node classifier did not see")
    note = runner.in_sample_note("auto", f"../shared/datasets/{only_end[0]}")
    assert "article-end model" in note and "bench/train_article_end.py" in note
    assert runner.in_sample_note("auto-rules", f"../shared/datasets/{only_end[0]}") is None
    assert runner.in_sample_note("classifier", f"../shared/datasets/{only_end[0]}") is None


def test_a_baseline_whose_package_is_missing_is_named_before_the_run(monkeypatch):
    from newscrawl.evaluation import runner

    monkeypatch.setitem(runner._BASELINE_MODULES, "gne", "newscrawl_no_such_package")
    with pytest.raises(ValueError, match=r"pip install 'newscrawl\[baselines\]'"):
        runner.baseline_extractor("gne")


def test_without_the_plot_extra_evaluate_plot_is_a_usage_error_naming_it(dataset, tmp_path):
    """matplotlib is the optional extra `plot`: `scrapy evaluate --sweep --plot` without it exits 2
    before any work, with one line saying how to install it, and the plain command needs none of it."""
    import os
    import subprocess
    import sys

    blocked = tmp_path / "blocked"
    (blocked / "matplotlib").mkdir(parents=True)
    (blocked / "matplotlib" / "__init__.py").write_text("raise ImportError('No module named matplotlib')\n")
    root = Path(__file__).resolve().parent.parent
    env = dict(os.environ, PYTHONPATH=f"{blocked}{os.pathsep}{root}")
    png = tmp_path / "sweep.png"

    def evaluate(*options):
        return subprocess.run([sys.executable, "-m", "newscrawl", "evaluate", str(dataset), "--no-progress",
                               *options], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)

    refused = evaluate("--sweep", "alpha", "--plot", str(png))
    assert refused.returncode == 2, refused.stderr
    errors = [line for line in refused.stderr.splitlines() if "error" in line.lower()]
    assert len(errors) == 1 and errors[0].endswith(": error: --plot needs matplotlib: pip install 'newscrawl[plot]'")
    assert "Traceback" not in refused.stderr and not png.exists() and "harbour" not in refused.stdout
    plain = evaluate("--limit", "2")
    assert plain.returncode == 0, plain.stderr
    assert "auto" in plain.stdout
