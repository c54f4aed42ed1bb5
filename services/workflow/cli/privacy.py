"""``tramita privacy export SUBJECT`` and ``tramita privacy purge``: the LGPD operations.

``export`` prints the data subject's records as JSON (always JSON: it is handed to the person
or to the DPO's tooling, not read on a terminal). ``purge`` applies every definition's
``retention``; run it daily (systemd timer, see ``docs/deployment.md``). Exit codes: 0 done,
1 a Tramita error (one line on stderr).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click
import msgspec

from core.app import Platform
from core.cli import run_async
from core.cli_progress import Progress, announce
from services.workflow.cli.text import gettext as _
from services.workflow.definition.messages import N_
from services.workflow.privacy import Privacy, PurgeReport, SubjectExport

PROGRESS_EVERY = 100
"""On a pipe (``--progress``), one line per this many purged instances, and one at the end."""


def _databases(platform: Platform) -> list[Any]:
    """The home database, then each database tenants are placed on, once each
    (``TRAMITA_TENANT_DATABASES``): the privacy commands act on every one, so a subject's export
    and the retention purge miss no tenant's cases."""
    from services.workflow.bootstrap import service_of
    from services.workflow.handles import PLACEMENTS_KEY
    from services.workflow.placements import every_service

    placed = platform.extras.get(PLACEMENTS_KEY, {})
    return [service.database for service in every_service(service_of(platform), placed)]


async def _export(subject: str) -> SubjectExport:
    platform = await Platform.boot()
    try:
        parts = [
            await Privacy(platform, database).export_subject(subject)
            for database in _databases(platform)
        ]
    finally:
        await platform.close()
    records = sorted((r for part in parts for r in part.records), key=lambda r: r.started_at)
    return msgspec.structs.replace(parts[0], records=records)


async def _purge(dry_run: bool, progress: Callable[[str], None]) -> PurgeReport:
    platform = await Platform.boot()
    try:
        reports = [
            await Privacy(platform, database).purge_due(dry_run=dry_run, progress=progress)
            for database in _databases(platform)
        ]
    finally:
        await platform.close()
    return PurgeReport(
        instances=[p for report in reports for p in report.instances],
        keys=sum(report.keys for report in reports),
    )


@click.group("privacy")
def privacy_group() -> None:
    """Personal data (LGPD): subject export and retention purge."""


@privacy_group.command("export")
@click.argument("subject")
def export_cmd(subject: str) -> None:
    """Every record holding SUBJECT (a CPF, an e-mail, a name, or a user id), as JSON."""
    export = run_async(lambda: _export(subject))
    click.echo(msgspec.json.format(msgspec.json.encode(export)).decode())


@privacy_group.command("purge")
@click.option("--dry-run", is_flag=True, help="List what would be purged, change nothing.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.option(
    "--progress",
    "show_progress",
    is_flag=True,
    help="Report the count on stderr as it goes (default: only on a terminal).",
)
def purge_cmd(dry_run: bool, as_json: bool, show_progress: bool) -> None:
    """Purge personal values of closed instances past their definition's retention."""
    announce(
        _("looking for closed instances past their retention…")
        if dry_run
        else _("purging the personal data of closed instances past their retention…")
    )
    line = _("purged %(done)s instances…")
    with Progress(
        lambda done: line % {"done": done}, every=PROGRESS_EVERY, show=show_progress
    ) as progress:
        report = run_async(lambda: _purge(dry_run, lambda _protocol: progress.advance()))
    if as_json:
        click.echo(msgspec.json.encode(report).decode())
        return
    done = (
        _("would purge %(instances)s instance(s), %(values)s value(s)")
        if dry_run
        else _("purged %(instances)s instance(s), %(values)s value(s)")
    )
    click.echo(done % {"instances": len(report.instances), "values": report.keys})
    for protocol in report.instances:
        click.echo(f"  {protocol}")


async def _purge_tenant(
    tenant: str, dry_run: bool, progress: Callable[[int], None]
) -> tuple[int, dict[str, int]]:
    from contracts.errors import ValidationFailed
    from contracts.kernel import Actor
    from services.workflow.persistence.tenant_purge import count_cases, purge_tenant

    platform = await Platform.boot()
    try:
        if tenant == platform.settings.tenant:
            raise ValidationFailed(
                N_("the deployment's own tenant (TRAMITA_TENANT) cannot be purged"),
                field="tenant",
            )
        # A tenant placed on a database of its own (TRAMITA_TENANT_DATABASES) is purged there.
        database = platform.placements.get(tenant, platform.database)
        cases = await count_cases(database, tenant)
        if dry_run:
            return cases, {}
        rows = await purge_tenant(
            database,
            tenant,
            audit=platform.audit,
            actor=Actor.system("cli"),
            progress=progress,
        )
        return cases, rows
    finally:
        await platform.close()


@privacy_group.command("purge-tenant")
@click.argument("tenant")
@click.option("--dry-run", is_flag=True, help="Count the tenant's cases, change nothing.")
@click.option("--yes", is_flag=True, help="Do it (without it, nothing is deleted).")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.option(
    "--progress",
    "show_progress",
    is_flag=True,
    help="Report the count on stderr as it goes (default: only on a terminal).",
)
def purge_tenant_cmd(
    tenant: str, dry_run: bool, yes: bool, as_json: bool, show_progress: bool
) -> None:
    """Delete every case of TENANT (a body leaving the deployment); the audit log stays."""
    if not dry_run and not yes:
        raise click.UsageError(_("this deletes every case of the tenant: add --yes (or --dry-run)"))
    line = _("deleted %(done)s cases…")
    with Progress(
        lambda done: line % {"done": done}, every=PROGRESS_EVERY, show=show_progress
    ) as progress:
        cases, rows = run_async(lambda: _purge_tenant(tenant, dry_run, progress.advance))
    if as_json:
        click.echo(msgspec.json.encode({"tenant": tenant, "cases": cases, "rows": rows}).decode())
        return
    done = (
        _("would delete %(cases)s case(s) of %(tenant)s")
        if dry_run
        else _("deleted %(cases)s case(s) of %(tenant)s")
    )
    click.echo(done % {"cases": cases, "tenant": tenant})
    for table, count in rows.items():
        click.echo(f"  {table}: {count}")


COMMANDS = [privacy_group]
