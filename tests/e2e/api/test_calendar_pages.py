"""The calendar admin page over HTTP with a session cookie (both backends): the list, a year's
closed days by layer, adding a dated optional day and a state holiday through the form (the
same operation as ``tramita calendar add``: a new version, audited with the reason, the open
deadlines recomputed and counted on the page), refusal without ``workflow.admin``, without the
CSRF token and without a reason (nothing changes)."""

from __future__ import annotations

from datetime import UTC, date, datetime
from zoneinfo import ZoneInfo

from contracts.workflow.types import StartRequest
from core.clock import FixedClock
from services.workflow.calendar import (
    ESIC_REQUEST,
    AnnualHoliday,
    CalendarSpec,
    StateLayer,
    seal_spec,
)
from services.workflow.ui.web import SESSION_COOKIE, open_session
from tests.e2e.api.conftest import Api
from tests.e2e.api.human_helpers import user_id
from tests.e2e.api.test_operator_pages import CSRF_COOKIE, _audit, _post
from tests.integration.deadlines.esic import DEADLINE, ESIC, OFFICER

STATE = seal_spec(CalendarSpec(key="br-es", version=1, layer="state", subdivision="ES"))
CITY = seal_spec(
    CalendarSpec(
        key="br-es-vitoria",
        version=1,
        subdivision="ES",
        state=StateLayer(key="br-es", version=1),
        municipal_holidays=(AnnualHoliday(name="Aniversário de Vitória", month=9, day=8),),
    )
)
CITY_URL = "/cms/workflow/calendars/br-es-vitoria"
STATE_URL = "/cms/workflow/calendars/br-es"
CITY_TZ = ZoneInfo("America/Sao_Paulo")


IDS: dict[str, str] = {}


async def _as(api: Api, user: str = "admin") -> dict[str, str]:
    """Sign ``user`` in (its id read before the clock moved past the fixture's tokens)."""
    api.client.cookies.clear()
    session = await open_session(api.platform, IDS[user])
    api.client.cookies.set(SESSION_COOKIE, str(session.value))
    await api.client.get("/cms/login")  # any page: the CSRF middleware sets its cookie
    return {"x-csrftoken": api.client.cookies[CSRF_COOKIE]}


async def _city_deadline(api: Api, clock: FixedClock) -> str:
    """A 20-day deadline on the city calendar started Wednesday 20/01/2027: due Tuesday
    09/02/2027 (Carnival Tuesday, a business day until someone decides otherwise)."""
    IDS.update({user: user_id(api, user) for user in ("admin", "reader")})
    await api.service.deadlines.publish_calendar(STATE, OFFICER)
    await api.service.deadlines.publish_calendar(CITY, OFFICER)
    clock.set(datetime(2027, 1, 20, 13, tzinfo=UTC))
    await api.service.engine.publisher.publish(ESIC, actor=OFFICER)
    view = await api.service.engine.start(
        StartRequest(definition_key="esic.request", actor=OFFICER)
    )
    started = await api.service.deadlines.start(view.id, DEADLINE, ESIC_REQUEST, CITY.key, OFFICER)
    assert started.due_at is not None and started.due_at.date() in (
        date(2027, 2, 9),
        date(2027, 2, 10),  # 23:59:59 local is already the next day in UTC
    )
    return view.id


async def _due_local(api: Api, instance: str) -> tuple[date, int]:
    (view,) = await api.service.deadlines.show(instance, DEADLINE)
    assert view.due_at is not None
    return view.due_at.astimezone(CITY_TZ).date(), view.calendar_version


async def test_the_list_and_a_year_show_each_closed_day_with_its_layer(
    api: Api, clock: FixedClock
) -> None:
    await _city_deadline(api, clock)
    await _as(api)
    listing = await api.client.get("/cms/workflow/calendars")
    assert listing.status_code == 200
    assert "Calendários" in listing.text
    assert CITY_URL in listing.text and STATE_URL in listing.text
    year = await api.client.get(f"{CITY_URL}?year=2027")
    assert year.status_code == 200
    assert "Dias sem expediente em 2027, por camada" in year.text
    assert "21/04/2027" in year.text and "Nacional" in year.text  # Tiradentes
    assert "Aniversário de Vitória" in year.text and "Municipal" in year.text
    assert "Estadual" in year.text  # Our Lady of Penha, from the package's ES holidays


async def test_an_optional_day_the_city_closes_moves_the_deadline_and_is_audited(
    api: Api, clock: FixedClock
) -> None:
    instance = await _city_deadline(api, clock)
    headers = await _as(api)
    form = await api.client.get(f"{CITY_URL}/add")
    assert form.status_code == 200 and 'name="decision"' in form.text

    done = await _post(
        api,
        f"{CITY_URL}/add",
        headers,
        kind="optional",
        day="09/02/2027",
        name="Carnaval",
        decision="closes",
        decree="Decreto 21.001/2027",
        reason="Decreto municipal de pontos facultativos de 2027",
    )
    assert done.status_code == 303, done.text
    assert done.headers["location"] == f"{CITY_URL}?year=2027&msg=changed&recomputed=1"
    assert await _due_local(api, instance) == (date(2027, 2, 10), 2)

    shown = await api.client.get(done.headers["location"])
    assert "Calendário alterado: versão 2." in shown.text
    assert "1 prazo em aberto recalculado." in shown.text
    assert "Carnaval (ponto facultativo, Decreto 21.001/2027)" in shown.text
    assert "<code>officer-7</code>" in shown.text  # version 1, stored by a module's actor
    assert "admin user" in shown.text  # version 2, by name
    (entry,) = await _audit(api, "workflow.calendar.revised")
    actor, reason, after = entry
    assert (actor, reason) == (
        IDS["admin"],
        "Decreto municipal de pontos facultativos de 2027",
    )
    assert after["version"] == 2
    assert after["optional_days"] == [
        {"on": "2027-02-09", "closes": True, "decree": "Decreto 21.001/2027"}
    ]
    recomputed = await _audit(api, "workflow.deadline.recomputed")
    assert [a for a, _, _ in recomputed] == [IDS["admin"]]


async def test_an_optional_day_kept_open_changes_no_deadline(api: Api, clock: FixedClock) -> None:
    instance = await _city_deadline(api, clock)
    headers = await _as(api)
    done = await _post(
        api,
        f"{CITY_URL}/add",
        headers,
        kind="optional",
        day="09/02/2027",
        name="Carnaval",
        decision="open",
        decree="Decreto 21.001/2027",
        reason="expediente normal na terça de Carnaval",
    )
    assert done.status_code == 303
    assert await _due_local(api, instance) == (date(2027, 2, 9), 2)
    shown = await api.client.get(done.headers["location"])
    assert "Ponto facultativo (aberto)" in shown.text


async def test_a_state_holiday_added_on_the_state_page_reaches_the_city(
    api: Api, clock: FixedClock
) -> None:
    instance = await _city_deadline(api, clock)
    headers = await _as(api)
    done = await _post(
        api,
        f"{STATE_URL}/add",
        headers,
        kind="state",
        day="09/02/2027",
        name="Feriado estadual decretado",
        reason="Lei estadual 1/2027",
    )
    assert done.status_code == 303, done.text
    assert done.headers["location"].endswith("recomputed=1")
    city = await api.service.deadlines.calendar(CITY.key)
    assert city.version == 2 and city.state == StateLayer(key="br-es", version=2)
    assert await _due_local(api, instance) == (date(2027, 2, 10), 2)
    revised = [after["version"] for _, _, after in await _audit(api, "workflow.calendar.revised")]
    assert revised == [2, 2]  # the state calendar and the city following it


async def test_a_change_needs_the_admin_permission(api: Api, clock: FixedClock) -> None:
    await _city_deadline(api, clock)
    headers = await _as(api, "reader")
    assert (await api.client.get("/cms/workflow/calendars")).status_code == 403
    refused = await _post(
        api,
        f"{CITY_URL}/add",
        headers,
        kind="closed",
        day="09/02/2027",
        name="Fechado",
        reason="não devia",
    )
    assert refused.status_code == 403
    assert (await api.service.deadlines.calendar(CITY.key)).version == 1


async def test_a_change_without_the_csrf_token_or_a_reason_changes_nothing(
    api: Api, clock: FixedClock
) -> None:
    await _city_deadline(api, clock)
    headers = await _as(api)
    fields = {"kind": "closed", "day": "09/02/2027", "name": "Fechado"}
    no_token = await _post(api, f"{CITY_URL}/add", {}, **fields, reason="sem token")
    assert no_token.status_code == 403
    no_reason = await _post(api, f"{CITY_URL}/add", headers, **fields, reason=" ")
    assert no_reason.status_code == 400
    assert 'aria-invalid="true"' in no_reason.text and "Escreva o motivo" in no_reason.text
    bad_day = await _post(api, f"{CITY_URL}/add", headers, **{**fields, "day": "31/02/2027"})
    assert bad_day.status_code == 400 and "Informe a data como dd/mm/aaaa." in bad_day.text
    assert (await api.service.deadlines.calendar(CITY.key)).version == 1
    assert await _audit(api, "workflow.calendar.revised") == []
