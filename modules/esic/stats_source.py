"""The facts the LAI statistics count, read from the module's records and the engine's.

The module's own tables say when each request was received, in which sector, and when each
appeal or complaint was filed; the engine's completed tasks (``contracts.workflow.task_records``,
nothing counted by hand) say when each was answered or decided, against which deadline, with
which decision. In plain mode there is no engine record: requests and appeals are counted as
received, and none as answered.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

import msgspec
import sqlalchemy as sa

from contracts.platform import PlatformContext
from contracts.workflow.task_records import TASK_RECORDS_KEY, CompletedTask, TaskRecords
from modules.esic.domain import MAX_APPEAL_INSTANCES
from modules.esic.forms import ANSWER_FIELDS, APPEAL_FIELDS
from modules.esic.records import REQUEST
from modules.esic.statistics import AppealFact, RequestFact
from modules.esic.tables import appeals, requests
from modules.esic.workflows import SECTORS

ANALYSIS_NODES = tuple(f"analysis_{s}" for s in SECTORS)
ANSWER_NODES = (*ANALYSIS_NODES, *(f"extended_{s}" for s in SECTORS), "complaint")
APPEAL_NODES = tuple(f"appeal_{k}" for k in range(1, MAX_APPEAL_INSTANCES + 1))
STARTED_SLACK = timedelta(days=1)
"""An instance starts just after its request is stored: the engine is asked a day more."""


class Facts(msgspec.Struct, frozen=True, kw_only=True):
    requests: tuple[RequestFact, ...]
    appeals: tuple[AppealFact, ...]
    engine: bool
    """Whether answers came from the engine (``False`` in plain mode: nothing answered)."""


def local_window(first: date, last: date, zone: ZoneInfo) -> tuple[datetime, datetime]:
    """``[first 00:00, day after last 00:00)`` local, as aware datetimes."""
    start = datetime.combine(first, time(), zone)
    end = datetime.combine(last + timedelta(days=1), time(), zone)
    return start, end


async def load_facts(platform: PlatformContext, first: date, last: date) -> Facts:
    """Every request received from ``first`` to ``last`` (local dates) and its appeals."""
    zone = ZoneInfo(platform.settings.timezone)
    start, end = local_window(first, last, zone)
    r, a = requests.c, appeals.c
    async with platform.read_database.connect() as conn:
        rows = (
            await conn.execute(
                sa.select(r.id, r.protocol, r.sector, r.status, r.created_at).where(
                    r.created_at >= start, r.created_at < end
                )
            )
        ).all()
        appeal_rows = (
            await conn.execute(
                sa.select(a.request_id, a.instance, a.created_at)
                .select_from(appeals.join(requests, a.request_id == r.id))
                .where(r.created_at >= start, r.created_at < end)
            )
        ).all()
    source: TaskRecords | None = platform.extras.get(TASK_RECORDS_KEY)
    done: list[CompletedTask] = []
    if source is not None:
        done = await source.completed(
            REQUEST.definition_key,
            (*ANSWER_NODES, *APPEAL_NODES),
            (*ANSWER_FIELDS, *APPEAL_FIELDS),
            started_from=start,
            started_before=end + STARTED_SLACK,
        )
    by_request: dict[str, list[CompletedTask]] = defaultdict(list)
    for task in done:
        by_request[task.subject_id].append(task)
    facts = [_request(row, by_request.get(str(row.id), [])) for row in rows]
    sector_of = {f.request_id: f for f in facts}
    appeal_facts = [
        _appeal(sector_of[str(row.request_id)], row, by_request.get(str(row.request_id), []))
        for row in appeal_rows
        if str(row.request_id) in sector_of
    ]
    return Facts(requests=tuple(facts), appeals=tuple(appeal_facts), engine=source is not None)


def _request(row: sa.Row[tuple[object, ...]], tasks: Sequence[CompletedTask]) -> RequestFact:
    extended = any(t.node_id in ANALYSIS_NODES and t.outcome == "extend" for t in tasks)
    answer = next((t for t in tasks if t.node_id in ANSWER_NODES and t.outcome != "extend"), None)
    deadline = next((t.due_at for t in tasks if t.node_id in ANALYSIS_NODES), None)
    due_at = None
    if answer is not None and answer.node_id != "complaint":
        due_at = answer.due_at  # answered through a complaint: past the deadline by definition
    return RequestFact(
        request_id=str(row.id),
        protocol=row.protocol,
        sector=row.sector,
        definition_key=REQUEST.definition_key,
        status=row.status,
        received_at=row.created_at,
        due_at=due_at if answer is not None else deadline,
        answered_at=None if answer is None else answer.completed_at,
        extended=extended,
        decision=None if answer is None else answer.values.get("decision"),
        denial_reason=None if answer is None else answer.values.get("denial_reason"),
    )


def _appeal(
    request: RequestFact, row: sa.Row[tuple[object, ...]], tasks: Sequence[CompletedTask]
) -> AppealFact:
    instance = int(str(row.instance))
    node = "complaint" if instance == 0 else f"appeal_{instance}"
    field = "decision" if instance == 0 else "appeal_decision"
    decided = next((t for t in tasks if t.node_id == node), None)
    filed_at = row.created_at
    assert isinstance(filed_at, datetime)
    return AppealFact(
        request_id=request.request_id,
        protocol=request.protocol,
        sector=request.sector,
        definition_key=request.definition_key,
        instance=instance,
        filed_at=filed_at,
        decided_at=None if decided is None else decided.completed_at,
        outcome=None if decided is None else decided.values.get(field),
    )
