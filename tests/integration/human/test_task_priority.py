"""Priority by hand: a supervisor sets it with a reason and the audit keeps before, after and
why; a clerk is refused (and the refusal audited); bad input and closed tasks are refused."""

from __future__ import annotations

import pytest

from contracts.errors import Forbidden, InvalidTransition, ValidationFailed
from services.workflow.bootstrap import WorkflowService
from tests.integration.human.kit import ANA, BOSS, NOTE, open_case, staff, trail


async def test_a_supervisor_sets_a_priority_with_a_reason_and_it_is_audited(
    wf: WorkflowService,
) -> None:
    await staff(wf)
    _, task = await open_case(wf)
    view = await wf.tasks.set_priority(task.id, actor=BOSS, priority=9, reason=" prazo judicial ")
    assert view.priority == 9
    entry = (await trail(wf, task.id))[-1]
    assert (entry.action, entry.actor.id) == ("workflow.task.prioritised", BOSS.id)
    assert entry.after == {"priority": 9, "previous_priority": 0, "reason": "prazo judicial"}
    (listed,) = [t for t in await wf.engine.tasks(task.instance_id) if t.id == task.id]
    assert listed.priority == 9


async def test_a_clerk_without_the_supervisor_permission_is_refused(wf: WorkflowService) -> None:
    await staff(wf)
    _, task = await open_case(wf)
    with pytest.raises(Forbidden) as refused:
        await wf.tasks.set_priority(task.id, actor=ANA, priority=5, reason="urgente")
    assert refused.value.fields["code"] == "not_a_supervisor"
    last = (await trail(wf, task.id))[-1]
    assert (last.action, last.actor.id) == ("workflow.task.refused", ANA.id)
    (listed,) = [t for t in await wf.engine.tasks(task.instance_id) if t.id == task.id]
    assert listed.priority == 0


@pytest.mark.parametrize(("priority", "reason"), [(10, "ok"), (-1, "ok"), (5, "  ")])
async def test_a_level_out_of_range_or_a_blank_reason_is_refused(
    wf: WorkflowService, priority: int, reason: str
) -> None:
    await staff(wf)
    _, task = await open_case(wf)
    with pytest.raises(ValidationFailed):
        await wf.tasks.set_priority(task.id, actor=BOSS, priority=priority, reason=reason)


async def test_a_closed_task_keeps_its_priority(wf: WorkflowService) -> None:
    await staff(wf)
    _, task = await open_case(wf)
    await wf.tasks.claim(task.id, actor=ANA)
    await wf.tasks.complete(task.id, actor=ANA, outcome="reject", data=NOTE)
    with pytest.raises(InvalidTransition):
        await wf.tasks.set_priority(task.id, actor=BOSS, priority=5, reason="tarde demais")
