"""How ``auto`` chooses between the page's headline sources (``title.find_title(precise=True)``)."""

import json

from newscrawl.extract import Page
from newscrawl.extract.title import _json_ld_headline, find_title


def page(head: str = "", body: str = "", url: str = "https://blog.example.org/2024/05/winter-walk/") -> Page:
    return Page.from_html(f"<html><head>{head}</head><body>{body}<p>Some text.</p></body></html>", url)


def meta(prop: str, content: str) -> str:
    return f'<meta property="{prop}" content="{content}">'


def ld(*objects: dict) -> str:
    return f'<script type="application/ld+json">{json.dumps(list(objects))}</script>'


def agreeing_head(title: str) -> str:
    """``<title>``, ``og:title`` and ``twitter:title`` all saying ``title``."""
    return f"<title>{title}</title>" + meta("og:title", title) + meta("twitter:title", title)


def test_typographic_variants_are_one_headline_written_as_the_h1_shows_it():
    head = agreeing_head("Mayor says 'no' to the new bridge")
    p = page(head, "<h1>Mayor says ‘no’ to the new bridge</h1>")
    assert find_title(p, precise=True) == "Mayor says ‘no’ to the new bridge"


def test_dash_kinds_and_soft_hyphens_do_not_split_the_vote():
    head = agreeing_head("Harbour closed - storm expected") + ld(
        {"@type": "NewsArticle", "headline": "Harbour closed: what we know"}
    )
    p = page(head, "<h1>Harbour clo\u00adsed – storm expected</h1>")
    assert find_title(p, precise=True) == "Harbour clo\u00adsed – storm expected"


def test_h1_linking_home_is_the_site_logo_not_the_headline():
    head = (
        "<title>Walking Notes</title>"
        + meta("og:title", "Winter walk by the river")
        + ld({"@type": "BlogPosting", "headline": "Winter walk by the river"})
    )
    body = '<h1 class="site-title"><a href="/">Walking Notes</a></h1><h1>Winter walk by the river</h1>'
    assert find_title(page(head, body), precise=True) == "Winter walk by the river"


def test_h1_linking_to_the_article_itself_is_still_the_headline():
    head = "<title>Walking Notes</title>" + meta("og:title", "Winter walk")
    body = '<h1><a href="/2024/05/winter-walk/">Winter walk by the river</a></h1>'
    assert find_title(page(head, body), precise=True) == "Winter walk by the river"


def test_tail_joined_by_a_guillemet_or_stars_counts_for_the_bare_headline():
    for tail in (" › Nordish Notes", " * Daily Pundit * by Jo Smith"):
        head = (
            f"<title>Running in winter{tail}</title>"
            + meta("og:title", f"Running in winter{tail}")
            + meta("twitter:title", f"Running in winter{tail}")
        )
        p = page(head, "<h1>Running in winter</h1>")
        assert find_title(p, precise=True) == "Running in winter", tail


def test_a_comma_clause_is_part_of_the_headline_not_a_tail():
    text = "Storms hit the coast, killing at least three"
    head = (
        f"<title>{text}</title>"
        + meta("og:title", text)
        + ld({"@type": "NewsArticle", "headline": "Storms hit the coast"})
    )
    assert find_title(page(head, f"<h1>{text}</h1>"), precise=True) == text


def test_json_ld_names_of_people_and_organisations_are_not_headlines():
    people = ld({"@type": "Person", "name": "Jane Doe"}, {"@type": "Organization", "name": "Example Times"})
    assert _json_ld_headline(page(people)) is None
    recipe = ld({"@type": "Person", "name": "Jane Doe"}, {"@type": "Recipe", "name": "Lemon cake"})
    assert _json_ld_headline(page(recipe)) == "Lemon cake"
    article = ld({"@type": ["NewsArticle"], "name": "Section", "headline": "Bridge reopens"})
    assert _json_ld_headline(page(article)) == "Bridge reopens"
    site = ld({"@type": "WebSite", "headline": "Example Times", "name": "Example Times"})
    assert _json_ld_headline(page(site)) is None
