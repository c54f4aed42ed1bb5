"""How close a due date is, as a clerk reads it: overdue, due soon or on time, and how many
business days are left on the jurisdiction's calendar.

Pure: the instant ``now`` and the calendar are passed in. Business days are counted from the
local day after today up to the local due day (the day ends at 23:59:59 local), so a task due
today has zero business days left and is *due soon*, not overdue, until its instant passes.
A task overdue by N business days reports ``-N``. The pages show the state as text, never only
as a colour (WCAG 1.4.1).
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Literal

import msgspec

from services.workflow.calendar import Calendar

DUE_SOON_BUSINESS_DAYS = 3
"""A task with this many business days left, or fewer, is *due soon*."""

BadgeState = Literal["overdue", "due_soon", "on_time", "no_deadline"]


class DeadlineBadge(msgspec.Struct, frozen=True, kw_only=True):
    state: BadgeState
    due_on: date | None = None
    business_days_left: int | None = None


NO_DEADLINE = DeadlineBadge(state="no_deadline")


def badge(due_at: datetime | None, now: datetime, calendar: Calendar) -> DeadlineBadge:
    """The badge of a deadline at instant ``due_at`` seen at ``now``."""
    if due_at is None:
        return NO_DEADLINE
    today = calendar.local_date(now)
    due_on = calendar.local_date(due_at)
    if due_at < now:
        late = calendar.business_days_between(due_on, today)
        return DeadlineBadge(state="overdue", due_on=due_on, business_days_left=-late)
    left = calendar.business_days_between(today, due_on)
    state: BadgeState = "due_soon" if left <= DUE_SOON_BUSINESS_DAYS else "on_time"
    return DeadlineBadge(state=state, due_on=due_on, business_days_left=left)
