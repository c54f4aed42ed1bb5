"""The service's ``tramita`` subcommands: publish/export definitions, start/show instances,
dead letters and the timer tick. Each command boots the platform, acts, and closes it."""

from __future__ import annotations

import json
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click
import msgspec

from contracts.errors import DefinitionInvalid, NotFound
from contracts.kernel import Actor
from contracts.workflow.types import StartRequest, SubjectRef
from core.cli import ReadCommand, run_async
from services.workflow.cli.draft_import import import_cmd
from services.workflow.cli.instance_list import list_instances_cmd
from services.workflow.cli.reads import N_, resolve, with_reads_as
from services.workflow.cli.text import gettext as _
from services.workflow.labels import STATUSES, TASK_STATUSES, event_words, word

if TYPE_CHECKING:
    from core.app import Platform
    from services.workflow.bootstrap import WorkflowService
    from services.workflow.runtime.ports import UnitOfWork

T = TypeVar("T")
CLI_ACTOR = Actor(kind="system", id="cli")


def with_platform(
    action: Callable[[Platform, WorkflowService], Awaitable[T]], *, role: str = "cli"
) -> T:
    """Boot the platform, run ``action`` with it and the workflow service, close it."""
    from core.app import Platform
    from services.workflow.bootstrap import service_of

    async def _run() -> T:
        platform = await Platform.boot(role=role)
        try:
            return await action(platform, service_of(platform))
        finally:
            await platform.close()

    return run_async(_run)


def with_service(action: Callable[[WorkflowService], Awaitable[T]], *, role: str = "cli") -> T:
    """Boot, run ``action`` with the workflow service, close."""
    return with_platform(lambda _platform, service: action(service), role=role)


def say_changed(changed: bool, done: str, unchanged: str, **values: object) -> None:
    """A change command's one line: what it did, or that there was nothing to do."""
    click.echo((done if changed else unchanged) % values)


def emit(data: Any, as_json: bool, text: Callable[[Any], str]) -> None:
    if as_json:
        click.echo(msgspec.json.encode(data).decode())
    else:
        click.echo(text(data))


def _load_json(value: str) -> dict[str, Any]:
    raw = Path(value[1:]).read_text() if value.startswith("@") else value
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise click.BadParameter(
            _("not valid JSON (line %(line)s, column %(column)s)")
            % {"line": exc.lineno, "column": exc.colno}
        ) from None
    if not isinstance(data, dict):
        raise click.BadParameter(_("must be a JSON object"))
    return data


@click.group("workflow")
def workflow_group() -> None:
    """Workflow definitions and versions."""


@workflow_group.command("publish")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def publish_cmd(file: Path, as_json: bool) -> None:
    """Validate and publish a definition (JSON, or BPMN 2.0 XML by extension .bpmn/.xml)."""
    from services.workflow.cli.draft_import import read_bpmn, refuse
    from services.workflow.definition.bpmn import gaps_of_import, remap_errors
    from services.workflow.definition.gaps import GAPS, gaps_of
    from services.workflow.definition.model import NOT_IN_FORMAT

    click.echo(_("publishing %(file)s…") % {"file": file.name}, err=True)
    content = file.read_bytes()
    data: Any = content
    if file.suffix in (".bpmn", ".xml"):
        imported = read_bpmn(file)
        data = imported.definition
        gaps = gaps_of_import(imported)
        if gaps:
            refuse(GAPS, gaps)

    from core.tenancy import ACTING_TENANT

    async def _publish(service: WorkflowService) -> Any:
        try:
            return await service.engine.publisher.publish(
                data, actor=CLI_ACTOR, tenant=ACTING_TENANT.get()
            )
        except DefinitionInvalid as exc:
            if not exc.errors:
                raise
            return exc

    published = with_service(_publish)
    if isinstance(published, DefinitionInvalid):
        errors = list(published.errors)
        if file.suffix in (".bpmn", ".xml"):
            errors = remap_errors(errors, data, imported.sources)
        elif published.detail == NOT_IN_FORMAT and isinstance(decoded := _decoded(content), dict):
            # Parsing stops at the first missing field: list every gap, then the rest.
            gaps = gaps_of(decoded)
            errors = gaps + [e for e in errors if e.path not in {g.path for g in gaps}]
        refuse(published.detail, errors)
    version, created = published
    emit(
        {
            "key": version.key,
            "version": version.version,
            "checksum": version.checksum,
            "created": created,
        },
        as_json,
        lambda d: (
            f"{d['key']} v{d['version']} "
            + (
                _("published")
                if d["created"]
                else _("unchanged (same content as the latest version)")
            )
        ),
    )


def _decoded(content: bytes) -> Any:
    try:
        return json.loads(content)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None  # the publisher says why, as before


@workflow_group.command("list")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def list_cmd(as_json: bool) -> None:
    """List published versions."""

    async def _list(service: WorkflowService) -> list[dict[str, Any]]:
        async with service.uow_factory() as uow:
            return [
                {
                    "key": v.key,
                    "version": v.version,
                    "status": v.status,
                    "checksum": v.checksum,
                    "tenant": v.tenant,  # whose own definition; None: the deployment's, shared
                }
                for v in await uow.versions.all()
            ]

    rows = with_service(_list)
    emit(
        rows,
        as_json,
        lambda rs: (
            "\n".join(
                f"{r['key']:40} v{r['version']:<4} {r['status']:10} {r['checksum'][:12]}"
                + (f"  {r['tenant']}" if r["tenant"] else "")
                for r in rs
            )
            or _("no versions published")
        ),
    )


@workflow_group.command("export")
@click.argument("key")
@click.option("--version", "number", type=int, default=None, help="Default: the latest.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["json", "bpmn"]),
    default="json",
    help="JSON (the definition) or BPMN 2.0 XML.",
)
def export_cmd(key: str, number: int | None, fmt: str) -> None:
    """Print a version as JSON or as BPMN 2.0 XML with diagram layout."""

    async def _get(service: WorkflowService) -> dict[str, Any]:
        async with service.uow_factory() as uow:
            found = (
                await uow.versions.latest(key)
                if number is None
                else await uow.versions.number(key, number)
            )
        if found is None:
            raise NotFound(N_("no published version of this workflow"), definition_key=key)
        return found.schema

    schema = with_service(_get)
    if fmt == "bpmn":
        from services.workflow.definition.bpmn import export_bpmn

        sys.stdout.buffer.write(export_bpmn(schema))
    else:
        click.echo(json.dumps(schema, indent=2, ensure_ascii=False))


@click.group("instance")
def instance_group() -> None:
    """Workflow instances."""


@instance_group.command("start")
@click.argument("key")
@click.option("--context", "context", default="{}", help="JSON object, or @file.json")
@click.option("--subject", default=None, help="TYPE:ID of the domain object")
@click.option("--business-key", default=None, help="The caller's own key for the case.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def start_cmd(
    key: str, context: str, subject: str | None, business_key: str | None, as_json: bool
) -> None:
    """Start an instance of the latest version of KEY."""
    from core.tenancy import ACTING_TENANT

    ref = None
    if subject:
        kind, _sep, ident = subject.partition(":")
        ref = SubjectRef(type=kind, id=ident)
    request = StartRequest(
        definition_key=key,
        context=_load_json(context),
        subject=ref,
        business_key=business_key,
        actor=CLI_ACTOR,
        tenant=ACTING_TENANT.get(),
    )

    async def _start(service: WorkflowService) -> Any:
        view = await service.engine.start(request)
        await service.settle()
        return await service.engine.status(view.id)

    view = with_service(_start)
    emit(
        view,
        as_json,
        lambda v: (
            _("%(protocol)s %(id)s %(status)s at %(nodes)s")
            % {
                "protocol": v.protocol,
                "id": v.id,
                "status": word(STATUSES, v.status, _).lower(),
                "nodes": ", ".join(v.current_nodes),
            }
        ),
    )


@instance_group.command("show", cls=ReadCommand)
@click.argument("ref", metavar="INSTANCE")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.option("--as", "user", default=None, help="Read as this user (restricted, secret cases).")
def show_cmd(ref: str, as_json: bool, user: str | None) -> None:
    """Show an instance (by id or protocol number), its tasks and its history."""

    from contracts.kernel import Actor
    from services.workflow.runtime.services.access import note_opening
    from services.workflow.runtime.services.views import history_entry, instance_view, task_view

    async def _show(uow: UnitOfWork, seen: Any) -> dict[str, Any]:
        record = await resolve(uow, ref, seen)
        viewer = seen[0].user_id
        # A restricted or secret case's opening is audited, committed before it is printed
        # (without --as only public cases are seen, and they write nothing).
        opened = viewer is not None and await note_opening(uow, record.id, Actor(id=viewer))
        shown = {
            "instance": instance_view(record, with_context=True),
            "tasks": [task_view(t, record.protocol) for t in await uow.tasks.of(record.id)],
            "history": [history_entry(h) for h in await uow.history.of(record.id)],
        }
        if opened:
            await uow.commit()
        return shown

    data = with_reads_as(user, _show)

    def text(d: dict[str, Any]) -> str:
        v = d["instance"]
        lines = [
            f"{v.protocol}  {v.definition_key} v{v.definition_version}  "
            + word(STATUSES, v.status, _),
            "  " + _("at: %(nodes)s") % {"nodes": ", ".join(v.current_nodes) or "-"},
        ]
        if v.failure is not None:
            codes = "/".join(c for c in (v.failure.reason, v.failure.cause) if c)
            failure = _("failure: %(message)s [%(codes)s]")
            lines.append("  " + failure % {"message": v.failure.message, "codes": codes})
        task = _("task %(id)s %(node)s [%(queue)s] %(status)s")
        lines += [
            "  "
            + task
            % {
                "id": t.id,
                "node": t.node_id,
                "queue": t.queue,
                "status": word(TASK_STATUSES, t.status, _).lower(),
            }
            for t in d["tasks"]
        ]
        lines += [
            f"  {h.seq:3} {h.at:%Y-%m-%d %H:%M:%S} {event_words(h.event, _)} "
            f"{h.from_node or ''}->{h.to_node or ''}"
            for h in d["history"]
        ]
        return "\n".join(lines)

    emit(data, as_json, text)


@click.group("dlq")
def dlq_group() -> None:
    """Dead letters: steps that went past their retry ceiling."""


@dlq_group.command("list")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def dlq_list(as_json: bool) -> None:
    """List open dead letters (identifiers and reasons, never payload values)."""

    async def _list(service: WorkflowService) -> list[dict[str, Any]]:
        async with service.uow_factory() as uow:
            return [
                {
                    k: letter[k]
                    for k in ("id", "instance_id", "node_id", "reason", "attempts", "created_at")
                }
                for letter in await uow.dead_letters.all()
            ]

    rows = with_service(_list)
    emit(
        rows,
        as_json,
        lambda rs: (
            "\n".join(
                f"{r['id']} {r['instance_id']} {r['node_id']} {r['reason']} x{r['attempts']}"
                for r in rs
            )
            or _("no open dead letters")
        ),
    )


@dlq_group.command("reprocess")
@click.argument("dead_letter_id")
def dlq_reprocess(dead_letter_id: str) -> None:
    """Put the instance back on its node: same instance, number, trail and idempotency key."""

    async def _go(service: WorkflowService) -> Any:
        view = await service.engine.reprocess(dead_letter_id, actor=CLI_ACTOR)
        await service.settle()
        return await service.engine.status(view.id)

    view = with_service(_go)
    click.echo(f"{view.protocol} {word(STATUSES, view.status, _).lower()}")


instance_group.add_command(list_instances_cmd)
workflow_group.add_command(import_cmd)

COMMANDS = [workflow_group, instance_group, dlq_group]
