"""The "Acesso" section of a case's page (issue #23 item 2): its level, legal ground and grants,
with the forms that change them, for whoever may classify cases (``workflow.classify``).

Every change is the same call as ``POST /api/v1/instances/{id}/access`` (and its grants and
revoke): ``runtime.services.access.AccessPolicy``, which checks the ground and the expiry and
writes the audit entry; the pages only read the form and show a refusal on its field, with what
was typed kept. A revoke asks first, on a confirmation page with a reason (``ui.actions``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time
from typing import Any

from litestar import Controller, Request, Response, get, post
from litestar.params import FromPath

from contracts.errors import ValidationFailed
from core.i18n import N_, gettext
from core.localtime import datetime_text, zone
from services.workflow.api.access import access_of, viewer_for
from services.workflow.runtime.ports.access import LEVELS
from services.workflow.runtime.services.access import CLASSIFY_PERMISSION
from services.workflow.ui.actions import MAX_REASON, NO_REASON, Action, perform, show
from services.workflow.ui.deps import engine_of
from services.workflow.ui.people import names_of
from services.workflow.ui.people_pick import pick_person
from services.workflow.ui.web import page, page_requires, platform_of, see_other, ui_actor, zone_of

INSTANCES = "/cms/workflow/instances"
LEVEL_LABELS = {"public": N_("Public"), "restricted": N_("Restricted"), "secret": N_("Secret")}
FIELD_OF = {"expires_at": "expires_on", "user_id": "username"}


@dataclass
class Typed:
    """What the person typed in the section's forms, and the refusals, by field."""

    level: str = ""
    ground: str = ""
    reason: str = ""
    username: str = ""
    expires_on: str = ""
    grant_reason: str = ""
    matches: list[Any] = field(default_factory=list)  # core.identity.Person
    more: bool = False
    errors: dict[str, str] = field(default_factory=dict)


async def access_section(
    request: Request[Any, Any, Any], instance_id: str, typed: Typed | None = None
) -> dict[str, Any] | None:
    """What ``_access.html`` shows, or ``None`` for a person who may not classify."""
    viewer = await viewer_for(request, ui_actor(request).id)
    if not viewer.classifier:
        return None
    policy = access_of(request)
    view = await policy.view(instance_id, viewer)
    now = platform_of(request).clock.now()
    active = [g for g in view.grants if g.active(now)]
    names = await names_of(request, [g.user_id for g in active])
    zone_name = zone_of(request)
    typed = typed or Typed()
    if not typed.level:  # the other form was refused: this one shows the case as it stands
        typed.level, typed.ground = view.level, view.ground or ""
    return {
        "level": gettext(LEVEL_LABELS[view.level]),
        "ground": gettext(policy.grounds.get(view.ground, view.ground)) if view.ground else "",
        "levels": [(key, gettext(LEVEL_LABELS[key])) for key in LEVELS],
        "grounds": [(key, gettext(label)) for key, label in policy.grounds.items()],
        "grants": [
            {
                "id": g.id,
                "name": names.get(g.user_id) or gettext("unknown person"),
                "expires": datetime_text(g.expires_at, zone_name) if g.expires_at else "",
            }
            for g in active
        ],
        "typed": typed,
        "base": f"{INSTANCES}/{instance_id}/access",
    }


def _expiry(text: str, zone_name: str) -> datetime | None:
    """The last second of the typed day in the jurisdiction's time (no day: no expiry)."""
    if not text:
        return None
    try:
        day = date.fromisoformat(text)
    except ValueError as exc:
        raise ValidationFailed(N_("a date as YYYY-MM-DD"), field="expires_on") from exc
    local = datetime.combine(day, time(23, 59, 59), tzinfo=zone(zone_name))
    return local.astimezone(UTC)


def _refusal(exc: ValidationFailed, fallback: str) -> dict[str, str]:
    name = str(exc.fields.get("field") or fallback)
    return {FIELD_OF.get(name, name): gettext(exc.detail)}


async def _again(request: Request[Any, Any, Any], instance_id: str, typed: Typed) -> Response[Any]:
    view = await engine_of(request).status(instance_id)
    return page(
        request,
        "access.html",
        status_code=422,
        instance=view,
        access_form=await access_section(request, view.id, typed),
    )


def _text(form: Any, name: str, limit: int = 200) -> str:
    return str(form.get(name) or "").strip()[:limit]


class AccessPagesController(Controller):
    path = INSTANCES + "/{instance_id:str}/access"
    include_in_schema = False

    @post("/", guards=[page_requires(CLASSIFY_PERMISSION)], status_code=303)
    async def change(
        self, request: Request[Any, Any, Any], instance_id: FromPath[str]
    ) -> Response[Any]:
        form = await request.form()
        typed = Typed(
            level=_text(form, "level"),
            ground=_text(form, "ground"),
            reason=_text(form, "reason", MAX_REASON),
        )
        if not typed.reason:
            typed.errors["reason"] = gettext(NO_REASON)
        policy = access_of(request)
        try:
            policy.check_ground(typed.level, typed.ground or None)
        except ValidationFailed as exc:
            typed.errors.update(_refusal(exc, "ground"))
        if typed.errors:
            return await _again(request, instance_id, typed)
        actor = ui_actor(request)
        await policy.change(
            instance_id,
            typed.level,
            typed.ground or None,
            viewer=await viewer_for(request, actor.id),
            actor=actor,
            reason=typed.reason,
        )
        return see_other(f"{INSTANCES}/{instance_id}?msg=access-changed#access")

    @post("/grants", guards=[page_requires(CLASSIFY_PERMISSION)], status_code=303)
    async def grant(
        self, request: Request[Any, Any, Any], instance_id: FromPath[str]
    ) -> Response[Any]:
        form = await request.form()
        typed = Typed(
            username=_text(form, "username"),
            expires_on=_text(form, "expires_on", 10),
            grant_reason=_text(form, "grant_reason", MAX_REASON),
        )
        user_id = await _person(request, typed, _text(form, "person", 40))
        if not typed.grant_reason:
            typed.errors["grant_reason"] = gettext(NO_REASON)
        actor = ui_actor(request)
        try:
            expires_at = _expiry(typed.expires_on, zone_of(request))
            if not typed.errors:
                await access_of(request).grant(
                    instance_id,
                    user_id,
                    expires_at,
                    viewer=await viewer_for(request, actor.id),
                    actor=actor,
                    reason=typed.grant_reason,
                )
        except ValidationFailed as exc:
            typed.errors.update(_refusal(exc, "expires_on"))
        if typed.errors:
            return await _again(request, instance_id, typed)
        return see_other(f"{INSTANCES}/{instance_id}?msg=access-granted#access")

    @get("/grants/{grant_id:str}/revoke", guards=[page_requires(CLASSIFY_PERMISSION)])
    async def revoke_page(
        self, request: Request[Any, Any, Any], instance_id: FromPath[str], grant_id: FromPath[str]
    ) -> Response[Any]:
        return show(request, await _revoke(request, instance_id, grant_id))

    @post(
        "/grants/{grant_id:str}/revoke",
        guards=[page_requires(CLASSIFY_PERMISSION)],
        status_code=303,
    )
    async def revoke(
        self, request: Request[Any, Any, Any], instance_id: FromPath[str], grant_id: FromPath[str]
    ) -> Response[Any]:
        action = await _revoke(request, instance_id, grant_id)
        actor = ui_actor(request)

        async def act(reason: str, _form: Any) -> Response[Any]:
            await access_of(request).revoke(
                instance_id,
                grant_id,
                viewer=await viewer_for(request, actor.id),
                actor=actor,
                reason=reason,
            )
            return see_other(f"{INSTANCES}/{instance_id}?msg=access-revoked#access")

        return await perform(request, action, act)


async def _person(request: Request[Any, Any, Any], typed: Typed, chosen: str) -> str:
    """The id of the person the grant form names (``ui.people_pick``); otherwise the refusal
    on the field and the matches to choose from."""
    pick = await pick_person(request, typed.username, chosen)
    if pick.error:
        typed.errors["username"] = pick.error
    typed.matches, typed.more = pick.matches, pick.more
    return pick.user_id


async def _revoke(request: Request[Any, Any, Any], instance_id: str, grant_id: str) -> Action:
    view = await engine_of(request).status(instance_id)
    section = await access_section(request, view.id) or {}
    mine = [g for g in section.get("grants", []) if g["id"] == grant_id]
    name = mine[0]["name"] if mine else gettext("unknown person")
    return Action(
        title=gettext("Revoke the access of %(name)s") % {"name": name},
        intro=gettext(
            "%(name)s stops seeing case %(protocol)s now (a secret case is seen only by the "
            "people granted it). The reason is kept in the audit trail."
        )
        % {"name": name, "protocol": view.protocol},
        url=f"{INSTANCES}/{view.id}/access/grants/{grant_id}/revoke",
        back=f"{INSTANCES}/{view.id}#access",
        button=gettext("Revoke the access"),
        facts=[(gettext("Case"), view.protocol), (gettext("Person"), name)],
        danger=True,
    )
