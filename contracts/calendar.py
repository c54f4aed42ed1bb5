"""The jurisdiction's business days, as a port modules may read (the workflow service owns
the calendars: holidays, optional days off, versions).

The composition root puts an implementation in ``platform.extras[BUSINESS_DAYS_KEY]``; a
module that finds none (plain mode) falls back to Monday to Friday and says so in its docs.
"""

from __future__ import annotations

from datetime import date
from typing import Protocol

BUSINESS_DAYS_KEY = "calendar.business_days"


class BusinessDays(Protocol):
    def is_business_day(self, day: date) -> bool:
        """Whether the offices open on ``day`` (not a weekend, holiday or optional day off)."""
        ...
