"""A migration changes only what comes after it: the citizen's timeline keeps the steps (labels
and dates) the instance went through on its old version, and a person's task moved to a renamed
node keeps when the work arrived."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from contracts.kernel import Actor
from core.clock import FixedClock
from services.workflow.bootstrap import WorkflowService
from services.workflow.persistence.search_repo import SqlApiReads
from services.workflow.public.timeline import PublicTimeline, build_timeline
from services.workflow.runtime.kernel.migration_plan import MigrationRequest
from services.workflow.runtime.services.migration import Migrator
from tests.integration.human.casework import enrol, uid
from tests.integration.migration.helpers import (
    OPERATOR,
    publish,
    purchase_v1,
    waiting_purchases,
    with_node,
)

MAPPING = {"manager_approval": "manager_review"}
MANAGER = Actor(id=uid("manager-3"))


def v2() -> dict[str, Any]:
    """``check`` renamed ``screening`` and relabelled, ``manager_approval`` renamed too."""
    doc = with_node(purchase_v1(), "check", id="screening", public={"label": "Triagem"})
    return with_node(doc, "manager_approval", id="manager_review")


async def timeline(wf: WorkflowService, instance_id: str) -> PublicTimeline:
    protocol = (await wf.engine.status(instance_id)).protocol
    reads = SqlApiReads(wf.platform.database)  # type: ignore[attr-defined]
    source = await reads.public_source(protocol)
    assert source is not None
    return build_timeline(source)


async def migrate(migrator: Migrator, instance_id: str) -> None:
    request = MigrationRequest(
        definition_key="purchase.approval",
        from_version=1,
        to_version=2,
        mapping=MAPPING,
        instance_ids=(instance_id,),
    )
    report = await migrator.migrate(request, actor=OPERATOR)
    assert report.count("migrated") == 1


async def test_the_citizen_timeline_keeps_the_steps_of_the_old_version(
    wf: WorkflowService, migrator: Migrator, clock: FixedClock
) -> None:
    (instance_id,) = await waiting_purchases(wf, 1)
    before = await timeline(wf, instance_id)
    assert [s.label for s in before.steps] == ["Recebido", "Em análise", "Aguardando aprovação"]
    await publish(wf, v2())
    clock.advance(timedelta(days=1))
    await migrate(migrator, instance_id)
    assert (await timeline(wf, instance_id)).steps == before.steps


async def test_after_a_migration_new_steps_follow_the_new_version(
    wf: WorkflowService, migrator: Migrator, clock: FixedClock
) -> None:
    await enrol(wf, "purchase.managers", "manager-3")
    (instance_id,) = await waiting_purchases(wf, 1)
    before = await timeline(wf, instance_id)
    await publish(wf, with_node(v2(), "charge_payment", public={"label": "Pagamento (2027)"}))
    clock.advance(timedelta(days=1))
    await migrate(migrator, instance_id)
    clock.advance(timedelta(hours=1))
    (task,) = [t for t in await wf.engine.tasks(instance_id) if t.status == "ready"]
    await wf.engine.complete(
        task.id, actor=MANAGER, outcome="approve", data={"approval_comment": "ok"}
    )
    await wf.delivery.drain()
    after = await timeline(wf, instance_id)
    assert after.steps[: len(before.steps)] == before.steps
    assert [s.label for s in after.steps[len(before.steps) :]] == ["Pagamento (2027)", "Concluído"]
    assert all(s.at == clock.now() for s in after.steps[len(before.steps) :])


async def test_a_task_moved_to_a_renamed_node_keeps_when_the_work_arrived(
    wf: WorkflowService, migrator: Migrator, clock: FixedClock
) -> None:
    (instance_id,) = await waiting_purchases(wf, 1)
    (original,) = await wf.engine.tasks(instance_id)
    arrived = original.created_at
    await publish(wf, v2())
    clock.advance(timedelta(days=1))
    await migrate(migrator, instance_id)
    old, new = await wf.engine.tasks(instance_id)
    assert (old.id, old.status, old.created_at) == (original.id, "cancelled", arrived)
    assert (new.node_id, new.status, new.created_at) == ("manager_review", "ready", arrived)
