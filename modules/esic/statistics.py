"""LAI transparency statistics of the e-SIC (Lei 12.527/2011, art. 30, III), computed.

Pure: the facts of each request and appeal (built by :mod:`modules.esic.stats_source` from the
module's records and the engine's completed tasks) go in, rows per month of receipt, sector and
definition come out. Every figure of a row is about the requests *received* in that month (a
cohort): how many were answered, within the deadline, extended, denied (by ground), appealed
(by instance and outcome), and the median and 90th percentile of the days to the first answer.
Definitions and small-count suppression: ``docs/esic-statistics.md``.
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from collections.abc import Iterable, Sequence
from datetime import datetime, tzinfo
from typing import NamedTuple

import msgspec

from modules.esic.forms import DENIALS

UNSET = "nao_informado"
"""Decision, ground or outcome recorded without a code (an answer given before the codes)."""
PENDING = "pendente"
"""An appeal filed and not yet decided."""
SMALL = 5
"""Public counts below this (and above zero) are shown as ``<5``."""


class RequestFact(msgspec.Struct, frozen=True, kw_only=True):
    request_id: str
    protocol: str | None
    sector: str
    definition_key: str
    status: str
    received_at: datetime
    due_at: datetime | None = None
    """The deadline in force when the request was answered (or the last one known)."""
    answered_at: datetime | None = None
    extended: bool = False
    decision: str | None = None
    denial_reason: str | None = None

    @property
    def answered(self) -> bool:
        return self.answered_at is not None

    @property
    def in_time(self) -> bool:
        return (
            self.answered_at is not None
            and self.due_at is not None
            and self.answered_at <= self.due_at
        )

    @property
    def days_to_answer(self) -> float | None:
        if self.answered_at is None:
            return None
        return (self.answered_at - self.received_at).total_seconds() / 86400


class AppealFact(msgspec.Struct, frozen=True, kw_only=True):
    """Instance 0 is the complaint for a missing answer; 1..4 the appeal instances."""

    request_id: str
    protocol: str | None
    sector: str
    definition_key: str
    instance: int
    filed_at: datetime
    decided_at: datetime | None = None
    outcome: str | None = None
    """The appeal's code (``deferido``...) or, for a complaint, the answer's decision code."""

    @property
    def result(self) -> str:
        if self.decided_at is None:
            return PENDING
        return self.outcome or UNSET


class StatsRow(msgspec.Struct, frozen=True, kw_only=True):
    month: str
    """``YYYY-MM`` of receipt, in the jurisdiction's time zone."""
    sector: str
    definition_key: str
    received: int
    answered: int
    within_deadline: int
    extended: int
    denied: int
    denied_by_reason: dict[str, int]
    decisions: dict[str, int]
    appeals: dict[str, int]
    """``"<instance>:<result>" -> count`` (instance 0: complaint)."""
    median_days: float | None
    p90_days: float | None


def month_of(moment: datetime, zone: tzinfo) -> str:
    return moment.astimezone(zone).strftime("%Y-%m")


def median(values: Sequence[float]) -> float | None:
    """The middle value (the mean of the two middle ones for an even count)."""
    return round(statistics.median(values), 1) if values else None


def p90(values: Sequence[float]) -> float | None:
    """Nearest rank: the smallest value with at least 90% of the values at or below it."""
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[math.ceil(0.9 * len(ordered)) - 1], 1)


class _Prepared(NamedTuple):
    """A request reduced to what is counted, computed once for every grouping."""

    request_id: str
    month: str
    sector: str
    definition_key: str
    answered: bool
    in_time: bool
    extended: bool
    decision: str | None
    denial_reason: str | None
    days: float | None


def _prepare(requests: Iterable[RequestFact], zone: tzinfo) -> list[_Prepared]:
    months: dict[datetime, str] = {}
    prepared = []
    for r in requests:
        # Every zone's offset is a multiple of 15 minutes: one conversion per quarter-hour.
        at = r.received_at
        quarter = at.replace(minute=at.minute - at.minute % 15, second=0, microsecond=0)
        month = months.get(quarter)
        if month is None:
            month = months[quarter] = month_of(quarter, zone)
        prepared.append(
            _Prepared(
                r.request_id,
                month,
                r.sector,
                r.definition_key,
                r.answered,
                r.in_time,
                r.extended,
                r.decision,
                r.denial_reason,
                r.days_to_answer,
            )
        )
    return prepared


def aggregate(
    requests: Iterable[RequestFact],
    appeals: Iterable[AppealFact],
    zone: tzinfo,
    *,
    by_month: bool = True,
    by_sector: bool = True,
) -> list[StatsRow]:
    """One row per (month of receipt, sector, definition) that received a request; without
    ``by_month`` or ``by_sector`` that part of the key is ``""`` (every month, every sector)."""
    return _rows(_prepare(requests, zone), list(appeals), by_month, by_sector)


def aggregate_views(
    requests: Iterable[RequestFact], appeals: Iterable[AppealFact], zone: tzinfo
) -> tuple[list[StatsRow], list[StatsRow], list[StatsRow], list[StatsRow]]:
    """``aggregate`` by month and sector, by month, by sector and overall, preparing once."""
    prepared, every = _prepare(requests, zone), list(appeals)
    return (
        _rows(prepared, every, True, True),
        _rows(prepared, every, True, False),
        _rows(prepared, every, False, True),
        _rows(prepared, every, False, False),
    )


def _rows(
    requests: list[_Prepared], appeals: list[AppealFact], by_month: bool, by_sector: bool
) -> list[StatsRow]:
    groups: dict[tuple[str, str, str], list[_Prepared]] = defaultdict(list)
    group_of: dict[str, tuple[str, str, str]] = {}
    for r in requests:
        key = (r.month if by_month else "", r.sector if by_sector else "", r.definition_key)
        group_of[r.request_id] = key
        groups[key].append(r)
    appeal_counts: dict[tuple[str, str, str], dict[str, int]] = defaultdict(dict)
    for a in appeals:
        found = group_of.get(a.request_id)
        if found is None:
            continue
        counts = appeal_counts[found]
        result = f"{a.instance}:{a.result}"
        counts[result] = counts.get(result, 0) + 1
    rows = []
    for key in sorted(groups):
        facts = groups[key]
        days = [f.days for f in facts if f.days is not None]
        denied = [f for f in facts if f.decision in DENIALS]
        rows.append(
            StatsRow(
                month=key[0],
                sector=key[1],
                definition_key=key[2],
                received=len(facts),
                answered=sum(f.answered for f in facts),
                within_deadline=sum(f.in_time for f in facts),
                extended=sum(f.extended for f in facts),
                denied=len(denied),
                denied_by_reason=_count(f.denial_reason or UNSET for f in denied),
                decisions=_count(f.decision or UNSET for f in facts if f.answered),
                appeals=dict(sorted(appeal_counts.get(key, {}).items())),
                median_days=median(days),
                p90_days=p90(days),
            )
        )
    return rows


def _count(values: Iterable[str]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for v in values:
        counts[v] = counts.get(v, 0) + 1
    return dict(sorted(counts.items()))


def shown(count: int) -> str:
    """A count as the public page shows it: ``0``, ``<5`` or the number."""
    return "<5" if 0 < count < SMALL else str(count)
