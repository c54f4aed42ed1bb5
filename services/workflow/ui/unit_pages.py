"""Organisational units in the pages: each unit with its queues and supervisors by name; create
a unit, place a queue in it, add or remove a supervisor.

The same ``UnitService`` calls as ``tramita unit ...``, each its own unit of work audited with
the reason the confirmation page asks for (``workflow.unit.created|queue_assigned|
supervisor_added|supervisor_removed``). Administrators only (``workflow.admin``): a supervisor
sees their units through the inbox and the dashboard, never changes them. A person is added by
part of the name or login a clerk knows (choosing among several matches, ``ui.people_pick``);
supervising also needs ``workflow.supervise`` in their profile.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote
from uuid import UUID

from litestar import Controller, Request, Response, get, post
from litestar.params import FromPath

from contracts.errors import NotFound
from core.i18n import gettext
from services.workflow.runtime.services.units import UnitRecord
from services.workflow.ui.actions import Action, Choice, Refusal, perform, show
from services.workflow.ui.deps import inbox_of, units_of
from services.workflow.ui.member_forms import form_person, person_choice, person_name, picked
from services.workflow.ui.people import names_of
from services.workflow.ui.people_pick import Pick
from services.workflow.ui.web import page, page_requires, see_other, ui_actor

UNITS = "/cms/workflow/units"
MESSAGES = ("created", "queue", "added", "removed", "unchanged")


def _unit_url(key: str) -> str:
    return f"{UNITS}/{quote(key, safe='')}"


def _create(key: str = "", name: str = "") -> Action:
    return Action(
        title=gettext("Create a unit"),
        intro=gettext(
            "A unit (a department such as the health department or the ombudsman's office) "
            "groups queues; its supervisors see every task of those queues."
        ),
        url=f"{UNITS}/add",
        back=UNITS,
        button=gettext("Create the unit"),
        choices=[
            Choice(name="key", label=gettext("Key (e.g. saude)"), options=(), selected=key),
            Choice(name="name", label=gettext("Name"), options=(), selected=name),
        ],
    )


def _place(unit: UnitRecord, queues: list[tuple[str, str]], chosen: str = "") -> Action:
    return Action(
        title=gettext("Place a queue in %(unit)s") % {"unit": unit.name},
        intro=gettext(
            "A queue belongs to one unit at most: placing it here takes it out of the unit it "
            "was in."
        ),
        url=f"{_unit_url(unit.key)}/queues/add",
        back=UNITS,
        button=gettext("Place the queue"),
        facts=[(gettext("Unit"), unit.name)],
        choices=[Choice(name="queue", label=gettext("Queue"), options=queues, selected=chosen)],
    )


def _add(unit: UnitRecord, username: str = "", pick: Pick | None = None) -> Action:
    return Action(
        title=gettext("Add a supervisor to %(unit)s") % {"unit": unit.name},
        intro=gettext(
            "The person will see every task of the unit's queues in the inbox and the unit's "
            "deadlines dashboard. They also need the supervision permission in their profile."
        ),
        url=f"{_unit_url(unit.key)}/supervisors/add",
        back=UNITS,
        button=gettext("Add the supervisor"),
        facts=[(gettext("Unit"), unit.name)],
        choices=[person_choice(username, pick)],
    )


def _remove(unit: UnitRecord, user_id: str, name: str) -> Action:
    return Action(
        title=gettext("Remove %(name)s as supervisor of %(unit)s")
        % {"name": name, "unit": unit.name},
        intro=gettext("The person stops seeing the unit's queues they are not a member of."),
        url=f"{_unit_url(unit.key)}/supervisors/{user_id}/remove",
        back=UNITS,
        button=gettext("Remove the supervisor"),
        facts=[(gettext("Unit"), unit.name), (gettext("Person"), name)],
        danger=True,
    )


async def _queue_options(request: Request[Any, Any, Any]) -> list[tuple[str, str]]:
    return [(q.key, q.name) for q in await inbox_of(request).queues(None)]


class UnitPagesController(Controller):
    path = UNITS
    include_in_schema = False
    guards = [page_requires("workflow.admin")]

    @get("/")
    async def units(self, request: Request[Any, Any, Any]) -> Response[Any]:
        units = await units_of(request).units()
        people = [p for u in units for p in u.supervisors]
        queue_names = dict(await _queue_options(request))
        msg = request.query_params.get("msg")
        return page(
            request,
            "units.html",
            units=units,
            names=await names_of(request, people),
            queue_names=queue_names,
            unit_url=_unit_url,
            msg=msg if msg in MESSAGES else None,
        )

    @get("/add")
    async def create_page(self, request: Request[Any, Any, Any]) -> Response[Any]:
        return show(request, _create())

    @post("/add", status_code=303)
    async def create(self, request: Request[Any, Any, Any]) -> Response[Any]:
        form = await request.form()
        key = str(form.get("key") or "").strip()[:100]
        name = str(form.get("name") or "").strip()[:200]

        async def act(reason: str, _form: Any) -> Response[Any]:
            created = await units_of(request).add(key, name, actor=ui_actor(request), reason=reason)
            return see_other(f"{UNITS}?msg={'created' if created else 'unchanged'}")

        return await perform(request, _create(key, name), act)

    @get("/{key:str}/queues/add")
    async def place_page(
        self, request: Request[Any, Any, Any], key: FromPath[str]
    ) -> Response[Any]:
        unit = await units_of(request).unit(key)
        return show(request, _place(unit, await _queue_options(request)))

    @post("/{key:str}/queues/add", status_code=303)
    async def place(self, request: Request[Any, Any, Any], key: FromPath[str]) -> Response[Any]:
        unit = await units_of(request).unit(key)
        form = await request.form()
        queue = str(form.get("queue") or "").strip()[:100]

        async def act(reason: str, _form: Any) -> Response[Any]:
            try:
                moved = await units_of(request).add_queue(
                    unit.key, queue, actor=ui_actor(request), reason=reason
                )
            except NotFound as exc:
                raise Refusal(gettext("There is no such queue.")) from exc
            return see_other(f"{UNITS}?msg={'queue' if moved else 'unchanged'}")

        return await perform(request, _place(unit, await _queue_options(request), queue), act)

    @get("/{key:str}/supervisors/add")
    async def add_page(self, request: Request[Any, Any, Any], key: FromPath[str]) -> Response[Any]:
        return show(request, _add(await units_of(request).unit(key)))

    @post("/{key:str}/supervisors/add", status_code=303)
    async def add(self, request: Request[Any, Any, Any], key: FromPath[str]) -> Response[Any]:
        unit = await units_of(request).unit(key)
        username, pick = await form_person(request)

        async def act(reason: str, _form: Any) -> Response[Any]:
            user_id = picked(pick)
            added = await units_of(request).add_supervisor(
                unit.key, user_id, actor=ui_actor(request), reason=reason
            )
            return see_other(f"{UNITS}?msg={'added' if added else 'unchanged'}")

        return await perform(request, _add(unit, username, pick), act)

    @get("/{key:str}/supervisors/{person:uuid}/remove")
    async def remove_page(
        self, request: Request[Any, Any, Any], key: FromPath[str], person: FromPath[UUID]
    ) -> Response[Any]:
        unit, user_id = await units_of(request).unit(key), str(person)
        name = await person_name(request, user_id)
        return show(request, _remove(unit, user_id, name))

    @post("/{key:str}/supervisors/{person:uuid}/remove", status_code=303)
    async def remove(
        self, request: Request[Any, Any, Any], key: FromPath[str], person: FromPath[UUID]
    ) -> Response[Any]:
        unit, user_id = await units_of(request).unit(key), str(person)
        name = await person_name(request, user_id)

        async def act(reason: str, _form: Any) -> Response[Any]:
            removed = await units_of(request).remove_supervisor(
                unit.key, user_id, actor=ui_actor(request), reason=reason
            )
            return see_other(f"{UNITS}?msg={'removed' if removed else 'unchanged'}")

        return await perform(request, _remove(unit, user_id, name), act)
