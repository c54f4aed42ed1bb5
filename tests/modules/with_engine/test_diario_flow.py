"""Diário Oficial end to end on the engine: four eyes, edition stamping, status in sync."""

from __future__ import annotations

import pytest

from contracts.errors import Conflict, Forbidden
from core.app import Platform
from modules.diario.demo import APPROVER, AUTHOR, REVIEWER, ensure_staff
from modules.diario.domain import ActStatus
from modules.diario.records import Act, ActStore
from services.workflow.bootstrap import WorkflowService


async def submitted(booted: Platform, service: WorkflowService) -> tuple[ActStore, Act]:
    await ensure_staff(booted)
    store = ActStore(booted)
    act = await store.draft(title="Portaria 1", body="...", author_id=AUTHOR.id)
    act = await store.submit(act.id, actor=AUTHOR)
    await service.delivery.drain()
    return store, await store.get(act.id)


async def decide(
    service: WorkflowService, act: Act, node: str, actor: object, outcome: str
) -> None:
    assert act.instance_id is not None
    (task,) = [t for t in await service.engine.tasks(act.instance_id) if t.node_id == node]
    await service.engine.claim(task.id, actor=actor)  # type: ignore[arg-type]
    await service.engine.complete(task.id, actor=actor, outcome=outcome, data={})  # type: ignore[arg-type]
    await service.delivery.drain()


async def test_act_is_reviewed_approved_and_scheduled_in_the_next_edition(
    booted: Platform, service: WorkflowService
) -> None:
    store, act = await submitted(booted, service)
    assert act.status is ActStatus.REVIEW
    await decide(service, act, "review", REVIEWER, "approve")
    await decide(service, act, "approve", APPROVER, "approve")
    act = await store.get(act.id)
    assert act.status is ActStatus.PUBLISHED
    assert (act.edition_number, str(act.published_on)) == (1, "2026-03-03")
    assert [a.id for a in await store.edition(1)] == [act.id]
    view = await service.engine.status(act.instance_id or "")
    assert view.status == "completed" and view.context["edition_number"] == 1


async def test_author_cannot_review_her_own_act(booted: Platform, service: WorkflowService) -> None:
    _, act = await submitted(booted, service)
    with pytest.raises(Forbidden):
        await decide(service, act, "review", AUTHOR, "approve")


async def test_reviewer_cannot_also_approve(booted: Platform, service: WorkflowService) -> None:
    store, act = await submitted(booted, service)
    await decide(service, act, "review", REVIEWER, "approve")
    with pytest.raises(Forbidden) as refused:
        await decide(service, act, "approve", REVIEWER, "approve")
    assert refused.value.fields["rule"] == "exclude_completers_of"
    assert (await store.get(act.id)).status is ActStatus.REVIEW


async def test_rejected_review_rejects_the_act(booted: Platform, service: WorkflowService) -> None:
    store, act = await submitted(booted, service)
    await decide(service, act, "review", REVIEWER, "reject")
    assert (await store.get(act.id)).status is ActStatus.REJECTED


async def test_rejected_approval_rejects_the_act(
    booted: Platform, service: WorkflowService
) -> None:
    store, act = await submitted(booted, service)
    await decide(service, act, "review", REVIEWER, "approve")
    await decide(service, act, "approve", APPROVER, "reject")
    act = await store.get(act.id)
    assert act.status is ActStatus.REJECTED and act.edition_number is None


async def test_plain_moves_are_refused_while_the_flow_drives_the_act(
    booted: Platform, service: WorkflowService
) -> None:
    store, act = await submitted(booted, service)
    with pytest.raises(Conflict):
        await store.approve(act.id, actor=APPROVER)


async def test_redelivered_transitions_leave_the_status_consistent(
    booted: Platform, service: WorkflowService
) -> None:
    store, act = await submitted(booted, service)
    await decide(service, act, "review", REVIEWER, "approve")
    await decide(service, act, "approve", APPROVER, "approve")
    assert act.instance_id is not None
    # Deliver the whole history again, in order: nothing moves backwards.
    for h in await service.engine.history(act.instance_id):
        if h.to_node:
            await store.follow(act.id, _status(h.to_node), instance_id=act.instance_id)
    assert (await store.get(act.id)).status is ActStatus.PUBLISHED


def _status(node: str) -> ActStatus:
    from modules.diario.workflows import NODE_STATUS

    return NODE_STATUS.get(node, ActStatus.DRAFT)
