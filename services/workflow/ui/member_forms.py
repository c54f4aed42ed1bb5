"""What the member pages share: a person named by login name, shown by display name.

Queue members (``queue_pages``) and unit supervisors (``unit_pages``) are both added by the
login name a clerk knows and removed from a confirmation page that names the person; these
helpers read the name from the form, find the person in the directory (a refusal in words when
nobody signs in with it) and show a user id as a name.
"""

from __future__ import annotations

from typing import Any

from litestar import Request

from contracts.errors import NotFound
from core.i18n import gettext
from services.workflow.ui.actions import Choice, Refusal
from services.workflow.ui.people import names_of
from services.workflow.ui.web import platform_of


def login_choice(username: str) -> Choice:
    """The form's free-text field for the person's login name."""
    return Choice(name="username", label=gettext("Login name"), options=(), selected=username)


async def form_username(request: Request[Any, Any, Any]) -> str:
    """The login name typed in the form (trimmed, at most 200 characters)."""
    form = await request.form()
    return str(form.get("username") or "").strip()[:200]


async def user_named(request: Request[Any, Any, Any], username: str) -> str:
    """The id of the person who signs in as ``username``; a ``Refusal`` if nobody does."""
    try:
        user = await platform_of(request).directory.user_named(username)
    except NotFound as exc:
        raise Refusal(gettext("Nobody signs in with this login name.")) from exc
    return str(user.id)


async def person_name(request: Request[Any, Any, Any], user_id: str) -> str:
    """The person's display name, or "unknown person"."""
    return (await names_of(request, [user_id])).get(user_id) or gettext("unknown person")
