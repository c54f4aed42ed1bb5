"""Naming a person in a form by part of their name or login (issue #23), shared by the grant
form of a case's "Acesso" section and the queue member and unit supervisor forms.

``pick_person`` resolves what was typed: the exact login name is that user; otherwise
``Directory.find_people`` (case and accents ignored) — one match is that person, several come
back to choose from (the id chosen among them is re-checked against the text, never taken on
its own), none is a refusal on the field. ``_people_pick.html`` lists the matches as radio
buttons in a fieldset, so the choice works without JavaScript.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from typing import Any

from litestar import Request

from contracts.errors import NotFound
from core.i18n import gettext
from services.workflow.ui.web import platform_of

SHOWN_MATCHES = 10


@dataclass(frozen=True)
class Pick:
    """The person a form names (``user_id``), or the refusal on its field and, when several
    people match, the first ``SHOWN_MATCHES`` of them (``more`` when there were others)."""

    user_id: str = ""
    error: str = ""
    matches: list[Any] = field(default_factory=list)  # core.identity.Person (not imported:
    # core.identity reaches SQLAlchemy, which stays in the persistence package)
    more: bool = False


async def pick_person(request: Request[Any, Any, Any], typed: str, chosen: str = "") -> Pick:
    """Who ``typed`` names, ``chosen`` being the id of the radio button picked (if any)."""
    directory = platform_of(request).directory
    with contextlib.suppress(NotFound):  # not a login name: look for it in the names
        return Pick(user_id=str((await directory.user_named(typed)).id))
    found = await directory.find_people(typed, limit=SHOWN_MATCHES + 1)
    picked = [p for p in found if p.id == chosen]
    if picked or len(found) == 1:
        return Pick(user_id=str((picked or found)[0].id))
    if not found:
        return Pick(error=gettext("Nobody found with this name or login."))
    return Pick(
        error=gettext("More than one person matches what was typed: choose one below."),
        matches=found[:SHOWN_MATCHES],
        more=len(found) > SHOWN_MATCHES,
    )
