"""The article body rendered with its structure: Markdown (CommonMark with GFM tables) and
sanitised HTML, from the very nodes whose text makes ``Article.text``.

- :mod:`.blocks` — one walk of the body method's root minus its skipped subtrees, the same walk
  as :func:`..dom.render_paragraphs`, yielding typed blocks (paragraph, heading, list item, quote,
  code, table, figure) whose plain text is exactly a line of ``text``; then aligned with the final
  ``text`` lines (a method may drop or add lines after its walk), so that both renderings hold
  ``text`` and nothing else;
- :mod:`.inline` — emphasis, links and escaping inside one block;
- :mod:`.write` — the kept blocks written as Markdown and as HTML, lists, quotes and figures
  around them;
- :mod:`.urls` — which URLs may appear (http, https, mailto links; http(s) images), resolved.
"""

from .blocks import Rendering, render_body

__all__ = ["Rendering", "render_body"]
