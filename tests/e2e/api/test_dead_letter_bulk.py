"""Giving up several dead letters at once, over the API and from the operator page (both
backends): up to the threshold each letter is answered in the request, past it a background
operation (``dead_letter_abandon``) gives them up and records each refusal with its code; a
double submit answers the same operation; every abandon is audited with the reason."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import sqlalchemy as sa

from core.clock import FixedClock
from core.tables import audit_log
from services.workflow.runtime.services.operations import OperationService
from services.workflow.ui.web import SESSION_COOKIE, open_session
from tests.e2e.api.conftest import Api, start_purchase
from tests.e2e.api.human_helpers import user_id
from tests.fakes.purchase import retryable

UNKNOWN = "019cae6b-6600-7000-8000-0000000000ff"
ABANDON = "/api/v1/dead-letters/abandon"
LETTERS = "/cms/workflow/operations/dead-letters"
CSRF_COOKIE = "tramita_csrf"


def _ops(api: Api, threshold: int) -> OperationService:
    operations = api.service.operations
    assert operations is not None
    operations.always = False
    operations.threshold = threshold
    return operations


async def _letters(api: Api, clock: FixedClock, count: int) -> list[dict[str, Any]]:
    """``count`` open dead letters: stock reservations that failed past their ceiling."""
    api.purchase.stock.fail_next.extend([retryable() for _ in range(5 * count)])
    for _ in range(count):
        await start_purchase(api, 500)
    for _ in range(5):
        clock.advance(timedelta(seconds=31))
        await api.drain()
    page = (await api.client.get("/api/v1/dead-letters", headers=api.auth())).json()
    assert len(page["items"]) == count
    return list(page["items"])


async def _status(api: Api, instance_id: str) -> str:
    return (await api.service.engine.status(instance_id)).status


async def _letter_status(api: Api, letter_id: str) -> str:
    found = await api.client.get(f"/api/v1/dead-letters/{letter_id}", headers=api.auth())
    return str(found.json()["status"])


async def _abandon_audit(api: Api) -> list[tuple[str, str | None]]:
    async with api.platform.database.connect() as conn:
        rows = await conn.execute(
            sa.select(audit_log.c.actor_id, audit_log.c.reason)
            .where(audit_log.c.action == "workflow.dead_letter.abandoned")
            .order_by(audit_log.c.seq)
        )
        return [(r.actor_id, r.reason) for r in rows]


async def test_letters_up_to_the_threshold_are_given_up_in_the_request(
    api: Api, clock: FixedClock
) -> None:
    _ops(api, threshold=5)
    first, second = await _letters(api, clock, 2)
    await api.client.post(f"/api/v1/dead-letters/{second['id']}/reprocess", headers=api.auth())
    response = await api.client.post(
        ABANDON,
        json={"letter_ids": [first["id"], second["id"], UNKNOWN], "reason": "parceiro extinto"},
        headers=api.auth(),
    )
    assert response.status_code == 200
    assert [(i["dead_letter_id"], i["ok"], i["code"]) for i in response.json()["items"]] == [
        (first["id"], True, None),
        (second["id"], False, "dead_letter_handled"),
        (UNKNOWN, False, "not-found"),
    ]
    await api.drain()
    assert await _status(api, first["instance_id"]) == "failed"
    assert await _letter_status(api, first["id"]) == "abandoned"
    assert await _letter_status(api, second["id"]) == "reprocessed"
    assert await _abandon_audit(api) == [(user_id(api, "admin"), "parceiro extinto")]


async def test_letters_past_the_threshold_are_given_up_by_an_operation(
    api: Api, clock: FixedClock
) -> None:
    _ops(api, threshold=1)
    letters = await _letters(api, clock, 2)
    ids = [str(letter["id"]) for letter in letters]
    response = await api.client.post(
        ABANDON, json={"letter_ids": [*ids, UNKNOWN], "reason": "lote"}, headers=api.auth()
    )
    assert response.status_code == 202
    started = response.json()
    assert (started["kind"], started["status"], started["total"]) == (
        "dead_letter_abandon",
        "queued",
        3,
    )
    assert [await _letter_status(api, i) for i in ids] == ["open", "open"]

    await api.drain()
    body = (await api.client.get(f"/api/v1/operations/{started['id']}", headers=api.auth())).json()
    assert (body["status"], body["done"], body["refused"]) == ("finished", 2, 1)
    assert [(r["item_id"], r["code"]) for r in body["refusals"]] == [(UNKNOWN, "not-found")]
    assert [await _letter_status(api, i) for i in ids] == ["abandoned", "abandoned"]
    assert await _abandon_audit(api) == [(user_id(api, "admin"), "lote")] * 2


async def test_a_double_submit_past_the_threshold_answers_the_same_operation(
    api: Api, clock: FixedClock
) -> None:
    _ops(api, threshold=1)
    ids = [str(letter["id"]) for letter in await _letters(api, clock, 2)]
    body = {"letter_ids": ids, "reason": "lote"}
    first = await api.client.post(ABANDON, json=body, headers=api.auth())
    again = await api.client.post(
        ABANDON, json={**body, "letter_ids": list(reversed(ids))}, headers=api.auth()
    )
    assert first.status_code == again.status_code == 202
    assert again.json()["id"] == first.json()["id"]
    await api.drain()
    assert len(await _abandon_audit(api)) == 2


async def test_giving_up_letters_needs_the_operate_permission_and_a_reason(api: Api) -> None:
    refused = await api.client.post(
        ABANDON, json={"letter_ids": [UNKNOWN], "reason": "x"}, headers=api.auth("manager")
    )
    blank = await api.client.post(
        ABANDON, json={"letter_ids": [UNKNOWN], "reason": "   "}, headers=api.auth()
    )
    missing = await api.client.post(ABANDON, json={"letter_ids": [UNKNOWN]}, headers=api.auth())
    assert (refused.status_code, blank.status_code, missing.status_code) == (403, 400, 400)


# --- the operator page -------------------------------------------------------------------------


async def _as_admin(api: Api) -> dict[str, str]:
    api.client.cookies.clear()
    session = await open_session(api.platform, user_id(api, "admin"))
    api.client.cookies.set(SESSION_COOKIE, str(session.value))
    await api.client.get("/cms/login")
    return {"x-csrftoken": api.client.cookies[CSRF_COOKIE]}


def _selection(ids: list[str]) -> str:
    return f"{LETTERS}/abandon-selected?" + "&".join(f"letter_ids={i}" for i in ids)


async def test_the_page_confirms_then_reports_each_letter_in_the_request(
    api: Api, clock: FixedClock
) -> None:
    _ops(api, threshold=5)
    first, second = await _letters(api, clock, 2)
    await api.client.post(f"/api/v1/dead-letters/{second['id']}/reprocess", headers=api.auth())
    headers = await _as_admin(api)
    listing = await api.client.get(LETTERS)
    assert f'name="letter_ids" value="{first["id"]}"' in listing.text
    url = _selection([first["id"], second["id"]])
    confirm = await api.client.get(url)
    assert confirm.status_code == 200
    assert "Abandonar 2 etapas" in confirm.text
    assert await _letter_status(api, first["id"]) == "open"

    no_reason = await api.client.post(url, data={"reason": ""}, headers=headers)
    assert no_reason.status_code == 400
    assert await _letter_status(api, first["id"]) == "open"

    done = await api.client.post(url, data={"reason": "parceiro extinto"}, headers=headers)
    assert done.status_code == 200
    assert "1 concluída(s), 1 recusada(s)." in done.text
    assert "A etapa já foi tratada" in done.text
    assert await _letter_status(api, first["id"]) == "abandoned"
    assert await _abandon_audit(api) == [(user_id(api, "admin"), "parceiro extinto")]


async def test_the_page_past_the_threshold_goes_to_the_operation_progress(
    api: Api, clock: FixedClock
) -> None:
    _ops(api, threshold=1)
    ids = [str(letter["id"]) for letter in await _letters(api, clock, 2)]
    headers = await _as_admin(api)
    url = _selection([*ids, UNKNOWN])
    response = await api.client.post(
        url, data={"reason": "lote"}, headers=headers, follow_redirects=False
    )
    assert response.status_code == 303
    location = response.headers["location"]
    assert location.startswith("/cms/workflow/operations/")
    again = await api.client.post(
        url, data={"reason": "lote"}, headers=headers, follow_redirects=False
    )
    assert again.headers["location"] == location

    await api.drain()
    progress = await api.client.get(location)
    assert "Abandonar etapas com falha em lote" in progress.text
    assert "2 feitos, 1 recusados" in progress.text
    assert "Mensagem morta desconhecida." in progress.text
    assert [await _letter_status(api, i) for i in ids] == ["abandoned", "abandoned"]


async def test_the_page_without_a_selection_goes_back_to_the_list(api: Api) -> None:
    await _as_admin(api)
    response = await api.client.get(f"{LETTERS}/abandon-selected", follow_redirects=False)
    assert response.status_code == 303
    assert response.headers["location"] == f"{LETTERS}?msg=none_selected"
