"""The LAI statistics counted by the database, from the engine's history.

Three grouped queries over the facts of :mod:`modules.esic.stats_sql` — the requests by month,
sector and what happened to them; the appeals by month, sector, instance and result; the
median and 90th percentile of the days to answer — give the same rows as
``modules.esic.statistics.aggregate_views`` does in Python over every fact (the reference the
tests compare it with), without reading one row per request. The counts of the coarser views
(by month, by sector, overall) are sums of the finest groups; the percentiles are not, so
PostgreSQL computes them per ``GROUPING SETS`` with ``percentile_disc`` (the median as the
mean of the two middle values, read from both ends; the 90th percentile by nearest rank, as
documented). SQLite has no percentile function: there the answered requests' two instants
are read and the same Python functions compute them.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from datetime import date
from typing import Any
from zoneinfo import ZoneInfo

import msgspec
import sqlalchemy as sa

from contracts.platform import PlatformContext
from contracts.workflow.task_records import TASK_RECORDS_KEY, TaskRecords
from modules.esic.forms import DENIALS
from modules.esic.records import REQUEST
from modules.esic.statistics import UNSET, StatsRow, median, p90
from modules.esic.stats_sql import Scope, appeal_facts, request_facts

Key = tuple[str, str]
VIEWS = ((True, True), (True, False), (False, True), (False, False))
"""(by month, by sector) of each view: rows, months, sectors, total."""


class Views(msgspec.Struct, frozen=True, kw_only=True):
    rows: list[StatsRow]
    months: list[StatsRow]
    sectors: list[StatsRow]
    total: list[StatsRow]
    engine: bool
    """Whether answers came from the engine (``False`` in plain mode: nothing answered)."""

    def as_tuple(self) -> tuple[list[StatsRow], list[StatsRow], list[StatsRow], list[StatsRow]]:
        return self.rows, self.months, self.sectors, self.total


class _Counts:
    def __init__(self) -> None:
        self.received = self.answered = self.within = self.extended = self.denied = 0
        self.reasons: dict[str, int] = {}
        self.decisions: dict[str, int] = {}
        self.appeals: dict[str, int] = {}


def _keys(month: str, sector: str) -> Iterable[tuple[int, Key]]:
    for n, (by_month, by_sector) in enumerate(VIEWS):
        yield n, (month if by_month else "", sector if by_sector else "")


def _add(counts: dict[str, int], key: str, n: int) -> None:
    counts[key] = counts.get(key, 0) + n


async def load_views(platform: PlatformContext, first: date, last: date) -> Views:
    """Every view of the requests received from ``first`` to ``last`` (local dates)."""
    zone = ZoneInfo(platform.settings.timezone)
    source: TaskRecords | None = platform.extras.get(TASK_RECORDS_KEY)
    database = platform.database
    scope = Scope(first=first, last=last, zone=zone, dialect=database.dialect.name)
    facts = request_facts(source, scope, deadline=False)
    appealed = appeal_facts(source, scope)
    f, p = facts.c, appealed.c
    answered = sa.case((f.answered_at.is_(None), 0), else_=1)
    in_time = sa.case((sa.and_(f.answered_at.is_not(None), f.answered_at <= f.due_at), 1), else_=0)
    flags = sa.select(
        f.month, f.sector, answered.label("done"), in_time.label("timely"), f.extended,
        f.decision, f.denial_reason,
    ).subquery("flags")  # fmt: skip
    g = flags.c
    grouped = (g.month, g.sector, g.done, g.timely, g.extended, g.decision, g.denial_reason)
    counted = sa.select(*grouped, sa.func.count()).group_by(*grouped)
    appeal_counts = sa.select(p.month, p.sector, p.instance, p.result, sa.func.count()).group_by(
        p.month, p.sector, p.instance, p.result
    )
    groups: list[dict[Key, _Counts]] = [defaultdict(_Counts) for _ in VIEWS]
    async with database.connect() as conn:
        for month, sector, done, timely, ext, decision, reason, n in await conn.execute(counted):
            for view, key in _keys(month, sector):
                c = groups[view][key]
                c.received += n
                if done:
                    c.answered += n
                    c.within += n * timely
                    _add(c.decisions, decision or UNSET, n)
                    if decision in DENIALS:
                        c.denied += n
                        _add(c.reasons, reason or UNSET, n)
                c.extended += n * ext
        for month, sector, instance, result, n in await conn.execute(appeal_counts):
            for view, key in _keys(month, sector):
                if key in groups[view]:
                    _add(groups[view][key].appeals, f"{instance}:{result}", n)
        if scope.dialect == "postgresql":
            spread = await _percentiles_sql(conn, facts)
        else:
            spread = await _percentiles_python(conn, facts)
    views = [
        [
            _row(key, c, spread[view].get(key, (None, None)))
            for key, c in sorted(groups[view].items())
        ]
        for view in range(len(VIEWS))
    ]
    return Views(
        rows=views[0],
        months=views[1],
        sectors=views[2],
        total=views[3],
        engine=source is not None,
    )


def _row(key: Key, c: _Counts, spread: tuple[float | None, float | None]) -> StatsRow:
    return StatsRow(
        month=key[0],
        sector=key[1],
        definition_key=REQUEST.definition_key,
        received=c.received,
        answered=c.answered,
        within_deadline=c.within,
        extended=c.extended,
        denied=c.denied,
        denied_by_reason=dict(sorted(c.reasons.items())),
        decisions=dict(sorted(c.decisions.items())),
        appeals=dict(sorted(c.appeals.items())),
        median_days=spread[0],
        p90_days=spread[1],
    )


Spread = list[dict[Key, tuple[float | None, float | None]]]


async def _percentiles_sql(conn: Any, facts: sa.Subquery) -> Spread:
    f = facts.c
    seconds = sa.func.extract("epoch", f.answered_at) - sa.func.extract("epoch", f.received_at)
    days = sa.cast(seconds, sa.Float) / 86400.0
    query = (
        sa.select(
            f.month,
            f.sector,
            sa.func.grouping(f.month),
            sa.func.grouping(f.sector),
            sa.func.percentile_disc(0.5).within_group(days),
            sa.func.percentile_disc(0.5).within_group(days.desc()),
            sa.func.percentile_disc(0.9).within_group(days),
        )
        .where(f.answered_at.is_not(None))
        .group_by(sa.text("GROUPING SETS ((month, sector), (month), (sector), ())"))
    )
    spread: Spread = [{} for _ in VIEWS]
    for month, sector, no_month, no_sector, low, high, ninetieth in await conn.execute(query):
        view = VIEWS.index((not no_month, not no_sector))
        key = (month if not no_month else "", sector if not no_sector else "")
        spread[view][key] = (round((low + high) / 2, 1), round(ninetieth, 1))
    return spread


async def _percentiles_python(conn: Any, facts: sa.Subquery) -> Spread:
    f = facts.c
    query = sa.select(f.month, f.sector, f.received_at, f.answered_at).where(
        f.answered_at.is_not(None)
    )
    days: list[dict[Key, list[float]]] = [defaultdict(list) for _ in VIEWS]
    for month, sector, received_at, answered_at in await conn.execute(query):
        value = (answered_at - received_at).total_seconds() / 86400
        for view, key in _keys(month, sector):
            days[view][key].append(value)
    return [{k: (median(v), p90(v)) for k, v in found.items()} for found in days]
