"""People by name: the directory's display names for the user ids a page is about to show.

A page gathers the ids it shows (assignees, actors, queue members), asks once, and renders
``person(names, user_id)``: a clerk reads "Ana Souza", never a UUID. An id the directory does
not know (a removed user) reads "unknown person".
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from litestar.connection import ASGIConnection

from contracts.kernel import Actor
from core.i18n import gettext


async def names_of(
    connection: ASGIConnection[Any, Any, Any, Any], user_ids: Iterable[str | None]
) -> dict[str, str]:
    wanted = [u for u in user_ids if u]
    if not wanted:
        return {}
    names: dict[str, str] = await connection.app.state.platform.directory.display_names(wanted)
    return names


def person(names: Mapping[str, str], who: Actor | str | None) -> str:
    """The name to show for a user id or an actor (a system actor is "the system")."""
    if who is None:
        return "—"
    if isinstance(who, Actor):
        if who.kind != "user":
            return gettext("the system (%(name)s)") % {"name": who.id}
        who = who.id
    return names.get(who) or gettext("unknown person")
