"""Sobrestamento over HTTP: suspend a tracked deadline with a reason and a legal basis, resume
it (the suspended days paid back), and the citizen sees the status on the public timeline."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

from core.auth import issue_token, verify_token
from core.clock import FixedClock
from tests.e2e.api.conftest import Api
from tests.e2e.api.esic_like import PERSONAL

BRT = timezone(timedelta(hours=-3))
REASON = "Pedido de esclarecimento enviado a Joana Pereira da Silva"
BASIS = "Decreto municipal 123/2027, art. 9º"


async def _request(api: Api) -> str:
    # The fixed clock: Monday 02/03/2026 09:00 in Brasília; 20 days: due Monday 23/03.
    started = await api.client.post(
        "/api/v1/instances",
        json={"definition_key": "esic_like.request", "context": PERSONAL},
        headers=api.auth("requester"),
    )
    assert started.status_code == 201, started.text
    await api.drain()
    return str(started.json()["id"])


def _move(api: Api, clock: FixedClock, moment: datetime) -> None:
    """Move the clock; the test users' tokens are issued again at the new time."""
    secret = api.platform.settings.secret_key
    users = {name: verify_token(secret, tok, now=clock.now()) for name, tok in api.tokens.items()}
    clock.set(moment)
    api.tokens.update({name: issue_token(secret, uid, now=moment) for name, uid in users.items()})


async def _post(api: Api, instance_id: str, action: str, user: str = "admin", **body: str) -> Any:
    return await api.client.post(
        f"/api/v1/instances/{instance_id}/deadlines/prazo/{action}",
        json=body,
        headers=api.auth(user),
    )


async def _timeline(api: Api, instance_id: str) -> tuple[dict[str, Any], str]:
    link = await api.client.post(
        f"/api/v1/instances/{instance_id}/public-link", headers=api.auth("reader")
    )
    assert link.status_code == 201, link.text
    path = link.json()["path"]
    body = (await api.client.get(f"{path}/json")).json()
    return body, (await api.client.get(path)).text


async def test_a_suspension_stops_the_clock_and_a_resumption_pays_the_days_back(
    api: Api, clock: FixedClock
) -> None:
    instance_id = await _request(api)
    _move(api, clock, datetime(2026, 3, 5, 10, 0, tzinfo=BRT))  # 3 days used, 17 left
    suspended = await _post(api, instance_id, "suspend", reason=REASON, legal_basis=BASIS)
    assert suspended.status_code == 200, suspended.text
    body = suspended.json()
    assert (body["status"], body["due_at"], body["due_on"]) == ("suspended", None, None)
    assert (body["remaining_units"], body["legal_basis"]) == (17, BASIS)
    _move(api, clock, datetime(2026, 3, 16, 10, 0, tzinfo=BRT))
    resumed = await _post(api, instance_id, "resume")
    assert resumed.status_code == 200, resumed.text
    body = resumed.json()
    # 16/03 + 17 days = Thursday 02/04/2026 (not a holiday on the national calendar).
    assert (body["status"], body["due_on"]) == ("running", "2026-04-02")
    assert body["due_at"] == "2026-04-02T23:59:59-03:00"
    assert body["legal_basis"] is None


async def test_the_citizen_sees_the_suspension_and_its_legal_basis_but_not_the_reason(
    api: Api, clock: FixedClock
) -> None:
    instance_id = await _request(api)
    _move(api, clock, datetime(2026, 3, 5, 10, 0, tzinfo=BRT))
    assert (await _post(api, instance_id, "suspend", reason=REASON, legal_basis=BASIS)).is_success
    body, page = await _timeline(api, instance_id)
    assert body["suspended"] == {"since": "2026-03-05T13:00:00Z", "legal_basis": BASIS}
    assert body["steps"][-1] == {
        "label": BASIS,
        "at": "2026-03-05T13:00:00Z",
        "kind": "suspended",
    }
    assert "prazo suspenso desde 05/03/2026 (Decreto municipal 123/2027" in page
    assert "Joana" not in page and "Joana" not in str(body)
    _move(api, clock, datetime(2026, 3, 16, 10, 0, tzinfo=BRT))
    assert (await _post(api, instance_id, "resume")).is_success
    body, page = await _timeline(api, instance_id)
    assert body["suspended"] is None
    assert [s["kind"] for s in body["steps"]][-2:] == ["suspended", "resumed"]
    assert "Prazo retomado" in page


async def test_a_suspension_needs_a_legal_basis_and_the_operate_permission(
    api: Api, clock: FixedClock
) -> None:
    instance_id = await _request(api)
    without = await _post(api, instance_id, "suspend", reason=REASON)
    assert without.status_code == 400
    blank = await _post(api, instance_id, "suspend", reason=REASON, legal_basis="   ")
    assert blank.status_code in (400, 422)
    reader = await _post(api, instance_id, "suspend", "reader", reason=REASON, legal_basis=BASIS)
    assert reader.status_code == 403
    (view,) = await api.service.deadlines.show(instance_id, "prazo")
    assert view.status == "running"


async def test_resuming_a_running_deadline_or_an_unknown_one_is_refused(api: Api) -> None:
    instance_id = await _request(api)
    running = await _post(api, instance_id, "resume")
    assert running.status_code == 409
    unknown = await api.client.post(
        f"/api/v1/instances/{instance_id}/deadlines/nope/resume", headers=api.auth()
    )
    assert unknown.status_code == 404
