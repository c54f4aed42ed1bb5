"""The dashboard's numbers from known tasks on a fixed clock: open, due this week, overdue,
answered and the median time to answer, per queue and per definition; versions with their
instances by status and whether the stored document still matches its checksum."""

from __future__ import annotations

from datetime import timedelta
from zoneinfo import ZoneInfo

import sqlalchemy as sa

from core.clock import FixedClock
from services.workflow.bootstrap import WorkflowService
from services.workflow.persistence import tables as t
from services.workflow.persistence.dashboard_reads import SqlDashboardReads
from services.workflow.runtime.kernel.dashboard import WorkloadRow, window_at
from tests.conftest import T0
from tests.integration.human.kit import ANA, NOTE, open_case, staff

ZONE = ZoneInfo("America/Sao_Paulo")
HOUR = timedelta(hours=1)


async def _set(wf: WorkflowService, task_id: str, **values: object) -> None:
    async with wf.engine._uow() as uow:
        await uow.tasks.update(task_id, **values)
        await uow.commit()


async def _known_tasks(wf: WorkflowService, clock: FixedClock) -> None:
    """Six review tasks opened on Monday 2 March 2026, 09:00 local: three answered after 2, 4
    and 10 hours; of the three left, one overdue, one due on Thursday, one due next week."""
    await staff(wf)
    tasks = [(await open_case(wf, f"case {n}"))[1] for n in range(6)]
    for task, hours in zip(tasks[:3], (2, 4, 10), strict=True):
        clock.set(T0 + hours * HOUR)
        await wf.tasks.claim(task.id, actor=ANA)
        await wf.tasks.complete(task.id, actor=ANA, outcome="reject", data=NOTE)
    await _set(wf, tasks[3].id, due_at=T0 - HOUR)
    await _set(wf, tasks[4].id, due_at=T0 + 72 * HOUR)
    await _set(wf, tasks[5].id, due_at=T0 + 240 * HOUR)


EXPECTED = {
    "open": 3,
    "due_this_week": 1,
    "overdue": 1,
    "answered": 3,
    "median_answer_s": 4 * 3600.0,
}


async def test_workload_per_queue_counts_the_known_tasks(
    wf: WorkflowService, clock: FixedClock
) -> None:
    await _known_tasks(wf, clock)
    reads = SqlDashboardReads(wf.platform.database)  # type: ignore[attr-defined]
    rows = await reads.workload("queue", window_at(clock.now(), ZONE))
    assert rows == [WorkloadRow(key="casework.reviewers", **EXPECTED)]  # type: ignore[arg-type]


async def test_workload_per_definition_counts_the_same_tasks(
    wf: WorkflowService, clock: FixedClock
) -> None:
    await _known_tasks(wf, clock)
    reads = SqlDashboardReads(wf.platform.database)  # type: ignore[attr-defined]
    rows = await reads.workload("definition", window_at(clock.now(), ZONE))
    assert rows == [WorkloadRow(key="casework.review", **EXPECTED)]  # type: ignore[arg-type]


async def test_answers_older_than_the_window_leave_the_median(
    wf: WorkflowService, clock: FixedClock
) -> None:
    await _known_tasks(wf, clock)
    reads = SqlDashboardReads(wf.platform.database)  # type: ignore[attr-defined]
    later = clock.now() + timedelta(days=91)
    (row,) = await reads.workload("queue", window_at(later, ZONE))
    assert (row.answered, row.median_answer_s, row.overdue, row.due_this_week) == (0, None, 3, 0)


async def test_versions_show_instances_by_status_and_whether_the_document_is_in_sync(
    wf: WorkflowService, clock: FixedClock
) -> None:
    await _known_tasks(wf, clock)
    reads = SqlDashboardReads(wf.platform.database)  # type: ignore[attr-defined]
    review = [v for v in await reads.versions() if v.definition_key == "casework.review"]
    assert [(v.version, v.status, v.in_sync, v.instances) for v in review] == [
        (1, "published", True, {"rejected": 3, "waiting": 3})
    ]
    async with wf.platform.database.begin() as conn:  # type: ignore[attr-defined]
        await conn.execute(
            sa.update(t.versions)
            .where(t.versions.c.checksum == review[0].checksum)
            .values(schema=t.versions.c.schema + " ")
        )
    (changed,) = [v for v in await reads.versions() if v.definition_key == "casework.review"]
    assert changed.in_sync is False
