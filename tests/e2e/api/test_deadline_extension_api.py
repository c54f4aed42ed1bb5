"""A legal deadline over HTTP: extended as its rule allows (and refused beyond it), and
explained — start, receipt, nominal end, what moved it, the local due date beside RFC 3339 — in
the instance's deadlines (staff) and in the public JSON timeline (the citizen's version: no
legal-basis wording, no suspension reason; the extension's justification kept). The fixed
clock: Monday 02/03/2026 09:00 in Brasília; 20 days end on Sunday 22/03, so Monday 23/03.
SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from contracts.kernel import Actor
from core.auth import issue_token
from core.clock import FixedClock
from tests.e2e.api.conftest import Api
from tests.e2e.api.esic_like import PERSONAL
from tests.e2e.api.human_helpers import user_id


async def _request(api: Api) -> str:
    started = await api.client.post(
        "/api/v1/instances",
        json={"definition_key": "esic_like.request", "context": PERSONAL},
        headers=api.auth("requester"),
    )
    assert started.status_code == 201, started.text
    await api.drain()
    return str(started.json()["id"])


async def _extend(api: Api, instance_id: str, text: str) -> Any:
    return await api.client.post(
        f"/api/v1/instances/{instance_id}/deadlines/prazo/extend",
        json={"justification": text},
        headers=api.auth("admin"),
    )


async def test_a_legal_deadline_is_extended_once_over_http_and_refused_after(api: Api) -> None:
    instance_id = await _request(api)
    first = await _extend(api, instance_id, "Consolidação de dados")
    assert first.status_code == 200, first.text
    body = first.json()
    assert (body["due_on"], body["due_at"]) == ("2026-04-02", "2026-04-02T23:59:59-03:00")
    assert body["extensions_used"] == 1
    second = await _extend(api, instance_id, "Outra vez")
    assert second.status_code == 422, second.text
    assert second.json()["type"].endswith("/deadline-extension-refused")


async def test_the_staff_api_explains_the_deadline_in_force_and_what_changed_it(
    api: Api, clock: FixedClock
) -> None:
    instance_id = await _request(api)
    clerk = Actor(id=user_id(api, "admin"))
    clock.advance(timedelta(days=3))  # Thursday 05/03
    await api.service.deadlines.suspend(
        instance_id, "prazo", "Aguardando Joana", clerk, legal_basis="Decreto 7.724/2012, art. 16"
    )
    clock.advance(timedelta(days=4))  # Monday 09/03
    await api.service.deadlines.resume(instance_id, "prazo", clerk)
    token = issue_token(api.platform.settings.secret_key, clerk.id, now=clock.now())
    response = await api.client.get(
        f"/api/v1/instances/{instance_id}/deadlines",
        headers={"Authorization": f"Bearer {token}"},
    )
    assert response.status_code == 200, response.text
    (counted,) = response.json()
    assert (counted["start_on"], counted["received_on"]) == ("2026-03-02", "2026-03-02")
    assert (counted["nominal_end"], counted["due_on"]) == ("2026-03-22", "2026-03-23")
    assert counted["moved"] == [{"day": "2026-03-22", "why": ["fim de semana"]}]
    tracked = counted["tracked"]
    assert (tracked["status"], tracked["due_on"], tracked["due_at"]) == (
        "running",
        "2026-03-26",
        "2026-03-26T23:59:59-03:00",
    )
    assert [(c["kind"], c["at"][:10], c["legal_basis"]) for c in counted["changes"]] == [
        ("suspended", "2026-03-05", "Decreto 7.724/2012, art. 16"),
        ("resumed", "2026-03-09", None),
    ]
    assert "Joana" not in response.text


async def test_the_public_json_timeline_explains_the_deadline_for_the_citizen(
    api: Api,
) -> None:
    instance_id = await _request(api)
    assert (await _extend(api, instance_id, "Consolidação de dados")).status_code == 200
    link = await api.client.post(
        f"/api/v1/instances/{instance_id}/public-link", headers=api.auth("reader")
    )
    response = await api.client.get(f"{link.json()['path']}/json")
    assert response.status_code == 200, response.text
    first, extension = response.json()["deadlines"]
    assert first["filed_at"] == "2026-03-02T09:00:00-03:00"
    assert (first["received_on"], first["start_on"], first["nominal_end"]) == (
        "2026-03-02",
        "2026-03-02",
        "2026-03-22",
    )
    assert (first["rolled"], first["due_on"]) == (True, "2026-03-23")
    assert first["moved"] == [{"day": "2026-03-22", "weekend": True, "holidays": []}]
    assert (extension["extends"], extension["days"], extension["due_on"]) == (
        "2026-03-23",
        10,
        "2026-04-02",
    )
    assert extension["due_at"] == "2026-04-02T23:59:59-03:00"
    assert extension["extensions"] == [
        {"days": 10, "on": "2026-03-02", "justification": "Consolidação de dados"}
    ]
    assert "Lei 12.527" not in response.text
    assert "legal_basis" not in str(first)


async def test_the_page_extends_a_legal_deadline_once_and_says_why_it_refuses_more(
    api: Api,
) -> None:
    from tests.e2e.api.test_operator_pages import _as, _post

    instance_id = await _request(api)
    headers = await _as(api)
    url = f"/cms/workflow/instances/{instance_id}/deadlines/prazo/extend"
    done = await _post(api, url, headers, reason="Consolidação de dados")
    assert done.status_code == 303, done.text
    (view,) = await api.service.deadlines.show(instance_id, "prazo")
    assert (view.extensions_used, view.due_at is not None) == (1, True)
    again = await _post(api, url, headers, reason="Outra vez")
    assert again.status_code == 422
    assert "Este prazo legal já foi prorrogado tanto quanto a sua regra permite." in again.text
