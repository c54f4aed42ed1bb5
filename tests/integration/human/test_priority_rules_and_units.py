"""Priority set by a rule when a task opens (recorded as "set by rule <node>", a later change
by hand wins and is audited), a rule refused at publish when it does not compile (naming the
node), and units: audited changes with a reason, bad input refused, and the inbox scoped to a
supervisor's units."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from contracts.errors import DefinitionInvalid, NotFound, ValidationFailed
from contracts.kernel import Actor
from contracts.workflow.types import StartRequest, TaskView
from core.audit import read_trail
from services.workflow.bootstrap import WorkflowService
from services.workflow.runtime.services.inbox import InboxQuery
from tests.integration.human.casework import REVIEW
from tests.integration.human.kit import AUTHOR, BOSS, staff, trail

ADMIN = Actor.system("test")


def _with_rule(when: str, level: str = "high") -> dict[str, Any]:
    definition = copy.deepcopy(REVIEW)
    definition["key"] = "casework.priority"
    definition["nodes"][0]["produces"] = ["title", "requester_age", "urgent"]
    definition["nodes"][1]["priority"] = {"when": when, "level": level}
    return definition


async def _open(wf: WorkflowService, **context: Any) -> TaskView:
    view = await wf.engine.start(
        StartRequest(definition_key="casework.priority", context=context, actor=AUTHOR)
    )
    await wf.delivery.drain()
    (task,) = [t for t in await wf.engine.tasks(view.id) if t.status == "ready"]
    return task


RULE = "requester_age >= 60 || urgent"


async def test_a_rule_sets_the_priority_when_the_task_opens_and_says_so(
    wf: WorkflowService,
) -> None:
    await staff(wf)
    await wf.engine.publisher.publish(_with_rule(RULE), actor=ADMIN)
    elderly = await _open(wf, title="pedido", requester_age=70, urgent=False)
    assert elderly.priority == 5
    entries = await trail(wf, elderly.id)
    (by_rule,) = [e for e in entries if e.action == "workflow.task.prioritised"]
    assert by_rule.actor.id == "rules"
    assert by_rule.reason == "set by rule review"
    assert by_rule.after is not None and by_rule.after["rule"] == "review"
    young = await _open(wf, title="pedido", requester_age=30, urgent=False)
    assert young.priority == 0
    assert not [e for e in await trail(wf, young.id) if e.action == "workflow.task.prioritised"]


async def test_a_change_by_hand_wins_over_the_rule_and_is_audited(wf: WorkflowService) -> None:
    await staff(wf)
    await wf.engine.publisher.publish(_with_rule(RULE, "urgent"), actor=ADMIN)
    task = await _open(wf, title="pedido", requester_age=20, urgent=True)
    assert task.priority == 9
    view = await wf.tasks.set_priority(task.id, actor=BOSS, priority=0, reason="não é urgente")
    assert view.priority == 0
    last = (await trail(wf, task.id))[-1]
    assert (last.action, last.actor.id) == ("workflow.task.prioritised", BOSS.id)
    assert last.after == {"priority": 0, "previous_priority": 9, "reason": "não é urgente"}


@pytest.mark.parametrize("when", ["requester_age >= ", "unknown_field > 3"])
async def test_a_rule_that_does_not_compile_is_refused_at_publish_naming_the_node(
    wf: WorkflowService, when: str
) -> None:
    with pytest.raises(DefinitionInvalid) as refused:
        await wf.engine.publisher.publish(_with_rule(when), actor=ADMIN)
    (error,) = refused.value.errors
    assert "priority.when" in error.path
    assert "`review`" in error.message


async def test_an_unknown_level_is_refused_at_publish(wf: WorkflowService) -> None:
    with pytest.raises(DefinitionInvalid):
        await wf.engine.publisher.publish(_with_rule(RULE, "altíssima"), actor=ADMIN)


async def test_units_are_changed_with_a_reason_and_audited(wf: WorkflowService) -> None:
    units = wf.units
    assert await units.add("saude", "Secretaria de Saúde", actor=ADMIN, reason="lei")
    assert not await units.add("saude", "Secretaria de Saúde", actor=ADMIN, reason="lei")
    with pytest.raises(ValidationFailed):
        await units.add("saude", "Outra", actor=ADMIN, reason="lei")
    with pytest.raises(ValidationFailed):
        await units.add("Saúde", "Saúde", actor=ADMIN, reason="lei")
    with pytest.raises(ValidationFailed):
        await units.add("ouvidoria", "Ouvidoria", actor=ADMIN, reason="  ")
    with pytest.raises(NotFound):
        await units.add_queue("nada", "casework.reviewers", actor=ADMIN, reason="x")
    with pytest.raises(NotFound):
        await units.add_queue("saude", "nada.aqui", actor=ADMIN, reason="x")
    assert await units.add_queue("saude", "casework.reviewers", actor=ADMIN, reason="portaria")
    async with wf.engine._uow() as uow:
        records = await read_trail(uow.conn, "workflow_unit", "saude")
    assert [(r.entry.action, r.entry.reason) for r in records] == [
        ("workflow.unit.created", "lei"),
        ("workflow.unit.queue_assigned", "portaria"),
    ]


async def test_a_supervisor_scope_lists_only_their_units_queues(wf: WorkflowService) -> None:
    await staff(wf)
    units = wf.units
    await units.add("saude", "Saúde", actor=ADMIN, reason="lei")
    await units.add("ouvidoria", "Ouvidoria", actor=ADMIN, reason="lei")
    await units.add_queue("saude", "casework.reviewers", actor=ADMIN, reason="lei")
    await units.add_queue("ouvidoria", "casework.supervisors", actor=ADMIN, reason="lei")
    await units.add_supervisor("ouvidoria", "someone", actor=ADMIN, reason="lei")
    await wf.engine.publisher.publish(_with_rule(RULE), actor=ADMIN)
    task = await _open(wf, title="pedido", requester_age=1, urgent=False)
    other = await units.scope("someone", admin=False, supervise=True)
    assert other.queues() == frozenset({"casework.supervisors"})
    seen = await wf.inbox.page(InboxQuery(queues=tuple(other.queues() or ())))
    assert task.id not in {t.id for t in seen.items}
    with pytest.raises(NotFound):
        other.queues("saude")
    assert (await units.scope("someone", admin=False, supervise=False)).supervisor is False
    admin = await units.scope("root", admin=True, supervise=False)
    assert admin.queues() is None
    mine = admin.queues("saude")
    assert mine is not None
    found = await wf.inbox.page(InboxQuery(queues=tuple(mine)))
    assert task.id in {t.id for t in found.items}
