"""Legal calendars in the pages: the calendars and their versions, a year's closed days by
layer, and a form to add a municipal holiday, a decreed closure or a dated ponto facultativo
with the city's decision (a state holiday on a state calendar).

A change goes through ``DeadlineService.change_calendar``, the operation ``tramita calendar
add`` uses: the next calendar version audited as ``workflow.calendar.revised`` with the reason,
the city calendars built on a changed state calendar following it, and the open deadlines
recomputed; the calendar page then says how many. Permission ``workflow.admin``; the form needs
its CSRF token and a reason; a refused change shows the form again with what was wrong.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Any
from urllib.parse import quote

from litestar import Controller, Request, Response, get, post
from litestar.params import FromPath

from contracts.errors import Conflict, ValidationFailed
from core.i18n import N_, gettext
from core.localtime import local_date
from services.workflow.api.deadlines import deadlines_of
from services.workflow.calendar import (
    AnnualHoliday,
    Calendar,
    CalendarEdit,
    DatedHoliday,
    LocalHoliday,
    OptionalDay,
)
from services.workflow.calendar.legal import closure_text
from services.workflow.ui.actions import MAX_REASON, NO_REASON, REFUSED
from services.workflow.ui.people import names_of
from services.workflow.ui.web import (
    page,
    page_requires,
    platform_of,
    see_other,
    ui_actor,
    zone_of,
)

CALENDARS = "/cms/workflow/calendars"
MAX_NAME = 200
LAYER_LABELS = {
    "national": N_("National"),
    "state": N_("State"),
    "municipal": N_("Municipal"),
    "optional": N_("Optional day (closed)"),
    "decree": N_("Decreed closure"),
}
KINDS = {
    "municipal": N_("Municipal holiday"),
    "closed": N_("Decreed closure"),
    "optional": N_("Optional day (ponto facultativo)"),
    "state": N_("State holiday"),
}


def _url(key: str) -> str:
    return f"{CALENDARS}/{quote(key, safe='')}"


@dataclass(frozen=True)
class DayRow:
    """One line of a year's table: a closed day (one per closing reason) or an optional day
    kept open."""

    on: date
    name: str
    layer: str
    decree: str
    open: bool = False


@dataclass
class AddForm:
    """What the add form holds, and what was wrong with it (field → message)."""

    kind: str = "municipal"
    day: str = ""
    name: str = ""
    decision: str = ""
    decree: str = ""
    every_year: bool = False
    reason: str = ""
    errors: dict[str, str] = field(default_factory=dict)
    details: list[str] = field(default_factory=list)


def _year_rows(calendar: Calendar, year: int) -> list[DayRow]:
    rows: list[DayRow] = []
    kept_open = {item.on: item for item in calendar.optional_days(year) if not item.closes}
    day = date(year, 1, 1)
    while day.year == year:
        for closure in calendar.closed_by(day):
            rows.append(
                DayRow(
                    on=day,
                    name=closure_text(calendar, day, closure),
                    layer=gettext(LAYER_LABELS[closure.layer]),
                    decree=closure.decree or "",
                )
            )
        if day in kept_open:
            item = kept_open[day]
            rows.append(
                DayRow(
                    on=day,
                    name=item.name,
                    layer=gettext("Optional day (open)"),
                    decree=item.decree,
                    open=True,
                )
            )
        day = date.fromordinal(day.toordinal() + 1)
    return rows


def _parse_day(text: str) -> date | None:
    text = text.strip()
    day, _, rest = text.partition("/")
    month, _, year = rest.partition("/")
    try:
        if year:
            return date(int(year), int(month), int(day))
        return date.fromisoformat(text)
    except ValueError:
        return None


def _read(form: Any, kinds: dict[str, str]) -> AddForm:
    def text(name: str, limit: int) -> str:
        return str(form.get(name) or "").strip()[:limit]

    got = AddForm(
        kind=text("kind", 20),
        day=text("day", 20),
        name=text("name", MAX_NAME + 1),
        decision=text("decision", 10),
        decree=text("decree", MAX_NAME + 1),
        every_year=bool(form.get("every_year")),
        reason=str(form.get("reason") or "")[:MAX_REASON],
    )
    if got.kind not in kinds:
        got.errors["kind"] = gettext("Choose what to add.")
    if _parse_day(got.day) is None:
        got.errors["day"] = gettext("Give the date as dd/mm/aaaa.")
    if not got.name or len(got.name) > MAX_NAME:
        got.errors["name"] = gettext("Give the name (at most 200 characters).")
    if got.kind == "optional":
        if got.decision not in ("closes", "open"):
            got.errors["decision"] = gettext("Say whether the offices close on this day.")
        if not got.decree or len(got.decree) > MAX_NAME:
            got.errors["decree"] = gettext("Name the decree (at most 200 characters).")
    reason = got.reason.strip()
    if not reason or "\x00" in reason:
        got.errors["reason"] = gettext(NO_REASON)
    return got


def _edit(got: AddForm) -> CalendarEdit:
    on = _parse_day(got.day)
    assert on is not None  # checked by _read
    if got.kind == "optional":
        closes = got.decision == "closes"
        day = OptionalDay(name=got.name, on=on, closes=closes, decree=got.decree)
        return CalendarEdit(optional_days=(day,))
    if got.kind == "closed":
        return CalendarEdit(add_closed=(DatedHoliday(name=got.name, on=on),))
    holiday: LocalHoliday = (
        AnnualHoliday(name=got.name, month=on.month, day=on.day)
        if got.every_year
        else DatedHoliday(name=got.name, on=on)
    )
    if got.kind == "state":
        return CalendarEdit(state_holidays=(holiday,))
    return CalendarEdit(municipal_holidays=(holiday,))


class CalendarPagesController(Controller):
    path = CALENDARS
    include_in_schema = False
    guards = [page_requires("workflow.admin")]

    @get("/")
    async def calendars(self, request: Request[Any, Any, Any]) -> Response[Any]:
        specs = await deadlines_of(request).calendars()
        return page(request, "calendars.html", calendars=specs)

    @get("/{key:str}")
    async def calendar(self, request: Request[Any, Any, Any], key: FromPath[str]) -> Response[Any]:
        service = deadlines_of(request)
        versions = await service.calendar_versions(key)
        built = await service.built_calendar(key)
        today = local_date(platform_of(request).clock.now(), zone_of(request))
        year_text = request.query_params.get("year") or ""
        year = int(year_text) if year_text.isdigit() and 1900 <= int(year_text) <= 2200 else None
        year = year or today.year
        changed = request.query_params.get("msg") == "changed"
        recomputed = request.query_params.get("recomputed") or "0"
        return page(
            request,
            "calendar.html",
            calendar=built.spec,
            subdivision=built.subdivision,
            versions=versions,
            names=await names_of(request, [v.created_by for v in versions]),
            year=year,
            rows=_year_rows(built, year),
            base=_url(key),
            changed=changed,
            recomputed=int(recomputed) if recomputed.isdigit() else 0,
        )

    def _kinds(self, layer: str) -> dict[str, str]:
        chosen = ("state", "closed") if layer == "state" else ("municipal", "closed", "optional")
        return {kind: gettext(KINDS[kind]) for kind in chosen}

    @get("/{key:str}/add")
    async def add_page(self, request: Request[Any, Any, Any], key: FromPath[str]) -> Response[Any]:
        spec = (await deadlines_of(request).built_calendar(key)).spec
        kinds = self._kinds(spec.layer)
        return self._form(request, spec.key, kinds, AddForm(kind=next(iter(kinds))))

    def _form(
        self,
        request: Request[Any, Any, Any],
        key: str,
        kinds: dict[str, str],
        got: AddForm,
        status_code: int = 200,
    ) -> Response[Any]:
        return page(
            request,
            "calendar_add.html",
            status_code=status_code,
            key=key,
            base=_url(key),
            kinds=kinds,
            form=got,
        )

    @post("/{key:str}/add", status_code=303)
    async def add(self, request: Request[Any, Any, Any], key: FromPath[str]) -> Response[Any]:
        service = deadlines_of(request)
        spec = (await service.built_calendar(key)).spec
        kinds = self._kinds(spec.layer)
        got = _read(await request.form(), kinds)
        if got.errors:
            return self._form(request, spec.key, kinds, got, status_code=400)
        try:
            done = await service.change_calendar(
                spec.key, _edit(got), reason=got.reason.strip(), actor=ui_actor(request)
            )
        except ValidationFailed as exc:
            got.details = [f"{e.path}: {e.code}" for e in exc.errors]
            got.errors["form"] = gettext(exc.title)
            return self._form(request, spec.key, kinds, got, status_code=422)
        except Conflict:
            got.errors["form"] = gettext(REFUSED)
            return self._form(request, spec.key, kinds, got, status_code=409)
        on = _parse_day(got.day)
        assert on is not None  # checked by _read
        return see_other(
            f"{_url(spec.key)}?year={on.year}&msg=changed&recomputed={done.recomputed}"
        )
