"""The task page: the case (``case_panel``) beside the task's form from its versioned schema,
and completing it.

A validation failure re-renders the page with what the person typed, an error summary at the
top linking to each field, every message tied to its input by ``aria-describedby`` and the
first invalid input focused by ``autofocus`` (no script moves focus: pages work without JS).
Catching ``ValidationFailed`` here is rendering, not translation to HTTP: the problem still
comes from the task service, and every other error takes the page error handler.
"""

from __future__ import annotations

from typing import Any

from litestar import Controller, Request, Response, get, post
from litestar.params import FromPath

from contracts.errors import Conflict, NotFound, ValidationFailed
from contracts.workflow.types import TaskView
from core.i18n import gettext
from services.workflow.api.access import access_of
from services.workflow.labels import TASK_REFUSALS
from services.workflow.runtime.ports.human import SUPERVISOR_PERMISSION
from services.workflow.ui.case_panel import case_panel
from services.workflow.ui.deadline_view import badges_of, deadline_stories
from services.workflow.ui.deps import engine_of, tasks_of
from services.workflow.ui.documents import page_documents, size_text
from services.workflow.ui.form_view import (
    errors_by_field,
    field_views,
    find_schema,
    submitted_values,
)
from services.workflow.ui.inbox import PRIORITY_LEVELS
from services.workflow.ui.outcomes import outcome_names_of, outcome_text
from services.workflow.ui.people import names_of
from services.workflow.ui.web import page, page_requires, platform_of, see_other, ui_actor


async def _task(request: Request[Any, Any, Any], instance_id: str, task_id: str) -> TaskView:
    for task in await engine_of(request).tasks(instance_id):
        if task.id == task_id:
            return task
    raise NotFound("unknown task", task_id=task_id)


MAX_ITEM_TEXT = 200
"""A multi-instance task's item is shown up to this many characters (it is the case's data)."""


def item_text(value: Any) -> str:
    """A multi-instance task's item as a person reads it: a text or number as it is, a map as
    ``key: value`` pairs, a list joined by commas; cut at ``MAX_ITEM_TEXT``."""
    if isinstance(value, bool):
        text = gettext("Yes") if value else gettext("No")
    elif isinstance(value, dict):
        text = ", ".join(f"{k}: {item_text(v)}" for k, v in value.items())
    elif isinstance(value, list | tuple):
        text = ", ".join(item_text(v) for v in value)
    else:
        text = "—" if value is None or value == "" else str(value)
    return text if len(text) <= MAX_ITEM_TEXT else text[: MAX_ITEM_TEXT - 1] + "…"


async def _render(
    request: Request[Any, Any, Any],
    task: TaskView,
    *,
    values: dict[str, Any],
    errors: dict[str, str],
    outcome: str | None,
    status_code: int = 200,
) -> Response[Any]:
    schema = find_schema(platform_of(request).registrations.forms, task.form) if task.form else None
    fields = field_views(schema, values, errors) if schema else []
    summary = [(f"field-{f.id}", f.label, f.error) for f in fields if f.error]
    if "__outcome__" in errors:
        summary.insert(
            0, ("outcome-" + task.outcomes[0], gettext("Decision"), errors["__outcome__"])
        )
    if "__form__" in errors:
        summary.append(("task-form", gettext("Form"), errors["__form__"]))
    first = next((f.id for f in fields if f.error), None)
    engine = engine_of(request)
    view = await engine.status(task.instance_id)
    case = await case_panel(request, view, await engine.tasks(task.instance_id))
    named = await outcome_names_of(request, view) if task.outcomes else {}
    return page(
        request,
        "task.html",
        status_code=status_code,
        task=task,
        item=item_text(task.multi.value) if task.multi else None,
        schema=schema,
        fields=fields,
        summary=summary,
        first_invalid=first,
        outcome=outcome,
        outcome_error=errors.get("__outcome__"),
        outcomes=[(o, outcome_text(named, task.node_id, o)) for o in task.outcomes],
        me=ui_actor(request).id,
        case=case,
        names=await names_of(request, [task.assignee, *case.people]),
        documents=await page_documents(request, task.instance_id),
        doc_size=size_text,
        deadline_now=(await badges_of(request, [task])).get(task.id),
        deadline_stories=await deadline_stories(request, task.instance_id),
        priority_levels=[(k, gettext(v)) for k, v in PRIORITY_LEVELS.items()],
        can_prioritise=task.status in ("ready", "claimed")
        and await platform_of(request).directory.has(ui_actor(request).id, SUPERVISOR_PERMISSION),
    )


class TaskPageController(Controller):
    path = "/cms/workflow/instances/{instance_id:str}/tasks/{task_id:str}"
    include_in_schema = False
    guards = [page_requires("workflow.tasks")]

    @get("/")
    async def show(
        self, request: Request[Any, Any, Any], instance_id: FromPath[str], task_id: FromPath[str]
    ) -> Response[Any]:
        task = await _task(request, instance_id, task_id)
        # The case panel shows the case: a restricted or secret one's opening is audited first
        # (a form sent back with errors is the same opening, not another).
        await access_of(request).record_opening(task.instance_id, ui_actor(request))
        return await _render(request, task, values={}, errors={}, outcome=None)

    @post("/", status_code=303)
    async def complete(
        self, request: Request[Any, Any, Any], instance_id: FromPath[str], task_id: FromPath[str]
    ) -> Response[Any]:
        task = await _task(request, instance_id, task_id)
        form = await request.form()
        schema = (
            find_schema(platform_of(request).registrations.forms, task.form) if task.form else None
        )
        values = submitted_values(schema, form) if schema else {}
        outcome = str(form.get("outcome") or "") or None
        errors: dict[str, str] = {}
        status = 422
        if task.outcomes and outcome not in task.outcomes:
            errors["__outcome__"] = gettext("Choose a decision.")
            outcome = None
        if not errors:
            try:
                await tasks_of(request).complete(
                    task.id, actor=ui_actor(request), outcome=outcome, data=values
                )
                return see_other("/cms/workflow/inbox?msg=completed")
            except ValidationFailed as exc:
                known = {f.id for f in schema.fields} if schema else set()
                errors = errors_by_field(exc.errors, known)
                if not errors:
                    errors["__form__"] = gettext("The form has errors.")
            except Conflict as exc:  # a second task of a multi-instance step: say so on the page
                if exc.fields.get("code") != "distinct_people":
                    raise
                errors["__form__"] = gettext(TASK_REFUSALS["distinct_people"])
                status = 409
        return await _render(
            request, task, values=values, errors=errors, outcome=outcome, status_code=status
        )
