"""Claim, release, complete and forward: each authorised, audited, with typed conflicts."""

from __future__ import annotations

import pytest

from contracts.errors import Conflict, Forbidden, InvalidTransition, NotFound, ValidationFailed
from contracts.kernel import Actor
from services.workflow.bootstrap import WorkflowService
from tests.integration.human.casework import enrol, uid
from tests.integration.human.kit import (
    ANA,
    AUTHOR,
    BIA,
    BOSS,
    NOTE,
    OUTSIDER,
    open_case,
    staff,
    trail,
)


@pytest.fixture
async def task_id(wf: WorkflowService) -> str:
    await staff(wf)
    _, task = await open_case(wf)
    return task.id


async def test_claiming_a_ready_task_makes_it_yours(wf: WorkflowService, task_id: str) -> None:
    view = await wf.tasks.claim(task_id, actor=ANA)
    assert (view.status, view.assignee) == ("claimed", ANA.id)
    assert "workflow.task.claimed" in [e.action for e in await trail(wf, task_id)]


async def test_claiming_a_task_you_hold_changes_nothing(wf: WorkflowService, task_id: str) -> None:
    first = await wf.tasks.claim(task_id, actor=ANA)
    again = await wf.tasks.claim(task_id, actor=ANA)
    assert again == first
    assert [e.action for e in await trail(wf, task_id)].count("workflow.task.claimed") == 1


async def test_claiming_a_task_someone_else_holds_is_a_conflict(
    wf: WorkflowService, task_id: str
) -> None:
    await wf.tasks.claim(task_id, actor=ANA)
    with pytest.raises(Conflict) as refused:
        await wf.tasks.claim(task_id, actor=BIA)
    assert refused.value.fields["code"] == "claimed_by_other"
    last = (await trail(wf, task_id))[-1]
    assert (last.action, last.actor.id) == ("workflow.task.refused", BIA.id)


async def test_claiming_a_completed_task_is_an_invalid_transition(
    wf: WorkflowService, task_id: str
) -> None:
    await wf.tasks.complete(task_id, actor=ANA, outcome="reject", data=NOTE)
    with pytest.raises(InvalidTransition) as refused:
        await wf.tasks.claim(task_id, actor=BIA)
    assert refused.value.fields["code"] == "task_closed"


async def test_a_member_without_the_queue_permission_cannot_claim(
    wf: WorkflowService, task_id: str
) -> None:
    await enrol(wf, "casework.reviewers", "dora", profile="clerk", permissions=("workflow.tasks",))
    with pytest.raises(Forbidden) as refused:
        await wf.tasks.claim(task_id, actor=Actor(id=uid("dora")))
    assert refused.value.fields["code"] == "missing_permission"
    assert refused.value.fields["permission"] == "casework.review"
    assert (await trail(wf, task_id))[-1].action == "workflow.task.refused"


async def test_a_non_member_holding_the_permission_cannot_claim(
    wf: WorkflowService, task_id: str
) -> None:
    with pytest.raises(Forbidden) as refused:
        await wf.tasks.claim(task_id, actor=OUTSIDER)
    assert refused.value.fields["code"] == "not_a_member"


async def test_an_unknown_user_cannot_claim(wf: WorkflowService, task_id: str) -> None:
    with pytest.raises(Forbidden) as refused:
        await wf.tasks.claim(task_id, actor=Actor(id=uid("ghost")))
    assert refused.value.fields["code"] == "missing_permission"


async def test_a_system_actor_cannot_claim(wf: WorkflowService, task_id: str) -> None:
    with pytest.raises(Forbidden) as refused:
        await wf.tasks.claim(task_id, actor=Actor.system("cli"))
    assert refused.value.fields["code"] == "not_a_person"


async def test_the_author_cannot_claim_a_task_they_could_not_complete(
    wf: WorkflowService, task_id: str
) -> None:
    with pytest.raises(Forbidden) as refused:
        await wf.tasks.claim(task_id, actor=AUTHOR)
    assert refused.value.fields["rule"] == "exclude_author"
    assert (await trail(wf, task_id))[-1].after["code"] == "separation_of_duties"  # type: ignore[index]


async def test_the_reviewer_cannot_claim_the_publication_they_reviewed(
    wf: WorkflowService, task_id: str
) -> None:
    done = await wf.tasks.complete(task_id, actor=ANA, outcome="approve", data=NOTE)
    publish = next(t for t in await wf.engine.tasks(done.instance_id) if t.node_id == "publish")
    with pytest.raises(Forbidden) as refused:
        await wf.tasks.claim(publish.id, actor=ANA)
    assert refused.value.fields["rule"] == "exclude_completers_of"
    assert (await wf.tasks.claim(publish.id, actor=BIA)).assignee == BIA.id


async def test_claiming_an_unknown_task_is_not_found(wf: WorkflowService, task_id: str) -> None:
    with pytest.raises(NotFound):
        await wf.tasks.claim("00000000-0000-7000-8000-000000000000", actor=ANA)


async def test_releasing_gives_the_task_back_to_its_queue(
    wf: WorkflowService, task_id: str
) -> None:
    await wf.tasks.claim(task_id, actor=ANA)
    view = await wf.tasks.release(task_id, actor=ANA)
    assert (view.status, view.assignee, view.claimed_at) == ("ready", None, None)
    assert (await trail(wf, task_id))[-1].action == "workflow.task.released"


async def test_releasing_a_task_someone_else_holds_is_a_conflict(
    wf: WorkflowService, task_id: str
) -> None:
    await wf.tasks.claim(task_id, actor=ANA)
    with pytest.raises(Conflict):
        await wf.tasks.release(task_id, actor=BIA)


async def test_releasing_a_task_nobody_holds_is_refused(wf: WorkflowService, task_id: str) -> None:
    with pytest.raises(InvalidTransition) as refused:
        await wf.tasks.release(task_id, actor=ANA)
    assert refused.value.fields["code"] == "not_claimed"


async def test_completing_reports_every_invalid_field_and_changes_nothing(
    wf: WorkflowService, task_id: str
) -> None:
    with pytest.raises(ValidationFailed) as refused:
        await wf.tasks.complete(task_id, actor=ANA, outcome="approve", data={"amount": 5000})
    assert {(e.path, e.code) for e in refused.value.errors} == {
        ("decision_note", "required"),
        ("amount", "above_max"),
    }
    task = next(t for t in await wf.engine.tasks(await _instance(wf, task_id)) if t.id == task_id)
    assert task.status == "ready"


async def _instance(wf: WorkflowService, task_id: str) -> str:
    async with wf.engine._uow() as uow:
        task = await uow.tasks.lock(task_id)
    assert task is not None
    return task.instance_id


async def test_completing_stores_the_snapshot_and_advances_the_instance(
    wf: WorkflowService, task_id: str
) -> None:
    from services.workflow.forms import decode_snapshot

    await wf.tasks.claim(task_id, actor=ANA)
    view = await wf.tasks.complete(task_id, actor=ANA, outcome="approve", data=NOTE)
    assert (view.status, view.assignee) == ("completed", ANA.id)
    instance = await wf.engine.status(view.instance_id)
    assert instance.current_nodes == ("publish",)
    assert instance.context["decision_note"] == "looks right"
    async with wf.uow_factory() as uow:
        (stored,) = await uow.human.submissions(task_id)
    snapshot = decode_snapshot(stored)
    assert (snapshot.form_ref, snapshot.actor_id) == ("casework.decision@1", ANA.id)
    assert snapshot.as_dict() == {"decision_note": "looks right", "amount": 10}


async def test_completing_a_task_someone_else_holds_is_a_conflict(
    wf: WorkflowService, task_id: str
) -> None:
    await wf.tasks.claim(task_id, actor=ANA)
    with pytest.raises(Conflict):
        await wf.tasks.complete(task_id, actor=BIA, outcome="approve", data=NOTE)


async def test_completing_twice_is_an_invalid_transition(wf: WorkflowService, task_id: str) -> None:
    await wf.tasks.complete(task_id, actor=ANA, outcome="reject", data=NOTE)
    with pytest.raises(InvalidTransition):
        await wf.tasks.complete(task_id, actor=ANA, outcome="reject", data=NOTE)


async def test_a_non_member_cannot_complete(wf: WorkflowService, task_id: str) -> None:
    with pytest.raises(Forbidden) as refused:
        await wf.tasks.complete(task_id, actor=OUTSIDER, outcome="approve", data=NOTE)
    assert refused.value.fields["code"] == "not_a_member"


async def test_forwarding_to_a_queue_leaves_it_ready_there(
    wf: WorkflowService, task_id: str
) -> None:
    await wf.tasks.claim(task_id, actor=ANA)
    view = await wf.tasks.forward(task_id, actor=ANA, to_queue="casework.supervisors")
    assert (view.queue, view.status, view.assignee) == ("casework.supervisors", "ready", None)
    assert (await trail(wf, task_id))[-1].action == "workflow.task.forwarded"


async def test_forwarding_to_a_member_assigns_it_to_them(wf: WorkflowService, task_id: str) -> None:
    view = await wf.tasks.forward(task_id, actor=ANA, to_user=BIA.id)
    assert (view.status, view.assignee) == ("claimed", BIA.id)


async def test_forwarding_to_someone_outside_the_queue_is_forbidden(
    wf: WorkflowService, task_id: str
) -> None:
    with pytest.raises(Forbidden) as refused:
        await wf.tasks.forward(task_id, actor=ANA, to_user=OUTSIDER.id)
    assert (refused.value.fields["code"], refused.value.fields["who"]) == ("not_a_member", "target")


async def test_forwarding_to_the_author_is_forbidden(wf: WorkflowService, task_id: str) -> None:
    with pytest.raises(Forbidden) as refused:
        await wf.tasks.forward(task_id, actor=ANA, to_user=AUTHOR.id)
    assert refused.value.fields["rule"] == "exclude_author"


async def test_forwarding_to_an_unknown_queue_is_not_found(
    wf: WorkflowService, task_id: str
) -> None:
    with pytest.raises(NotFound):
        await wf.tasks.forward(task_id, actor=ANA, to_queue="casework.nowhere")


async def test_forwarding_a_task_someone_else_holds_is_a_conflict(
    wf: WorkflowService, task_id: str
) -> None:
    await wf.tasks.claim(task_id, actor=ANA)
    with pytest.raises(Conflict):
        await wf.tasks.forward(task_id, actor=BIA, to_queue="casework.supervisors")


async def test_a_supervisor_may_forward_a_task_someone_else_holds(
    wf: WorkflowService, task_id: str
) -> None:
    await wf.tasks.claim(task_id, actor=ANA)
    view = await wf.tasks.forward(task_id, actor=BOSS, to_user=BIA.id)
    assert view.assignee == BIA.id
