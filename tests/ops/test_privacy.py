"""LGPD: retention purges personal values from closed instances and keeps the trail; a data
subject's export finds their records; operator views mask personal values."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import sqlalchemy as sa
from opskit import CPF, EMAIL, NAME, start

from core.audit import read_trail, verify_chain
from core.clock import FixedClock
from services.workflow.bootstrap import WorkflowService
from services.workflow.persistence import tables as t
from services.workflow.privacy import PURGED, Privacy, redact_dead_letter

PERSONAL = (NAME, EMAIL, CPF)


async def dump_instance(wf: WorkflowService, instance_id: str) -> str:
    """Every stored row of the instance, as text (what a database dump would show)."""
    parts: list[Any] = []
    async with wf.platform.database.connect() as conn:
        for table in (t.instances, t.history, t.step_runs, t.tasks, t.dead_letters):
            column = table.c.id if table is t.instances else table.c.instance_id
            rows = await conn.execute(sa.select(table).where(column == instance_id))
            parts += [dict(r._mapping) for r in rows]
    return json.dumps(parts, default=str)


async def test_retention_purges_personal_values_and_keeps_the_trail(
    wf: WorkflowService, clock: FixedClock
) -> None:
    instance_id = await start(wf, 500, retention_days=30)
    before = await wf.engine.status(instance_id)
    history_before = await wf.engine.history(instance_id)
    clock.advance(timedelta(days=31))
    report = await Privacy(wf.platform).purge_due()
    after = await wf.engine.status(instance_id)
    assert report.instances == [before.protocol] and report.keys == 3
    assert [after.context[k] for k in ("requester", "requester_email", "requester_cpf")] == [
        PURGED
    ] * 3
    assert (after.protocol, after.status, after.context["item"]) == (
        before.protocol,
        "completed",
        "paper",
    )
    assert [p for p in PERSONAL if p in await dump_instance(wf, instance_id)] == []
    history_after = await wf.engine.history(instance_id)
    assert [(h.event, h.at) for h in history_after] == [(h.event, h.at) for h in history_before]
    stored, rebuilt = await wf.engine.replayed_state(instance_id)
    assert stored == rebuilt
    async with wf.platform.database.connect() as conn:
        trail = await read_trail(conn, "workflow_instance", instance_id)
        chain = await verify_chain(conn)
    assert trail[0].entry.action == "workflow.instance.started"
    assert trail[-1].entry.action == "workflow.instance.personal_data_purged"
    assert chain.ok


async def test_nothing_is_purged_before_the_retention_runs_out(
    wf: WorkflowService, clock: FixedClock
) -> None:
    instance_id = await start(wf, 500, retention_days=30)
    clock.advance(timedelta(days=29))
    report = await Privacy(wf.platform).purge_due()
    assert report.instances == []
    assert (await wf.engine.status(instance_id)).context["requester"] == NAME


async def test_open_instances_are_never_purged(wf: WorkflowService, clock: FixedClock) -> None:
    instance_id = await start(wf, 20_000, retention_days=0)  # waits for a manager
    clock.advance(timedelta(hours=1))
    await Privacy(wf.platform).purge_due()
    assert (await wf.engine.status(instance_id)).context["requester_cpf"] == CPF


async def test_a_second_purge_changes_nothing(wf: WorkflowService, clock: FixedClock) -> None:
    await start(wf, 500, retention_days=1)
    clock.advance(timedelta(days=2))
    first = await Privacy(wf.platform).purge_due()
    second = await Privacy(wf.platform).purge_due()
    assert (len(first.instances), second.instances) == (1, [])


async def test_a_subject_export_holds_their_records_and_masks_third_parties(
    wf: WorkflowService,
) -> None:
    mine = await start(wf, 500)
    await start(wf, 700, name="João Souza", email="joao@example.org", cpf="987.654.321-00")
    export = await Privacy(wf.platform).export_subject("12345678909")  # the CPF, unformatted
    (record,) = export.records
    assert record.protocol == (await wf.engine.status(mine)).protocol
    assert record.matched == ["requester_cpf"]
    assert (record.data["requester_cpf"], record.data["requester_email"]) == (CPF, "***")
    assert record.data["item"] == "paper" and record.timeline
    assert "joao@example.org" not in json.dumps(record.data)


def test_a_dead_letter_view_masks_personal_payload_values() -> None:
    letter = {
        "node_id": "reserve_stock",
        "payload": {"item": "paper", "requester_cpf": CPF},
        "last_error": {"type": "RetryableFailure", "requester_email": EMAIL},
    }
    view = redact_dead_letter(letter, frozenset({"requester_cpf", "requester_email"}))
    assert view["payload"] == {"item": "paper", "requester_cpf": "***"}
    assert view["last_error"] == {"type": "RetryableFailure", "requester_email": "***"}
