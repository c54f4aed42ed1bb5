"""The open-data CSV files (``pedidos``, ``recursos``) written as the database is read.

The rows come from the facts of :mod:`modules.esic.stats_sql` in receipt (or filing) order,
fetched in batches through a server-side cursor: a file of a million requests never sits in
memory, neither as rows nor as text. Each row is formatted by the same functions as the
reference (``modules.esic.opendata``). Columns: ``docs/esic-statistics.md``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import date
from typing import Any, Literal
from zoneinfo import ZoneInfo

import sqlalchemy as sa

from contracts.platform import PlatformContext
from contracts.workflow.task_records import TASK_RECORDS_KEY
from modules.esic.opendata import (
    APPEAL_COLUMNS,
    REQUEST_COLUMNS,
    LineWriter,
    appeal_row,
    request_row,
)
from modules.esic.records import REQUEST
from modules.esic.statistics import AppealFact, RequestFact
from modules.esic.stats_sql import Scope, appeal_facts, request_facts

Which = Literal["pedidos", "recursos"]
BATCH = 2000


async def csv_lines(
    platform: PlatformContext, which: Which, first: date, last: date
) -> AsyncIterator[str]:
    """The header, then one CSV line per request (or appeal) received from ``first`` to
    ``last`` (local dates), as they are read."""
    zone = ZoneInfo(platform.settings.timezone)
    source = platform.extras.get(TASK_RECORDS_KEY)
    database = platform.read_database
    scope = Scope(first=first, last=last, zone=zone, dialect=database.dialect.name)
    if which == "pedidos":
        writer = LineWriter(REQUEST_COLUMNS)
        facts = request_facts(source, scope, deadline=True)
        query = sa.select(facts).order_by(facts.c.received_at, facts.c.request_id)
    else:
        writer = LineWriter(APPEAL_COLUMNS)
        facts = appeal_facts(source, scope)
        f = facts.c
        query = sa.select(facts).order_by(f.filed_at, f.request_id, f.instance)
    yield writer.header()
    async with database.connect() as conn:
        result = await conn.stream(query.execution_options(yield_per=BATCH))
        async for row in result:
            if which == "pedidos":
                yield writer.line(request_row(_request(row), zone))
            else:
                yield writer.line(appeal_row(_appeal(row), zone))


def _request(row: Any) -> RequestFact:
    return RequestFact(
        request_id=str(row.request_id),
        protocol=row.protocol,
        sector=row.sector,
        definition_key=REQUEST.definition_key,
        status=row.status,
        received_at=row.received_at,
        due_at=row.due_at,
        answered_at=row.answered_at,
        extended=bool(row.extended),
        decision=row.decision,
        denial_reason=row.denial_reason,
    )


def _appeal(row: Any) -> AppealFact:
    return AppealFact(
        request_id=str(row.request_id),
        protocol=row.protocol,
        sector=row.sector,
        definition_key=REQUEST.definition_key,
        instance=int(row.instance),
        filed_at=row.filed_at,
        decided_at=row.decided_at,
        outcome=row.outcome,
    )
