"""The one exception type extraction raises for input it cannot turn into an article."""


class ExtractionError(ValueError):
    """The page cannot be extracted; ``reason`` is a short stable code for stats and logs.

    Reasons: ``empty`` (no bytes or only whitespace), ``binary`` (not text),
    ``too-large`` (over :data:`~newscrawl.extract.page.MAX_HTML_CHARS` characters or
    :data:`~newscrawl.extract.page.MAX_ELEMENTS` elements), ``too-deep`` (elements nested
    deeper than libxml2's limit of 2048, so the parser dropped the rest of the page),
    ``unparseable`` (no element tree).  README "Reliability" lists which hostile
    input ends in which reason.
    """

    def __init__(self, reason: str, detail: str = ""):
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail
