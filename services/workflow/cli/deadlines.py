"""``tramita deadline extend|suspend|resume|show|explain|preview``: legal deadlines.

Each command boots the platform, acts in one transaction (audited as ``--as``), prints the
deadline and exits: 0 done, 1 a Tramita error (one line on stderr, identifiers only).
The justification and the reason go to the audit trail, never to the output or the logs.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import TYPE_CHECKING, TypeVar

import click
import msgspec

from contracts.kernel import Actor
from core.cli import run_async
from core.localtime import date_text, datetime_text
from services.workflow.cli.reads import instance_id
from services.workflow.cli.text import gettext as _

if TYPE_CHECKING:
    from services.workflow.bootstrap import WorkflowService
    from services.workflow.runtime.services.deadline_service import DeadlineView
    from services.workflow.runtime.services.legal_time import CountedDeadline, DeadlinePreview

T = TypeVar("T")


def _with_service(action: Callable[[WorkflowService], Awaitable[T]]) -> T:
    from core.app import Platform
    from services.workflow.bootstrap import service_of

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
    """One deadline; its status and the rule's unit stay codes (as in ``--json``)."""
    due = datetime_text(view.due_at, seconds=True) if view.due_at else "-"
    line = _(
        "%(name)s %(status)s due %(due)s remaining %(remaining)s (%(unit)s) "
        "extensions %(used)s/%(allowed)s calendar %(calendar)s v%(version)s"
    ) % {
        "name": view.name,
        "status": view.status,
        "due": due,
        "remaining": view.remaining_units,
        "unit": view.rule.unit,
        "used": view.extensions_used,
        "allowed": view.rule.max_extensions,
        "calendar": view.calendar_key,
        "version": view.calendar_version,
    }
    return line + (" " + _("OVERDUE") if view.overdue else "")


def _emit(views: list[DeadlineView], as_json: bool) -> None:
    if as_json:
        click.echo(msgspec.json.encode(views).decode())
        return
    for view in views:
        click.echo(_line(view))


_as = click.option(
    "--as",
    "user_id",
    default=None,
    help="User id recorded as the actor; only the cases they may see (default: system cli).",
)
_json = click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")


@click.group("deadline")
def deadline_group() -> None:
    """Legal deadlines (prazos): extend, suspend, resume, show, explain; preview a rule."""


@deadline_group.command("extend")
@click.argument("ref", metavar="INSTANCE")
@click.argument("name")
@click.option("--justification", required=True, help="Why (recorded in the audit trail).")
@_as
@_json
def extend_cmd(ref: str, name: str, justification: str, user_id: str | None, as_json: bool) -> None:
    """Extend deadline NAME of INSTANCE (id or protocol number) by its rule's extension days."""

    async def _go(service: WorkflowService) -> DeadlineView:
        return await service.deadlines.extend(
            await instance_id(service, ref, user_id), name, justification, _actor(user_id)
        )

    _emit([_with_service(_go)], as_json)


@deadline_group.command("suspend")
@click.argument("ref", metavar="INSTANCE")
@click.argument("name")
@click.option("--reason", required=True, help="Why the clock stops (audit trail only).")
@click.option(
    "--legal-basis",
    "legal_basis",
    required=True,
    help="The law or decree that allows the suspension (shown to the citizen).",
)
@_as
@_json
def suspend_cmd(
    ref: str,
    name: str,
    reason: str,
    legal_basis: str,
    user_id: str | None,
    as_json: bool,
) -> None:
    """Sobrestamento: stop the clock of deadline NAME (e.g. waiting for the requester)."""

    async def _go(service: WorkflowService) -> DeadlineView:
        return await service.deadlines.suspend(
            await instance_id(service, ref, user_id),
            name,
            reason,
            _actor(user_id),
            legal_basis=legal_basis,
        )

    _emit([_with_service(_go)], as_json)


@deadline_group.command("resume")
@click.argument("ref", metavar="INSTANCE")
@click.argument("name")
@_as
@_json
def resume_cmd(ref: str, name: str, user_id: str | None, as_json: bool) -> None:
    """Restart the clock of deadline NAME from today."""

    async def _go(service: WorkflowService) -> DeadlineView:
        return await service.deadlines.resume(
            await instance_id(service, ref, user_id), name, _actor(user_id)
        )

    _emit([_with_service(_go)], as_json)


@deadline_group.command("show")
@click.argument("ref", metavar="INSTANCE")
@click.argument("name", required=False)
@_json
def show_cmd(ref: str, name: str | None, as_json: bool) -> None:
    """The deadlines of INSTANCE (or only NAME), with the calendar version they use; the text
    output also lists the legal deadlines counted for its timers (e-SIC's LAI answer date;
    ``deadline explain`` gives their explanation)."""

    async def _go(service: WorkflowService) -> tuple[list[DeadlineView], list[CountedDeadline]]:
        found = await instance_id(service, ref)
        views = await service.deadlines.show(found, name)
        return views, ([] if as_json or name else await service.deadlines.counted(found))

    views, counted = _with_service(_go)
    _emit(views, as_json)
    for item in counted:
        click.echo(
            _("%(node)s / %(timer)s: %(rule)s due %(due)s 23:59 calendar %(calendar)s v%(version)s")
            % {
                "node": item.node,
                "timer": item.timer,
                "rule": item.rule,
                "due": date_text(item.due_on),
                "calendar": item.calendar_key,
                "version": item.calendar_version,
            }
        )


def _preview_lines(view: DeadlinePreview) -> list[str]:
    """What a clerk reads: local dates (dd/mm/aaaa) and the explanation, in pt-BR."""
    head = [f"Regra: {view.rule} — {view.rule_name} ({view.legal_basis})"]
    if view.filed_at is not None and view.received_on is not None:
        head.append(f"Protocolo: {datetime_text(view.filed_at)}")
        head.append(f"Recebimento: {date_text(view.received_on)}")
    if view.extends is not None:
        head.append(f"Prorroga o prazo de {date_text(view.extends)}")
    head.append(
        f"Vencimento: {date_text(view.due_on)} às 23:59 "
        f"(calendário {view.calendar_key} v{view.calendar_version})"
    )
    return [*head, *(f"  {line}" for line in view.explanation)]


def _instant(text: str) -> datetime:
    try:
        value = datetime.fromisoformat(text)
    except ValueError as exc:
        raise click.BadParameter(
            _("use an ISO 8601 instant such as 2026-12-01T10:00-03:00")
        ) from exc
    if value.tzinfo is None:
        raise click.BadParameter(_("the instant needs an offset, e.g. -03:00 or Z"))
    return value


@deadline_group.command("preview")
@click.option("--rule", "rule", required=True, help="Deadline rule key, e.g. lai.request.")
@click.option("--filed", "filed", required=True, help="Filing instant, ISO 8601 with offset.")
@click.option("--calendar", "calendar_key", default=None, help="Stored calendar key.")
@click.option("--extend", is_flag=True, help="Also count the rule's extension.")
@_json
def preview_cmd(
    rule: str, filed: str, calendar_key: str | None, extend: bool, as_json: bool
) -> None:
    """The received day, due date and explanation of a request filed at FILED (nothing stored)."""
    filed_at = _instant(filed)

    async def _go(service: WorkflowService) -> list[DeadlinePreview]:
        return await service.deadlines.preview(
            rule, filed_at, calendar_key=calendar_key, extend=extend
        )

    views = _with_service(_go)
    if as_json:
        click.echo(msgspec.json.encode(views).decode())
        return
    for i, view in enumerate(views):
        if i:
            click.echo("")
        for line in _preview_lines(view):
            click.echo(line)


@deadline_group.command("explain")
@click.argument("ref", metavar="INSTANCE")
@_json
def explain_cmd(ref: str, as_json: bool) -> None:
    """Every legal deadline counted for INSTANCE's timers, with its explanation."""

    async def _go(service: WorkflowService) -> list[CountedDeadline]:
        return await service.deadlines.counted(await instance_id(service, ref))

    # A justification stays in the audit trail and the pages, never in the CLI's output.
    counted = [msgspec.structs.replace(c, justification=None) for c in _with_service(_go)]
    if as_json:
        click.echo(msgspec.json.encode(counted).decode())
        return
    for item in counted:
        click.echo(f"{item.node} / {item.timer}:")
        for line in _preview_lines(item):
            click.echo(f"  {line}")


COMMANDS = [deadline_group]
