"""The inbox: filters, sorting, and keyset pages that visit every row once, in order."""

from __future__ import annotations

from datetime import timedelta

import pytest

from contracts.errors import ValidationFailed
from core.clock import FixedClock
from services.workflow.bootstrap import WorkflowService
from services.workflow.runtime.services.inbox import InboxQuery
from tests.integration.human.kit import ANA, open_case, staff


async def _cases(wf: WorkflowService, clock: FixedClock, n: int) -> list[str]:
    ids = []
    for i in range(n):
        ids.append((await open_case(wf, f"case {i}"))[1].id)
        clock.advance(timedelta(minutes=10))
    return ids


async def _set(wf: WorkflowService, task_id: str, **values: object) -> None:
    async with wf.engine._uow() as uow:
        await uow.tasks.update(task_id, **values)
        await uow.commit()


async def _walk(wf: WorkflowService, query: InboxQuery) -> list[str]:
    seen: list[str] = []
    cursor = None
    while True:
        page = await wf.inbox.page(InboxQuery(**{**_fields(query), "cursor": cursor}))
        seen.extend(t.id for t in page.items)
        if page.next_cursor is None:
            return seen
        cursor = page.next_cursor


def _fields(query: InboxQuery) -> dict[str, object]:
    return {f: getattr(query, f) for f in query.__struct_fields__}


async def test_pages_visit_every_task_once_in_due_order_undated_last(
    wf: WorkflowService, clock: FixedClock
) -> None:
    ids = await _cases(wf, clock, 5)
    await _set(wf, ids[1], due_at=None)
    await _set(wf, ids[3], due_at=None)
    seen = await _walk(wf, InboxQuery(queue="casework.reviewers", limit=2))
    assert seen == [ids[0], ids[2], ids[4], ids[1], ids[3]]


async def test_descending_pages_put_undated_tasks_first(
    wf: WorkflowService, clock: FixedClock
) -> None:
    ids = await _cases(wf, clock, 4)
    await _set(wf, ids[0], due_at=None)
    seen = await _walk(wf, InboxQuery(queue="casework.reviewers", sort="-due_at", limit=1))
    assert seen == [ids[0], ids[3], ids[2], ids[1]]


async def test_sorting_by_priority_breaks_ties_by_id(
    wf: WorkflowService, clock: FixedClock
) -> None:
    ids = await _cases(wf, clock, 3)
    await _set(wf, ids[2], priority=5)
    seen = await _walk(wf, InboxQuery(sort="-priority", limit=2))
    assert seen == [ids[2], ids[1], ids[0]]


async def test_filters_by_assignee_status_and_name(wf: WorkflowService, clock: FixedClock) -> None:
    await staff(wf)
    ids = await _cases(wf, clock, 3)
    await wf.tasks.claim(ids[1], actor=ANA)
    mine = await wf.inbox.page(InboxQuery(assignee=ANA.id, status=("claimed",)))
    assert [t.id for t in mine.items] == [ids[1]]
    free = await wf.inbox.page(InboxQuery(unassigned=True, name="REVIEW the"))
    assert [t.id for t in free.items] == [ids[0], ids[2]]
    assert (await wf.inbox.page(InboxQuery(name="nothing like it"))).items == ()


async def test_filters_by_priority_and_date_ranges(wf: WorkflowService, clock: FixedClock) -> None:
    start = clock.now()
    ids = await _cases(wf, clock, 4)
    await _set(wf, ids[0], priority=3)
    ranged = await wf.inbox.page(InboxQuery(priority_min=1, priority_max=3))
    assert [t.id for t in ranged.items] == [ids[0]]
    created = await wf.inbox.page(
        InboxQuery(
            created_from=start + timedelta(minutes=10), created_to=start + timedelta(minutes=30)
        )
    )
    assert [t.id for t in created.items] == [ids[1], ids[2]]
    due = await wf.inbox.page(InboxQuery(due_to=start + timedelta(hours=24, minutes=1)))
    assert [t.id for t in due.items] == [ids[0]]


async def test_visible_to_shows_only_my_queues_and_my_tasks(
    wf: WorkflowService, clock: FixedClock
) -> None:
    await staff(wf)
    ids = await _cases(wf, clock, 2)
    await wf.tasks.forward(ids[1], actor=ANA, to_queue="casework.supervisors")
    seen = await wf.inbox.page(InboxQuery(visible_to=ANA.id))
    assert [t.id for t in seen.items] == [ids[0]]


async def test_a_forged_cursor_is_refused_as_invalid(wf: WorkflowService) -> None:
    with pytest.raises(ValidationFailed):
        await wf.inbox.page(InboxQuery(cursor="not-a-cursor"))
