"""Versions never change under running instances; cancellation and refusals leave a trail."""

from __future__ import annotations

import json

import pytest

from contracts.errors import DefinitionInvalid, InvalidTransition, NotFound, ValidationFailed
from contracts.kernel import Actor
from contracts.workflow.types import StartRequest
from core.audit import read_trail
from services.workflow.bootstrap import WorkflowService
from tests.fakes.purchase import EXAMPLES, order
from tests.integration.human.casework import uid

OPERATOR = Actor(id="operator-1")


def purchase_definition() -> dict[str, object]:
    data: dict[str, object] = json.loads((EXAMPLES / "purchase_approval.json").read_text())
    return data


async def test_publishing_the_same_content_again_returns_the_existing_version(
    wf: WorkflowService,
) -> None:
    first = await wf.engine.publisher.latest("purchase.approval")
    again, created = await wf.engine.publisher.publish(purchase_definition(), actor=OPERATOR)
    assert not created
    assert (again.id, again.version, again.checksum) == (first.id, 1, first.checksum)


async def test_key_order_and_whitespace_do_not_make_a_new_version(wf: WorkflowService) -> None:
    text = json.dumps(purchase_definition(), indent=7, sort_keys=True)
    _version, created = await wf.engine.publisher.publish(text, actor=OPERATOR)
    assert not created


async def test_v2_moves_nothing_in_flight(wf: WorkflowService) -> None:
    old = await wf.engine.start(
        StartRequest(definition_key="purchase.approval", context=order(20_000), actor=OPERATOR)
    )
    changed = purchase_definition()
    changed["name"] = "Purchase approval (2027 rules)"
    v2, created = await wf.engine.publisher.publish(changed, actor=OPERATOR)
    assert created and v2.version == 2
    new = await wf.engine.start(
        StartRequest(definition_key="purchase.approval", context=order(20_000), actor=OPERATOR)
    )
    assert (await wf.engine.status(old.id)).definition_version == 1
    assert new.definition_version == 2
    pinned = await wf.engine.start(
        StartRequest(
            definition_key="purchase.approval", version=1, context=order(1), actor=OPERATOR
        )
    )
    assert pinned.definition_version == 1


async def test_an_invalid_definition_never_becomes_a_version(wf: WorkflowService) -> None:
    broken = purchase_definition()
    broken["key"] = "purchase.broken"
    broken["nodes"] = [n for n in broken["nodes"] if n["id"] != "completed"]  # type: ignore[union-attr,index]
    with pytest.raises(DefinitionInvalid) as info:
        await wf.engine.publisher.publish(broken, actor=OPERATOR)
    assert any("completed" in e.message for e in info.value.errors)
    with pytest.raises(NotFound):
        await wf.engine.publisher.latest("purchase.broken")


async def test_cancellation_closes_open_tasks_and_keeps_everything(wf: WorkflowService) -> None:
    view = await wf.engine.start(
        StartRequest(definition_key="purchase.approval", context=order(20_000), actor=OPERATOR)
    )
    await wf.delivery.drain()
    history_before = await wf.engine.history(view.id)
    cancelled = await wf.engine.cancel(view.id, reason="duplicate request", actor=OPERATOR)
    assert cancelled.status == "cancelled" and cancelled.ended_at is not None
    (task,) = await wf.engine.tasks(view.id)
    assert task.status == "cancelled"
    history = await wf.engine.history(view.id)
    assert history[: len(history_before)] == history_before
    assert history[len(history_before)].event == "cancelled"
    async with wf.engine._uow() as uow:
        trail = await read_trail(uow.conn, "workflow_instance", view.id)
    last = trail[-1].entry
    assert (last.action, last.reason, last.actor) == (
        "workflow.instance.cancelled",
        "duplicate request",
        OPERATOR,
    )
    assert last.before == {"status": "waiting", "nodes": ["manager_approval"]}


async def test_a_cancellation_needs_a_reason(wf: WorkflowService) -> None:
    view = await wf.engine.start(
        StartRequest(definition_key="purchase.approval", context=order(20_000), actor=OPERATOR)
    )
    with pytest.raises(ValidationFailed):
        await wf.engine.cancel(view.id, reason="  ", actor=OPERATOR)


async def test_events_on_a_finished_instance_are_refused_and_recorded(
    wf: WorkflowService,
) -> None:
    view = await wf.engine.start(
        StartRequest(definition_key="purchase.approval", context=order(10), actor=OPERATOR)
    )
    await wf.delivery.drain()
    assert (await wf.engine.status(view.id)).status == "completed"
    with pytest.raises(InvalidTransition) as info:
        await wf.engine.signal(view.id, "manager_approval", payload={}, actor=OPERATOR)
    assert info.value.fields["code"] == "instance_finished"
    with pytest.raises(InvalidTransition):
        await wf.engine.cancel(view.id, reason="too late", actor=OPERATOR)
    async with wf.engine._uow() as uow:
        trail = await read_trail(uow.conn, "workflow_instance", view.id)
    refusals = [r.entry for r in trail if r.entry.action == "workflow.transition.refused"]
    assert len(refusals) == 2
    assert refusals[0].after is not None and refusals[0].after["code"] == "instance_finished"


async def test_completing_a_task_twice_is_refused(wf: WorkflowService) -> None:
    view = await wf.engine.start(
        StartRequest(definition_key="purchase.approval", context=order(20_000), actor=OPERATOR)
    )
    await wf.delivery.drain()
    (task,) = await wf.engine.tasks(view.id)
    manager = Actor(id=uid("manager-9"))
    await wf.engine.complete(task.id, actor=manager, outcome="reject", data={})
    with pytest.raises(InvalidTransition):
        await wf.engine.complete(task.id, actor=manager, outcome="reject", data={})


async def test_unknown_ids_are_not_found(wf: WorkflowService) -> None:
    missing = "00000000-0000-7000-8000-000000000000"
    with pytest.raises(NotFound):
        await wf.engine.status(missing)
    with pytest.raises(NotFound):
        await wf.engine.claim(missing, actor=OPERATOR)
    with pytest.raises(NotFound):
        await wf.engine.start(StartRequest(definition_key="nope.never", actor=OPERATOR))
