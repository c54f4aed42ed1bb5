"""``tramita audit verify``: walk the hash chain of the audit log and name the first break.

Exit codes: 0 the chain is intact, 1 it is broken (tampering or a write around the writer),
2 the database could not be read. ``--json`` prints the report for scripts and monitoring; keep
its ``head_hash`` somewhere outside the database (see ``core.audit``).
"""

from __future__ import annotations

import asyncio
import sys

import click
import msgspec

from core.audit import ChainReport, verify_chain
from core.cli_text import gettext as _
from core.db import create_engine
from core.settings import load_settings


async def _verify(database_url: str) -> ChainReport:
    engine = create_engine(database_url)
    try:
        async with engine.connect() as conn:
            return await verify_chain(conn)
    finally:
        await engine.dispose()


@click.group("audit")
def audit_group() -> None:
    """The tamper-evident audit log."""


@audit_group.command("verify")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable report.")
def verify_cmd(as_json: bool) -> None:
    """Check every entry's hash and link; report the first broken entry (exit 1)."""
    try:
        report = asyncio.run(_verify(load_settings().database_url))
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
            "audit chain BROKEN at entry seq %(seq)s (id %(id)s): %(problem)s; "
            "%(count)s entries before it verified"
        )
        values = {
            "seq": report.broken_seq,
            "id": report.broken_id,
            "problem": report.problem,
            "count": report.checked,
        }
        click.echo(broken % values, err=True)
    sys.exit(0 if report.ok else 1)
