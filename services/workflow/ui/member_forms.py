"""What the member pages share: a person named by part of their name or login, shown by
display name.

Queue members (``queue_pages``) and unit supervisors (``unit_pages``) are both added by naming
the person the way the grant form of a case does (``ui.people_pick``: the exact login name, or
part of the name or login, choosing among several matches) and removed from a confirmation page
that names the person; these helpers read the form, resolve the person and show a user id as a
name.
"""

from __future__ import annotations

from typing import Any

from litestar import Request

from core.i18n import gettext
from services.workflow.ui.actions import Choice, Refusal
from services.workflow.ui.people import names_of
from services.workflow.ui.people_pick import Pick, pick_person


def person_choice(username: str, pick: Pick | None = None) -> Choice:
    """The form's free-text field for the person, with the refusal and the matches, if any."""
    pick = pick or Pick()
    return Choice(
        name="username",
        label=gettext("Person (name or login)"),
        options=(),
        selected=username,
        error=pick.error,
        matches=pick.matches,
        more=pick.more,
    )


async def form_person(request: Request[Any, Any, Any]) -> tuple[str, Pick]:
    """What was typed for the person (trimmed, at most 200 characters) and whom it names."""
    form = await request.form()
    username = str(form.get("username") or "").strip()[:200]
    chosen = str(form.get("person") or "").strip()[:40]
    return username, await pick_person(request, username, chosen)


def picked(pick: Pick) -> str:
    """The id of the person picked; a ``Refusal`` (the field's error) when there is none."""
    if pick.error or not pick.user_id:
        raise Refusal(pick.error or gettext("Nobody found with this name or login."))
    return pick.user_id


async def person_name(request: Request[Any, Any, Any], user_id: str) -> str:
    """The person's display name, or "unknown person"."""
    return (await names_of(request, [user_id])).get(user_id) or gettext("unknown person")
