"""The instance page (status, protocol, current nodes, deadlines, step runs, timeline, tasks,
audit, the parent that called it and the processes it called) and the links to its operator
actions (``ui.instance_actions``)."""

from __future__ import annotations

from datetime import datetime
from functools import partial
from typing import Any

from litestar import Controller, Request, Response, get
from litestar.params import FromPath

from contracts.workflow.types import TERMINAL_STATUSES
from core.i18n import N_, gettext
from core.localtime import DEFAULT_ZONE, datetime_text
from services.workflow.api.access import access_of, viewer_for
from services.workflow.api.deadlines import deadlines_of
from services.workflow.ui.access_pages import access_section
from services.workflow.ui.case_panel import case_panel
from services.workflow.ui.deadline_view import deadline_stories
from services.workflow.ui.deps import engine_of, reads_of
from services.workflow.ui.documents import page_documents, size_text
from services.workflow.ui.failures import failure_text
from services.workflow.ui.outcomes import history_event, outcome_names
from services.workflow.ui.people import names_of
from services.workflow.ui.stuck import status_labels
from services.workflow.ui.web import page, page_requires, platform_of, ui_actor, zone_of

TASK_STATUSES = {
    "ready": N_("Waiting in the queue"),
    "claimed": N_("Claimed"),
    "completed": N_("Completed"),
    "cancelled": N_("Cancelled"),
}
MAX_ERROR_DETAIL = 120
"""Characters of a step run's error shown in its table cell (the rest is cut with an ellipsis)."""


def error_parts(error: dict[str, Any] | None) -> tuple[str, str]:
    """A step run's error as (class, the other identifiers the executor kept, truncated).

    The executor keeps the exception's type and its structured fields (problem slug, code,
    status, short identifiers), not its message: what a partner wrote stays out of the page.
    """
    if not error:
        return "", ""
    detail = "; ".join(f"{key}={value}" for key, value in error.items() if key != "type")
    if len(detail) > MAX_ERROR_DETAIL:
        detail = detail[: MAX_ERROR_DETAIL - 1].rstrip() + "…"
    return str(error.get("type") or "?"), detail


def fmt_dt_seconds(value: datetime | None, zone_name: str = DEFAULT_ZONE) -> str:
    """Step runs are seconds apart (retries, leases): their times show the seconds."""
    return datetime_text(value, zone_name, seconds=True)


ACCESS_LEVELS = {"public": N_("Public"), "restricted": N_("Restricted"), "secret": N_("Secret")}


async def access_text(request: Request[Any, Any, Any], instance_id: str) -> str:
    """The case's access level and legal ground, in the reader's language."""
    policy = access_of(request)
    view = await policy.view(instance_id, await viewer_for(request, ui_actor(request).id))
    text = gettext(ACCESS_LEVELS[view.level])
    if view.ground:
        text += " — " + gettext(policy.grounds.get(view.ground, view.ground))
    return text


class InstancePageController(Controller):
    path = "/cms/workflow/instances/{instance_id:str}"
    include_in_schema = False

    @get("/", guards=[page_requires("workflow.read")])
    async def show(
        self, request: Request[Any, Any, Any], instance_id: FromPath[str]
    ) -> Response[Any]:
        engine = engine_of(request)
        # A restricted or secret case: its opening is audited before anything of it is read.
        await access_of(request).record_opening(instance_id, ui_actor(request))
        view = await engine.status(instance_id)
        reads = reads_of(request)
        history = await engine.history(instance_id)
        definition = await engine.definition_document(instance_id)
        named = outcome_names(definition)
        tasks = await engine.tasks(instance_id)
        audit = await reads.audit_trail(instance_id)
        case = await case_panel(request, view, tasks)
        viewer = await viewer_for(request, ui_actor(request).id)
        parent = (  # a parent or child the person may not see is not shown at all
            await reads.linked_instance(view.parent_instance_id, viewer)
            if view.parent_instance_id
            else None
        )
        people = [
            *case.people,
            *(h.actor.id for h in history if h.actor and h.actor.kind == "user"),
            *(a.actor.id for a in audit if a.actor.kind == "user"),
            *(t.assignee for t in tasks),
        ]
        return page(
            request,
            "instance.html",
            instance=view,
            failure=failure_text(view.failure, definition),
            step_runs=await reads.step_runs(instance_id),
            error_parts=error_parts,
            dt_s=partial(fmt_dt_seconds, zone_name=zone_of(request)),
            history=history,
            history_event=partial(history_event, named),
            tasks=tasks,
            documents=await page_documents(request, instance_id),
            doc_size=size_text,
            audit=audit,
            case=case,
            parent=parent,
            children=await reads.called_instances(view.id, viewer),
            names=await names_of(request, people),
            letters=await reads.dead_letters("open", None, 100, instance_id=view.id),
            deadlines=await deadlines_of(request).show(view.id),
            msg=request.query_params.get("msg"),
            access=await access_text(request, view.id),
            access_form=await access_section(request, view.id),
            status_label=status_labels(),
            is_open=view.status not in TERMINAL_STATUSES,
            task_label={key: gettext(label) for key, label in TASK_STATUSES.items()},
            deadline_stories=await deadline_stories(request, instance_id),
            can_admin=await platform_of(request).permissions.has(
                ui_actor(request).id, "workflow.admin"
            ),
        )
