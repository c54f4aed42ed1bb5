"""``tramita calendar show|add|import``: the legal calendars deadlines count on.

Each change goes through ``DeadlineService.change_calendar`` (the same operation as the admin
page): a new calendar version, audited with the reason, the city calendars built on a changed
state calendar following it, and the open deadlines counting with an older version recomputed,
each recording the version it now uses. ``add`` adds a decreed closure (the default), a dated
ponto facultativo with the city's decision (``--optional --closes|--open --decree``), a state
or a municipal holiday. Dates are read and printed as dd/mm/aaaa or ISO (aaaa-mm-dd); exit 1
with one line on a bad option or a Tramita error.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

import click
import msgspec

from contracts.kernel import Actor
from core.localtime import date_text
from services.workflow.bootstrap import WorkflowService
from services.workflow.calendar import (
    AnnualHoliday,
    Calendar,
    CalendarEdit,
    CalendarSpec,
    DatedHoliday,
    LocalHoliday,
    OptionalDay,
    seal_spec,
)
from services.workflow.calendar.legal import closure_text
from services.workflow.cli.deadlines import _actor, _with_service
from services.workflow.cli.text import gettext as _


def _day(text: str) -> date:
    day, _sep, rest = text.partition("/")
    month, _sep, year = rest.partition("/")
    try:
        if year:
            return date(int(year), int(month), int(day))
        return date.fromisoformat(text)
    except ValueError as exc:
        raise click.BadParameter(_("use dd/mm/yyyy or yyyy-mm-dd")) from exc


# How the CLI names each layer (pt-BR, like the rest of its output).
LAYER_TEXT = {
    "national": "nacional",
    "state": "estadual",
    "municipal": "municipal",
    "optional": "ponto facultativo",
    "decree": "decreto",
}


def _year_lines(calendar: Calendar, year: int) -> list[str]:
    """Each closed day with the layer that closes it, and the optional days kept open."""
    lines: list[str] = []
    kept_open = {item.on: item for item in calendar.optional_days(year) if not item.closes}
    day = date(year, 1, 1)
    while day.year == year:
        closures = calendar.closed_by(day)
        if closures:
            names = "; ".join(
                f"{closure_text(calendar, day, c)} [{LAYER_TEXT[c.layer]}]" for c in closures
            )
            lines.append(f"  {date_text(day)}: {names}")
        elif day in kept_open:
            item = kept_open[day]
            lines.append(
                f"  {date_text(day)}: {item.name} [ponto facultativo, {item.decree}] — "
                "aberto (dia útil)"
            )
        day = date.fromordinal(day.toordinal() + 1)
    return lines


def _lines(calendar: Calendar, year: int | None) -> list[str]:
    spec = calendar.spec
    layer = "estadual" if spec.layer == "state" else "municipal"
    lines = [
        f"{spec.key} v{spec.version} ({spec.timezone}) {spec.checksum}",
        f"  camada: {layer}; estado: {calendar.subdivision or '—'}; pontos facultativos "
        f"fechados: {', '.join(spec.facultative) or 'nenhum'}",
    ]
    if spec.state is not None:
        lines.append(f"  sobre o calendário estadual: {spec.state.key} v{spec.state.version}")
    for holiday in spec.state_holidays:
        lines.append(f"  estadual: {holiday.name}")
    for holiday in spec.municipal_holidays:
        lines.append(f"  municipal: {holiday.name}")
    for item in spec.extra_closed:
        lines.append(f"  fechado por decreto: {date_text(item.on)} {item.name}")
    for optional in spec.optional_days:
        decision = "fecha" if optional.closes else "aberto"
        lines.append(
            f"  ponto facultativo: {date_text(optional.on)} {optional.name} — {decision} "
            f"({optional.decree})"
        )
    if year is not None:
        lines += _year_lines(calendar, year)
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

    if year is not None and not 1900 <= year <= 2200:
        raise click.ClickException(_("--year: give a year between 1900 and 2200"))

    async def _go(service: WorkflowService) -> Calendar:
        return await service.deadlines.built_calendar(key, version)

    calendar = _with_service(_go)
    if as_json:
        click.echo(msgspec.json.encode(calendar.spec).decode())
        return
    for line in _lines(calendar, year):
        click.echo(line)


def _edit(
    day: date, name: str, kind: str, closes: bool | None, decree: str | None, every_year: bool
) -> CalendarEdit:
    """The change ``add`` asks for; a bad combination of options is one line, exit 1."""
    if kind != "optional" and (closes is not None or decree):
        raise click.ClickException(_("--closes/--open and --decree go with --optional"))
    if kind in ("closed", "optional") and every_year:
        raise click.ClickException(
            _("--every-year goes with --state-holiday or --municipal-holiday")
        )
    if kind == "optional":
        if closes is None:
            raise click.ClickException(_("--optional needs the decision: --closes or --open"))
        if not decree or not decree.strip():
            raise click.ClickException(_("--optional needs --decree (the act that decreed it)"))
        return CalendarEdit(
            optional_days=(OptionalDay(name=name, on=day, closes=closes, decree=decree.strip()),)
        )
    if kind == "closed":
        return CalendarEdit(add_closed=(DatedHoliday(name=name, on=day),))
    holiday: LocalHoliday = (
        AnnualHoliday(name=name, month=day.month, day=day.day)
        if every_year
        else DatedHoliday(name=name, on=day)
    )
    if kind == "state":
        return CalendarEdit(state_holidays=(holiday,))
    return CalendarEdit(municipal_holidays=(holiday,))


def _kind(optional: bool, state: bool, municipal: bool) -> str:
    chosen = [
        k for k, on in (("optional", optional), ("state", state), ("municipal", municipal)) if on
    ]
    if len(chosen) > 1:
        raise click.ClickException(
            _("choose one of --optional, --state-holiday, --municipal-holiday")
        )
    return chosen[0] if chosen else "closed"


def _done(kind: str, closes: bool | None) -> str:
    if kind == "optional":
        return "ponto facultativo, fechado" if closes else "ponto facultativo, aberto"
    return {"closed": "fechado", "state": "feriado estadual", "municipal": "feriado municipal"}[
        kind
    ]


@calendar_group.command("add")
@click.argument("key")
@click.option("--date", "day", required=True, help="The day (dd/mm/aaaa).")
@click.option("--name", required=True, help="What it is, e.g. 'Ponto facultativo'.")
@click.option("--reason", required=True, help="Why the change is made (audit trail).")
@click.option("--optional", is_flag=True, help="A dated ponto facultativo (with --closes/--open).")
@click.option(
    "--closes/--open",
    "closes",
    default=None,
    help="The city's decision for an optional day: its offices close, or stay open.",
)
@click.option("--decree", default=None, help="The act that decreed the optional day.")
@click.option("--state-holiday", is_flag=True, help="A state holiday (in a state calendar).")
@click.option("--municipal-holiday", is_flag=True, help="A municipal holiday.")
@click.option("--every-year", is_flag=True, help="The holiday falls on this day every year.")
@click.option("--as", "user_id", default=None, help="User id recorded as the actor.")
def add_cmd(
    key: str,
    day: str,
    name: str,
    reason: str,
    optional: bool,
    closes: bool | None,
    decree: str | None,
    state_holiday: bool,
    municipal_holiday: bool,
    every_year: bool,
    user_id: str | None,
) -> None:
    """Add a closed day, an optional day or a holiday to calendar KEY (a new version; the
    cities built on a state calendar follow it) and recompute the open deadlines."""
    kind = _kind(optional, state_holiday, municipal_holiday)
    on = _day(day)
    edit = _edit(on, name, kind, closes, decree, every_year)
    actor = _actor(user_id)

    async def _go(service: WorkflowService) -> tuple[CalendarSpec, tuple[CalendarSpec, ...], int]:
        done = await service.deadlines.change_calendar(key, edit, reason=reason, actor=actor)
        return done.spec, done.followers, done.recomputed

    spec, followers, moved = _with_service(_go)
    click.echo(
        f"{spec.key} v{spec.version}: {date_text(on)} {_done(kind, closes)}; "
        f"{moved} prazo(s) recalculado(s)"
    )
    for city in followers:
        click.echo(f"  {city.key} v{city.version} segue {spec.key} v{spec.version}")


@calendar_group.command("import")
@click.argument("path", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--as", "user_id", default=None, help="User id recorded as the actor.")
def import_cmd(path: Path, user_id: str | None) -> None:
    """Store the calendar in PATH (JSON of a CalendarSpec; sealed here) as its version."""
    try:
        spec = msgspec.json.decode(path.read_bytes(), type=CalendarSpec)
    except msgspec.DecodeError as exc:
        raise click.BadParameter(_("not a calendar: %(reason)s") % {"reason": exc}) from exc
    sealed = seal_spec(spec)
    actor: Actor = _actor(user_id)

    async def _go(service: WorkflowService) -> bool:
        return await service.deadlines.publish_calendar(sealed, actor)

    created = _with_service(_go)
    state = _("stored") if created else _("already stored")
    click.echo(f"{sealed.key} v{sealed.version} {state} ({sealed.checksum})")


COMMANDS = [calendar_group]
