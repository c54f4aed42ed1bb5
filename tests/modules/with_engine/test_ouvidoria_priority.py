"""The shipped ombudsman definition's priority rule: a denunciation's answer task opens at high
priority (audited as set by the rule), any other kind at normal."""

from __future__ import annotations

from typing import Any

from core.app import Platform
from core.audit import read_trail
from modules.esic.demo import ensure_staff
from modules.esic.domain import ManifestationKind
from modules.esic.records import Cases
from services.workflow.bootstrap import WorkflowService
from services.workflow.definition.model import PRIORITY_LEVELS


async def _answer_task(booted: Platform, service: WorkflowService, kind: ManifestationKind) -> Any:
    case = await Cases(booted).receive(kind=kind, body="obra parada na rua")
    await service.delivery.drain()
    assert case.instance_id is not None
    (task,) = [t for t in await service.engine.tasks(case.instance_id) if t.status == "ready"]
    assert task.node_id == "answer"
    return task


async def test_a_denunciation_opens_at_high_priority_set_by_the_rule(
    booted: Platform, service: WorkflowService
) -> None:
    await ensure_staff(booted)
    task = await _answer_task(booted, service, ManifestationKind.DENUNCIATION)
    assert task.priority == PRIORITY_LEVELS["high"] == 5
    async with service.engine._uow() as uow:
        records = await read_trail(uow.conn, "workflow_task", task.id)  # type: ignore[attr-defined]
    (by_rule,) = [r.entry for r in records if r.entry.action == "workflow.task.prioritised"]
    assert (by_rule.actor.id, by_rule.reason) == ("rules", "set by rule answer")


async def test_a_complaint_opens_at_normal_priority(
    booted: Platform, service: WorkflowService
) -> None:
    await ensure_staff(booted)
    task = await _answer_task(booted, service, ManifestationKind.COMPLAINT)
    assert task.priority == 0
