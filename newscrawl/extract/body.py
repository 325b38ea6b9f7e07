"""What a body method returns: a root element and the subtrees to leave out of it."""

from __future__ import annotations

from dataclasses import dataclass, field

from lxml import html

from . import dom


@dataclass
class Body:
    """The body a method chose: ``root`` minus the ``skip`` subtrees.

    ``keep`` filters below element level: a paragraph is rendered only when one of
    its text nodes passes it (CEVC keeps paragraphs holding valid characters).
    ``paragraphs`` caches the rendering, or holds text a method built itself.
    """

    method: str
    root: html.HtmlElement | None
    skip: set = field(default_factory=set)
    keep: dom.TextFilter | None = None
    paragraphs: list[str] | None = None

    def text_paragraphs(self) -> list[str]:
        if self.paragraphs is None:
            if self.root is None:
                self.paragraphs = []
            else:
                self.paragraphs = dom.render_paragraphs(self.root, self.skip, self.keep)
        return self.paragraphs

    @property
    def text(self) -> str:
        return "\n".join(self.text_paragraphs())

    def links(self, base_url: str | None) -> list[tuple[str, str]]:
        if self.root is None:
            return []
        return dom.links_in(self.root, base_url, self.skip)
