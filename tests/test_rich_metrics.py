"""The rich-record scores of ``scrapy evaluate`` (newscrawl.evaluation.rich), on hand-made truth."""

from newscrawl.evaluation import rich
from newscrawl.evaluation.datasets import Record
from newscrawl.evaluation.runner import Prediction, score_page, summarize


def record(**truth):
    return Record(id="p1", html=b"", truth={"id": "p1", **truth})


def test_markdown_text_strips_markup_as_a_reader_sees_it():
    md = "## Head\n\nSome **bold** and [a link](https://x.example/) \\*star\\*\n\n![alt](https://x.example/a.jpg)\n\n" \
         "| a | b |\n| --- | --- |\n| c | d |"
    assert rich.markdown_text(md).split("\n")[:2] == ["Head", "Some bold and a link *star*"]
    assert "alt" not in rich.markdown_text(md)
    assert rich.markdown_headings(md) == ["Head"]
    assert [i["url"] for i in rich.markdown_images(md)] == ["https://x.example/a.jpg"]


def test_image_urls_match_any_version_once_with_host_case_folded():
    truth = [{"url": "https://CDN.example/a-1600.jpg", "versions": ["https://cdn.example/a-400.jpg"]},
             {"url": "https://cdn.example/b.jpg", "versions": []}]
    assert rich.image_counts(["https://cdn.example/a-400.jpg", "https://cdn.example/a-1600.jpg",
                              "https://cdn.example/c.jpg"], truth) == (1, 3, 2)


def test_page_scores_and_pooled_figures():
    truth = record(text="One two three four five six", subheadings=["Background", "What next"],
                   images=[{"url": "https://cdn.example/a.jpg", "caption": "The mayor speaks", "is_cover": True}],
                   summary=["The council approved the budget"], topics=["Budget", "Council"],
                   description="The council approved it", keywords=["x"])
    prediction = Prediction(text="One two three four five six", title="Title",
                            markdown="# Title\n\n## Background.\n\n## Other\n\nOne two three four five six",
                            images=[{"url": "https://cdn.example/a.jpg", "caption": "The mayor speaks today"}],
                            image="https://cdn.example/other/path/a.jpg", lead="The council approved the budget",
                            tags=["budget"], description="The council approved it", keywords=[])
    score = score_page(truth, prediction)
    assert score.rich["subheadings"] == (1, 2, 2)  # the title heading is not a subheading
    assert score.rich["images"] == (1, 1, 1)
    assert score.rich["top_image"] == 1.0  # same file name
    assert score.rich["lead_f1"] == 1.0 and score.rich["description_f1"] == 1.0
    assert abs(score.rich["tags_f1"] - 2 / 3) < 1e-9
    assert score.rich["keywords_f1"] == 0.0
    assert abs(score.rich["caption_f1"] - 6 / 7) < 1e-9
    figures = summarize([score])
    assert figures["subheadings_r"] == 0.5 and figures["subheadings_p"] == 0.5
    assert figures["md_zyte_f1"] < figures["body_zyte_f1"] == 1.0  # the headings are not in the truth's text
    same = score_page(truth, Prediction(text="One two three four five six",
                                        markdown="One **two** three\n\n[four](https://x.example/) five six"))
    assert summarize([same])["md_zyte_f1"] == 1.0


def test_a_field_the_extractor_does_not_give_is_not_scored():
    score = score_page(record(text="a b c d", summary=["x"], description="d"), Prediction(text="a b c d"))
    assert score.rich == {}


def test_an_empty_truth_list_means_none_here_and_is_scored():
    truth = record(text="a b c d", summary=[], subheadings=[], topics=[])
    wrong = score_page(truth, Prediction(text="a b c d", markdown="## Furniture\n\na b c d", lead="A lead",
                                         tags=["x"]))
    assert wrong.rich["lead_f1"] == 0.0 and wrong.rich["tags_f1"] == 0.0
    assert wrong.rich["subheadings"] == (0, 1, 0)
    right = score_page(truth, Prediction(text="a b c d", markdown="a b c d", lead=None, tags=[]))
    assert right.rich["lead_f1"] == 1.0 and right.rich["tags_f1"] == 1.0


def test_typography_and_line_breaks_are_not_structure():
    # A reviewer types "-" and "'" where the page has "–" and "’"; a list item's line break is a space.
    md = "- Underwriters – Evaluate the applicant’s risk\\\n  and price it\n- Actuaries — model risk"
    items = rich.markdown_list_items(md)
    assert items == ["Underwriters – Evaluate the applicant’s risk and price it", "Actuaries — model risk"]
    truth = ["Underwriters - Evaluate the applicant's risk and price it", "Actuaries - model risk.",
             "Brokers - sell policies"]
    assert rich.match_counts(map(rich.normalize_text, items), map(rich.normalize_text, truth)) == (2, 2, 3)
    assert rich.normalize_text("“Ｑuoted”\u00a0 text… here…") == '"quoted" text... here'
    assert rich.normalize_text("\u200b2. To sit or\u2060 to stand") == "2. to sit or to stand"
