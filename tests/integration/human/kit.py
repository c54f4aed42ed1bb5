"""Shortcuts the human-work tests share: start a case, find its open task, read a trail."""

from __future__ import annotations

from contracts.kernel import Actor, AuditEntry
from contracts.workflow.types import StartRequest, TaskView
from core.audit import read_trail
from services.workflow.bootstrap import WorkflowService
from tests.integration.human.casework import enrol, uid

AUTHOR = Actor(id=uid("author-1"))
ANA = Actor(id=uid("ana"))
BIA = Actor(id=uid("bia"))
CAIO = Actor(id=uid("caio"))
OUTSIDER = Actor(id=uid("outsider"))
BOSS = Actor(id=uid("boss"))
SUPERVISOR = ("workflow.tasks", "casework.review", "workflow.admin")
NOTE = {"decision_note": "looks right", "amount": 10}


async def staff(wf: WorkflowService) -> None:
    """ana, bia, caio and the author review; boss supervises; outsider holds the permission
    but is in no queue."""
    boss = {"profile": "supervisor", "permissions": SUPERVISOR}
    await enrol(wf, "casework.reviewers", "boss", **boss)  # type: ignore[arg-type]
    await enrol(wf, "casework.supervisors", "boss", **boss)  # type: ignore[arg-type]
    await enrol(wf, "casework.reviewers", "ana", "bia", "caio", "author-1")
    await enrol(wf, "casework.supervisors", "outsider")
    await wf.catalog.remove_member("casework.supervisors", "outsider", actor=Actor.system("t"))


async def open_case(wf: WorkflowService, title: str = "case") -> tuple[str, TaskView]:
    view = await wf.engine.start(
        StartRequest(definition_key="casework.review", context={"title": title}, actor=AUTHOR)
    )
    await wf.delivery.drain()
    (task,) = [t for t in await wf.engine.tasks(view.id) if t.status in ("ready", "claimed")]
    return view.id, task


async def trail(wf: WorkflowService, task_id: str) -> list[AuditEntry]:
    async with wf.engine._uow() as uow:
        records = await read_trail(uow.conn, "workflow_task", task_id)
    return [r.entry for r in records]
