"""A page that renders its article twice (for two layouts, or a tab and its print view) gives
the article once; lines a story repeats on purpose stay."""

from __future__ import annotations

from newscrawl.extract import extract
from newscrawl.extract.hints import without_second_copy

SECTIONS = [
    ("How much does a remodel cost?",
     "Costs vary widely with the region, the scope of the work and the materials chosen, and a kitchen "
     "alone can run from a few thousand dollars for paint and fixtures to well over a hundred thousand.",
     "Homeowners who plan the work in stages, one room a year, spread the cost but pay for setting up the "
     "site again each time, which builders put at around a tenth of a small project's price."),
    ("Labour and fees",
     "Contractors in the coastal cities charge more by the hour than those inland, and permits, design "
     "fees and inspections add between five and fifteen per cent to the total before any wall comes down.",
     "Architects charge either a share of the construction cost or a fixed fee agreed before the drawings, "
     "and most owners of older houses also pay a structural engineer to look at the walls they want moved."),
    ("Materials",
     "Stone counters, custom cabinets and imported tiles cost several times what their stock versions do, "
     "and prices for timber and copper have swung by a third from one season to the next in recent years."),
]


def page() -> str:
    copy = "".join(f"<h2>{h}</h2>" + "".join(f"<p>{p}</p>" for p in ps) for h, *ps in SECTIONS)
    return f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Remodel costs</title></head>
<body><header><a href="/">Home</a> <a href="/blog/">Blog</a></header>
<article class="post"><h1>What a home remodel costs</h1><div class="post-body">
<div class="tab-panel">{copy}</div><div class="accordion-panel">{copy}</div></div></article>
<footer><p>Copyright 2026 Example Builders.</p></footer></body></html>"""


def test_an_article_rendered_twice_is_extracted_once_in_every_rendering():
    found = extract(page(), url="https://builders.example.com/blog/remodel-costs")
    lines = found.text.split("\n")
    assert lines == [line for section in SECTIONS for line in section]
    assert found.markdown.count("## Labour and fees") == 1 and found.html.count("<h2>Labour and fees</h2>") == 1


def test_what_a_text_repeats_on_purpose_is_kept():
    week = ["Monday", "Warm up: ten minutes of easy jogging.", "Run four intervals of five minutes.",
            "Tuesday", "Warm up: ten minutes of easy jogging.", "Run four intervals of five minutes.",
            "Cool down: five minutes of walking."]
    assert without_second_copy(week) == week
    # A meal plan whose rest day repeats an earlier day whole, three long lines among many days.
    day = ["Breakfast: one cup of oats cooked in milk, a handful of berries and a spoon of nut butter on top.",
           "Lunch: a bowl of lentil soup with carrots and celery, a slice of whole-grain bread and an apple.",
           "Dinner: grilled fish with a cup of brown rice, steamed green beans and a salad with olive oil."]
    other_days = [f"Day {d}: " + "a different menu of soups, salads, grains and fish for the day. " * 3
                  for d in range(2, 12)]
    plan = ["Day 1", *day, *other_days, "Day 12", *day]
    assert without_second_copy(plan) == plan
    long_copy = [f"Paragraph {i} " + "of the article, long enough to be a paragraph of prose. " * 4 for i in range(6)]
    assert without_second_copy(["Intro", *long_copy, *long_copy, "The end"]) == ["Intro", *long_copy, "The end"]
