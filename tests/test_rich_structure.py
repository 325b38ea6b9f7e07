"""The body's structure and pictures as real CMSs write them, through :func:`newscrawl.extract.extract`:
sections of sections, paragraphs written as a list's items, pictures loaded through ``srcset``,
``<picture>``, ``data-src`` and ``<noscript>``, galleries and pictures in tables."""

from __future__ import annotations

from newscrawl.evaluation.rich import markdown_headings, markdown_list_items
from newscrawl.extract import extract
from tests.pages import english_article

URL = "https://example.com/news/2026/11/20/council-budget.html"
MORE = [
    "Public transport gets a larger share than last year, with new buses for the northern lines.",
    "The libraries will open on Sundays again, a change readers of this paper asked for in letters.",
    "Parks and playgrounds keep their funding, and two new ones are planned near the river.",
    "Schools receive the money for the repairs their heads said could not wait another winter.",
]


def article(extra: str):
    return extract(english_article(extra_body=extra), url=URL)


def test_a_section_heading_over_deeper_headings_is_kept_a_teaser_strip_title_is_not():
    # WordPress block editor: an <h2> section whose parts are <h3>s, each heading its text.
    extra = (f'<h2 class="wp-block-heading">Where the money goes</h2>'
             f'<h3 class="wp-block-heading">Transport and libraries</h3><p>{MORE[0]}</p><p>{MORE[1]}</p>'
             f'<h3 class="wp-block-heading">Parks and schools</h3><p>{MORE[2]}</p><p>{MORE[3]}</p>'
             '<h2>More videos</h2><h3>Watch the council vote</h3>')  # a strip of titles heading no text
    found = article(extra)
    headings = markdown_headings(found.markdown)
    assert headings == ["Where the money goes", "Transport and libraries", "Parks and schools"]
    assert "## Where the money goes\n\n### Transport and libraries" in found.markdown
    assert "<h2>Where the money goes</h2><h3>Transport and libraries</h3>" in found.html


def test_paragraphs_written_as_numbered_or_bulleted_items_are_a_list():
    # Numbered paragraphs (classic editor), and bullet lines separated by <br> in one paragraph.
    extra = (f"<p>Here is what the budget funds:</p><p>1. {MORE[0]}</p><p>2. {MORE[1]}</p><p>3. {MORE[2]}</p>"
             f"<p>And what it cuts:</p><p>• {MORE[3]}<br>• Street lights will be switched off after midnight"
             " in the industrial zone.</p>")
    found = article(extra)
    items = markdown_list_items(found.markdown)
    assert items == [*MORE[:3], MORE[3], "Street lights will be switched off after midnight in the industrial zone."]
    assert f"1. {MORE[0]}\n2. {MORE[1]}\n3. {MORE[2]}" in found.markdown
    assert f"- {MORE[3]}" in found.markdown
    assert f"<ol><li>{MORE[0]}</li><li>{MORE[1]}</li>" in found.html and f"<ul><li>{MORE[3]}</li>" in found.html
    assert f"1. {MORE[0]}" in found.text.split("\n")  # text keeps the line as the page shows it
    # A lone bullet, numbers out of order: paragraphs.
    found = article(f"<p>2. {MORE[0]}</p><p>5. {MORE[1]}</p><p>• {MORE[2]}</p><p>{MORE[3]}</p>")
    assert markdown_list_items(found.markdown) == []
    assert f"2\\. {MORE[0]}" in found.markdown


def test_a_listicles_numbered_entries_with_text_between_them_are_one_list_a_heading_ends_it():
    # Classic-editor listicle: each "N. name" paragraph followed by its explanation and a picture.
    extra = (f"<p>1. Transport</p><p>{MORE[0]}</p><p><img src='/img/bus.jpg' width='800' height='500'></p>"
             f"<p>2. Libraries</p><p>{MORE[1]}</p><p>3. Parks</p><p>{MORE[2]}</p>"
             f"<h2>What was cut</h2><p>4. Street lights</p><p>{MORE[3]}</p>")
    found = article(extra)
    assert markdown_list_items(found.markdown) == ["Transport", "Libraries", "Parks"]
    assert f"1. Transport\n\n{MORE[0]}" in found.markdown and "\n\n2. Libraries\n\n" in found.markdown
    assert "4\\. Street lights" in found.markdown  # after the heading, a 4 starts nothing
    assert "<ol><li>Transport</li></ol>" in found.html and '<ol start="2"><li>Libraries</li></ol>' in found.html
    assert "1. Transport" in found.text.split("\n")


def test_numbered_paragraphs_going_on_from_an_ordered_list_are_its_items_with_their_numbers():
    # Three steps in an <ol>, the editor then typing the next ones as paragraphs.
    steps = "".join(f"<li>{line}</li>" for line in MORE[:3])
    found = article(f"<p>The steps:</p><ol>{steps}</ol><p>4. {MORE[3]}</p>"
                    "<p>5. Street lights will be switched off after midnight in the industrial zone.</p>")
    assert markdown_list_items(found.markdown)[-2:] == [
        MORE[3], "Street lights will be switched off after midnight in the industrial zone."]
    assert f"1. {MORE[0]}\n2. {MORE[1]}\n3. {MORE[2]}\n4. {MORE[3]}\n5. Street" in found.markdown
    assert f"<li>{MORE[2]}</li><li>{MORE[3]}</li>" in found.html  # the same <ol>, counting on
    # Without the list before them, numbers from 4 are paragraphs.
    found = article(f"<p>The steps:</p><p>4. {MORE[3]}</p><p>5. {MORE[0]}</p>")
    assert markdown_list_items(found.markdown) == []


def test_numbers_go_on_from_an_ordered_list_whose_item_holds_a_list_of_its_own():
    # The first step has two details in a <ul>: the <ol> still has three items, the fourth is typed.
    details = "<ul><li>Buy the tickets early.</li><li>Keep the receipts.</li></ul>"
    steps = f"<li>{MORE[0]}{details}</li><li>{MORE[1]}</li><li>{MORE[2]}</li>"
    found = article(f"<p>The steps:</p><ol>{steps}</ol><p>4. {MORE[3]}</p>"
                    "<p>5. Street lights will be switched off after midnight in the industrial zone.</p>")
    assert f"3. {MORE[2]}\n4. {MORE[3]}\n5. Street" in found.markdown
    assert markdown_list_items(found.markdown)[-2:] == [
        MORE[3], "Street lights will be switched off after midnight in the industrial zone."]


def test_pictures_in_a_table_grid_are_article_images_not_an_empty_data_table():
    # A before/after grid as classic editors lay it out: pictures in one row, captions in the next.
    grid = ('<table class="photo-grid"><tr><td><img src="/img/square-before.jpg" alt="The square in 2020" '
            'width="600" height="400"></td><td><img data-src="/img/square-after.jpg" src="/img/blank.gif" '
            'alt="The square today" width="600" height="400"></td></tr>'
            "<tr><td>The square before the works</td><td>The square after the works</td></tr></table>")
    found = article(grid + f"<p>{MORE[0]}</p>")
    urls = [i["url"] for i in found.images]
    assert urls == ["https://example.com/img/square-before.jpg", "https://example.com/img/square-after.jpg"]
    assert "![The square in 2020](https://example.com/img/square-before.jpg)" in found.markdown
    assert "| --- |" not in found.markdown and "<table>" not in found.html
    assert "The square before the works" in found.text.split("\n")
    # A table of data keeps its rendering.
    data = ("<table><tr><th>Item</th><th>Amount</th></tr><tr><td>Roads</td><td>12 million</td></tr>"
            "<tr><td>Libraries</td><td>3 million</td></tr></table>")
    found = article(data + f"<p>{MORE[0]}</p>")
    assert "| Item | Amount |" in found.markdown and found.images == []


def test_list_items_set_as_headings_are_items_a_heading_over_an_items_text_is_a_heading():
    # A shop guide's materials list, each item an <h3> (as a site builder writes it), then a
    # numbered listicle whose items each hold a heading and its paragraph.
    materials = ["organic cotton", "hemp", "recycled wool"]
    extra = ("<h2>Brands we trust</h2><ul>" + "".join(f"<li><h3>{m}</h3></li>" for m in materials) + "</ul>"
             f"<ol><li><h2>Transport</h2><p>{MORE[0]}</p></li><li><h2>Libraries</h2><p>{MORE[1]}</p></li></ol>")
    found = article(extra)
    assert markdown_list_items(found.markdown) == [*materials, *MORE[:2]]
    assert markdown_headings(found.markdown) == ["Brands we trust", "Transport", "Libraries"]


def test_a_heading_linked_to_another_site_heads_its_section_one_linked_within_the_site_is_a_teaser():
    # A buying guide, most of the page, names each brand in a heading linked to the brand's own
    # shop; the box of the site's other stories below it links its headlines within the site.
    brands = {
        "Proclaim": ["Based in Los Angeles, the label makes underwear and basics from recycled fibres.",
                     "Its factories are audited every year, and it publishes the names of its suppliers."],
        "Svala": ["The vegan bags of this small studio are made from cork, cactus leather and old bottles.",
                  "Each bag is sewn by hand in a workshop the founder visits every single month."],
        "Harvest & Mill": ["Cotton grown and milled in the country goes into its shirts, socks and blankets.",
                           "The undyed cloth saves water and keeps the colours of the plants it came from."],
    }
    guide = "".join(f'<div class="layout-block"><h2 class="layout-block__heading">'
                    f'<a href="https://www.{b.split()[0].lower()}.example.org/" target="_blank">{b}</a></h2>'
                    + "".join(f"<p>{p}</p>" for p in paragraphs) + "</div>" for b, paragraphs in brands.items())
    teasers = "".join(f'<h3><a href="https://example.com/news/2026/11/{d}/story.html">Another story {d}</a></h3>'
                      for d in (18, 19))
    found = article(guide + teasers)
    assert markdown_headings(found.markdown) == list(brands)
    lines = found.text.split("\n")
    assert all(b in lines for b in brands) and not any("Another story" in line for line in lines)


def test_a_list_of_sources_on_other_sites_is_the_articles_own_list():
    # A list of the reports the story cites, each linked to its publisher, as a blog or an explainer
    # writes it; then a box of the site's own stories, a list of shops marked as sponsored links,
    # and share buttons: link lists too, but none the article's.
    sources = [("https://www.oecd.example.org/reports/urban-transport-2026", "OECD: Urban transport outlook 2026"),
               ("https://data.transport.example.gov/buses/ridership", "Ministry of Transport: bus ridership data"),
               ("https://www.univ.example.edu/papers/bridge-ageing.pdf", "Ageing bridges in Europe, a survey (2025)")]
    cited = "<h2>Sources</h2><ul>" + "".join(f'<li><a href="{u}">{t}</a></li>' for u, t in sources) + "</ul>"
    own = '<div class="more"><ul>' + "".join(f'<li><a href="https://example.com/news/2026/11/{d}/story.html">'
                                             f"Another council story from the {d}th</a></li>" for d in (17, 18, 19)) + \
        "</ul></div>"
    shops = '<div class="buy"><ul>' + "".join(f'<li><a href="https://www.{s}.example.co.uk/heated-airer" rel="nofollow sponsored">'
                             f"{s.title()} heated clothes airers</a></li>" for s in ("argos", "dunelm", "lakeland")) + \
        "</ul></div>"
    share = '<ul class="links">' + "".join(f'<li><a href="https://{s}.example.com/share?u=1">{s}</a></li>'
                                           for s in ("facebook", "x", "whatsapp")) + "</ul>"
    found = article(f"<p>{MORE[0]}</p>{cited}<p>{MORE[1]}</p>{own}{shops}{share}")
    titles = [t for _, t in sources]
    assert markdown_list_items(found.markdown) == titles
    assert f"- [{titles[0]}]({sources[0][0]})" in found.markdown
    lines = found.text.split("\n")
    assert all(t in lines for t in titles)
    assert not any("Another council story" in line or "airers" in line or line == "whatsapp" for line in lines)


def test_one_list_item_stays_one_item_across_its_line_breaks_and_paragraphs():
    # Classic editors set an item's title in bold and its text after a <br>, or in paragraphs of
    # its own inside the <li>; some split one bold word in two (<strong>B</strong><strong>udget</strong>).
    extra = (f"<p>Learning online requires new strategies:</p><ul>"
             f"<li><b>Plan your time.</b><br>{MORE[0]}</li>"
             f"<li><p>Ask for help.</p><p>{MORE[1]}</p></li>"
             f"<li><strong>B</strong><strong>udget:</strong> {MORE[2]}</li></ul>")
    found = article(extra)
    assert markdown_list_items(found.markdown) == ["Plan your time.", "Ask for help.", f"Budget: {MORE[2]}"]
    assert f"- **Plan your time.**\n\n  {MORE[0]}\n- Ask for help.\n\n  {MORE[1]}\n" in found.markdown
    assert f"- **Budget:** {MORE[2]}" in found.markdown
    assert f"<li><strong>Plan your time.</strong><br>{MORE[0]}</li><li>Ask for help.<p>{MORE[1]}</p></li>" \
        in found.html
    lines = found.text.split("\n")  # text keeps each line as the page shows it
    assert lines[lines.index("Plan your time.") + 1] == MORE[0]


def test_a_headings_link_to_its_own_anchor_is_no_part_of_its_text():
    extra = (f'<h2 id="money"><a class="heading-permalink" href="#money" title="Permalink">#</a>Where the money goes</h2>'
             f'<p>{MORE[0]}</p><h2><a href="#parks">1</a> Parks and schools</h2><p>{MORE[1]}</p>'
             f'<h2 id="next">What comes next <a href="#next">¶</a></h2><p>{MORE[2]}</p>'  # "1" is the heading's
             f'<h2 id="section4">The vote<a class="subhead-anchor" href="#section4">#section4</a></h2><p>{MORE[3]}</p>')
    found = article(extra)
    assert markdown_headings(found.markdown) == ["Where the money goes", "1 Parks and schools", "What comes next",
                                                 "The vote"]
    assert "Where the money goes" in found.text.split("\n") and "#" not in found.text


def test_a_code_block_keeps_its_lines_and_indentation_in_the_markdown_and_the_html():
    # A static-site generator's highlighter (one <span> per line, the page's newlines between
    # them), and a CMS's code box whose lines are <br>-separated, indented with &nbsp;.
    highlighted = ('<div class="highlight"><pre tabindex="0"><code class="language-bash">'
                   '<span style="display:flex"><span style="color:#75715e"># Fetch the minutes</span>\n</span>'
                   '<span style="display:flex"><span>git clone https://example.com/council.git\n</span></span>'
                   '<span style="display:flex"><span>cd council\n</span></span></code></pre></div>')
    boxed = "<pre>def total(items):<br>&nbsp;&nbsp;&nbsp;&nbsp;return sum(items)<br>print(total([1, 2]))</pre>"
    found = article(f"<p>{MORE[0]}</p>{highlighted}<p>{MORE[1]}</p>{boxed}<p>{MORE[2]}</p>")
    assert "```\n# Fetch the minutes\ngit clone https://example.com/council.git\ncd council\n```" in found.markdown
    assert "```\ndef total(items):\n    return sum(items)\nprint(total([1, 2]))\n```" in found.markdown
    assert "<pre><code>def total(items):\n    return sum(items)\nprint(total([1, 2]))</code></pre>" in found.html
    assert markdown_headings(found.markdown) == []  # a shell comment is no heading
    assert "# Fetch the minutes git clone https://example.com/council.git cd council" in found.text.split("\n")


def test_a_call_to_action_boxs_title_is_no_subheading_a_section_beside_one_is():
    box = ('<div class="wp-block-cta cta-box"><h3>Sign up and try CityDesk free for 14 days</h3>'
           "<p>CityDesk helps a council's staff answer residents faster, with every request in one place.</p></div>")
    extra = (f'<div class="above-cta"><h2>Where the money goes</h2><p>{MORE[0]}</p></div>{box}'
             f'<h2>What comes next</h2><p>{MORE[1]}</p>')
    found = article(extra)
    assert markdown_headings(found.markdown) == ["Where the money goes", "What comes next"]


def test_an_item_and_a_code_box_of_thousands_of_lines_stay_one_item_and_one_block():
    lines = [f"Line {n} of the council's list of works" for n in range(3000)]
    code = [f"works[{n}] = plan({n})" for n in range(3000)]
    found = article(f"<p>{MORE[0]}</p><ul><li>{'<br>'.join(lines)}</li><li>{MORE[1]}</li></ul>"
                    f"<pre>{'<br>'.join(code)}</pre><p>{MORE[2]}</p>")
    assert markdown_list_items(found.markdown) == [lines[0], MORE[1]]
    assert found.markdown.count("```") == 2 and "\n".join(code) in found.markdown
    assert found.html.count("<li>") == 2 and found.html.count("<pre>") == 1


def test_numbered_headings_linked_to_the_brands_sites_between_the_sections_paragraphs_are_kept():
    # A "best of" post as WordPress writes it: each entry an <h3> "N. <a>Brand</a>" linked to the
    # brand's site, then its paragraphs, all siblings in the post's content; headings of one tag and
    # class led by a link are what a teaser list looks like, but these link off the site.
    agencies = {
        "Northwind Social": ["Northwind runs paid and organic campaigns for consumer brands on four networks.",
                             "Its team of forty writes, shoots and edits the content in its own studio."],
        "Bright Harbor": ["The agency began as a community management shop and now plans whole launches.",
                          "Clients praise its weekly reports, which say what worked and what did not."],
        "Tallgrass Media": ["Tallgrass works with hospitals and colleges, where every post needs approval.",
                            "It builds the calendars months ahead, so that the reviews never hold it up."],
    }
    post = "".join(f'<h3 class="wp-block-heading">{n}. <a href="https://www.{a.split()[0].lower()}.example.net/" '
                   f'target="_blank">{a}</a></h3>' + "".join(f"<p>{p}</p>" for p in paragraphs)
                   for n, (a, paragraphs) in enumerate(agencies.items(), 1))
    found = article(post)
    assert markdown_headings(found.markdown) == [f"{n}. {a}" for n, a in enumerate(agencies, 1)]
    assert all(p in found.text.split("\n") for paragraphs in agencies.values() for p in paragraphs)


def test_a_directory_article_full_of_links_to_the_sites_profiles_is_the_body_not_its_first_list():
    # A movers' directory post (a WordPress <article class="post">): a few paragraphs between long
    # rankings whose names link to the site's own profile pages, each with a rating and a review
    # line.  Its links outweigh its prose, so one list inside it gains the most; but the post holds
    # all of the page's prose, and the sidebar none.
    movers = [f"{name} Moving" for name in ("Harbor", "Metro", "Cedar", "Granite", "Lakeside", "Summit",
                                             "Pioneer", "Riverside", "Northgate", "Bluebird", "Oakwood",
                                             "Ironbridge")]
    ranking = "<ol>" + "".join(
        f'<li><a href="https://movers.example.com/ny/{m.split()[0].lower()}-{i}/">{m}</a>: 4.{9 - i % 9} out of 5 stars'
        f' · <a href="https://movers.example.com/ny/{m.split()[0].lower()}-{i}/reviews">{300 + i} reviews</a></li>'
        for i, m in enumerate(movers)) + "</ol>"
    cards = "".join(
        f'<div class="card"><h3><a href="https://movers.example.com/ny/{m.split()[0].lower()}-{i}/">{m}</a></h3>'
        f'<a href="https://movers.example.com/ny/{m.split()[0].lower()}-{i}/quote">Get a quote</a> '
        f'<a href="https://movers.example.com/ny/{m.split()[0].lower()}-{i}/photos">See photos</a> '
        f'<a href="https://movers.example.com/compare?m={i}">Compare prices</a> '
        f'<a href="https://movers.example.com/ny/{m.split()[0].lower()}-{i}/reviews">Read all customer reviews of {m}</a>'
        '<p>Serves: ' + ", ".join(f'<a href="https://movers.example.com/ny/{b.lower().replace(" ", "-")}/">{b}</a>'
                                  for b in ("Brooklyn", "Queens", "Manhattan", "The Bronx", "Staten Island")) + "</p></div>"
        for i, m in enumerate(movers))
    tips = [
        "<b>Weather:</b> the state has warm to hot summers and cold winters, so plan a move for spring or autumn.",
        "<b>Elevators:</b> buildings with elevators may ask you to reserve the service elevator well in advance.",
        "<b>Parking:</b> a moving truck may need a permit from the city; ask your new building before the day.",
        "<b>Credentials:</b> the movers we suggest are licensed and insured, but you can check their record too.",
        "<b>Mail:</b> to avoid interruptions, fill in the change of address form at least a week before you move.",
    ]
    prose = [
        "I have helped thousands of people move over the last decade, and no two moves are alike.",
        "Whether you are moving across town or within fifty miles, a local mover is likely the best bet.",
        "We evaluated more than a hundred local movers and recommend the first three for their clear rates.",
        "If you are leaving the state, look for a long-distance mover with a licence from the federal agency.",
        "Ask each company for a written estimate and check whether the price is binding before you sign.",
    ]
    page = (
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Best movers in New York | Movers Guide'
        '</title></head><body><header><ul class="menu">'
        + "".join(f'<li><a href="/states/{s}/">{s}</a></li>' for s in ("ny", "nj", "ca", "tx", "fl", "wa"))
        + '</ul></header><main><article class="post type-post status-publish"><h1>Best movers in New York</h1>'
        f"<p>{prose[0]}</p><h2>Best local movers</h2><p>{prose[1]}</p><p>{prose[2]}</p>{ranking}{cards}"
        f"<h2>Best long-distance movers</h2><p>{prose[3]}</p>{ranking}<h2>How to choose</h2><p>{prose[4]}</p>"
        "<h2>Tips for moving in New York</h2><ul>" + "".join(f"<li>{t}</li>" for t in tips) + "</ul>"
        "</article></main><footer><p>Movers Guide</p></footer></body></html>"
    )
    found = extract(page, url="https://movers.example.com/movers/ny/")
    lines = found.text.split("\n")
    assert all(p in lines for p in prose)
    assert "Best movers in New York" not in lines and "Movers Guide" not in lines


def test_product_headings_in_lists_between_the_guides_paragraphs_are_kept_a_blogroll_is_not():
    # A tools guide (a WordPress post pasted from Google Docs): each section names its picks in a
    # list of <h2> links to the shop, between the section's paragraphs; below the post, a
    # "blogs I like" box links other blogs' posts under <h4> headings, a summary each.
    picks = {"Multimeters": ["Fluxa 117 True RMS Multimeter", "Kelvin Tools MM400 Auto-Ranging"],
             "Pliers": ["Irvin Vise-Grip Long Nose Pliers", "Channel 317 Long Nose Pliers"],
             "Testers": ["Fluxa T6-1000 Electrical Tester", "Kelvin NCVT-3P Voltage Tester"]}
    guide = "".join(
        f"<h3>{n}. {section}</h3><p>Every electrician needs good {section.lower()} for the daily work on site.</p>"
        f"<p>Look for a model that is rated for the voltage you work with, and keep a spare in the van.</p><ul>"
        + "".join(f'<li><h2><a href="https://www.shop.example.net/dp/{k}{n}" target="_blank">{k}</a></h2></li>'
                  for k in names) + "</ul>"
        for n, (section, names) in enumerate(picks.items(), 1))
    roll = '<section class="webring"><h3>Recent posts on blogs I like:</h3><section class="articles">' + "".join(
        f'<div class="article"><h4 class="title"><a href="https://{b}.example.org/p/{b}-post">A post on {b}</a></h4>'
        f'<p class="summary">I was recently a contributing writer at a retreat on {b} writing.</p>'
        f'<small class="source">via <a href="https://{b}.example.org">{b.title()}</a></small></div>'
        for b in ("thing", "slow", "boring", "quiet")) + "</section></section>"
    closing = "<p>Whatever you buy, keep the tools clean and dry, and replace any with cracked insulation.</p>"
    found = article(guide + closing + roll)
    lines = found.text.split("\n")
    assert all(k in lines for names in picks.values() for k in names)
    assert not any("A post on" in line or "retreat" in line for line in lines)


def test_a_rankings_entries_linked_within_the_site_are_its_body_an_unnumbered_strip_is_not():
    # A ranking as a WordPress "hub" block writes it: each entry a <div> of one class led by
    # "<h2>N. <a>Name</a></h2>" linked to the entry's own page on the site, a paragraph, a list of
    # figures and a read-more link; a list of other articles has the same shape, unnumbered.
    schools = {"Harbor Business School": ("Boston", 730), "Westfield GSB": ("Palo Alto", 738),
               "Lakeside School of Management": ("Chicago", 727), "Northgate Business School": ("Evanston", 729)}
    entries = "".join(
        f'<div class="hub-item"><h2>{n}. <a href="/top-programs/{name.split()[0].lower()}/">{name}</a></h2>'
        f"<div><p>{name} is known for its case method and a class that comes from sixty countries.</p></div>"
        f'<ul class="stats"><li><strong>Location: </strong>{city}</li><li><strong>Median GMAT: </strong>{gmat}'
        f'</li></ul><div class="read-more"><a href="/top-programs/{name.split()[0].lower()}/">Learn more about '
        f"{name}</a></div></div>"
        for n, (name, (city, gmat)) in enumerate(schools.items(), 1))
    strip = '<div class="hub">' + "".join(
        f'<div class="hub-item"><h2><a href="/blog/{k}/">{title}</a></h2><div><p>{title} and what it means for '
        f"applicants this year, in a few words.</p></div></div>"
        for k, title in enumerate(("Deadlines move earlier", "Essays get shorter", "Interviews go online")))
    closing = "<p>Rankings are a start: visit the schools and talk to their students before you apply.</p>"
    found = article(f'<div class="hub">{entries}</div>{closing}' + strip + "</div>")
    assert [h for h in markdown_headings(found.markdown) if h[0].isdigit()] == [
        f"{n}. {name}" for n, name in enumerate(schools, 1)]
    assert all(f"Median GMAT: {gmat}" in markdown_list_items(found.markdown) for _, gmat in schools.values())
    assert not any("applicants this year" in line for line in found.text.split("\n"))



def test_entries_of_a_guide_whose_markup_says_profile_are_its_body_a_lone_profile_box_is_not():
    # A movers guide: each company a <div class="mover-profile"> (schema.org LocalBusiness) of its
    # name, address and review; "profile" names an author's or user's box on most sites.
    movers = {
        "Harbor Moving": "Harbor Moving offers full-service moves, interstate relocation and careful handling of "
                         "pianos and antiques, with packing, crating and unpacking for households of any size.",
        "Liberty Movers": "Liberty Movers specialise in small local moves and labor-only jobs, and their crews are "
                          "praised for arriving on time and wrapping every piece of furniture before it moves.",
        "Blue Van Lines": "Blue Van Lines run long-distance moves across the country, with storage between the two "
                          "homes and a binding estimate that customers say held to the last dollar.",
    }
    guide = "<h2>Top local movers</h2><p>We compared 148 moving companies on price, reviews and services.</p>" + "".join(
        f'<div class="mover-profile"><section><div itemscope itemtype="http://schema.org/LocalBusiness">'
        f'<h2><span itemprop="name">{name}</span></h2><address>48 Wall St, New York, NY</address>'
        f"<div class=\"listing-text\"><p>{review}</p><p>{name} accepts credit cards and offers storage, though "
        f"it asks for a deposit, which customers say is returned quickly after the move. Its crews work "
        f"weekends at no extra charge, and a move can be booked online up to a day before.</p></div>"
        f'<a class="btn" href="https://quotes.example.net/{k}">Get a Quote</a></div></section></div>'
        for k, (name, review) in enumerate(movers.items()))
    bio = ('<div class="profile"><h3>About Jane Doe</h3><p>Jane Doe has written about moving and real estate for '
           "ten years, for papers in three states, and lives in Brooklyn with two cats and far too many boxes "
           "that she still has not unpacked from her own last move, four years ago now, to her regret.</p></div>")
    found = article(guide + f"<p>{MORE[0]}</p>" + bio)
    headings = markdown_headings(found.markdown)
    assert all(name in headings for name in movers)
    assert all(review in found.text.split("\n") for review in movers.values())
    assert "About Jane Doe" not in headings and "two cats" not in found.text


def test_a_checklist_written_line_by_line_with_boxes_is_a_list_a_forms_boxes_are_not():
    # A gear list as outdoorgearlab.com writes it: a box, two no-break spaces, the item (often a link), <br>.
    box = "<input type='checkbox' aria-label='checkbox'>&nbsp;&nbsp;"
    lines = ["<a href='/topics/best-backpacks'>Backpacking pack</a>", "Rain cover or <a href='/topics/dry-bag'>dry bag</a>",
             "Ground tarp", "<a href='/topics/sleeping-bags'>Sleeping bag</a>"]
    extra = (f"<p>{MORE[0]}</p><h3>Shelter and hiking gear</h3><br>" + "".join(f"{box}{line}<br>\n" for line in lines)
             + f"<p>{MORE[1]}</p><p>{MORE[2]}</p>"
             # a form in the article: its boxes are fields with labels, not a checklist
             "<form action='/subscribe'><label><input type='checkbox' name='daily'> Daily briefing</label><br>"
             "<label><input type='checkbox' name='weekly'> Weekly digest</label></form>"
             f"<p>{MORE[3]}</p>")
    found = article(extra)
    items = markdown_list_items(found.markdown)
    assert items == ["Backpacking pack", "Rain cover or dry bag", "Ground tarp", "Sleeping bag"]
    assert "- [Backpacking pack](https://example.com/topics/best-backpacks)\n- Rain cover or" in found.markdown
    assert "<li>Ground tarp</li>" in found.html
    text_lines = found.text.split("\n")
    assert "\u2610 Ground tarp" in text_lines  # the text keeps the box as a sign, as it keeps a bullet
    assert not any("Daily briefing" in item or "Weekly digest" in item for item in items)


def test_a_task_list_and_a_lone_box_keep_their_text_without_a_sign():
    extra = (f"<p>{MORE[0]}</p><ul><li><input type='checkbox' checked> Repair the roof</li>"
             "<li><input type='checkbox'> Paint the hall</li></ul>"
             f"<p><input type='checkbox'> I have read the rules of the comments section.</p><p>{MORE[1]}</p>")
    found = article(extra)
    assert markdown_list_items(found.markdown) == ["Repair the roof", "Paint the hall"]
    assert "\u2610" not in found.text and "\u2611" not in found.text


def test_a_list_of_links_elsewhere_wrapped_as_asciidoctor_wraps_lists_is_kept_a_read_more_box_is_not():
    # Asciidoctor (a progress report): each list in <div class="ulist">, each item a paragraph whose
    # link leads to the change on another site.
    changes = ["Remove passing tests from the list of failing tests", "Fix memory use by splitting nested expressions",
               "Implement the register vector type for the new targets", "Regenerate the intrinsics from the sources",
               "Load the compiler library at run time to support more targets"]
    items = "".join(f'<li><p><a href="https://github.com/example/compiler/pull/{780 + n}">{c}</a></p></li>'
                    for n, c in enumerate(changes))
    extra = (f'<div class="sect1"><h2 id="_what_changed">What changed this month</h2><div class="sectionbody">'
             f'<div class="paragraph"><p>{MORE[0]}</p></div><div class="paragraph"><p>These changes were merged:</p>'
             f'</div><div class="ulist"><ul>{items}</ul></div><div class="paragraph"><p>{MORE[1]}</p></div></div></div>'
             # a box of two links to the publisher's other site between paragraphs: not the article's list
             '<div class="text-block"><ul><li><a href="https://www.example.co.uk/news/budget-45814459">How the city'
             ' raises and spends its money</a></li><li><a href="https://www.example.co.uk/news/budget-68359756">'
             f"Budget: the key points at a glance</a></li></ul></div><p>{MORE[2]}</p><p>{MORE[3]}</p>")
    found = article(extra)
    assert markdown_list_items(found.markdown) == changes
    assert "Budget: the key points at a glance" not in found.text


def test_linked_items_between_plain_items_of_a_list_stay_a_call_to_action_at_its_end_does_not():
    # A packing list (WordPress list block): some items link to the site's gear reviews.
    gear = ["Rainfly", "<a href='/gear/best-tent-stakes/'>Stakes</a>", "<a href='/gear/best-guylines/'>Guylines</a>",
            "Ground sheet for the tent floor", "<a href='/gear/best-headlamps/'>Headlamp</a>", "Spare batteries"]
    tariff = ["Data: 10 GB a month", "Calls and texts: unlimited", "Term: 24 months", "Monthly price: 5.99 euros",
              "<a href='https://shop.example.net/deal?ref=site'>Order now at the shop</a>"]
    extra = (f"<p>{MORE[0]}</p><h3>Shelter</h3><ul class='wp-block-list'>"
             + "".join(f"<li>{g}</li>" for g in gear) + f"</ul><p>{MORE[1]}</p><ul>"
             + "".join(f"<li>{t}</li>" for t in tariff) + f"</ul><p>{MORE[2]}</p>")
    items = markdown_list_items(article(extra).markdown)
    assert items[:6] == ["Rainfly", "Stakes", "Guylines", "Ground sheet for the tent floor", "Headlamp",
                         "Spare batteries"]
    assert "Monthly price: 5.99 euros" in items and "Order now at the shop" not in items


def test_an_ordered_lists_items_are_numbered_as_a_browser_shows_them():
    # Eleven steps; the tenth goes on after a <br>, a paragraph of the item indented under "10. ".
    steps = [f"Step {n}: check the {word} before the next one." for n, word in
             enumerate("valve pump hose filter seal gauge lever belt tank cable plug".split(), 1)]
    items = "".join(f"<li>{s}<br>Then write the reading down.</li>" if n == 10 else f"<li>{s}</li>"
                    for n, s in enumerate(steps, 1))
    found = article(f"<p>The checks, in order:</p><ol>{items}</ol>")
    assert f"1. {steps[0]}\n2. {steps[1]}\n3. {steps[2]}" in found.markdown
    assert f"10. {steps[9]}\n\n    Then write the reading down.\n11. {steps[10]}" in found.markdown
    assert markdown_list_items(found.markdown) == steps  # the tenth's second line stays inside it
    assert "<ol><li>" in found.html and "start=" not in found.html


def test_an_ordered_list_the_page_goes_on_after_an_interruption_keeps_its_start():
    # Steps split by a paragraph, the second <ol start="3"> going on from the first.
    found = article(f"<ol><li>{MORE[0]}</li><li>{MORE[1]}</li></ol><p>A word from our sponsor, then on.</p>"
                    f'<ol start="3"><li>{MORE[2]}</li><li>{MORE[3]}</li></ol>')
    assert f"3. {MORE[2]}\n4. {MORE[3]}" in found.markdown
    assert f'<ol start="3"><li>{MORE[2]}</li>' in found.html
    assert markdown_list_items(found.markdown) == MORE


def test_a_list_nested_in_a_numbered_item_is_indented_under_its_text():
    # CommonMark nests an item under "1." only from three spaces in (under "10." four).
    outer = [f"<li>{MORE[n]}<ul><li>First detail of item {n + 1}.</li><li>Second detail.</li></ul></li>"
             for n in range(2)]
    found = article(f"<p>The plan:</p><ol>{''.join(outer)}</ol>")
    assert f"1. {MORE[0]}\n   - First detail of item 1.\n   - Second detail.\n2. {MORE[1]}" in found.markdown
    from newscrawl.evaluation.rich import markdown_tokens
    depths = [t.level for t in markdown_tokens(found.markdown) if t.type == "list_item_open"]
    assert depths == [1, 3, 3, 1, 3, 3]  # the details are items of a list inside the outer item
