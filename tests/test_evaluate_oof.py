"""``scrapy evaluate`` prints a learned method's out-of-fold figure beside its in-sample one.

The pool is a set the test writes under the name of one of the shipped model's body sets
(``body_sets`` of the manifest), ten articles on ten sites, so the run needs no ../shared."""

import argparse
import gzip
import json

import pytest

from newscrawl.evaluation import cli, runner
from newscrawl.evaluation.out_of_fold import OOF_SUFFIX, out_of_fold
from newscrawl.extract import models

BODY_SETS = models.read_manifest().get("body_sets") or []
pytestmark = pytest.mark.skipif(not BODY_SETS, reason="no shipped model manifest (data/models/manifest.json)")

TOPICS = ["harbour", "library", "railway", "orchard", "museum", "bridge", "market", "school", "river", "stadium"]


def page(topic: str, site: int) -> tuple[str, str]:
    paragraphs = [f"The council of the town met on Monday to talk about the {topic} and its future for "
                  f"the next ten years, number {site} in the series.",
                  f"Residents told the meeting that the {topic} had been neglected for a long time and "
                  "that the repairs could not wait until the next budget.",
                  f"The mayor promised that work on the {topic} would begin in the spring and that "
                  "the town would pay for it from the reserve fund."]
    nav = "".join(f"<li><a href='/s/{i}'>Section {i} of site {site}</a></li>" for i in range(10))
    html = (f"<html><head><title>The {topic}</title></head><body><ul>{nav}</ul><div class='story'>"
            f"<h1>The {topic}</h1>" + "".join(f"<p>{p}</p>" for p in paragraphs)
            + f"</div><ul>{nav}</ul><p>Copyright site {site}</p></body></html>")
    return html, "\n".join(paragraphs)


@pytest.fixture
def pool(tmp_path):
    root = tmp_path / "datasets"
    folder = root / BODY_SETS[0]
    (folder / "pages").mkdir(parents=True)
    rows = []
    for site, topic in enumerate(TOPICS):
        html, text = page(topic, site)
        (folder / "pages" / f"{topic}.html.gz").write_bytes(gzip.compress(html.encode()))
        rows.append({"id": topic, "file": f"pages/{topic}.html.gz", "url": f"https://site{site}.example/{topic}",
                     "title": f"The {topic}", "text": text})
    (folder / "truth.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    other = root / "not-trained-on"
    other.mkdir()
    (other / "truth.jsonl").write_text((folder / "truth.jsonl").read_text())
    (other / "pages").symlink_to(folder / "pages")
    return root


def run(root, *extra):
    parser = argparse.ArgumentParser()
    cli.add_arguments(parser)
    args = parser.parse_args([str(root / BODY_SETS[0]), str(root / "not-trained-on"),
                              "--method", "classifier,auto-rules", *extra])
    lines: list[str] = []
    assert cli.run_cli(args, echo=lines.append) == 0
    return "\n".join(lines)


def test_a_learned_method_on_its_training_set_gets_an_out_of_fold_row(pool):
    output = run(pool)
    trained, untrained = output.split("== not-trained-on")
    rows = [line.split("  ")[0] for line in trained.splitlines()]
    assert f"classifier{OOF_SUFFIX}" in rows
    assert f"auto-rules{OOF_SUFFIX}" not in rows  # no learned model
    assert OOF_SUFFIX not in untrained  # a set the shipped model never saw is out of sample already
    assert OOF_SUFFIX not in run(pool, "--no-out-of-fold")


def test_each_page_is_scored_by_a_model_that_never_saw_its_site(pool, monkeypatch):
    from newscrawl.evaluation import out_of_fold as oof

    fitted_on: list[set[str]] = []
    scored: list[tuple[str, set[str]]] = []  # (the page's site, the sites its model was fitted on)
    fold_params, extractor_of = oof._fold_params, oof.library_extractor

    def spy_params(method, training):
        fitted_on.append({p.record.url.split("/")[2] for p in training})
        return fold_params(method, training)

    def spy_extractor(method, params):
        extract, training = extractor_of(method, params), fitted_on[-1]

        def run(record):
            scored.append((record.url.split("/")[2], training))
            return extract(record)
        return run

    monkeypatch.setattr(oof, "_fold_params", spy_params)
    monkeypatch.setattr(oof, "library_extractor", spy_extractor)
    in_sample = runner.evaluate(pool / BODY_SETS[0], runner.library_extractor("classifier"), "classifier")
    results = out_of_fold([in_sample], [pool / BODY_SETS[0]], folds=5)
    assert [r.method for r in results] == [f"classifier{OOF_SUFFIX}"]
    assert sorted(p.id for p in results[0].pages) == sorted(TOPICS)  # every page, once
    assert len(fitted_on) == 5 and all(len(sites) == 8 for sites in fitted_on)  # two sites held out a fold
    assert len(scored) == 10
    assert all(site not in training for site, training in scored)


def test_autos_article_end_model_is_refitted_per_fold_on_other_sites(pool, monkeypatch):
    from newscrawl import article_end_training
    from newscrawl.evaluation import out_of_fold as oof
    from newscrawl.extract.methods import article_end

    monkeypatch.setattr(article_end, "trained_on", lambda: [BODY_SETS[0]])
    fitted: list[set[str]] = []  # the sites of the pages each fold's article-end model saw
    held: list[set[str]] = []
    end_params = oof._end_params

    def spy_end_params(end_pool, held_sites):
        held.append(held_sites)
        return end_params(end_pool, held_sites)

    def spy_fit(pages):
        fitted.append({p["site"] for p in pages})
        return real_fit(pages)

    real_fit = article_end_training.fit
    monkeypatch.setattr(oof, "_end_params", spy_end_params)
    monkeypatch.setattr(article_end_training, "fit", spy_fit)
    in_sample = runner.evaluate(pool / BODY_SETS[0], runner.library_extractor("auto"), "auto")
    results = out_of_fold([in_sample], [pool / BODY_SETS[0]], folds=5)
    assert [r.method for r in results] == [f"auto{OOF_SUFFIX}"]
    assert sorted(p.id for p in results[0].pages) == sorted(TOPICS)
    assert len(fitted) == len(held) == 5
    for seen, out in zip(fitted, held, strict=True):
        assert len(seen) == 8 and not seen & out  # the fold's two sites are never in its model's pages
    # The pool's short articles have no heading near their end: no fold can fit a model, so none cuts.
    assert end_params(oof._end_pool(pool, None), set()) == {"article_end": False}
