"""The forwarding policy: into one's own queues, into the targets a queue declares, anywhere
with ``workflow.tasks.forward_any``; an administrator can always move a task back."""

from __future__ import annotations

import pytest

from contracts.errors import Forbidden
from contracts.kernel import Actor
from services.workflow.bootstrap import WorkflowService
from tests.integration.human.casework import STAFF_PERMISSIONS, enrol, uid
from tests.integration.human.kit import ANA, open_case, staff, trail

FORWARDER = Actor(id=uid("dora"))
ADMIN = Actor(id=uid("root"))
ELSEWHERE = "purchase.managers"  # another module's active queue ana is not a member of


@pytest.fixture
async def task_id(wf: WorkflowService) -> str:
    await staff(wf)
    forward_any = (*STAFF_PERMISSIONS, "workflow.tasks.forward_any")
    await enrol(wf, "casework.reviewers", "dora", profile="forwarder", permissions=forward_any)
    # an administrator who is a member of no queue at all
    await enrol(
        wf, "casework.supervisors", "root", profile="admin", permissions=("workflow.admin",)
    )
    await wf.catalog.remove_member("casework.supervisors", ADMIN.id, actor=Actor.system("t"))
    _, task = await open_case(wf)
    return task.id


async def test_a_member_cannot_forward_into_a_queue_outside_the_policy(
    wf: WorkflowService, task_id: str
) -> None:
    with pytest.raises(Forbidden) as refused:
        await wf.tasks.forward(task_id, actor=ANA, to_queue=ELSEWHERE)
    fields = refused.value.fields
    assert (fields["code"], fields["queue"], fields["target"]) == (
        "forward_not_allowed",
        "casework.reviewers",
        ELSEWHERE,
    )
    (task,) = [t for t in await wf.engine.tasks(await _instance(wf, task_id)) if t.id == task_id]
    assert (task.queue, task.status) == ("casework.reviewers", "ready")
    last = (await trail(wf, task_id))[-1]
    assert (last.action, last.after["code"]) == ("workflow.task.refused", "forward_not_allowed")


async def test_a_member_may_forward_into_a_declared_target(
    wf: WorkflowService, task_id: str
) -> None:
    view = await wf.tasks.forward(task_id, actor=ANA, to_queue="casework.supervisors")
    assert view.queue == "casework.supervisors"


async def test_a_member_may_forward_into_another_queue_of_their_own(
    wf: WorkflowService, task_id: str
) -> None:
    await enrol(wf, ELSEWHERE, "ana")
    view = await wf.tasks.forward(task_id, actor=ANA, to_queue=ELSEWHERE)
    assert (view.queue, view.status) == (ELSEWHERE, "ready")


async def test_the_forward_any_permission_reaches_every_active_queue(
    wf: WorkflowService, task_id: str
) -> None:
    view = await wf.tasks.forward(task_id, actor=FORWARDER, to_queue=ELSEWHERE)
    assert view.queue == ELSEWHERE


async def test_an_admin_outside_the_queue_can_bring_a_forwarded_task_back(
    wf: WorkflowService, task_id: str
) -> None:
    await wf.tasks.forward(task_id, actor=FORWARDER, to_queue=ELSEWHERE)
    with pytest.raises(Forbidden):  # its members are elsewhere now: ana cannot reach it
        await wf.tasks.forward(task_id, actor=ANA, to_queue="casework.reviewers")
    view = await wf.tasks.forward(task_id, actor=ADMIN, to_queue="casework.reviewers")
    assert (view.queue, view.status) == ("casework.reviewers", "ready")
    (item,) = await wf.tasks.bulk_reassign([task_id], actor=ADMIN, to_user=ANA.id)
    assert item.ok and item.task is not None and item.task.assignee == ANA.id


async def test_an_admin_may_abandon_a_task_held_in_a_queue_they_are_not_in(
    wf: WorkflowService, task_id: str
) -> None:
    await wf.tasks.claim(task_id, actor=ANA)
    view = await wf.tasks.abandon(task_id, actor=ADMIN)
    assert (view.status, view.assignee) == ("ready", None)


async def _instance(wf: WorkflowService, task_id: str) -> str:
    async with wf.engine._uow() as uow:
        task = await uow.tasks.lock(task_id)
    assert task is not None
    return task.instance_id
