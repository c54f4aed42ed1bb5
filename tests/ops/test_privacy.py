"""LGPD: retention purges personal values from closed instances and keeps the trail; a data
subject's export holds all of their personal values and no one else's; operator views mask
personal values."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
from datetime import timedelta
from pathlib import Path
from typing import Any

import msgspec
import pytest
import sqlalchemy as sa
from opskit import CPF, EMAIL, NAME, REQUESTER, order, personal_purchase, start

from contracts.kernel import Actor
from contracts.workflow.types import StartRequest
from core.audit import read_trail
from core.audit_verify import verify_chain
from core.clock import FixedClock
from services.workflow.bootstrap import WorkflowService
from services.workflow.persistence import tables as t
from services.workflow.privacy import PURGED, Privacy, redact_dead_letter
from tests.integration.durable.harness import ROOT, TRAMITA

PERSONAL = (NAME, EMAIL, CPF)
OTHER = ("João Souza", "joao@example.org", "987.654.321-00")


def with_witness() -> dict[str, Any]:
    """The personal purchase whose start also takes a witness's name: a third party."""
    defn = personal_purchase()
    defn["personal"] = [*defn["personal"], "witness_name"]
    defn["third_party"] = ["witness_name"]
    start_node = next(n for n in defn["nodes"] if n["type"] == "start")
    start_node["produces"] = [*start_node["produces"], "witness_name"]
    return defn


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


@pytest.mark.parametrize("subject", ["12345678909", EMAIL.upper(), NAME])
async def test_a_subject_export_holds_all_their_personal_values_and_no_one_elses(
    wf: WorkflowService, subject: str
) -> None:
    mine = await start(wf, 500)
    await start(wf, 700, name=OTHER[0], email=OTHER[1], cpf=OTHER[2])
    export = await Privacy(wf.platform).export_subject(subject)  # CPF unformatted, any case
    (record,) = export.records
    assert record.protocol == (await wf.engine.status(mine)).protocol
    assert len(record.matched) == 1 and record.timeline
    assert [record.data[k] for k in ("requester", "requester_email", "requester_cpf")] == [
        NAME,
        EMAIL,
        CPF,
    ]
    assert record.data["item"] == "paper"
    assert [o for o in OTHER if o in msgspec.json.encode(export).decode()] == []


async def test_a_third_partys_values_in_the_subjects_record_stay_masked_and_vice_versa(
    wf: WorkflowService,
) -> None:
    await wf.engine.publisher.publish(with_witness(), actor=Actor.system("test"))
    context = {**order(500), "witness_name": OTHER[0]}
    await wf.engine.start(
        StartRequest(definition_key="purchase.approval", context=context, actor=REQUESTER)
    )
    await wf.delivery.drain()
    privacy = Privacy(wf.platform)
    (requesters,) = (await privacy.export_subject(CPF)).records
    assert (requesters.data["requester"], requesters.data["witness_name"]) == (NAME, "***")
    (witness,) = (await privacy.export_subject(OTHER[0])).records
    assert witness.matched == ["witness_name"]
    assert witness.data["witness_name"] == OTHER[0]
    assert [witness.data[k] for k in ("requester", "requester_email", "requester_cpf")] == [
        "***"
    ] * 3


async def test_a_record_found_only_through_its_author_shows_no_personal_value(
    wf: WorkflowService,
) -> None:
    await start(wf, 500)
    (record,) = (await Privacy(wf.platform).export_subject(REQUESTER.id)).records
    assert record.matched == ["author"]
    assert [record.data[k] for k in ("requester", "requester_email", "requester_cpf")] == [
        "***"
    ] * 3


async def test_the_export_command_prints_only_the_json_document(
    wf: WorkflowService, database_url: str, tmp_path: Path
) -> None:
    await start(wf, 500)
    await start(wf, 700, name=OTHER[0], email=OTHER[1], cpf=OTHER[2])
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TRAMITA_DATABASE_URL": database_url}
    done = await asyncio.to_thread(
        subprocess.run,
        [*TRAMITA, "privacy", "export", CPF],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    export = json.loads(done.stdout)  # one document: no log line mixed into stdout
    (record,) = export["records"]
    assert (record["data"]["requester"], record["data"]["requester_email"]) == (NAME, EMAIL)
    assert [o for o in OTHER if o in done.stdout + done.stderr] == []


async def test_the_purge_command_says_what_it_does_and_counts_with_progress(
    wf: WorkflowService, database_url: str, tmp_path: Path
) -> None:
    for amount in (500, 600, 700):
        await start(wf, amount, retention_days=1)  # closed on 2026-03-02: long past retention
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "TRAMITA_DATABASE_URL": database_url,
        "TRAMITA_LANG": "pt_BR",
    }
    done = await asyncio.to_thread(
        subprocess.run,
        [*TRAMITA, "privacy", "purge", "--progress"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines() == [
        "expurgando os dados pessoais dos processos encerrados com o prazo de retenção vencido…",
        "3 processos expurgados…",
    ]
    assert done.stdout.startswith("expurgados: 3 instância(s)")


def test_a_dead_letter_view_masks_personal_payload_values() -> None:
    letter = {
        "node_id": "reserve_stock",
        "payload": {"item": "paper", "requester_cpf": CPF},
        "last_error": {"type": "RetryableFailure", "requester_email": EMAIL},
    }
    view = redact_dead_letter(letter, frozenset({"requester_cpf", "requester_email"}))
    assert view["payload"] == {"item": "paper", "requester_cpf": "***"}
    assert view["last_error"] == {"type": "RetryableFailure", "requester_email": "***"}
