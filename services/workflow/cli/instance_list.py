"""``tramita instance list``: find instances from the command line.

Filters by definition, status and "overdue only", one page at a time (``--limit``, default 50,
and ``--offset``), newest first. A person gets a table — protocol number, definition, status,
current node and start time in the jurisdiction's time zone (``dd/mm/yyyy HH:MM``) — and the
count of what matched; a script gets one JSON document with ``--json``. Reads only: no boot.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import click
import msgspec

from core.cli import ReadCommand
from services.workflow.cli.reads import cases_database, viewer_of, with_database
from services.workflow.labels import STATUSES, word

if TYPE_CHECKING:
    from sqlalchemy.ext.asyncio import AsyncEngine

    from contracts.kernel import Clock
    from core.settings import Settings
    from services.workflow.persistence.instance_list import InstancePage


def table(page: InstancePage, zone_name: str) -> str:
    """The page as aligned columns, in the reader's language, with the count at the end."""
    from core.localtime import datetime_text
    from services.workflow.cli.text import gettext as _

    if not page.instances:
        return _("no instance matches")
    header = (_("Protocol"), _("Definition"), _("Status"), _("Current step"), _("Started"))
    rows = [
        (
            item.protocol,
            f"{item.definition_key} v{item.definition_version}",
            word(STATUSES, item.status, _),
            ", ".join(item.current_nodes) or "—",
            datetime_text(item.started_at, zone_name),
        )
        + ((_("Overdue"),) if item.overdue else ())
        for item in page.instances
    ]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    lines = [
        "  ".join(
            cell.ljust(widths[i]) if i < len(widths) else cell for i, cell in enumerate(r)
        ).rstrip()
        for r in [header, *rows]
    ]
    first, last = page.offset + 1, page.offset + len(page.instances)
    lines.append(
        _("%(first)s to %(last)s of %(total)s")
        % {"first": first, "last": last, "total": page.total}
    )
    return "\n".join(lines)


@click.command("list", cls=ReadCommand)
@click.option("--definition", "definition_key", default=None, help="Only this definition (key).")
@click.option("--status", type=click.Choice(list(STATUSES)), default=None, help="Only this status.")
@click.option("--overdue", is_flag=True, help="Only instances with an open task past its due time.")
@click.option(
    "--limit",
    type=click.IntRange(1, 1000),
    default=50,
    show_default=True,
    help="At most this many instances.",
)
@click.option(
    "--offset",
    type=click.IntRange(0),
    default=0,
    show_default=True,
    help="Skip this many (the next page).",
)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.option("--as", "user", default=None, help="List as this user (restricted, secret cases).")
def list_instances_cmd(
    definition_key: str | None,
    status: str | None,
    overdue: bool,
    limit: int,
    offset: int,
    as_json: bool,
    user: str | None,
) -> None:
    """List instances, newest first (protocol, definition, status, current step, start)."""
    from services.workflow.persistence.instance_list import InstanceFilter, list_instances

    async def _list(
        database: AsyncEngine, settings: Settings, clock: Clock
    ) -> tuple[InstancePage, str]:
        wanted = InstanceFilter(
            definition_key=definition_key,
            status=status,
            overdue=overdue,
            limit=limit,
            offset=offset,
            viewer=await viewer_of(database, clock, user, settings.tenant),
        )
        async with cases_database(database, settings) as cases:
            return await list_instances(cases, wanted, clock.now()), settings.timezone

    page, zone_name = with_database(_list)
    if as_json:
        click.echo(msgspec.json.encode(page).decode())
    else:
        click.echo(table(page, zone_name))
