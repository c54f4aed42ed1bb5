"""Operator actions on one case, each a confirmation page with a reason (``ui.actions``):

- cancel (``workflow.cancel``): ``Engine.cancel``, which also closes the case's dead letters;
- repair — move a token to a node of the same version, or put it back on its own node to run
  the step again (``workflow.operate``): ``Migrator.repair``, guarded by the row version the
  page was read at, so a repeated or stale form changes nothing;
- extend a legal deadline with a justification (``workflow.operate``):
  ``DeadlineService.extend``, the same call as ``tramita deadline extend``;
- issue the citizen's tracking link (``workflow.read``, as ``POST /api/v1/.../public-link``):
  ``api.instances.issue_public_link``, audited with the reason.

Each reuses the runtime operation the API and the CLI call; none has a second implementation.
"""

from __future__ import annotations

from typing import Any

from litestar import Controller, Request, Response, get, post
from litestar.params import FromPath

from contracts.errors import ValidationFailed
from contracts.workflow.types import InstanceView
from core.i18n import gettext
from core.localtime import datetime_text
from services.workflow.api.deadlines import deadlines_of
from services.workflow.api.instances import issue_public_link
from services.workflow.api.migrations import migrator_of
from services.workflow.ui.actions import Action, Choice, perform, show
from services.workflow.ui.deps import engine_of
from services.workflow.ui.web import page, page_requires, see_other, ui_actor

INSTANCES = "/cms/workflow/instances"


def _case(instance_id: str) -> str:
    return f"{INSTANCES}/{instance_id}"


def _facts(view: InstanceView) -> list[tuple[str, str]]:
    return [
        (gettext("Case"), view.protocol),
        (gettext("Definition"), f"{view.definition_key} v{view.definition_version}"),
        (gettext("Current steps"), ", ".join(view.current_nodes) or "—"),
    ]


def _cancel(view: InstanceView) -> Action:
    return Action(
        title=gettext("Cancel case %(protocol)s") % {"protocol": view.protocol},
        intro=gettext(
            "Cancelling ends the case for good: its open tasks and timers stop and its dead "
            "letters close. The requester's timeline shows it as cancelled."
        ),
        url=f"{_case(view.id)}/cancel",
        back=_case(view.id),
        button=gettext("Cancel the case"),
        facts=_facts(view),
        choices=(
            Choice(
                name="compensate",
                label=gettext("Undo the completed steps first?"),
                options=(
                    ("no", gettext("No: only cancel")),
                    (
                        "yes",
                        gettext(
                            "Yes: run the compensation of each completed step, most recent "
                            "first, then cancel"
                        ),
                    ),
                ),
                selected="no",
            ),
        ),
        danger=True,
    )


async def _repair(request: Request[Any, Any, Any], view: InstanceView) -> Action:
    engine = engine_of(request)
    tokens = await engine.tokens(view.id)
    nodes = (await engine.definition_document(view.id)).get("nodes") or []
    targets = [
        (str(n["id"]), f"{n.get('name') or n['id']} ({n['id']})")
        for n in nodes
        if isinstance(n, dict) and "id" in n and n.get("type") != "start"
    ]
    return Action(
        title=gettext("Repair case %(protocol)s") % {"protocol": view.protocol},
        intro=gettext(
            "Moves one position of the case to another step of the same version. Choosing the "
            "step it is on runs that step again (a new attempt)."
        ),
        url=f"{_case(view.id)}/repair?row_version={view.row_version}",
        back=_case(view.id),
        button=gettext("Move"),
        facts=_facts(view),
        choices=[
            Choice(
                name="token",
                label=gettext("Position to move"),
                options=[(t.id, f"{t.node_id} ({t.id})") for t in tokens],
            ),
            Choice(
                name="to_node",
                label=gettext("Step to move it to"),
                options=targets,
                selected=tokens[0].node_id if tokens else "",
            ),
        ],
    )


def _extend(view: InstanceView, name: str, due: str) -> Action:
    return Action(
        title=gettext("Extend deadline %(name)s") % {"name": name},
        intro=gettext(
            "Extends the deadline by the extra days its rule allows (once, where the law says "
            "so). The justification is kept in the audit trail and the deadline's history."
        ),
        url=f"{_case(view.id)}/deadlines/{name}/extend",
        back=_case(view.id),
        button=gettext("Extend the deadline"),
        facts=[*_facts(view), (gettext("Due"), due)],
        reason_label=gettext("Justification"),
    )


def _link(view: InstanceView) -> Action:
    return Action(
        title=gettext("Citizen's link for case %(protocol)s") % {"protocol": view.protocol},
        intro=gettext(
            "Issues a signed link to the public timeline of this case (protocol, status, dates; "
            "nothing internal), valid for 180 days. Send it only to the requester."
        ),
        url=f"{_case(view.id)}/public-link",
        back=_case(view.id),
        button=gettext("Issue the link"),
        facts=_facts(view),
    )


class InstanceActionsController(Controller):
    path = INSTANCES + "/{instance_id:str}"
    include_in_schema = False

    @get("/cancel", guards=[page_requires("workflow.cancel")])
    async def cancel_page(
        self, request: Request[Any, Any, Any], instance_id: FromPath[str]
    ) -> Response[Any]:
        return show(request, _cancel(await engine_of(request).status(instance_id)))

    @post("/cancel", guards=[page_requires("workflow.cancel")], status_code=303)
    async def cancel(
        self, request: Request[Any, Any, Any], instance_id: FromPath[str]
    ) -> Response[Any]:
        engine = engine_of(request)
        view = await engine.status(instance_id)

        async def act(reason: str, form: Any) -> Response[Any]:
            compensate = form.get("compensate") == "yes"
            await engine.cancel(
                view.id, reason=reason, actor=ui_actor(request), compensate=compensate
            )
            return see_other(f"{_case(view.id)}?msg=cancelled")

        return await perform(request, _cancel(view), act)

    @get("/repair", guards=[page_requires("workflow.operate")])
    async def repair_page(
        self, request: Request[Any, Any, Any], instance_id: FromPath[str]
    ) -> Response[Any]:
        view = await engine_of(request).status(instance_id)
        return show(request, await _repair(request, view))

    @post("/repair", guards=[page_requires("workflow.operate")], status_code=303)
    async def repair(
        self, request: Request[Any, Any, Any], instance_id: FromPath[str]
    ) -> Response[Any]:
        view = await engine_of(request).status(instance_id)
        raw_version = request.query_params.get("row_version") or ""
        expected = int(raw_version) if raw_version.isascii() and raw_version.isdigit() else -1

        async def act(reason: str, form: Any) -> Response[Any]:
            token, to_node = str(form.get("token") or ""), str(form.get("to_node") or "")
            if not token or not to_node:
                raise ValidationFailed("a repair names a token and a node")
            await migrator_of(request).repair(
                view.id,
                token_id=token,
                to_node=to_node,
                reason=reason,
                actor=ui_actor(request),
                expected_version=expected,
            )
            return see_other(f"{_case(view.id)}?msg=repaired")

        return await perform(request, await _repair(request, view), act)

    @get("/deadlines/{name:str}/extend", guards=[page_requires("workflow.operate")])
    async def extend_page(
        self, request: Request[Any, Any, Any], instance_id: FromPath[str], name: FromPath[str]
    ) -> Response[Any]:
        view = await engine_of(request).status(instance_id)
        (deadline,) = await deadlines_of(request).show(view.id, name)
        return show(request, _extend(view, name, datetime_text(deadline.due_at)))

    @post(
        "/deadlines/{name:str}/extend", guards=[page_requires("workflow.operate")], status_code=303
    )
    async def extend(
        self, request: Request[Any, Any, Any], instance_id: FromPath[str], name: FromPath[str]
    ) -> Response[Any]:
        view = await engine_of(request).status(instance_id)
        service = deadlines_of(request)
        (deadline,) = await service.show(view.id, name)

        async def act(reason: str, _form: Any) -> Response[Any]:
            await service.extend(view.id, name, reason, ui_actor(request))
            return see_other(f"{_case(view.id)}?msg=extended")

        return await perform(request, _extend(view, name, datetime_text(deadline.due_at)), act)

    @get("/public-link", guards=[page_requires("workflow.read")])
    async def link_page(
        self, request: Request[Any, Any, Any], instance_id: FromPath[str]
    ) -> Response[Any]:
        return show(request, _link(await engine_of(request).status(instance_id)))

    @post("/public-link", guards=[page_requires("workflow.read")], status_code=200)
    async def link(
        self, request: Request[Any, Any, Any], instance_id: FromPath[str]
    ) -> Response[Any]:
        view = await engine_of(request).status(instance_id)

        async def act(reason: str, _form: Any) -> Response[Any]:
            issued = await issue_public_link(request, view.id, ui_actor(request), reason)
            return page(
                request,
                "public_link_issued.html",
                instance=view,
                url=str(request.base_url).rstrip("/") + issued.path,
                expires=datetime_text(issued.expires_at),
            )

        return await perform(request, _link(view), act)
