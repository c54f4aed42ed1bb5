"""Sobrestamento in pages: an instance's tracked legal deadlines, and forms to suspend one (with
a reason and its legal basis) and to resume it. The same service calls as the API and the CLI,
one transaction each, audited; a form with a blank field is shown again with an error summary.
"""

from __future__ import annotations

from typing import Any

from litestar import Controller, Request, Response, get, post
from litestar.params import FromPath

from core.i18n import N_, gettext
from services.workflow.api.access import access_of
from services.workflow.api.deadlines import deadlines_of
from services.workflow.calendar.model import Suspension
from services.workflow.runtime.ports.deadlines import DeadlineView
from services.workflow.ui.deps import engine_of
from services.workflow.ui.web import page, page_requires, see_other, ui_actor

MAX_REASON = 2000
MAX_BASIS = 300
DONE = {"suspended": N_("Deadline suspended."), "resumed": N_("Deadline resumed.")}


def legal_basis_of(view: DeadlineView) -> str | None:
    """The legal basis of the suspension in force (``None`` while the clock runs)."""
    if view.status != "suspended":
        return None
    bases = [e.legal_basis for e in view.events if isinstance(e, Suspension)]
    return bases[-1] if bases else None


def suspension_errors(reason: str, basis: str) -> dict[str, str]:
    errors: dict[str, str] = {}
    if not reason or len(reason) > MAX_REASON:
        errors["reason"] = gettext("Give the reason (at most %(n)s characters).") % {
            "n": MAX_REASON
        }
    if not basis or len(basis) > MAX_BASIS:
        errors["legal_basis"] = gettext("Give the legal basis (at most %(n)s characters).") % {
            "n": MAX_BASIS
        }
    return errors


class DeadlinePagesController(Controller):
    path = "/cms/workflow/instances/{instance_id:str}/deadlines"
    include_in_schema = False

    @get("/", guards=[page_requires("workflow.read")])
    async def show(
        self, request: Request[Any, Any, Any], instance_id: FromPath[str]
    ) -> Response[Any]:
        done = DONE.get(request.query_params.get("msg") or "")
        # A restricted or secret case: its opening is audited before the page is built.
        await access_of(request).record_opening(instance_id, ui_actor(request))
        return await self._page(request, instance_id, notice=gettext(done) if done else None)

    @post("/{name:str}/suspend", guards=[page_requires("workflow.operate")], status_code=303)
    async def suspend(
        self, request: Request[Any, Any, Any], instance_id: FromPath[str], name: FromPath[str]
    ) -> Response[Any]:
        form = await request.form()
        reason = str(form.get("reason") or "").strip()
        basis = str(form.get("legal_basis") or "").strip()
        errors = suspension_errors(reason, basis)
        if errors:
            return await self._page(
                request,
                instance_id,
                status_code=400,
                errors=errors,
                form_name=name,
                values={"reason": reason, "legal_basis": basis},
            )
        await deadlines_of(request).suspend(
            instance_id, name, reason, ui_actor(request), legal_basis=basis
        )
        return see_other(f"/cms/workflow/instances/{instance_id}/deadlines?msg=suspended")

    @post("/{name:str}/resume", guards=[page_requires("workflow.operate")], status_code=303)
    async def resume(
        self, request: Request[Any, Any, Any], instance_id: FromPath[str], name: FromPath[str]
    ) -> Response[Any]:
        await deadlines_of(request).resume(instance_id, name, ui_actor(request))
        return see_other(f"/cms/workflow/instances/{instance_id}/deadlines?msg=resumed")

    async def _page(
        self,
        request: Request[Any, Any, Any],
        instance_id: str,
        *,
        status_code: int = 200,
        notice: str | None = None,
        errors: dict[str, str] | None = None,
        form_name: str | None = None,
        values: dict[str, str] | None = None,
    ) -> Response[Any]:
        instance = await engine_of(request).status(instance_id)
        views = await deadlines_of(request).show(instance_id)
        return page(
            request,
            "instance_deadlines.html",
            status_code=status_code,
            instance=instance,
            deadlines=[(view, legal_basis_of(view)) for view in views],
            notice=notice,
            errors=errors or {},
            form_name=form_name,
            values=values or {},
        )
