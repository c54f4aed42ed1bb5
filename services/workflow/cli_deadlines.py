"""``tramita deadline extend|suspend|resume|show``: legal deadlines on an instance.

Each command boots the platform, acts in one transaction (audited as ``--as``), prints the
deadline and exits: 0 done, 1 a Tramita error (one line on stderr, identifiers only).
The justification and the reason go to the audit trail, never to the output or the logs.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

import click
import msgspec

from contracts.kernel import Actor
from core.app import Platform
from core.cli import run_async
from services.workflow.bootstrap import WorkflowService
from services.workflow.plugin import service_of
from services.workflow.runtime.deadlines import DeadlineView

T = TypeVar("T")


def _with_service(action: Callable[[WorkflowService], Awaitable[T]]) -> T:
    async def _run() -> T:
        platform = await Platform.boot()
        try:
            return await action(service_of(platform))
        finally:
            await platform.close()

    return run_async(_run)


def _actor(user_id: str | None) -> Actor:
    return Actor(id=user_id) if user_id else Actor.system("cli")


def _line(view: DeadlineView) -> str:
    due = view.due_at.isoformat() if view.due_at else "-"
    return (
        f"{view.name} {view.status} due {due} remaining {view.remaining_units} "
        f"({view.rule.unit}) extensions {view.extensions_used}/{view.rule.max_extensions} "
        f"calendar {view.calendar_key} v{view.calendar_version}"
        f"{' OVERDUE' if view.overdue else ''}"
    )


def _emit(views: list[DeadlineView], as_json: bool) -> None:
    if as_json:
        click.echo(msgspec.json.encode(views).decode())
        return
    for view in views:
        click.echo(_line(view))


_as = click.option("--as", "user_id", default=None, help="User id recorded as the actor.")
_json = click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")


@click.group("deadline")
def deadline_group() -> None:
    """Legal deadlines (prazos) of an instance: extend, suspend, resume, show."""


@deadline_group.command("extend")
@click.argument("instance_id")
@click.argument("name")
@click.option("--justification", required=True, help="Why (recorded in the audit trail).")
@_as
@_json
def extend_cmd(
    instance_id: str, name: str, justification: str, user_id: str | None, as_json: bool
) -> None:
    """Extend deadline NAME of INSTANCE_ID by its rule's extension days."""

    async def _go(service: WorkflowService) -> DeadlineView:
        return await service.deadlines.extend(instance_id, name, justification, _actor(user_id))

    _emit([_with_service(_go)], as_json)


@deadline_group.command("suspend")
@click.argument("instance_id")
@click.argument("name")
@click.option("--reason", required=True, help="Why the clock stops (audit trail only).")
@_as
@_json
def suspend_cmd(
    instance_id: str, name: str, reason: str, user_id: str | None, as_json: bool
) -> None:
    """Stop the clock of deadline NAME (e.g. waiting for the requester)."""

    async def _go(service: WorkflowService) -> DeadlineView:
        return await service.deadlines.suspend(instance_id, name, reason, _actor(user_id))

    _emit([_with_service(_go)], as_json)


@deadline_group.command("resume")
@click.argument("instance_id")
@click.argument("name")
@_as
@_json
def resume_cmd(instance_id: str, name: str, user_id: str | None, as_json: bool) -> None:
    """Restart the clock of deadline NAME from today."""

    async def _go(service: WorkflowService) -> DeadlineView:
        return await service.deadlines.resume(instance_id, name, _actor(user_id))

    _emit([_with_service(_go)], as_json)


@deadline_group.command("show")
@click.argument("instance_id")
@click.argument("name", required=False)
@_json
def show_cmd(instance_id: str, name: str | None, as_json: bool) -> None:
    """The deadlines of INSTANCE_ID (or only NAME), with the calendar version they use."""

    async def _go(service: WorkflowService) -> list[DeadlineView]:
        return await service.deadlines.show(instance_id, name)

    _emit(_with_service(_go), as_json)


COMMANDS = [deadline_group]
