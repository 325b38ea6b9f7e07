"""The one exception type extraction raises for input it cannot turn into an article."""


class ExtractionError(ValueError):
    """The page cannot be extracted; ``reason`` is a short stable code for stats and logs.

    Reasons: ``empty`` (no bytes or only whitespace), ``binary`` (not text),
    ``too-large`` (over the size limit), ``unparseable`` (no element tree).
    """

    def __init__(self, reason: str, detail: str = ""):
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail
