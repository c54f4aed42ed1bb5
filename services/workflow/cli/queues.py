"""``tramita queue list|add-member|remove-member``: who works a human work queue.

The operator's side of ``/api/v1/queues/{key}/members``: the same ``Catalog`` calls, each one
transaction audited with the ``cli`` system actor (whoever can run the CLI holds the database
credentials, as for ``tramita db upgrade``). Exit codes: 0 done, 1 a Tramita error such as an
unknown queue or user (one line on stderr).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar
from uuid import UUID

import click
import msgspec

from core.app import Platform
from services.workflow.cli.text import gettext as _
from services.workflow.cli.workflow import CLI_ACTOR, say_changed, with_platform
from services.workflow.runtime.services.human_policy import Catalog

T = TypeVar("T")


def _with_catalog(action: Callable[[Platform, Catalog], Awaitable[T]]) -> T:
    return with_platform(lambda platform, service: action(platform, service.catalog))


def _emit(queue: str, members: list[str], as_json: bool) -> None:
    if as_json:
        click.echo(msgspec.json.encode({"queue": queue, "members": members}).decode())
    else:
        click.echo("\n".join(members) if members else _("%(queue)s: no members") % {"queue": queue})


@click.group("queue")
def queue_group() -> None:
    """Members of human work queues."""


@queue_group.command("list")
@click.argument("queue")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def list_cmd(queue: str, as_json: bool) -> None:
    """List the user ids that are members of QUEUE."""

    async def _list(platform: Platform, catalog: Catalog) -> list[str]:
        return await catalog.members(queue)

    _emit(queue, _with_catalog(_list), as_json)


@queue_group.command("add-member")
@click.argument("queue")
@click.argument("user_id", type=click.UUID)
def add_cmd(queue: str, user_id: UUID) -> None:
    """Make USER_ID a member of QUEUE (they also need the queue's permission)."""

    async def _add(platform: Platform, catalog: Catalog) -> bool:
        await platform.directory.get_user(str(user_id))
        return await catalog.add_member(queue, str(user_id), actor=CLI_ACTOR)

    say_changed(
        _with_catalog(_add),
        _("%(user)s added to %(queue)s"),
        _("%(user)s is already a member of %(queue)s"),
        user=user_id,
        queue=queue,
    )


@queue_group.command("remove-member")
@click.argument("queue")
@click.argument("user_id", type=click.UUID)
def remove_cmd(queue: str, user_id: UUID) -> None:
    """Remove USER_ID from QUEUE."""

    async def _remove(platform: Platform, catalog: Catalog) -> bool:
        return await catalog.remove_member(queue, str(user_id), actor=CLI_ACTOR)

    say_changed(
        _with_catalog(_remove),
        _("%(user)s removed from %(queue)s"),
        _("%(user)s is not a member of %(queue)s"),
        user=user_id,
        queue=queue,
    )


COMMANDS = [queue_group]
