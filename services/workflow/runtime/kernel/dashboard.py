"""The supervisor's dashboard as data: workload per queue or per definition, and the state of
every definition version (instances by status, whether the stored diagram matches its checksum).

The read port (``reads.dashboard.DashboardReads``) is implemented in
``persistence/dashboard_reads.py``; what is pure lives here: the local week a "due this week"
count means, and the median of answer times. Counts are derived
by query every time (seed 004 §5: no counters kept in columns).
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from datetime import datetime, time, timedelta
from typing import Literal
from zoneinfo import ZoneInfo

import msgspec

GroupBy = Literal["queue", "definition"]
ANSWER_WINDOW = timedelta(days=90)
"""Median time to answer covers the tasks completed in this window before now."""


class WorkloadRow(msgspec.Struct, frozen=True, kw_only=True):
    """One queue's (or definition's) open tasks and answers. ``key`` is ``""`` for tasks
    assigned to a person outside any queue."""

    key: str
    open: int
    due_this_week: int
    overdue: int
    answered: int
    median_answer_s: float | None


class VersionState(msgspec.Struct, frozen=True, kw_only=True):
    """A definition version, its instances by status, and whether its stored document still
    hashes to the checksum it was published with."""

    definition_key: str
    definition_name: str
    version: int
    status: str
    checksum: str
    in_sync: bool
    instances: dict[str, int]


class WorkloadWindow(msgspec.Struct, frozen=True, kw_only=True):
    """The instants a workload is measured at: overdue before ``now``, due this week in
    ``[now, week_end)``, answered in ``[answered_since, now]``."""

    now: datetime
    week_end: datetime
    answered_since: datetime


def week_end(now: datetime, zone: ZoneInfo) -> datetime:
    """Local midnight starting the next Monday: the end of the week ``now`` falls in."""
    local = now.astimezone(zone)
    monday = local.date() + timedelta(days=7 - local.weekday())
    return datetime.combine(monday, time(0, 0), tzinfo=zone)


def window_at(now: datetime, zone: ZoneInfo) -> WorkloadWindow:
    return WorkloadWindow(now=now, week_end=week_end(now, zone), answered_since=now - ANSWER_WINDOW)


def median_seconds(durations: Sequence[float]) -> float | None:
    return float(statistics.median(durations)) if durations else None
