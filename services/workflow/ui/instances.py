"""The instance page (status, protocol, current nodes, deadlines, timeline, tasks, audit) and
cancelling with a reason."""

from __future__ import annotations

from typing import Any

from litestar import Controller, Request, Response, get, post
from litestar.params import FromPath

from contracts.errors import ValidationFailed
from services.workflow.ui.deps import engine_of, reads_of
from services.workflow.ui.web import page, page_requires, see_other, ui_actor

MAX_REASON = 500


class InstancePageController(Controller):
    path = "/cms/workflow/instances/{instance_id:str}"
    include_in_schema = False

    @get("/", guards=[page_requires("workflow.read")])
    async def show(
        self, request: Request[Any, Any, Any], instance_id: FromPath[str]
    ) -> Response[Any]:
        engine = engine_of(request)
        view = await engine.status(instance_id)
        return page(
            request,
            "instance.html",
            instance=view,
            history=await engine.history(instance_id),
            tasks=await engine.tasks(instance_id),
            audit=await reads_of(request).audit_trail(instance_id),
            cancelled=request.query_params.get("msg") == "cancelled",
            reason_error=None,
        )

    @post("/cancel", guards=[page_requires("workflow.cancel")], status_code=303)
    async def cancel(
        self, request: Request[Any, Any, Any], instance_id: FromPath[str]
    ) -> Response[Any]:
        form = await request.form()
        reason = str(form.get("reason") or "").strip()
        if not reason or len(reason) > MAX_REASON:
            raise ValidationFailed("a cancel needs a reason", instance_id=instance_id)
        await engine_of(request).cancel(instance_id, reason=reason, actor=ui_actor(request))
        return see_other(f"/cms/workflow/instances/{instance_id}?msg=cancelled")
