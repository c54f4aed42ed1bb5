"""Explicit migration of chosen in-flight instances: dry run, blockers, batches, trail, replay."""

from __future__ import annotations

from datetime import timedelta

import pytest

from contracts.errors import ValidationFailed
from core.audit import read_trail
from core.clock import FixedClock
from services.workflow.bootstrap import WorkflowService
from services.workflow.runtime.kernel.migration_plan import InstancePlan, MigrationRequest
from services.workflow.runtime.services.migration import Migrator
from tests.integration.migration.helpers import (
    OPERATOR,
    publish,
    purchase_v1,
    waiting_purchases,
    with_node,
)

RENAMED = {"manager_approval": "manager_review"}


def request(ids: list[str], mapping: dict[str, str] | None = None) -> MigrationRequest:
    return MigrationRequest(
        definition_key="purchase.approval",
        from_version=1,
        to_version=2,
        mapping=mapping if mapping is not None else RENAMED,
        instance_ids=tuple(ids),
    )


async def renamed_v2(wf: WorkflowService) -> None:
    await publish(wf, with_node(purchase_v1(), "manager_approval", id="manager_review"))


async def test_dry_run_reports_every_token_and_changes_nothing(
    wf: WorkflowService, migrator: Migrator
) -> None:
    ids = await waiting_purchases(wf, 2)
    await renamed_v2(wf)
    before = [await wf.engine.history(i) for i in ids]
    report = await migrator.plan(request(ids))
    assert report.dry_run and report.mapping_errors == ()
    assert [p.result for p in report.instances] == ["would_migrate", "would_migrate"]
    (token,) = report.instances[0].tokens
    assert (token.token_id, token.from_node, token.to_node, token.action) == (
        "t",
        "manager_approval",
        "manager_review",
        "reenter",
    )
    for instance_id, history in zip(ids, before, strict=True):
        assert (await wf.engine.status(instance_id)).definition_version == 1
        assert await wf.engine.history(instance_id) == history


async def test_an_unmapped_current_node_blocks_the_instance(
    wf: WorkflowService, migrator: Migrator
) -> None:
    (instance_id,) = await waiting_purchases(wf, 1)
    await renamed_v2(wf)
    report = await migrator.plan(request([instance_id], mapping={}))
    (plan,) = report.instances
    assert plan.result == "blocked"
    assert [(b.code, b.node_id) for b in plan.blockers] == [("unmapped_node", "manager_approval")]


async def test_a_mapping_to_a_node_missing_in_the_target_is_refused_before_any_change(
    wf: WorkflowService, migrator: Migrator
) -> None:
    (instance_id,) = await waiting_purchases(wf, 1)
    await renamed_v2(wf)
    wrong = {"manager_approval": "nowhere"}
    report = await migrator.plan(request([instance_id], mapping=wrong))
    assert [e.code for e in report.mapping_errors] == ["mapped_node_missing"]
    assert report.instances[0].blockers[0].code == "mapped_node_missing"
    with pytest.raises(ValidationFailed):
        await migrator.migrate(request([instance_id], mapping=wrong), actor=OPERATOR)
    assert (await wf.engine.status(instance_id)).definition_version == 1


async def test_a_form_change_on_an_open_task_blocks_the_instance(
    wf: WorkflowService, migrator: Migrator
) -> None:
    (instance_id,) = await waiting_purchases(wf, 1)
    await publish(wf, with_node(purchase_v1(), "manager_approval", form="purchase.review@1"))
    report = await migrator.migrate(request([instance_id], mapping={}), actor=OPERATOR)
    (plan,) = report.instances
    assert (plan.result, [b.code for b in plan.blockers]) == ("blocked", ["form_changed"])
    assert (await wf.engine.status(instance_id)).definition_version == 1


async def test_a_batch_moves_the_chosen_instances_and_leaves_the_others(
    wf: WorkflowService, migrator: Migrator
) -> None:
    chosen_a, chosen_b, left = await waiting_purchases(wf, 3)
    await renamed_v2(wf)
    seen: list[InstancePlan] = []
    report = await migrator.migrate(
        request([chosen_a, chosen_b]), actor=OPERATOR, reason="2027 rules", progress=seen.append
    )
    assert report.count("migrated") == 2 and len(seen) == 2
    for instance_id in (chosen_a, chosen_b):
        view = await wf.engine.status(instance_id)
        assert (view.definition_version, view.current_nodes) == (2, ("manager_review",))
        old, new = await wf.engine.tasks(instance_id)
        assert (old.node_id, old.status) == ("manager_approval", "cancelled")
        assert (new.node_id, new.status) == ("manager_review", "ready")
    untouched = await wf.engine.status(left)
    assert (untouched.definition_version, untouched.current_nodes) == (1, ("manager_approval",))


async def test_a_migrated_instance_continues_on_the_target_version(
    wf: WorkflowService, migrator: Migrator, clock: FixedClock
) -> None:
    (instance_id,) = await waiting_purchases(wf, 1)
    await renamed_v2(wf)
    await migrator.migrate(request([instance_id]), actor=OPERATOR)
    clock.advance(timedelta(hours=49))
    assert await wf.engine.tick() == 1
    view = await wf.engine.status(instance_id)
    assert (view.status, view.definition_version) == ("expired", 2)
    history = await wf.engine.history(instance_id)
    assert ("manager_review", "expired") in [(h.from_node, h.to_node) for h in history]


async def test_the_migration_is_in_history_and_audit_with_who_when_from_and_to(
    wf: WorkflowService, migrator: Migrator
) -> None:
    (instance_id,) = await waiting_purchases(wf, 1)
    await renamed_v2(wf)
    await migrator.migrate(request([instance_id]), actor=OPERATOR, reason="2027 rules")
    migrated = [h for h in await wf.engine.history(instance_id) if h.event == "migrated"]
    assert len(migrated) == 1
    assert migrated[0].actor == OPERATOR and migrated[0].at == wf.engine.clock.now()
    async with wf.engine._uow() as uow:
        trail = await read_trail(uow.conn, "workflow_instance", instance_id)
    (entry,) = [r.entry for r in trail if r.entry.action == "workflow.instance.migrated"]
    assert (entry.actor, entry.reason) == (OPERATOR, "2027 rules")
    assert entry.before is not None and entry.after is not None
    assert (entry.before["version"], entry.after["version"]) == (1, 2)
    assert entry.after["nodes"] == ["manager_review"]


async def test_replay_rebuilds_the_state_across_the_migration(
    wf: WorkflowService, migrator: Migrator, clock: FixedClock
) -> None:
    (instance_id,) = await waiting_purchases(wf, 1)
    await renamed_v2(wf)
    await migrator.migrate(request([instance_id]), actor=OPERATOR)
    stored, replayed = await wf.engine.replayed_state(instance_id)
    assert replayed == stored
    clock.advance(timedelta(hours=49))
    await wf.engine.tick()
    stored, replayed = await wf.engine.replayed_state(instance_id)
    assert stored.status == "expired"
    assert replayed == stored


async def test_an_unchanged_node_keeps_its_open_task(
    wf: WorkflowService, migrator: Migrator
) -> None:
    (instance_id,) = await waiting_purchases(wf, 1)
    renamed_definition = purchase_v1() | {"name": "Purchase approval (2027)"}
    await publish(wf, renamed_definition)
    (task_before,) = await wf.engine.tasks(instance_id)
    report = await migrator.migrate(request([instance_id], mapping={}), actor=OPERATOR)
    assert report.instances[0].tokens[0].action == "keep"
    (task_after,) = await wf.engine.tasks(instance_id)
    assert (task_after.id, task_after.status) == (task_before.id, "ready")
    stored, replayed = await wf.engine.replayed_state(instance_id)
    assert replayed == stored and (await wf.engine.status(instance_id)).definition_version == 2


async def test_an_instance_changed_since_the_dry_run_is_not_migrated(
    wf: WorkflowService, migrator: Migrator
) -> None:
    (instance_id,) = await waiting_purchases(wf, 1)
    await renamed_v2(wf)
    seen = (await migrator.plan(request([instance_id]))).instances[0].row_version
    assert seen is not None
    report = await migrator.migrate(
        request([instance_id]), actor=OPERATOR, expected_versions={instance_id: seen - 1}
    )
    assert [b.code for b in report.instances[0].blockers] == ["changed_since_dry_run"]
    assert (await wf.engine.status(instance_id)).definition_version == 1


async def test_a_migration_needs_chosen_instances(migrator: Migrator) -> None:
    with pytest.raises(ValidationFailed):
        await migrator.plan(request([]))
