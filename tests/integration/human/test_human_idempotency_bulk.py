"""Idempotency keys make retries harmless; bulk actions answer per task, each on its own."""

from __future__ import annotations

import pytest

from contracts.errors import IdempotencyKeyReused
from services.workflow.bootstrap import WorkflowService
from tests.integration.human.kit import ANA, BIA, BOSS, NOTE, open_case, staff, trail


async def test_a_double_click_claims_once_and_answers_the_same(wf: WorkflowService) -> None:
    await staff(wf)
    _, task = await open_case(wf)
    first = await wf.tasks.claim(task.id, actor=ANA, idempotency_key="click-1")
    await wf.tasks.release(task.id, actor=ANA)
    again = await wf.tasks.claim(task.id, actor=ANA, idempotency_key="click-1")
    assert again == first  # the recorded answer, not a second claim
    actions = [e.action for e in await trail(wf, task.id)]
    assert actions.count("workflow.task.claimed") == 1


async def test_a_retried_completion_advances_the_instance_once(wf: WorkflowService) -> None:
    await staff(wf)
    instance_id, task = await open_case(wf)
    done = await wf.tasks.complete(
        task.id, actor=ANA, outcome="approve", data=NOTE, idempotency_key="done-1"
    )
    retried = await wf.tasks.complete(
        task.id, actor=ANA, outcome="approve", data=NOTE, idempotency_key="done-1"
    )
    assert retried == done
    history = await wf.engine.history(instance_id)
    assert sum(1 for h in history if h.event == "task_completed") == 1


async def test_reusing_a_key_for_another_request_is_refused(wf: WorkflowService) -> None:
    await staff(wf)
    _, task = await open_case(wf)
    await wf.tasks.claim(task.id, actor=ANA, idempotency_key="k")
    with pytest.raises(IdempotencyKeyReused):
        await wf.tasks.release(task.id, actor=ANA, idempotency_key="k")


async def test_bulk_claim_answers_for_each_task(wf: WorkflowService) -> None:
    await staff(wf)
    _, free = await open_case(wf, "a")
    _, taken = await open_case(wf, "b")
    await wf.tasks.claim(taken.id, actor=BIA)
    missing = "00000000-0000-7000-8000-000000000000"
    results = await wf.tasks.bulk_claim([free.id, taken.id, missing], actor=ANA)
    assert [(r.ok, r.problem, r.code) for r in results] == [
        (True, None, None),
        (False, "conflict", "claimed_by_other"),
        (False, "not-found", "unknown_task"),
    ]
    assert results[0].task is not None and results[0].task.assignee == ANA.id


async def test_bulk_reassign_moves_a_selection_to_another_queue(wf: WorkflowService) -> None:
    await staff(wf)
    tasks = [(await open_case(wf, str(i)))[1] for i in range(3)]
    await wf.tasks.claim(tasks[0].id, actor=ANA)
    results = await wf.tasks.bulk_reassign(
        [t.id for t in tasks], actor=BOSS, to_queue="casework.supervisors", idempotency_key="r"
    )
    assert all(r.ok for r in results)
    assert {r.task.queue for r in results if r.task} == {"casework.supervisors"}


async def test_bulk_reassign_by_a_plain_member_skips_tasks_others_hold(
    wf: WorkflowService,
) -> None:
    await staff(wf)
    tasks = [(await open_case(wf, str(i)))[1] for i in range(2)]
    await wf.tasks.claim(tasks[0].id, actor=ANA)
    results = await wf.tasks.bulk_reassign([t.id for t in tasks], actor=BIA, to_user=BIA.id)
    assert [r.ok for r in results] == [False, True]


async def test_bulk_abandon_returns_claimed_tasks_to_their_queue(wf: WorkflowService) -> None:
    await staff(wf)
    tasks = [(await open_case(wf, str(i)))[1] for i in range(2)]
    for t in tasks:
        await wf.tasks.claim(t.id, actor=ANA)
    results = await wf.tasks.bulk_abandon([t.id for t in tasks], actor=BOSS)
    assert [(r.ok, r.task.status if r.task else None) for r in results] == [
        (True, "ready"),
        (True, "ready"),
    ]
    assert (await trail(wf, tasks[0].id))[-1].action == "workflow.task.abandoned"


async def test_a_retried_bulk_action_does_each_item_once(wf: WorkflowService) -> None:
    await staff(wf)
    _, task = await open_case(wf)
    first = await wf.tasks.bulk_claim([task.id], actor=ANA, idempotency_key="bulk-1")
    await wf.tasks.release(task.id, actor=ANA)
    again = await wf.tasks.bulk_claim([task.id], actor=ANA, idempotency_key="bulk-1")
    assert again == first
    assert [e.action for e in await trail(wf, task.id)].count("workflow.task.claimed") == 1
