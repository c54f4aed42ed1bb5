"""Operator repair: move one token to another node of the same version, with a reason."""

from __future__ import annotations

from datetime import timedelta

import pytest

from contracts.errors import ConcurrentModification, ValidationFailed
from contracts.workflow.types import StartRequest
from core.audit import read_trail
from core.clock import FixedClock
from services.workflow.bootstrap import WorkflowService
from services.workflow.runtime.services.migration import Migrator
from tests.fakes.purchase import PurchasePlugin, order, retryable
from tests.integration.migration.helpers import OPERATOR, waiting_purchases


async def test_repair_skips_a_waiting_approval_and_the_instance_runs_on(
    wf: WorkflowService, migrator: Migrator
) -> None:
    (instance_id,) = await waiting_purchases(wf, 1)
    await migrator.repair(
        instance_id,
        token_id="t",
        to_node="reserve_stock",
        reason="signed on paper",
        actor=OPERATOR,
    )
    await wf.delivery.drain()
    assert (await wf.engine.status(instance_id)).status == "completed"
    (task,) = await wf.engine.tasks(instance_id)
    assert task.status == "cancelled"


async def test_repair_is_audited_with_its_reason_and_recorded_in_history(
    wf: WorkflowService, migrator: Migrator
) -> None:
    (instance_id,) = await waiting_purchases(wf, 1)
    await migrator.repair(
        instance_id,
        token_id="t",
        to_node="reserve_stock",
        reason="signed on paper",
        actor=OPERATOR,
    )
    async with wf.engine._uow() as uow:
        trail = await read_trail(uow.conn, "workflow_instance", instance_id)
    (entry,) = [r.entry for r in trail if r.entry.action == "workflow.instance.repaired"]
    assert (entry.actor, entry.reason) == (OPERATOR, "signed on paper")
    assert entry.before is not None and entry.before["node"] == "manager_approval"
    assert entry.after is not None and entry.after["node"] == "reserve_stock"
    history = await wf.engine.history(instance_id)
    assert ("manager_approval", "reserve_stock", "transition.repaired") in [
        (h.from_node, h.to_node, h.event) for h in history
    ]


async def test_repair_onto_the_same_node_redoes_it_with_a_new_attempt_group(
    wf: WorkflowService, migrator: Migrator
) -> None:
    (instance_id,) = await waiting_purchases(wf, 1)
    await migrator.repair(
        instance_id, token_id="t", to_node="manager_approval", reason="redo", actor=OPERATOR
    )
    async with wf.engine._uow() as uow:
        old, new = await uow.tasks.of(instance_id)
    assert (old.status, old.attempt_group) == ("cancelled", 1)
    assert (new.status, new.attempt_group, new.node_id) == ("ready", 2, "manager_approval")


async def test_replay_rebuilds_the_state_after_a_repair(
    wf: WorkflowService, migrator: Migrator
) -> None:
    (instance_id,) = await waiting_purchases(wf, 1)
    await migrator.repair(
        instance_id, token_id="t", to_node="reserve_stock", reason="skip", actor=OPERATOR
    )
    await wf.delivery.drain()
    stored, replayed = await wf.engine.replayed_state(instance_id)
    assert stored.status == "completed" and replayed == stored


async def test_repairing_a_held_step_resolves_its_dead_letter(
    wf: WorkflowService, migrator: Migrator, clock: FixedClock, purchase: PurchasePlugin
) -> None:
    purchase.stock.fail_next.extend([retryable() for _ in range(5)])
    view = await wf.engine.start(
        StartRequest(definition_key="purchase.approval", context=order(100), actor=OPERATOR)
    )
    await wf.delivery.drain()
    for _ in range(4):
        clock.advance(timedelta(seconds=31))
        await wf.delivery.drain()
    assert (await wf.engine.status(view.id)).status == "stalled"
    await migrator.repair(
        view.id, token_id="t", to_node="reserve_stock", reason="partner fixed", actor=OPERATOR
    )
    await wf.delivery.drain()
    assert (await wf.engine.status(view.id)).status == "completed"
    async with wf.engine._uow() as uow:
        assert await uow.dead_letters.all() == []
        (letter,) = await uow.dead_letters.all(status="repaired")
    assert letter["instance_id"] == view.id


async def test_a_repair_needs_a_reason(wf: WorkflowService, migrator: Migrator) -> None:
    (instance_id,) = await waiting_purchases(wf, 1)
    with pytest.raises(ValidationFailed):
        await migrator.repair(
            instance_id, token_id="t", to_node="reserve_stock", reason="  ", actor=OPERATOR
        )
    assert (await wf.engine.status(instance_id)).current_nodes == ("manager_approval",)


@pytest.mark.parametrize(
    ("token_id", "to_node", "code"),
    [
        ("t", "nowhere", "unknown_node"),
        ("t", "request", "target_not_allowed"),
        ("t.9", "reserve_stock", "unknown_token"),
    ],
)
async def test_a_repair_to_an_impossible_place_is_refused(
    wf: WorkflowService, migrator: Migrator, token_id: str, to_node: str, code: str
) -> None:
    (instance_id,) = await waiting_purchases(wf, 1)
    with pytest.raises(ValidationFailed) as info:
        await migrator.repair(
            instance_id, token_id=token_id, to_node=to_node, reason="why", actor=OPERATOR
        )
    assert [e.code for e in info.value.errors] == [code]


async def test_a_repair_from_a_stale_read_is_refused(
    wf: WorkflowService, migrator: Migrator
) -> None:
    (instance_id,) = await waiting_purchases(wf, 1)
    seen = (await wf.engine.status(instance_id)).row_version
    await migrator.repair(
        instance_id, token_id="t", to_node="manager_approval", reason="redo", actor=OPERATOR
    )
    with pytest.raises(ConcurrentModification):
        await migrator.repair(
            instance_id,
            token_id="t",
            to_node="reserve_stock",
            reason="skip",
            actor=OPERATOR,
            expected_version=seen,
        )
