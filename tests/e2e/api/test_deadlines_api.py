"""Legal deadlines over HTTP: a preview without a case, and the deadlines an instance counted."""

from __future__ import annotations

from tests.e2e.api.conftest import Api
from tests.e2e.api.esic_like import PERSONAL

PREVIEW = "/api/v1/deadlines/preview"


async def test_a_preview_gives_receipt_local_due_date_offsets_and_explanation(api: Api) -> None:
    params = {"rule": "esic_like.request", "filed": "2026-12-05T12:30:00Z", "extend": "true"}
    response = await api.client.get(PREVIEW, params=params, headers=api.auth("reader"))
    assert response.status_code == 200, response.text
    first, extended = response.json()
    assert first["filed_at"] == "2026-12-05T09:30:00-03:00"
    assert first["received_on"] == "2026-12-07"
    assert (first["due_on"], first["due_at"]) == ("2026-12-28", "2026-12-28T23:59:59-03:00")
    assert first["explanation"][-1] == "Vence em 28/12/2026, às 23:59 (horário local)."
    assert (extended["extends"], extended["due_on"]) == ("2026-12-28", "2027-01-07")


async def test_a_preview_of_an_unknown_rule_or_a_naive_instant_is_refused(api: Api) -> None:
    unknown = await api.client.get(
        PREVIEW, params={"rule": "nope.rule", "filed": "2026-12-01T10:00:00Z"}, headers=api.auth()
    )
    assert unknown.status_code == 404
    assert unknown.headers["content-type"].startswith("application/problem+json")
    naive = await api.client.get(
        PREVIEW,
        params={"rule": "esic_like.request", "filed": "2026-12-01T10:00:00"},
        headers=api.auth(),
    )
    assert naive.status_code == 400


async def test_an_instance_lists_the_deadline_its_task_timer_counted(api: Api) -> None:
    # The fixed clock: Monday 02/03/2026 09:00 in Brasília; 20 days end Sunday 22/03.
    started = await api.client.post(
        "/api/v1/instances",
        json={"definition_key": "esic_like.request", "context": PERSONAL},
        headers=api.auth("requester"),
    )
    assert started.status_code == 201, started.text
    instance_id = started.json()["id"]
    await api.drain()
    response = await api.client.get(
        f"/api/v1/instances/{instance_id}/deadlines", headers=api.auth("reader")
    )
    assert response.status_code == 200, response.text
    (counted,) = response.json()
    assert (counted["node"], counted["timer"]) == ("triagem_setor_juridico", "prazo")
    assert counted["filed_at"] == "2026-03-02T09:00:00-03:00"
    assert counted["received_on"] == "2026-03-02"
    assert (counted["due_on"], counted["due_at"]) == ("2026-03-23", "2026-03-23T23:59:59-03:00")
