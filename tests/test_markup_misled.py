"""Markup that calls the whole story boilerplate (a page builder's "widget" panels inside the
page's content column) is not believed; a sidebar inside a content-marked wrapper still is.

The structures are those of two page builders (SiteOrigin's ``so-panel widget`` panels, HubSpot's
``widget-span`` modules) and of a Blogger photo post, written here with text of our own.
"""

from __future__ import annotations

from newscrawl.extract import extract
from tests.pages import ARTICLE_PARAGRAPHS

NAV = "".join(f'<li><a href="/section/{i}">Section {i}</a></li>' for i in range(12))


def builder_page(panel: str) -> str:
    panels = "".join(panel.format(text=text) for text in ARTICLE_PARAGRAPHS)
    return f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Council approves budget</title></head>
<body><header class="site-header"><ul class="menu">{NAV}</ul></header>
<div class="site-inner"><main class="content"><article class="post-560 page type-page entry">
<h1 class="entry-title">Council approves budget</h1>
<div class="entry-content"><div class="panel-layout">{panels}</div></div></article></main></div>
<footer class="site-footer"><p>Copyright 2026 Example College. All rights reserved.</p></footer></body></html>"""


def test_a_story_set_in_page_builder_widget_panels_is_the_body():
    siteorigin = ('<div class="panel-grid panel-no-style"><div class="panel-grid-cell">'
                  '<div class="so-panel widget widget_text"><div class="textwidget"><p>{text}</p></div></div>'
                  '</div></div>')
    hubspot = ('<div class="row-fluid"><div class="span12 widget-span widget-type-custom_widget">'
               '<div class="hs_cos_wrapper hs_cos_wrapper_widget"><span class="hs_cos_wrapper_widget">'
               '<p>{text}</p></span></div></div></div>')
    for panel in (siteorigin, hubspot):
        assert extract(builder_page(panel), method="auto").text.split("\n") == ARTICLE_PARAGRAPHS


def test_a_photo_posts_sidebar_blurb_is_not_its_body_though_the_layout_is_marked_content():
    blurb = ("Street style and street fashion in our town: this blog has documented what people wear "
             "across the city since 2006, from the old market to the river and the new station.")
    app = ("To download the app, open the address on the back of our card from your phone and add it to "
           "your home screen; you need an account to comment, but not to look.")
    contact = ("For work with the blog, for shoots and for the photographs on this site, write to us at the "
               "address on the about page and we will answer within the week.")
    html = f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>In the pink</title></head>
<body><div class="content"><div class="content-outer"><div class="main-inner"><div class="columns">
<div class="main-column"><div class="post hentry"><h3 class="post-title">In the pink</h3>
<div class="post-body"><a href="/photo.jpg"><img src="/photo.jpg" alt=""></a></div>
<div class="post-footer">Posted by <a href="/profile">The Scout</a> at 10:00</div></div></div>
<aside><div class="sidebar section"><div class="widget Text"><div class="widget-content">{blurb}</div></div>
<div class="widget HTML"><h2>Our app</h2><div class="widget-content">{app}</div></div>
<div class="widget HTML"><h2>Contact</h2><div class="widget-content">{contact}</div></div>
<div class="widget BlogArchive"><ul>{NAV}</ul></div></div></aside>
</div></div></div></div></body></html>"""
    text = extract(html, method="auto").text
    assert "town" not in text and "download" not in text and "shoots" not in text
