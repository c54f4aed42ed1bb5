"""``tramita operation list|show|cancel``: long operations (batch jobs) from the command line.

The same ``OperationService`` the pages and ``/api/v1/operations`` use. ``show`` prints the
kind, the status and the counters (handled of total, done, refused, still to do) and each refused
item with its reason, in the reader's language (the pages' words); ``--json`` prints the API's
``OperationView`` with the codes. Exit codes: 0 done, 1 a
Tramita error such as an unknown id (one line on stderr).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar
from uuid import UUID

import click
import msgspec

from contracts.kernel import Actor
from services.workflow.api.operation_runs import OperationView, view_of
from services.workflow.bootstrap import WorkflowService
from services.workflow.cli.text import gettext as _
from services.workflow.cli.workflow import with_service
from services.workflow.labels import OPERATION_KINDS, OPERATION_STATUSES, refusal_words, word
from services.workflow.runtime.services.operations import OperationService

T = TypeVar("T")


def _with_operations(action: Callable[[OperationService], Awaitable[T]]) -> T:
    async def _act(service: WorkflowService) -> T:
        assert service.operations is not None, "the composition root wires the operations"
        return await action(service.operations)

    return with_service(_act)


def kind_words(view: OperationView) -> str:
    """The operation's kind in words (``migration`` → "Migração de processos …")."""
    return word(OPERATION_KINDS, view.kind, _)


def status_words(view: OperationView) -> str:
    """The operation's status in words, lower case for the middle of a line."""
    return word(OPERATION_STATUSES, view.status, _).lower()


def echo_outcome(view: OperationView) -> None:
    """The operation's error, if any, and each refused item with its reason in words."""
    if view.error:
        click.echo(_("error: %(error)s") % {"error": view.error})
    for refusal in view.refusals:
        reason = refusal_words(view.kind, refusal.code, refusal.detail, _)
        click.echo(_("refused %(item)s: %(reason)s") % {"item": refusal.item_id, "reason": reason})


def _counters(view: OperationView) -> str:
    """Handled of total, done, refused and still to do."""
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
        kind, status = kind_words(view), status_words(view)
        click.echo(f"{view.id}  {kind}, {status}: {_counters(view)}")


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
        % {"id": view.id, "kind": kind_words(view), "status": status_words(view)}
    )
    click.echo(_counters(view))
    echo_outcome(view)


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
