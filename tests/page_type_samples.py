"""Small pages of the kinds the page-type model tells apart, written for the tests (no real page)."""

from __future__ import annotations

MENU = ("<header><nav class='menu'><a href='/'>Home</a> <a href='/services/'>Services</a> "
        "<a href='/about/'>About us</a> <a href='/blog/'>Blog</a> <a href='/contact/'>Contact</a></nav></header>")
# A shop's or a forum's chrome: a menu of categories and a footer of links, as real pages have.
CATEGORIES = ("Kitchen Bathroom Garden Lighting Furniture Bedding Storage Cleaning Tools Outdoor Heating "
              "Plumbing Decor Rugs Curtains Paint Flooring Doors Windows Gifts").split()
CHROME_TOP = ("<header><div class='top-bar'><a href='/account/login/'>Sign in</a> <a href='/cart/'>Cart (0)</a>"
              "</div><nav class='menu main-menu'><ul>"
              + "".join(f"<li class='menu-item'><a href='/shop/{c.lower()}/'>{c}</a></li>" for c in CATEGORIES)
              + "</ul></nav><form class='search' action='/search'><input name='q'><button>Search</button></form>"
              "</header>")
CHROME_BOTTOM = ("<footer><ul class='footer-menu'>"
                 + "".join(f"<li><a href='/help/{w}/'>{w.title()}</a></li>" for w in
                           "delivery returns warranty faq contact careers press stores gift-cards privacy "
                           "cookies terms accessibility sitemap".split())
                 + "</ul><p>© 2024 Acme Home Ltd.</p></footer>")
FOOTER = ("<footer><p>© 2024 Acme Plumbing Ltd. All rights reserved.</p><a href='/privacy/'>Privacy policy</a> "
          "<a href='/terms/'>Terms</a></footer>")
WP_HEAD = ("<meta property='og:type' content='article'><meta name='generator' content='WordPress 6.5'>"
           "<link rel='stylesheet' href='/wp-content/themes/acme/style.css'>")

SERVICES = [("Boiler repair", "Same-day repair of gas and oil boilers, all makes."),
            ("Bathroom fitting", "Design and fitting of complete bathrooms."),
            ("Drain unblocking", "Blocked drains cleared with high-pressure jetting."),
            ("Leak detection", "Hidden leaks found without breaking walls."),
            ("Radiator installation", "New radiators and thermostatic valves fitted."),
            ("Emergency call-out", "Available day and night, weekends included.")]

# A WordPress theme's service page: og:type=article on every page of the site.
SERVICE_PAGE = (
    "<html><head><title>Plumbing Services | Acme Plumbing</title>" + WP_HEAD + "</head><body>" + MENU
    + "<main><section class='hero'><h1>Plumbing services</h1><p>Fast, friendly plumbers.</p>"
    "<a class='button' href='/contact/'>Get a free quote</a></section><section class='services'>"
    + "".join(f"<div class='card service'><h3><a href='/services/{n.lower().replace(' ', '-')}/'>{n}</a></h3>"
              f"<p>{d}</p><a class='button' href='/contact/'>Book now</a></div>" for n, d in SERVICES)
    + "</section><section class='cta'><h2>Call us today</h2><p>Phone 0800 123 456</p>"
    "<form action='/contact/' method='post'><input name='name'><input name='phone'>"
    "<button>Request a call back</button></form></section></main>" + FOOTER + "</body></html>")
SERVICE_URL = "/services/"

# A shop's product page: a price, an add-to-cart form, Product metadata.
PRODUCT_PAGE = (
    "<html><head><title>Blue Enamel Kettle 1.7 L | Acme Home Shop</title>"
    "<script type='application/ld+json'>{\"@type\": \"Product\", \"name\": \"Blue Enamel Kettle\", "
    "\"offers\": {\"@type\": \"Offer\", \"price\": \"49.99\", \"priceCurrency\": \"USD\"}}</script>"
    "<meta property='og:type' content='product'></head><body>" + CHROME_TOP +
    "<nav class='breadcrumb'><a href='/'>Home</a> › <a href='/shop/kitchen/'>Kitchen</a></nav>"
    "<div class='product'><h1 class='product-title'>Blue Enamel Kettle 1.7 L</h1>"
    "<p class='price'>$49.99</p><p class='price-old'>$59.99</p><div class='sku'>SKU: KT-1702</div>"
    "<form class='cart' action='/cart/add' method='post'><select name='colour'><option>Blue</option></select>"
    "<input type='number' name='quantity' value='1'><button class='add-to-cart'>Add to cart</button></form>"
    "<div class='product-description'><p>A stovetop kettle of enamelled steel with a whistle.</p>"
    "<ul><li>Capacity 1.7 litres</li><li>Suits gas, electric and induction hobs</li>"
    "<li>Dishwasher safe</li></ul></div></div><section class='related products'><h2>You may also like</h2>"
    + "".join(f"<div class='product card'><a href='/product/mug-{i}/'>Enamel mug {i}</a>"
              f"<span class='price'>${9 + i}.99</span><button>Add to cart</button></div>" for i in range(20))
    + "</section><table class='specs'>" + "".join(
        f"<tr><th>{k}</th><td>{v}</td></tr>" for k, v in (("Capacity", "1.7 l"), ("Material", "Enamelled steel"),
                                                           ("Weight", "1.1 kg"), ("Colour", "Blue"),
                                                           ("Warranty", "2 years")))
    + "</table><p class='stock'>In stock: delivery in 2-3 days, free over $50</p><div class='reviews'><h2>Reviews (2)</h2><div class='review'><p>Lovely kettle, "
    "boils fast.</p></div><div class='review'><p>Whistle is loud.</p></div></div>" + CHROME_BOTTOM
    + "</body></html>")
PRODUCT_URL = "/product/blue-enamel-kettle-1-7-l/"

# A forum thread: repeated posts, each with an author, a date, a reply button.
POSTS = 2 * ["My boiler keeps losing pressure every two days, down to 0.5 bar. Any idea where to look?",
         "Check the pressure relief valve pipe outside, if it drips that is your culprit.",
         "Could also be the expansion vessel, it needs recharging every few years.",
         "Thanks both, the pipe outside is dry. How do I check the expansion vessel myself?",
         "Switch the boiler off, drain it down, then press the valve on the vessel: air should hiss out.",
         "If water comes out of the valve the membrane is gone and the vessel must be replaced.",
         "Update: it was the vessel. Recharged it to 1 bar and pressure has been stable all week.",
         "Great, glad it is sorted. Marking this thread as solved."]
FORUM_PAGE = (
    "<html><head><title>Boiler keeps losing pressure - Heating forum - DIY Talk</title></head><body>"
    + CHROME_TOP +
    "<nav class='breadcrumb'><a href='/forum/'>Forums</a> › <a href='/forum/heating/'>Heating</a></nav>"
    "<h1 class='thread-title'>Boiler keeps losing pressure</h1><div class='thread'>"
    + "".join(f"<div class='post message' id='post-{i}'><div class='post-author'><a href='/members/user{i % 3}/'>"
              f"user{i % 3}</a><span class='post-count'>Posts: {40 + i}</span></div>"
              f"<div class='post-date'>{i + 2} hours ago</div><div class='post-body'><p>{p}</p></div>"
              f"<div class='post-actions'><a href='/reply?p={i}'>Reply</a> <a href='/quote?p={i}'>Quote</a>"
              "</div></div>" for i, p in enumerate(POSTS))
    + "</div><form class='quick-reply' action='/reply' method='post'><textarea name='message'></textarea>"
    "<button>Post reply</button></form><div class='pagination'><a href='?page=2'>2</a> <a href='?page=3'>3</a>"
    "</div>" + CHROME_BOTTOM + "</body></html>")
FORUM_URL = "/forum/heating/thread/48213-boiler-keeps-losing-pressure/"

NEWS_PARAGRAPHS = [
    "The city council approved a budget on Tuesday that moves money from road repairs to the schools of "
    "the northern districts, after a debate that lasted until midnight.",
    "The plan shifts 4.2 million from the roads department to school buildings, most of it for heating "
    "and roofs that inspectors flagged last winter as unsafe.",
    "Opposition members said the roads in the east of the city would be left in poor repair for another "
    "year, and that the vote had been rushed through without a public hearing.",
    "The mayor said the schools could not wait. Work on the first three buildings is to start in June "
    "and end before the new school year.",
]
NEWS_LD = ("<script type='application/ld+json'>{\"@type\": \"NewsArticle\", \"headline\": \"Council moves "
           "road money to schools\", \"datePublished\": \"2024-05-12T09:00:00Z\"}</script>")
# A short news article on a WordPress site (og:type=article, as on every page of the site): still an article.
NEWS_PAGE = (
    "<html><head><title>Council moves road money to schools | Local Times</title>" + WP_HEAD + "</head><body>"
    "<nav class='menu'><a href='/'>Home</a> <a href='/news/'>News</a> <a href='/sport/'>Sport</a></nav>"
    "<article class='post'><h1>Council moves road money to schools</h1><p class='byline'>By Jane Doe, "
    "May 12, 2024</p>" + "".join(f"<p>{p}</p>" for p in NEWS_PARAGRAPHS) + "</article>"
    "<aside class='related'><h2>Related</h2><ul><li><a href='/news/2024/05/10/bus-fares-rise/'>Bus fares "
    "rise again in June</a></li></ul></aside></body></html>")
# The same article declared a NewsArticle in JSON-LD.
DECLARED_NEWS_PAGE = NEWS_PAGE.replace("</head>", NEWS_LD + "</head>")
NEWS_URL = "/news/2024/05/12/council-moves-road-money-to-schools/"

PLANS = [("Basic", "$19", ["1 website", "10 GB storage", "Email support"]),
         ("Pro", "$49", ["5 websites", "100 GB storage", "Priority support", "Daily backups"]),
         ("Business", "$99", ["Unlimited websites", "1 TB storage", "Phone support", "Daily backups",
                              "Staging site"])]
# A WordPress theme's pricing page (a service page): og:type=article, plans, prices, sign-up buttons.
PRICING_PAGE = (
    "<html><head><title>Pricing - Acme Hosting</title>" + WP_HEAD + "</head><body>" + CHROME_TOP
    + "<main><h1>Simple, transparent pricing</h1><p>Pick a plan. Cancel any time.</p><div class='plans'>"
    + "".join(f"<div class='plan card'><h3>{n}</h3><p class='price'>{p}/month</p><ul>"
              + "".join(f"<li>{f}</li>" for f in fs)
              + f"</ul><a class='button' href='/signup/?plan={n.lower()}'>Sign up</a></div>" for n, p, fs in PLANS)
    + "</div><h2>Questions</h2><dl><dt>Can I change plans?</dt><dd>Yes, at any time.</dd>"
    "<dt>Is there a free trial?</dt><dd>14 days, no card needed.</dd></dl>"
    "<form action='/contact/' method='post'><input name='email'><button>Talk to sales</button></form></main>"
    + CHROME_BOTTOM + "</body></html>")
PRICING_URL = "/pricing/"
