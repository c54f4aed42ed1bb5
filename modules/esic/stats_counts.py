"""The LAI statistics counted by the database, from the engine's history.

Grouped queries over the facts of :mod:`modules.esic.stats_sql` — the requests by month,
sector and what happened to them; the appeals by month, sector, instance and result; the
median and 90th percentile of the days to answer — give the same rows as
``modules.esic.statistics.aggregate_views`` does in Python over every fact (the reference the
tests compare it with), without reading one row per request. The counts of the coarser views
(by month, by sector, overall) are sums of the finest groups; the percentiles are not, so
PostgreSQL computes them in the same pass as the counts, per ``GROUPING SETS``, with
``percentile_disc`` (the median as the
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
from modules.esic.stats_kept import (
    flags,
    kept_appeals,
    kept_days,
    kept_flags,
    open_scope,
    refresh,
)
from modules.esic.stats_sql import Scope, appeal_facts, request_facts

Key = tuple[str, str]
WORK_MEM = "64MB"
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
    groups: list[dict[Key, _Counts]] = [defaultdict(_Counts) for _ in VIEWS]
    kept: list[str] = []
    if source is not None:
        kept = await refresh(database, source, scope, platform.clock.now())
    live = open_scope(scope, kept)
    pg = scope.dialect == "postgresql"
    parts = [kept_flags(scope, kept, days=pg)] if kept else []
    appeal_parts = [kept_appeals(scope, kept)] if kept else []
    days_parts = [kept_days(scope, kept)] if kept and not pg else []
    if live is not None:
        facts = request_facts(source, live, deadline=False)
        parts.append(flags(facts, days=pg))
        appealed = appeal_facts(source, live).c
        appeal_parts.append(
            sa.select(
                appealed.month, appealed.sector, appealed.instance, appealed.result,
                sa.func.count(),
            ).group_by(appealed.month, appealed.sector, appealed.instance, appealed.result)
        )  # fmt: skip
        if not pg:
            f = facts.c
            days_parts.append(
                sa.select(f.month, f.sector, f.received_at, f.answered_at).where(
                    f.answered_at.is_not(None)
                )
            )
    every = sa.union_all(*parts).subquery("flags") if len(parts) > 1 else parts[0].subquery("flags")
    async with database.connect() as conn:
        if pg:
            # Sorts and hashes of a year of requests fit in memory instead of spilling to disk.
            await conn.execute(sa.text(f"SET LOCAL work_mem = '{WORK_MEM}'"))
            counted, spread = await _grouped_sql(conn, every)
        else:
            counted = (await conn.execute(_counted(every))).all()
            spread = await _percentiles_python(conn, days_parts)
        for month, sector, done, timely, ext, decision, reason, n in counted:
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
        for part in appeal_parts:
            for month, sector, instance, result, n in await conn.execute(part):
                for view, key in _keys(month, sector):
                    if key in groups[view]:
                        _add(groups[view][key].appeals, f"{instance}:{result}", n)
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


def _counted(flagged: sa.Subquery) -> sa.Select[Any]:
    g = flagged.c
    grouped = (g.month, g.sector, g.done, g.timely, g.extended, g.decision, g.denial_reason)
    return sa.select(*grouped, sa.func.count()).group_by(*grouped)


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


async def _grouped_sql(conn: Any, flagged: sa.Subquery) -> tuple[list[Any], Spread]:
    """One pass: the finest groups' counts, and every view's median and 90th percentile."""
    g = flagged.c
    fine = (g.month, g.sector, g.done, g.timely, g.extended, g.decision, g.denial_reason)
    sets = "(month, sector, done, timely, extended, decision, denial_reason), " + ", ".join(
        f"({', '.join(c for c, on in (('month', m), ('sector', s)) if on)})" for m, s in VIEWS
    )
    query = sa.select(
        *fine,
        sa.func.count(),
        sa.func.grouping(g.month, g.sector, g.done),
        sa.func.percentile_disc(0.5).within_group(g.days),
        sa.func.percentile_disc(0.5).within_group(g.days.desc()),
        sa.func.percentile_disc(0.9).within_group(g.days),
    ).group_by(sa.text(f"GROUPING SETS ({sets})"))
    counted: list[Any] = []
    spread: Spread = [{} for _ in VIEWS]
    for *row, n, absent, low, high, ninetieth in await conn.execute(query):
        if absent == 0:
            counted.append((*row, n))
            continue
        by_month, by_sector = not absent & 4, not absent & 2
        view = VIEWS.index((by_month, by_sector))
        key = (row[0] if by_month else "", row[1] if by_sector else "")
        if low is not None:
            spread[view][key] = (round((low + high) / 2, 1), round(ninetieth, 1))
    return counted, spread


async def _percentiles_python(conn: Any, parts: list[sa.Select[Any]]) -> Spread:
    """Kept months hand their days; live ones the two instants (days computed here alike)."""
    days: list[dict[Key, list[float]]] = [defaultdict(list) for _ in VIEWS]
    for part in parts:
        for row in await conn.execute(part):
            if len(row) == 3:
                month, sector, value = row
            else:
                month, sector, received_at, answered_at = row
                value = (answered_at - received_at).total_seconds() / 86400
            for view, key in _keys(month, sector):
                days[view][key].append(value)
    return [{k: (median(v), p90(v)) for k, v in found.items()} for found in days]
