"""Integer bounds of the columns we store into, and a form field read as a whole number in them
(pure: no framework)."""

from __future__ import annotations

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
INT32_MIN = -(2**31)
INT32_MAX = 2**31 - 1


def whole_number(raw: str | None, *, low: int = 0, high: int = INT32_MAX) -> int | None:
    """``raw`` as an integer from ``low`` to ``high`` (an ``INTEGER`` column by default), or
    ``None``: for numbers a page parses from a form itself. ASCII digits only: ``str.isdigit``
    accepts ``"²"``, which ``int()`` then refuses."""
    text = (raw or "").strip()
    if not text or len(text) > 19 or not text.lstrip("-").isascii():
        return None
    digits = text[1:] if text.startswith("-") else text
    if not digits.isdigit():
        return None
    number = int(text)
    return number if low <= number <= high else None
