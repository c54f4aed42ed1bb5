"""``tramita audit verify``: walk the hash chain of the audit log and name the first break;
``tramita audit reads --instance ID``: who read a case (or its requester's data) and when.

Exit codes: 0 the chain is intact, 1 it is broken (tampering or a write around the writer),
2 the database could not be read. ``--json`` prints the report for scripts and monitoring; keep
its ``head_hash`` (a digest over every chain's head) outside the database (see ``core.audit``).
"""

from __future__ import annotations

import asyncio
import sys

import click
import msgspec
import sqlalchemy as sa

from contracts.kernel import AuditEntry, AuditRecord
from contracts.workflow.case import CASE_OPENED, CASE_READ, IDENTITY_REVEALED, PERSONAL_DATA_READ
from core.audit import read_entries
from core.audit_verify import ChainReport, verify_chain
from core.cli_text import gettext as _
from core.db import create_engine
from core.i18n import N_
from core.identity import is_uuid
from core.localtime import datetime_text
from core.settings import load_settings
from core.tables import users
from core.tenancy import acting_database_url


async def _verify(database_url: str, tenant: str | None, own_tenant: str) -> ChainReport:
    engine = create_engine(database_url)
    try:
        async with engine.connect() as conn:
            return await verify_chain(conn, tenant=tenant, legacy_tenant=own_tenant)
    finally:
        await engine.dispose()


READ_TEXT = {
    CASE_READ: N_("opened the case"),
    PERSONAL_DATA_READ: N_("saw the requester's personal data"),
    IDENTITY_REVEALED: N_("revealed the protected identity"),
}
OPENED_TEXT = {
    "restricted": N_("opened the restricted case"),
    "secret": N_("opened the secret case"),
}
"""``case.opened`` by the level the entry recorded."""
DOCUMENT_OPENED_TEXT = N_("opened the document %(document)s")
"""``case.opened`` that names a ``document``: a restricted or secret document downloaded."""


def read_text(entry: AuditEntry) -> str:
    """What the reader did, in the reader's language (the action itself when unknown)."""
    after = entry.after or {}
    if entry.action == CASE_OPENED and after.get("document"):
        return _(DOCUMENT_OPENED_TEXT) % {"document": after["document"]}
    if entry.action == CASE_OPENED:
        what = OPENED_TEXT.get(str(after.get("level")))
    else:
        what = READ_TEXT.get(entry.action)
    return _(what) if what else entry.action


async def _reads(
    database_url: str, instance_id: str, home_url: str
) -> tuple[list[AuditRecord], dict[str, str]]:
    """The read entries (on the case's tenant's database) and the display name of each reader
    known to the directory (people live on the home database, ``home_url``)."""
    engine = create_engine(database_url)
    try:
        async with engine.connect() as conn:
            records = await read_entries(conn, instance_id)
    finally:
        await engine.dispose()
    readers = {r.entry.actor.id for r in records if r.entry.actor.kind == "user"}
    readers = {u for u in readers if is_uuid(u)}
    if not readers:
        return records, {}
    home = create_engine(home_url)
    try:
        async with home.connect() as conn:
            found = await conn.execute(
                sa.select(users.c.id, users.c.display_name).where(users.c.id.in_(sorted(readers)))
            )
            return records, {str(row.id): str(row.display_name) for row in found}
    finally:
        await home.dispose()


@click.group("audit")
def audit_group() -> None:
    """The tamper-evident audit log."""


@audit_group.command("verify")
@click.option("--tenant", "tenant", default=None, help="Verify this tenant's chains only.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable report.")
def verify_cmd(tenant: str | None, as_json: bool) -> None:
    """Check every entry's hash and link; report the first broken entry (exit 1). A tenant on
    a database of its own (``TRAMITA_TENANT_DATABASES``) is verified there with ``--tenant``."""
    settings = load_settings()
    try:
        url = dict(settings.tenant_databases).get(tenant or "", acting_database_url(settings))
        report = asyncio.run(_verify(url, tenant, settings.tenant))
    except Exception as exc:  # noqa: BLE001 - one clear line, never a traceback with a URL
        from core.cli_errors import one_line

        one_line(_("cannot read the audit log (%(error)s)") % {"error": type(exc).__name__})
        sys.exit(2)
    if as_json:
        body = msgspec.to_builtins(report)
        body["ok"] = report.ok
        click.echo(msgspec.json.encode(body).decode())
    elif report.ok:
        click.echo(_("audit chain intact: %(count)s entries") % {"count": report.checked})
        if report.head_seq is not None:
            head = _("head: seq %(seq)s hash %(hash)s")
            click.echo(head % {"seq": report.head_seq, "hash": report.head_hash})
    else:
        broken = _(
            "audit chain BROKEN at entry seq %(seq)s (id %(id)s, tenant %(tenant)s, chain "
            "%(chain)s): %(problem)s; %(count)s entries before it verified"
        )
        values = {
            "seq": report.broken_seq,
            "id": report.broken_id,
            "tenant": report.broken_tenant,
            "chain": report.broken_chain,
            "problem": report.problem,
            "count": report.checked,
        }
        click.echo(broken % values, err=True)
    sys.exit(0 if report.ok else 1)


@audit_group.command("reads")
@click.option("--instance", "instance_id", required=True, help="The instance's id.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable list.")
def reads_cmd(instance_id: str, as_json: bool) -> None:
    """Who read the instance's case or its requester's personal data, and when."""
    settings = load_settings()
    try:
        records, names = asyncio.run(
            _reads(acting_database_url(settings), instance_id, settings.database_url)
        )
    except Exception as exc:  # noqa: BLE001 - one clear line, never a traceback with a URL
        from core.cli_errors import one_line

        one_line(_("cannot read the audit log (%(error)s)") % {"error": type(exc).__name__})
        sys.exit(2)
    if as_json:
        rows = [
            {"seq": r.seq, "at": r.at.isoformat(), "action": r.entry.action,
             "actor": r.entry.actor.id, "name": names.get(r.entry.actor.id), "hash": r.hash}
            for r in records
        ]  # fmt: skip
        click.echo(msgspec.json.encode(rows).decode())
        return
    if not records:
        click.echo(_("no read recorded for this instance"))
        return
    for r in records:
        line = _("%(at)s  %(who)s %(what)s (entry %(seq)s)")
        click.echo(
            line
            % {
                "at": datetime_text(r.at, settings.timezone, seconds=True),
                "who": names.get(r.entry.actor.id, r.entry.actor.id),
                "what": read_text(r.entry),
                "seq": r.seq,
            }
        )
