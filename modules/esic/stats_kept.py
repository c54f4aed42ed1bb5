"""The LAI statistics of closed months, counted once and kept while their records are unchanged.

A month is *closed* once no request can be received in it and no instance of its requests can
start any more (its end plus ``STARTED_SLACK`` has passed). Its figures can still change — an
answer, an extension, an appeal or its decision arriving later — so each kept month carries a
fingerprint of every record its figures are computed from, read *before* them:

- the number of requests received in the month (``esic_requests``),
- the number of their appeals and complaints (``esic_appeals``),
- the number of engine instances started in the month's window and the sum of their
  ``version`` (``TaskRecords.versions_query``: grows with every step, task completion and
  purge, in the same transaction).

No record is ever deleted and every change to what is counted makes one of the four grow, so
the four read again equal to the kept ones if and only if nothing counted changed since they
were read; figures counted after that read are then those of the same records. A month whose
fingerprint differs is counted again (by the same SQL as the live page) before it is read.
Rules and proof: ``docs/esic-statistics.md``.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any

import sqlalchemy as sa

from contracts.workflow.task_records import TaskRecords
from modules.esic.records import REQUEST
from modules.esic.stats_source import STARTED_SLACK
from modules.esic.stats_sql import Scope, appeal_facts, month_of, request_facts
from modules.esic.tables import appeals, requests, stats_appeals, stats_facts, stats_months

FLAGS = ("month", "sector", "done", "timely", "extended", "decision", "denial_reason")
RULES = 1
"""The version of what is counted: kept figures of another version are counted again (raise it
whenever ``stats_sql`` or ``flags`` change what a month's figures are)."""
LOCK = 7_531_902_611
"""PostgreSQL advisory lock: one refresh at a time (a second waits, then counts again)."""


def flags(facts: sa.Subquery, *, days: bool) -> sa.Select[Any]:
    """Per request: month, sector, what is counted (0/1 and codes) and, with ``days`` (on
    PostgreSQL), the days to the first answer (``NULL`` when unanswered)."""
    f = facts.c
    answered = sa.case((f.answered_at.is_(None), 0), else_=1)
    in_time = sa.case((sa.and_(f.answered_at.is_not(None), f.answered_at <= f.due_at), 1), else_=0)
    columns = [
        f.month, f.sector, answered.label("done"), in_time.label("timely"), f.extended,
        f.decision, f.denial_reason,
    ]  # fmt: skip
    if days:
        seconds = sa.func.extract("epoch", f.answered_at) - sa.func.extract("epoch", f.received_at)
        columns.append((sa.cast(seconds, sa.Float) / 86400.0).label("days"))
    return sa.select(*columns)


def month_scope(scope: Scope, first: date) -> Scope:
    after = date(first.year + first.month // 12, first.month % 12 + 1, 1)
    last = after - timedelta(days=1)
    return Scope(first=first, last=last, zone=scope.zone, dialect=scope.dialect)


def closed(scope: Scope, now: datetime) -> list[Scope]:
    """The window's closed months, each as its own scope (a prefix of the window); none when
    the window does not start on a month's first day and end on a month's last day."""
    out: list[Scope] = []
    if scope.first.day != 1 or (scope.last + timedelta(days=1)).day != 1:
        return out
    for _, start in scope.months():
        month = month_scope(scope, start.date())
        if month.instants[1] + STARTED_SLACK > now:
            break
        out.append(month)
    return out


Fingerprint = tuple[int, int, int, int, int]


async def _fingerprints(conn: Any, source: TaskRecords, months: list[Scope]) -> list[Fingerprint]:
    """Each month's fingerprint, in three grouped reads whatever the number of months."""
    labels = [m.months()[0][0] for m in months]
    span = Scope(first=months[0].first, last=months[-1].last, zone=months[0].zone, dialect="")
    start, end = span.instants
    found = {label: [0, 0, 0, 0] for label in labels}
    r, a = requests.c, appeals.c
    month = month_of(r.created_at, span)
    received = sa.and_(r.created_at >= start, r.created_at < end)
    for part, joined in ((0, requests), (1, appeals.join(requests, a.request_id == r.id))):
        query = sa.select(month, sa.func.count()).select_from(joined).where(received)
        for label, n in await conn.execute(query.group_by(month)):
            found[label][part] = n
    # Each month's instances over its own window (the one ``completed_query`` reads for it:
    # a day into the next month), each an index range: one statement, one part per month.
    parts = []
    for label, one in zip(labels, months, strict=True):
        first, after = one.instants
        v = source.versions_query(
            REQUEST.definition_key, started_from=first, started_before=after + STARTED_SLACK
        ).c
        parts.append(sa.select(sa.literal(label), sa.func.count(), sa.func.sum(v.version)))
    for label, n, total in await conn.execute(sa.union_all(*parts)):
        found[label][2:] = [n, int(total or 0)]
    return [(RULES, f[0], f[1], f[2], f[3]) for f in found.values()]


async def refresh(database: Any, source: TaskRecords, scope: Scope, now: datetime) -> list[str]:
    """Count again every closed month of the window whose records changed; their labels."""
    months = closed(scope, now)
    if not months:
        return []
    zone = scope.zone.key
    labels = [m.months()[0][0] for m in months]
    m = stats_months.c
    async with database.connect() as conn:
        kept = {
            row.month: (row.rules, row.requests, row.appeals, row.instances, row.versions)
            for row in await conn.execute(
                sa.select(m.month, m.rules, m.requests, m.appeals, m.instances, m.versions).where(
                    m.zone == zone, m.month.in_(labels)
                )
            )
        }
        now_seen = await _fingerprints(conn, source, months)
    for label, month, seen in zip(labels, months, now_seen, strict=True):
        if kept.get(label) != seen:
            await _count(database, source, month, label, now)
    return labels


async def _count(
    database: Any, source: TaskRecords, month: Scope, label: str, now: datetime
) -> None:
    zone = month.zone.key
    async with database.begin() as conn:
        if month.dialect == "postgresql":
            await conn.execute(sa.select(sa.func.pg_advisory_xact_lock(LOCK)))
        for table in (stats_months, stats_facts, stats_appeals):  # SQLite: the write lock first
            await conn.execute(table.delete().where(table.c.zone == zone, table.c.month == label))
        # Read before the figures: a change after this read makes it differ from the next one.
        (seen,) = await _fingerprints(conn, source, [month])
        facts = request_facts(source, month, deadline=False)
        if month.dialect == "postgresql":
            rows = flags(facts, days=True).add_columns(sa.literal(zone).label("zone"))
            await conn.execute(stats_facts.insert().from_select([*FLAGS, "days", "zone"], rows))
        else:
            f = facts.c
            query = flags(facts, days=False).add_columns(f.received_at, f.answered_at)
            values = [
                {
                    **{k: row._mapping[k] for k in FLAGS},
                    "zone": zone,
                    "days": None
                    if row.answered_at is None
                    else (row.answered_at - row.received_at).total_seconds() / 86400,
                }
                for row in await conn.execute(query)
            ]
            if values:
                await conn.execute(stats_facts.insert(), values)
        p = appeal_facts(source, month).c
        grouped = sa.select(
            p.month, p.sector, p.instance, p.result, sa.func.count(), sa.literal(zone)
        ).group_by(p.month, p.sector, p.instance, p.result)
        await conn.execute(
            stats_appeals.insert().from_select(
                ["month", "sector", "instance", "result", "n", "zone"], grouped
            )
        )
        await conn.execute(
            stats_months.insert().values(
                zone=zone,
                month=label,
                rules=seen[0],
                requests=seen[1],
                appeals=seen[2],
                instances=seen[3],
                versions=seen[4],
                computed_at=now,
            )
        )


def kept_flags(scope: Scope, labels: list[str], *, days: bool) -> sa.Select[Any]:
    k = stats_facts.c
    columns = [k[c] for c in FLAGS] + ([k.days] if days else [])
    return sa.select(*columns).where(k.zone == scope.zone.key, k.month.in_(labels))


def kept_appeals(scope: Scope, labels: list[str]) -> sa.Select[Any]:
    k = stats_appeals.c
    return sa.select(k.month, k.sector, k.instance, k.result, k.n).where(
        k.zone == scope.zone.key, k.month.in_(labels)
    )


def kept_days(scope: Scope, labels: list[str]) -> sa.Select[Any]:
    k = stats_facts.c
    return sa.select(k.month, k.sector, k.days).where(
        k.zone == scope.zone.key, k.month.in_(labels), k.days.is_not(None)
    )


def open_scope(scope: Scope, labels: list[str]) -> Scope | None:
    """The months of the window after the kept ones, counted live (``None``: none left)."""
    months = scope.months()
    if len(labels) == len(months):
        return None
    start = months[len(labels)][1].date()
    return Scope(first=start, last=scope.last, zone=scope.zone, dialect=scope.dialect)
