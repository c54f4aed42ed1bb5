"""``tramita operation list|show|cancel``: long operations (batch jobs) from the command line.

The same ``OperationService`` the pages and ``/api/v1/operations`` use. ``show`` prints the
status and the counters (handled of total, done, refused, still to do) and each refused item
with its reason code; ``--json`` prints the API's ``OperationView``. Exit codes: 0 done, 1 a
Tramita error such as an unknown id (one line on stderr).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar
from uuid import UUID

import click
import msgspec

from contracts.kernel import Actor
from core.app import Platform
from core.cli import run_async
from services.workflow.api.operation_runs import OperationView, view_of
from services.workflow.cli.text import gettext as _
from services.workflow.handles import handles_of
from services.workflow.runtime.services.operations import OperationService

T = TypeVar("T")


def _with_operations(action: Callable[[OperationService], Awaitable[T]]) -> T:
    async def _run() -> T:
        platform = await Platform.boot()
        try:
            operations = handles_of(platform).operations
            assert operations is not None, "the composition root wires the operations"
            return await action(operations)
        finally:
            await platform.close()

    return run_async(_run)


def _counters(view: OperationView) -> str:
    """Handled of total, done, refused and still to do; kind and status stay codes (as in
    ``--json`` and the API)."""
    return _(
        "%(handled)s/%(total)s handled (%(percent)s%%): "
        "%(done)s done, %(refused)s refused, %(remaining)s to do"
    ) % {
        "handled": view.done + view.refused,
        "total": view.total,
        "percent": view.percent,
        "done": view.done,
        "refused": view.refused,
        "remaining": view.remaining,
    }


@click.group("operation")
def operation_group() -> None:
    """Long operations run in the background (migrations, bulk task actions)."""


@operation_group.command("list")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def list_cmd(as_json: bool) -> None:
    """The newest operations, newest first."""

    async def _go(operations: OperationService) -> list[OperationView]:
        return [view_of(o) for o in await operations.recent(started_by=None)]

    views = _with_operations(_go)
    if as_json:
        click.echo(msgspec.json.encode(views).decode())
        return
    if not views:
        click.echo(_("no operations"))
    for view in views:
        click.echo(f"{view.id}  {view.kind:<13} {view.status:<9} {_counters(view)}")


@operation_group.command("show")
@click.argument("operation_id", type=click.UUID)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def show_cmd(operation_id: UUID, as_json: bool) -> None:
    """Status, progress counters and refused items of OPERATION_ID."""

    async def _go(operations: OperationService) -> OperationView:
        found = await operations.get(str(operation_id))
        return view_of(found, await operations.items(found.id, refused_only=True))

    view = _with_operations(_go)
    if as_json:
        click.echo(msgspec.json.encode(view).decode())
        return
    click.echo(
        _("operation %(id)s: %(kind)s, %(status)s")
        % {"id": view.id, "kind": view.kind, "status": view.status}
    )
    click.echo(_counters(view))
    if view.error:
        click.echo(_("error: %(error)s") % {"error": view.error})
    for refusal in view.refusals:
        click.echo(
            _("refused %(item)s: %(code)s") % {"item": refusal.item_id, "code": refusal.code}
        )


@operation_group.command("cancel")
@click.argument("operation_id", type=click.UUID)
@click.option("--reason", required=True, help="Why (kept in the audit trail).")
def cancel_cmd(operation_id: UUID, reason: str) -> None:
    """Stop OPERATION_ID before its next item (what it did stays done)."""

    async def _go(operations: OperationService) -> OperationView:
        return view_of(
            await operations.cancel(str(operation_id), actor=Actor.system("cli"), reason=reason)
        )

    view = _with_operations(_go)
    click.echo(
        _("operation %(id)s cancelled; %(counters)s") % {"id": view.id, "counters": _counters(view)}
    )
