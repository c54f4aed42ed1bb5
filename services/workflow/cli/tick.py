"""``tramita tick``: fire the due timers of every database, once or every few seconds."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

import click

from core.cli_errors import is_database_down
from services.workflow.cli.text import gettext as _
from services.workflow.cli.workflow import with_platform

if TYPE_CHECKING:
    from core.app import Platform
    from services.workflow.bootstrap import WorkflowService


@click.command("tick")
@click.option(
    "--every",
    type=float,
    default=None,
    help="Keep running, firing due timers every SECONDS (default: fire once and exit).",
)
def tick_cmd(every: float | None) -> None:
    """Fire every due timer once (safe to run from several places at the same time)."""

    async def _tick(platform: Platform, home: WorkflowService) -> int:
        from services.workflow.handles import PLACEMENTS_KEY
        from services.workflow.placements import every_service

        services = every_service(home, platform.extras.get(PLACEMENTS_KEY, {}))
        total = 0
        while True:
            fired = 0
            for service in services:
                fired += await _tick_one(service, home)
            total += fired
            if every is None:
                return total
            if fired:
                click.echo(_("timers fired: %(count)s") % {"count": fired})
            await asyncio.sleep(every)

    fired = with_platform(_tick, role="tick")
    click.echo(_("timers fired: %(count)s") % {"count": fired})


async def _tick_one(service: WorkflowService, home: WorkflowService) -> int:
    """One database's due timers; a placed database that does not answer is named on stderr
    and skipped, so that the other tenants' timers still fire (the home one's error stops)."""
    from services.workflow.placements import database_label

    try:
        fired = await service.engine.tick()
        await service.settle()
    except Exception as exc:
        if service is home or not is_database_down(exc):
            raise
        click.echo(
            _("database %(name)s did not answer: its timers fire on the next tick")
            % {"name": database_label(service.database)},
            err=True,
        )
        return 0
    return fired


COMMANDS = [tick_cmd]
