"""Bulk actions from the inbox, answered task by task.

Each selected task is its own TaskService call (one refusal never undoes the others), and the
answer page lists every task with what happened to it: done, or refused and why, in words a
clerk reads (claimed by another clerk, not a member of the queue, unknown queue…). The reasons
come from the refusal's ``code`` (fixed keys, never the exception's text).

The answer is the POST's own page, not a redirect: it has no session to travel through. A
reload is harmless because the form carries an idempotency key drawn when the inbox was shown
(``bulk_key``): the same key and action replay the stored answers instead of acting again.
A selection past the threshold (``OperationService.in_background``) runs in the background
instead: the POST starts an operation and redirects to its progress page.
"""

from __future__ import annotations

import hashlib
from typing import Any

import msgspec
from litestar import Controller, Request, Response, post

from contracts.errors import BadRequest
from contracts.workflow.types import TaskView
from core.i18n import gettext
from services.workflow.api.access import viewer_for
from services.workflow.api.operation_runs import operations_of
from services.workflow.labels import REFUSED, TASK_REFUSALS
from services.workflow.runtime.services.human_tasks import BulkItem
from services.workflow.ui.deps import inbox_of, tasks_of
from services.workflow.ui.people import names_of
from services.workflow.ui.web import page, page_requires, see_other, ui_actor

UNKNOWN_TASK = "unknown_task"

MAX_BULK = 200


class BulkRow(msgspec.Struct, frozen=True, kw_only=True):
    """One line of the answer: the task (when it exists) and what happened to it."""

    task_id: str
    ok: bool
    reason: str | None
    task: TaskView | None


def reason_of(item: BulkItem) -> str | None:
    """The pt-BR (or English) sentence for a refusal; ``None`` for a task that was done."""
    if item.ok:
        return None
    code = item.code
    if code is None and item.problem == "idempotency-key-reused":
        code = "idempotency_key_reused"
    text = TASK_REFUSALS.get(f"{code}:{item.who}") or TASK_REFUSALS.get(code or "") or REFUSED
    return gettext(text)


def report(items: list[BulkItem], before: dict[str, TaskView]) -> list[BulkRow]:
    """Rows in the order the tasks were selected; a done task shows its state after. A task
    refused as unknown (a hidden case's task is too) shows its id only, never its case."""
    shown = dict(before)
    for item in items:
        if item.code == UNKNOWN_TASK:
            shown.pop(item.task_id, None)
    return [
        BulkRow(
            task_id=item.task_id,
            ok=item.ok,
            reason=reason_of(item),
            task=item.task if item.task is not None else shown.get(item.task_id),
        )
        for item in items
    ]


def _key(form: Any, action: str, target: str) -> str | None:
    base = str(form.get("bulk_key") or "").strip()
    if not base or len(base) > 64:
        return None
    digest = hashlib.sha256(target.encode()).hexdigest()[:12]
    return f"ui:{base}:{action}:{digest}"


class BulkController(Controller):
    path = "/cms/workflow/tasks/bulk"
    include_in_schema = False
    guards = [page_requires("workflow.tasks")]

    @post("/", status_code=200)
    async def bulk(self, request: Request[Any, Any, Any]) -> Response[Any]:
        form = await request.form()
        ids = list(dict.fromkeys(str(t) for t in form.getall("task_ids", [])))[:MAX_BULK]
        action = str(form.get("action") or "")
        actor = ui_actor(request)
        service = tasks_of(request)
        to_queue = str(form.get("bulk_queue") or "").strip() or None
        to_user = str(form.get("bulk_user") or "").strip() or None
        if action not in ("claim", "forward", "assign"):
            raise BadRequest("unknown bulk action", code="invalid_action")
        if action == "forward" and to_queue is None:
            raise BadRequest("choose a queue to forward to", code="missing_queue")
        if action == "assign" and to_user is None:
            raise BadRequest("choose a person to forward to", code="missing_user")
        inbox = inbox_of(request)
        before = await inbox.views(ids)
        target = to_queue if action == "forward" else to_user if action == "assign" else ""
        key = _key(form, action, target or "")
        operations = operations_of(request)
        viewer = await viewer_for(request, actor.id)  # a hidden case's task: an unknown task
        if operations.in_background(len(ids)):
            started = await operations.start(
                f"bulk_{action}",
                ids,
                actor=actor,
                params={"to_queue": to_queue, "to_user": to_user},
                viewer=viewer,
            )
            return see_other(f"/cms/workflow/operations/{started.id}")
        if action == "claim":
            items = await service.bulk_claim(ids, actor=actor, idempotency_key=key, viewer=viewer)
        else:
            items = await service.bulk_reassign(
                ids,
                actor=actor,
                to_queue=to_queue if action == "forward" else None,
                to_user=to_user if action == "assign" else None,
                idempotency_key=key,
                viewer=viewer,
            )
        rows = report(items, before)
        people = {r.task.assignee for r in rows if r.task and r.task.assignee}
        return page(
            request,
            "bulk_result.html",
            rows=rows,
            done=sum(1 for r in rows if r.ok),
            refused=sum(1 for r in rows if not r.ok),
            action=action,
            names=await names_of(request, people),
            queue_names={q.key: q.name for q in await inbox.queues(None)},
            me=actor.id,
        )
