"""``tramita migrate`` and ``tramita repair``: the operator's explicit moves of instances.

A migration only touches the instances named on the command line (or, with
``--all-in-flight``, every unfinished instance on the source version — still an explicit
choice). Without ``--apply`` it is a dry run; with it, the dry run runs first and each instance
migrates only if it has not changed since (its ``row_version``), one transaction per instance.
More instances than ``TRAMITA_WF_OPERATION_THRESHOLD`` (or any number with
``TRAMITA_WF_BACKGROUND_ALWAYS=1``) migrate as a background operation, the one the wizard
starts: the command prints its id and progress page and returns, or with ``--wait`` follows its
progress on stderr until it is over (running it in this process on the embedded defaults).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import click
import msgspec

from contracts.kernel import Actor
from core.app import Platform
from core.cli import run_async
from core.cli_progress import Progress, announce
from services.workflow.api.operation_runs import OperationView, view_of
from services.workflow.bootstrap import WorkflowService, service_of
from services.workflow.cli.operations import echo_outcome, status_words
from services.workflow.cli.reads import acting_viewer, instance_id
from services.workflow.cli.text import gettext as _
from services.workflow.labels import (
    MIGRATION_RESULTS,
    STATUSES,
    TOKEN_ACTIONS,
    blocker_words,
    word,
)
from services.workflow.runtime.kernel.migration_plan import (
    InstancePlan,
    MigrationReport,
    MigrationRequest,
)
from services.workflow.runtime.ports.operations import Operation
from services.workflow.runtime.services.migration import Migrator
from services.workflow.runtime.services.operations import OperationService

T = TypeVar("T")
OPERATIONS_PAGE = "/cms/workflow/operations"
WAIT_POLL_S = 0.5


def _with_migrator(action: Callable[[WorkflowService, Migrator], Awaitable[T]]) -> T:
    async def _run() -> T:
        platform = await Platform.boot()
        try:
            service = service_of(platform)
            return await action(service, service.migrator)
        finally:
            await platform.close()

    return run_async(_run)


def _actor(user: str | None) -> Actor:
    return Actor(id=user) if user else Actor.system("cli")


def _mapping(pairs: tuple[str, ...], mapping_file: Path | None) -> dict[str, str]:
    out: dict[str, str] = {}
    if mapping_file is not None:
        data = json.loads(mapping_file.read_text())
        if not isinstance(data, dict) or not all(isinstance(v, str) for v in data.values()):
            raise click.BadParameter(
                _("must be a JSON object of node id to node id"), param_hint="--mapping"
            )
        out.update(data)
    for pair in pairs:
        source, sep, target = pair.partition("=")
        if not sep or not source or not target:
            raise click.BadParameter(
                _("expected SOURCE=TARGET, got %(pair)r") % {"pair": pair}, param_hint="--map"
            )
        out[source] = target
    return out


def _line(plan: InstancePlan) -> str:
    head = f"{plan.protocol or plan.instance_id}  {word(MIGRATION_RESULTS, plan.result, _)}"
    if plan.error:
        head += f" ({plan.error})"
    tokens = [
        f"    {t.token_id}: {t.from_node} -> {t.to_node or '?'} "
        f"[{word(TOKEN_ACTIONS, t.action, _)}]"
        for t in plan.tokens
    ]
    blockers = [
        "    "
        + _("blocked: %(reason)s") % {"reason": blocker_words(b.code, (), _)}
        + "".join(
            f" {k}={v}"
            for k, v in (("token", b.token_id), ("node", b.node_id), ("target", b.target))
            if v
        )
        + (f" keys={','.join(b.keys)}" if b.keys else "")
        for b in plan.blockers
    ]
    return "\n".join([head, *tokens, *blockers])


def _text(report: MigrationReport) -> str:
    """The report for a person, results and blockers in words (``--json`` keeps the codes)."""
    mode = _("dry run") if report.dry_run else _("migration")
    lines = [f"{mode}: {report.definition_key} v{report.from_version} -> v{report.to_version}"]
    lines += [
        "  " + _("mapping error: %(path)s %(code)s") % {"path": e.path, "code": e.code}
        for e in report.mapping_errors
    ]
    lines += [_line(p) for p in report.instances]
    counts = {r: report.count(r) for r in ("would_migrate", "migrated", "blocked", "failed")}
    summary = ", ".join(f"{word(MIGRATION_RESULTS, r, _)}: {n}" for r, n in counts.items() if n)
    lines.append("  " + (summary or _("nothing to migrate")))
    return "\n".join(lines)


@click.command("migrate")
@click.argument("key")
@click.option("--from", "from_version", type=int, required=True, help="Source version.")
@click.option("--to", "to_version", type=int, required=True, help="Target version.")
@click.option("--map", "pairs", multiple=True, help="SOURCE=TARGET node mapping (repeatable).")
@click.option(
    "--mapping",
    "mapping_file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="JSON file: {source node: target node}.",
)
@click.option("--instance", "instances", multiple=True, help="An instance id (repeatable).")
@click.option(
    "--instances-file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="A file with one instance id per line.",
)
@click.option("--all-in-flight", is_flag=True, help="Choose every unfinished instance on --from.")
@click.option("--apply", "apply_", is_flag=True, help="Really migrate (default: dry run).")
@click.option("--reason", default=None, help="Why (kept in the audit log).")
@click.option(
    "--as",
    "user",
    default=None,
    help="The operator's user id: only the cases they may see (default: system cli, every case).",
)
@click.option(
    "--wait",
    is_flag=True,
    help="For a background migration: follow its progress on stderr until it is over.",
)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.option(
    "--progress",
    "show_progress",
    is_flag=True,
    help="Report the count on stderr as it goes (default: only on a terminal).",
)
def migrate_cmd(
    key: str,
    from_version: int,
    to_version: int,
    pairs: tuple[str, ...],
    mapping_file: Path | None,
    instances: tuple[str, ...],
    instances_file: Path | None,
    all_in_flight: bool,
    apply_: bool,
    reason: str | None,
    user: str | None,
    wait: bool,
    as_json: bool,
    show_progress: bool,
) -> None:
    """Move CHOSEN instances of KEY from one version to another (dry run unless --apply).

    Past the background threshold the migration runs as an operation: its id and progress
    page are printed (``tramita operation show ID`` follows it too); --wait follows it here."""
    mapping = _mapping(pairs, mapping_file)
    chosen = list(instances)
    if instances_file is not None:
        chosen += [s for line in instances_file.read_text().splitlines() if (s := line.strip())]
    if not chosen and not all_in_flight:
        raise click.UsageError(
            _("choose instances: --instance, --instances-file or --all-in-flight")
        )

    async def _go(service: WorkflowService, migrator: Migrator) -> MigrationReport | OperationView:
        viewer = await acting_viewer(service, user)
        every = await migrator.candidates(key, from_version, viewer=viewer) if all_in_flight else []
        ids = chosen + every
        request = MigrationRequest(
            definition_key=key,
            from_version=from_version,
            to_version=to_version,
            mapping=mapping,
            instance_ids=tuple(dict.fromkeys(ids)),
        )
        total = len(request.instance_ids)
        announce(
            (
                _("migrating %(count)s instances of %(key)s from v%(source)s to v%(target)s…")
                if apply_
                else _("checking %(count)s instances of %(key)s from v%(source)s to v%(target)s…")
            )
            % {"count": total, "key": key, "source": from_version, "target": to_version}
        )
        dry = await migrator.plan(request, viewer=viewer)
        if not apply_ or dry.mapping_errors:
            return dry
        seen = {p.instance_id: p.row_version for p in dry.instances if p.row_version is not None}
        operations = service.operations
        if operations is not None and operations.in_background(len(request.instance_ids)):
            started = await operations.start(
                "migration",
                request.instance_ids,
                actor=_actor(user),
                reason=reason,
                params={
                    "definition_key": key,
                    "from_version": from_version,
                    "to_version": to_version,
                    "mapping": mapping,
                    "expected": seen,
                },
                viewer=viewer,
            )
            if not wait:
                return view_of(started)
            return await _follow(service, operations, started)
        line = _("migrating %(done)s/%(total)s instances…")
        with Progress(
            lambda done: line % {"done": done, "total": total},
            every=max(1, total // 10),
            show=show_progress,
        ) as progress:
            report = await migrator.migrate(
                request,
                actor=_actor(user),
                reason=reason,
                expected_versions=seen,
                progress=lambda _plan: progress.advance(),
                viewer=viewer,
            )
        await service.settle()
        return report

    report = _with_migrator(_go)
    if isinstance(report, OperationView):
        _operation_out(report, waited=wait, as_json=as_json)
        return
    if as_json:
        click.echo(msgspec.json.encode(report).decode())
    else:
        click.echo(_text(report))
    if report.mapping_errors or (apply_ and report.count("migrated") < len(report.instances)):
        raise SystemExit(1)


def _progress(view: OperationView) -> str:
    return _(
        "%(handled)s/%(total)s handled (%(percent)s%%): %(done)s done, %(refused)s refused"
    ) % {
        "handled": view.done + view.refused,
        "total": view.total,
        "percent": view.percent,
        "done": view.done,
        "refused": view.refused,
    }


async def _follow(
    service: WorkflowService, operations: OperationService, started: Operation
) -> OperationView:
    """Poll the operation until it is over, one progress line on stderr per change. On the
    embedded defaults nobody else delivers its messages, so this process runs it meanwhile."""
    click.echo(_("migrating in the background: operation %(id)s") % {"id": started.id}, err=True)
    embedded = service.platform.settings.embedded
    if embedded:
        service.delivery.start()
    try:
        last = ""
        while True:
            current = await operations.get(started.id)
            line = _progress(view_of(current))
            if line != last:
                click.echo(f"  {line}", err=True)
                last = line
            if not current.active:
                break
            await asyncio.sleep(WAIT_POLL_S)
    finally:
        if embedded:
            await service.delivery.stop()
    return view_of(current, await operations.items(current.id, refused_only=True))


def _operation_out(view: OperationView, *, waited: bool, as_json: bool) -> None:
    if as_json:
        click.echo(msgspec.json.encode(view).decode())
    elif not waited:
        running = _("migration running in the background: operation %(id)s (%(total)s instances)")
        click.echo(running % {"id": view.id, "total": view.total})
        click.echo(_("progress page: %(url)s") % {"url": f"{OPERATIONS_PAGE}/{view.id}"})
        follow = _("follow it with: %(command)s")
        click.echo(follow % {"command": f"tramita operation show {view.id}"})
    else:
        click.echo(
            _("operation %(id)s: %(status)s; %(progress)s")
            % {"id": view.id, "status": status_words(view), "progress": _progress(view)}
        )
        echo_outcome(view)
    if waited and (view.status != "finished" or view.refused):
        raise SystemExit(1)


@click.command("repair")
@click.argument("ref", metavar="INSTANCE")
@click.option("--token", "token_id", default="t", show_default=True, help="The token to move.")
@click.option("--to", "to_node", required=True, help="The node to move it to (same version).")
@click.option("--reason", required=True, help="Why (mandatory; kept in the audit log).")
@click.option("--expect-version", type=int, default=None, help="Refuse if row_version differs.")
@click.option(
    "--as",
    "user",
    default=None,
    help="The operator's user id: only the cases they may see (default: system cli, every case).",
)
def repair_cmd(
    ref: str,
    token_id: str,
    to_node: str,
    reason: str,
    expect_version: int | None,
    user: str | None,
) -> None:
    """Move one token of INSTANCE (id or protocol number) to another node: skip or redo a step."""

    async def _go(service: WorkflowService, migrator: Migrator) -> Any:
        view = await migrator.repair(
            await instance_id(service, ref, user),
            token_id=token_id,
            to_node=to_node,
            reason=reason,
            actor=_actor(user),
            expected_version=expect_version,
        )
        await service.settle()
        return await service.engine.status(view.id)

    view = _with_migrator(_go)
    at = ", ".join(view.current_nodes) or "-"
    click.echo(
        _("%(protocol)s %(status)s at %(nodes)s")
        % {"protocol": view.protocol, "status": word(STATUSES, view.status, _).lower(), "nodes": at}
    )


COMMANDS = [migrate_cmd, repair_cmd]
