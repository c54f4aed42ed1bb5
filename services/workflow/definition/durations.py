"""ISO 8601 durations for timers, restricted to units with a fixed length.

Years and months have no fixed length (and legal deadlines in months are computed by the
business calendar, not by a timer), so ``P1M`` and ``P1Y`` are refused with a sentence that says
what to use instead. Weeks, days, hours, minutes and seconds are exact.
"""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Final

from .messages import N_

_DURATION: Final = re.compile(
    r"^P(?:(?P<weeks>\d+)W|(?:(?P<days>\d+)D)?"
    r"(?:T(?:(?P<hours>\d+)H)?(?:(?P<minutes>\d+)M)?(?:(?P<seconds>\d+(?:\.\d+)?)S)?)?)$"
)
_CALENDAR_UNITS: Final = re.compile(r"^P(?:\d+Y)?(?:\d+M)?")
MAX_DURATION: Final = timedelta(days=3650)


class DurationError(ValueError):
    """The duration text is not an exact ISO 8601 duration; the message is a plain sentence,
    ``template`` its catalog msgid (about ``%(text)s``, the duration as written) and ``reason``
    a stable key (``calendar_units``, ``not_iso``, ``not_positive``, ``too_long``)."""

    def __init__(self, reason: str, template: str, text: str) -> None:
        self.reason = reason
        self.template = template
        self.params: dict[str, str | int] = {"text": repr(text)}
        super().__init__(template % self.params)


def parse_duration(text: str) -> timedelta:
    """Parse ``PT48H``, ``P2D``, ``P1W``, ``P1DT12H``, ``PT90S``... into a positive timedelta."""
    match = _DURATION.match(text)
    if not match or text in {"P", "PT"} or text.endswith("T"):
        calendar = _CALENDAR_UNITS.match(text)
        if calendar and calendar.group(0) != "P":
            raise DurationError(
                "calendar_units",
                N_(
                    "The duration %(text)s uses years or months, which have no fixed length; "
                    "use days (P30D) or business_days instead."
                ),
                text,
            )
        raise DurationError(
            "not_iso",
            N_("%(text)s is not an ISO 8601 duration such as PT48H, P2D or P1DT12H."),
            text,
        )
    parts = {name: float(value) for name, value in match.groupdict().items() if value}
    value = timedelta(**parts)
    if value <= timedelta(0):
        raise DurationError(
            "not_positive", N_("The duration %(text)s must be longer than zero."), text
        )
    if value > MAX_DURATION:
        raise DurationError("too_long", N_("The duration %(text)s is longer than ten years."), text)
    return value
