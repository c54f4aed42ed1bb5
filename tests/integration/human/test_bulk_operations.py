"""A bulk task action as a background operation: each task done or refused with its reason,
and a runner that died between a task's action and its row never acts on the task twice."""

from __future__ import annotations

import asyncio

from core.audit import read_trail
from services.workflow.bootstrap import WorkflowService
from services.workflow.runtime.services.operation_steps import task_key
from services.workflow.runtime.services.operations import OperationService
from tests.integration.human.kit import ANA, BIA, open_case, staff, trail

MISSING = "00000000-0000-7000-8000-000000000000"


def ops(wf: WorkflowService) -> OperationService:
    assert wf.operations is not None
    return wf.operations


async def test_a_bulk_claim_operation_counts_each_task_and_keeps_going_past_refusals(
    wf: WorkflowService,
) -> None:
    await staff(wf)
    free = [(await open_case(wf, str(i)))[1] for i in range(3)]
    _, taken = await open_case(wf, "taken")
    await wf.tasks.claim(taken.id, actor=BIA)
    ids = [free[0].id, taken.id, free[1].id, MISSING, free[2].id]
    started = await ops(wf).start("bulk_claim", ids, actor=ANA)
    await wf.delivery.drain()
    over = await ops(wf).get(started.id)
    assert (over.status, over.total, over.done, over.refused) == ("finished", 5, 3, 2)
    refused = await ops(wf).items(started.id, refused_only=True)
    assert [(i.item_id, i.code) for i in refused] == [
        (taken.id, "claimed_by_other"),
        (MISSING, "unknown_task"),
    ]
    for task in free:
        assert (await wf.inbox.views([task.id]))[task.id].assignee == ANA.id


async def test_a_task_acted_on_before_the_runner_died_is_counted_once_and_not_redone(
    wf: WorkflowService,
) -> None:
    await staff(wf)
    tasks = [(await open_case(wf, str(i)))[1] for i in range(2)]
    ids = [t.id for t in tasks]
    started = await ops(wf).start(
        "bulk_forward", ids, actor=ANA, params={"to_queue": "casework.supervisors"}
    )
    # The first task's action committed under the operation's key, and then the runner died
    # before writing the task's row: the next runner replays the stored answer.
    await wf.tasks.forward(
        ids[0],
        actor=ANA,
        to_queue="casework.supervisors",
        idempotency_key=task_key(started.id, ids[0]),
    )
    await wf.delivery.drain()
    over = await ops(wf).get(started.id)
    assert (over.status, over.done, over.refused) == ("finished", 2, 0)
    forwarded = [e for e in await trail(wf, ids[0]) if e.action == "workflow.task.forwarded"]
    assert len(forwarded) == 1
    assert {v.queue for v in (await wf.inbox.views(ids)).values()} == {"casework.supervisors"}


async def test_the_same_bulk_action_submitted_twice_while_running_starts_once(
    wf: WorkflowService,
) -> None:
    await staff(wf)
    ids = [(await open_case(wf, str(i)))[1].id for i in range(3)]
    first = await ops(wf).start("bulk_claim", ids, actor=ANA)
    # A double click: the same tasks (in another order), the same action, the same person.
    again = await ops(wf).start("bulk_claim", list(reversed(ids)), actor=ANA)
    assert again.id == first.id
    assert [o.id for o in await ops(wf).recent(started_by=ANA.id)] == [first.id]
    async with wf.engine._uow() as uow:
        records = await read_trail(uow.conn, "workflow_operation", first.id)  # type: ignore[attr-defined]
    assert [r.entry.action for r in records] == ["workflow.operation.started"]
    await wf.delivery.drain()
    over = await ops(wf).get(first.id)
    assert (over.status, over.done, over.refused) == ("finished", 3, 0)


async def test_another_action_person_or_selection_is_a_new_operation(
    wf: WorkflowService,
) -> None:
    await staff(wf)
    ids = [(await open_case(wf, str(i)))[1].id for i in range(3)]
    first = await ops(wf).start("bulk_claim", ids, actor=ANA)
    other_person = await ops(wf).start("bulk_claim", ids, actor=BIA)
    other_tasks = await ops(wf).start("bulk_claim", ids[:2], actor=ANA)
    other_action = await ops(wf).start(
        "bulk_forward", ids, actor=ANA, params={"to_queue": "casework.supervisors"}
    )
    other_queue = await ops(wf).start(
        "bulk_forward", ids, actor=ANA, params={"to_queue": "casework.reviewers"}
    )
    assert len({first.id, other_person.id, other_tasks.id, other_action.id, other_queue.id}) == 5


async def test_once_the_operation_is_over_the_same_action_starts_a_new_one(
    wf: WorkflowService,
) -> None:
    await staff(wf)
    ids = [(await open_case(wf, str(i)))[1].id for i in range(2)]
    first = await ops(wf).start("bulk_claim", ids, actor=ANA)
    await wf.delivery.drain()
    assert (await ops(wf).get(first.id)).status == "finished"
    again = await ops(wf).start("bulk_claim", ids, actor=ANA)
    assert again.id != first.id
    cancelled = await ops(wf).cancel(again.id, actor=ANA, reason="engano")
    assert cancelled.status == "cancelled"
    third = await ops(wf).start("bulk_claim", ids, actor=ANA)
    assert third.id not in (first.id, again.id)


async def test_two_submissions_at_the_same_moment_start_one_operation(
    wf: WorkflowService,
) -> None:
    await staff(wf)
    ids = [(await open_case(wf, str(i)))[1].id for i in range(2)]
    one, two = await asyncio.gather(
        ops(wf).start("bulk_claim", ids, actor=ANA), ops(wf).start("bulk_claim", ids, actor=ANA)
    )
    assert one.id == two.id
    assert len(await ops(wf).recent(started_by=ANA.id)) == 1
