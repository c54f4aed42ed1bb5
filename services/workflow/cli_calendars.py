"""``tramita calendar show|add|import``: the legal calendars deadlines count on.

Each change stores a new calendar version (audited, with the reason) and recomputes the open
deadlines counting with an older version, each recording the version it now uses. Dates are
read and printed as dd/mm/aaaa or ISO (aaaa-mm-dd); exit 1 with one line on a Tramita error.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

import click
import msgspec

from contracts.kernel import Actor
from core.localtime import date_text
from services.workflow.bootstrap import WorkflowService
from services.workflow.calendar import Calendar, CalendarSpec, DatedHoliday, seal_spec
from services.workflow.calendar.legal import WEEKEND, why_closed
from services.workflow.cli_deadlines import _actor, _with_service


def _day(text: str) -> date:
    day, _, rest = text.partition("/")
    month, _, year = rest.partition("/")
    try:
        if year:
            return date(int(year), int(month), int(day))
        return date.fromisoformat(text)
    except ValueError as exc:
        raise click.BadParameter("use dd/mm/aaaa or aaaa-mm-dd") from exc


def _lines(spec: CalendarSpec, year: int | None) -> list[str]:
    lines = [
        f"{spec.key} v{spec.version} ({spec.timezone}) {spec.checksum}",
        f"  estado: {spec.subdivision or '—'}; pontos facultativos fechados: "
        f"{', '.join(spec.facultative) or 'nenhum'}",
    ]
    for item in spec.municipal_holidays:
        lines.append(f"  municipal: {item.name}")
    for item in spec.extra_closed:
        lines.append(f"  fechado por decreto: {date_text(item.on)} {item.name}")
    if year is not None:
        calendar = Calendar.from_spec(spec)
        day = date(year, 1, 1)
        while day.year == year:
            names = [n for n in why_closed(calendar, day) if n != WEEKEND]
            if names:
                lines.append(f"  {date_text(day)}: {', '.join(names)}")
            day = date.fromordinal(day.toordinal() + 1)
    return lines


@click.group("calendar")
def calendar_group() -> None:
    """Legal calendars: show a version, add a decreed closure, import a calendar."""


@calendar_group.command("show")
@click.argument("key")
@click.option("--version", type=int, default=None, help="A stored version (default: latest).")
@click.option("--year", type=int, default=None, help="Also list the closed days of a year.")
@click.option("--json", "as_json", is_flag=True, help="The stored spec as JSON.")
def show_cmd(key: str, version: int | None, year: int | None, as_json: bool) -> None:
    """The stored calendar KEY (its latest version unless --version)."""

    async def _go(service: WorkflowService) -> CalendarSpec:
        return await service.deadlines.calendar(key, version)

    spec = _with_service(_go)
    if as_json:
        click.echo(msgspec.json.encode(spec).decode())
        return
    for line in _lines(spec, year):
        click.echo(line)


@calendar_group.command("add")
@click.argument("key")
@click.option("--date", "day", required=True, help="The closed day (dd/mm/aaaa).")
@click.option("--name", required=True, help="What closes it, e.g. 'Ponto facultativo'.")
@click.option("--reason", required=True, help="The decree or act (audit trail).")
@click.option("--as", "user_id", default=None, help="User id recorded as the actor.")
def add_cmd(key: str, day: str, name: str, reason: str, user_id: str | None) -> None:
    """Close DATE in calendar KEY (a new version) and recompute the open deadlines."""
    closed = DatedHoliday(name=name, on=_day(day))
    actor = _actor(user_id)

    async def _go(service: WorkflowService) -> tuple[CalendarSpec, int]:
        spec = await service.deadlines.revise_calendar(
            key, add_closed=[closed], reason=reason, actor=actor
        )
        moved = await service.deadlines.recompute_open(key, actor)
        return spec, len(moved)

    spec, moved = _with_service(_go)
    click.echo(
        f"{spec.key} v{spec.version}: {date_text(closed.on)} fechado; "
        f"{moved} prazo(s) recalculado(s)"
    )


@calendar_group.command("import")
@click.argument("path", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--as", "user_id", default=None, help="User id recorded as the actor.")
def import_cmd(path: Path, user_id: str | None) -> None:
    """Store the calendar in PATH (JSON of a CalendarSpec; sealed here) as its version."""
    try:
        spec = msgspec.json.decode(path.read_bytes(), type=CalendarSpec)
    except msgspec.DecodeError as exc:
        raise click.BadParameter(f"not a calendar: {exc}") from exc
    sealed = seal_spec(spec)
    actor: Actor = _actor(user_id)

    async def _go(service: WorkflowService) -> bool:
        return await service.deadlines.publish_calendar(sealed, actor)

    created = _with_service(_go)
    state = "stored" if created else "already stored"
    click.echo(f"{sealed.key} v{sealed.version} {state} ({sealed.checksum})")


COMMANDS = [calendar_group]
