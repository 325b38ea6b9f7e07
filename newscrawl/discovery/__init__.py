"""Finding a site's articles: on its listing pages, from its home page, and from what the crawl
has learned about the site.  No Scrapy imports; the spiders use these.

- :mod:`.links` — which links of a catalogue (listing) page are articles, with a reason for each
  one rejected, and the next page (He 2019's first stage);
- :mod:`.link_model` — the learned model that decides which candidate links are articles;
- :mod:`.list_api` — list endpoints and their JSON replies;
- :mod:`.survey` — what a home page tells: feeds, sections, and the ``[sites.NAME]`` entry
  ``scrapy addsite`` proposes;
- :mod:`.patterns` — an article-URL regular expression inferred from found article links;
- :mod:`.url_shapes` — the site's article-URL shapes learned from fetched pages and its feeds.
"""
