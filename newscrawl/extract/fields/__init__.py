"""The article fields besides the body, each found the same way whatever body method runs.

- :mod:`.title` — the headline: He Chunhui (2019), *Automatic extraction of web news
  headlines based on text similarity* (LCS matching of ``<h1>``…``<h6>`` and the listing
  title against ``<title>``), voted with Open Graph, JSON-LD and the page's own markup;
- :mod:`.dates` — the publication date and time, in the zone the source gave;
- :mod:`.authors` — the credited authors.
"""
