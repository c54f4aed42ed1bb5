"""``tramita unit list|add|add-queue|add-supervisor|remove-supervisor``: organisational units.

The operator's side of ``/cms/workflow/units``: the same ``UnitService`` calls, each change one
transaction audited with the ``cli`` system actor and the ``--reason`` given (required). Exit
codes: 0 done, 1 a Tramita error such as an unknown unit, queue or user, or a missing reason
(one line on stderr).
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
from services.workflow.runtime.services.units import UnitRecord, UnitService

T = TypeVar("T")
REASON = click.option("--reason", required=True, help="Why (kept in the audit trail).")


def _with_units(action: Callable[[Platform, UnitService], Awaitable[T]]) -> T:
    return with_platform(lambda platform, service: action(platform, service.units))


@click.group("unit")
def unit_group() -> None:
    """Organisational units: their queues and supervisors."""


@unit_group.command("list")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def list_cmd(as_json: bool) -> None:
    """List every unit with its queues and supervisors."""

    async def _list(platform: Platform, units: UnitService) -> list[UnitRecord]:
        return await units.units()

    found = _with_units(_list)
    if as_json:
        click.echo(msgspec.json.encode(found).decode())
        return
    if not found:
        click.echo(_("no units"))
    for unit in found:
        click.echo(f"{unit.key}\t{unit.name}")
        click.echo("  " + _("queues: %(queues)s") % {"queues": ", ".join(unit.queues) or "-"})
        supervisors = ", ".join(unit.supervisors) or "-"
        click.echo("  " + _("supervisors: %(users)s") % {"users": supervisors})


@unit_group.command("add")
@click.argument("key")
@click.argument("name")
@REASON
def add_cmd(key: str, name: str, reason: str) -> None:
    """Create the unit KEY named NAME (e.g. saude "Secretaria de Saúde")."""

    async def _add(platform: Platform, units: UnitService) -> bool:
        return await units.add(key, name, actor=CLI_ACTOR, reason=reason)

    say_changed(
        _with_units(_add), _("unit %(key)s created"), _("unit %(key)s already exists"), key=key
    )


@unit_group.command("add-queue")
@click.argument("unit")
@click.argument("queue")
@REASON
def add_queue_cmd(unit: str, queue: str, reason: str) -> None:
    """Place QUEUE in UNIT (moving it out of the unit it was in)."""

    async def _add(platform: Platform, units: UnitService) -> bool:
        return await units.add_queue(unit, queue, actor=CLI_ACTOR, reason=reason)

    say_changed(
        _with_units(_add),
        _("%(queue)s is now in %(unit)s"),
        _("%(queue)s was already in %(unit)s"),
        queue=queue,
        unit=unit,
    )


@unit_group.command("add-supervisor")
@click.argument("unit")
@click.argument("user_id", type=click.UUID)
@REASON
def add_supervisor_cmd(unit: str, user_id: UUID, reason: str) -> None:
    """Make USER_ID a supervisor of UNIT (they also need ``workflow.supervise``)."""

    async def _add(platform: Platform, units: UnitService) -> bool:
        await platform.directory.get_user(str(user_id))
        return await units.add_supervisor(unit, str(user_id), actor=CLI_ACTOR, reason=reason)

    say_changed(
        _with_units(_add),
        _("%(user)s now supervises %(unit)s"),
        _("%(user)s already supervises %(unit)s"),
        user=user_id,
        unit=unit,
    )


@unit_group.command("remove-supervisor")
@click.argument("unit")
@click.argument("user_id", type=click.UUID)
@REASON
def remove_supervisor_cmd(unit: str, user_id: UUID, reason: str) -> None:
    """Stop USER_ID supervising UNIT."""

    async def _remove(platform: Platform, units: UnitService) -> bool:
        return await units.remove_supervisor(unit, str(user_id), actor=CLI_ACTOR, reason=reason)

    say_changed(
        _with_units(_remove),
        _("%(user)s no longer supervises %(unit)s"),
        _("%(user)s does not supervise %(unit)s"),
        user=user_id,
        unit=unit,
    )


COMMANDS = [unit_group]
