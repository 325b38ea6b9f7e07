"""The cyclic garbage collector is paused while a page is extracted, and only then."""

from __future__ import annotations

import gc
import threading

import pytest

from newscrawl.extract import ExtractionError, Page, extract, extract_page
from newscrawl.extract.collector import collector_paused

PAGE = ("<html><head><title>A page</title></head><body><article><h1>A page</h1>"
        + "<p>Some paragraph text of the article, long enough to be read as its body.</p>" * 5
        + "</article></body></html>")


@pytest.fixture(autouse=True)
def collector_on():
    was = gc.isenabled()
    gc.enable()
    yield
    if was:
        gc.enable()
    else:
        gc.disable()


def test_the_collector_is_off_during_an_extraction_and_on_after_it():
    seen = []

    @collector_paused
    def step():
        seen.append(gc.isenabled())
        return "done"

    assert step() == "done"
    assert seen == [False]
    assert gc.isenabled()
    extract(PAGE, url="http://example.com/a")
    extract_page(Page.from_html(PAGE), method="auto-rules")
    assert gc.isenabled()


def test_an_error_inside_turns_the_collector_back_on():
    with pytest.raises(ExtractionError):
        extract("   ")
    assert gc.isenabled()


def test_a_collector_the_caller_turned_off_stays_off():
    gc.disable()
    extract(PAGE)
    assert not gc.isenabled()


def test_nested_pauses_resume_once_at_the_outermost():
    inner_states = []

    @collector_paused
    def inner():
        inner_states.append(gc.isenabled())

    @collector_paused
    def outer():
        inner()
        inner_states.append(gc.isenabled())  # the inner pause ended, the outer has not

    outer()
    assert inner_states == [False, False]
    assert gc.isenabled()


def test_overlapping_threads_leave_the_collector_on():
    first_inside, second_done = threading.Event(), threading.Event()
    states = []

    @collector_paused
    def first():
        first_inside.set()
        second_done.wait(5)
        states.append(("first, after the second ended", gc.isenabled()))

    @collector_paused
    def second():
        first_inside.wait(5)
        states.append(("second", gc.isenabled()))

    threads = [threading.Thread(target=first), threading.Thread(target=lambda: (second(), second_done.set()))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert states == [("second", False), ("first, after the second ended", False)]
    assert gc.isenabled()


def test_an_extraction_leaves_no_cycle_for_the_collector():
    extract(PAGE)  # lazy loads (models, word lists) happen once
    while gc.collect():  # what earlier tests left (a crawler's signal receivers) goes first
        pass
    for _ in range(3):
        extract(PAGE, url="http://example.com/a")
        extract(PAGE.replace("<article>", "<div class='sidebar'><a href='/x'>More</a></div><article>"))
    assert gc.collect() == 0
