"""Operator actions in the admin pages, over HTTP with a session cookie (both backends): each
action's confirmation page, its effect and audit entry (with the reason and the person), the
refusal without its permission, a missing reason (nothing happens) and a second submit of the
same form (409, no second effect)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import sqlalchemy as sa

from core.clock import FixedClock
from core.tables import audit_log
from services.workflow.calendar import ESIC_REQUEST
from services.workflow.ui.web import SESSION_COOKIE, open_session
from tests.e2e.api.conftest import Api, start_purchase
from tests.e2e.api.human_helpers import user_id
from tests.fakes.purchase import retryable
from tests.integration.deadlines.esic import DEADLINE, ESIC, OFFICER

CSRF_COOKIE = "tramita_csrf"
LETTERS = "/cms/workflow/operations/dead-letters"
QUEUE = "purchase.managers"
MEMBERS = f"/cms/workflow/queues/{QUEUE}/members"


async def _as(api: Api, user: str = "admin") -> dict[str, str]:
    """Sign ``user`` in (session cookie) and return a CSRF header matching the CSRF cookie."""
    api.client.cookies.clear()
    session = await open_session(api.platform, user_id(api, user))
    api.client.cookies.set(SESSION_COOKIE, str(session.value))
    await api.client.get("/cms/login")  # any page: the CSRF middleware sets its cookie
    return {"x-csrftoken": api.client.cookies[CSRF_COOKIE]}


async def _post(api: Api, url: str, headers: dict[str, str], **data: str) -> Any:
    return await api.client.post(url, data=data, headers=headers, follow_redirects=False)


async def _audit(api: Api, action: str) -> list[tuple[str, str | None, Any]]:
    async with api.platform.database.connect() as conn:
        rows = await conn.execute(
            sa.select(audit_log.c.actor_id, audit_log.c.reason, audit_log.c.after)
            .where(audit_log.c.action == action)
            .order_by(audit_log.c.seq)
        )
        return [(r.actor_id, r.reason, r.after) for r in rows]


async def _status(api: Api, instance_id: str) -> str:
    return (await api.service.engine.status(instance_id)).status


async def _dead_letter(api: Api, clock: FixedClock) -> tuple[str, str]:
    """(dead letter id, instance id): a stock reservation that failed past its ceiling."""
    api.purchase.stock.fail_next.extend([retryable() for _ in range(5)])
    instance = await start_purchase(api, 500)
    for _ in range(5):
        clock.advance(timedelta(seconds=31))
        await api.drain()
    letters = await api.service.engine.status(instance["id"])
    assert letters.status != "completed"
    page = (await api.client.get("/api/v1/dead-letters", headers=api.auth())).json()
    (letter,) = page["items"]
    return str(letter["id"]), str(instance["id"])


# --- cancel ------------------------------------------------------------------------------------


async def test_cancelling_asks_first_then_cancels_once_with_the_reason_audited(api: Api) -> None:
    instance = (await start_purchase(api, 20_000))["id"]
    headers = await _as(api)
    url = f"/cms/workflow/instances/{instance}/cancel"

    confirm = await api.client.get(url)
    assert confirm.status_code == 200
    assert "Cancelar o processo" in confirm.text and 'name="reason"' in confirm.text
    assert 'name="compensate"' in confirm.text and "Desfazer as etapas" in confirm.text
    assert await _status(api, instance) == "waiting"  # the page alone changes nothing

    # asking for compensation: nothing completed has one here, so it is cancelled at once
    done = await _post(api, url, headers, reason="pedido em duplicidade", compensate="yes")
    assert done.status_code == 303
    assert done.headers["location"].endswith(f"/cms/workflow/instances/{instance}?msg=cancelled")
    assert await _status(api, instance) == "cancelled"
    again = await _post(api, url, headers, reason="pedido em duplicidade")
    assert again.status_code == 409
    assert "Nada foi feito" in again.text
    entries = await _audit(api, "workflow.instance.cancelled")
    assert [(actor, reason) for actor, reason, _ in entries] == [
        (user_id(api, "admin"), "pedido em duplicidade")
    ]


async def test_a_cancel_without_a_reason_shows_the_form_again_and_changes_nothing(
    api: Api,
) -> None:
    instance = (await start_purchase(api, 20_000))["id"]
    headers = await _as(api)
    response = await _post(api, f"/cms/workflow/instances/{instance}/cancel", headers, reason="  ")
    assert response.status_code == 400
    assert 'aria-invalid="true"' in response.text and "Escreva o motivo" in response.text
    assert await _status(api, instance) == "waiting"
    assert await _audit(api, "workflow.instance.cancelled") == []


async def test_cancelling_needs_the_cancel_permission(api: Api) -> None:
    instance = (await start_purchase(api, 20_000))["id"]
    headers = await _as(api, "reader")
    url = f"/cms/workflow/instances/{instance}/cancel"
    assert (await api.client.get(url)).status_code == 403
    assert (await _post(api, url, headers, reason="não devia")).status_code == 403
    assert await _status(api, instance) == "waiting"


async def test_cancelling_from_the_page_closes_the_case_dead_letters(
    api: Api, clock: FixedClock
) -> None:
    letter, instance = await _dead_letter(api, clock)
    headers = await _as(api)
    done = await _post(api, f"/cms/workflow/instances/{instance}/cancel", headers, reason="fim")
    assert done.status_code == 303
    found = await api.client.get(f"/api/v1/dead-letters/{letter}", headers=api.auth())
    assert found.json()["status"] == "cancelled"
    page = await api.client.get(f"{LETTERS}?status=cancelled")
    assert "Processo cancelado" in page.text


# --- dead letters: reprocess (retry the failed step) and abandon -------------------------------


async def test_a_dead_letter_is_reprocessed_once_with_the_reason_audited(
    api: Api, clock: FixedClock
) -> None:
    letter, instance = await _dead_letter(api, clock)
    headers = await _as(api)
    case = await api.client.get(f"/cms/workflow/instances/{instance}")
    assert f"{LETTERS}/{letter}/reprocess" in case.text  # "run the failed step again"
    url = f"{LETTERS}/{letter}/reprocess"
    assert (await api.client.get(url)).status_code == 200

    assert (await _post(api, url, headers, reason="")).status_code == 400
    done = await _post(api, url, headers, reason="estoque voltou")
    assert done.status_code == 303
    await api.drain()
    assert await _status(api, instance) == "completed"
    assert (await _post(api, url, headers, reason="estoque voltou")).status_code == 409
    entries = await _audit(api, "workflow.dead_letter.reprocessed")
    assert [(a, r) for a, r, _ in entries] == [(user_id(api, "admin"), "estoque voltou")]


async def test_a_dead_letter_is_abandoned_once_and_the_case_fails(
    api: Api, clock: FixedClock
) -> None:
    letter, instance = await _dead_letter(api, clock)
    headers = await _as(api)
    url = f"{LETTERS}/{letter}/abandon"
    done = await _post(api, url, headers, reason="fornecedor encerrou")
    assert done.status_code == 303
    await api.drain()
    assert await _status(api, instance) == "failed"
    again = await _post(api, url, headers, reason="fornecedor encerrou")
    assert again.status_code == 409
    entries = await _audit(api, "workflow.dead_letter.abandoned")
    assert [(a, r) for a, r, _ in entries] == [(user_id(api, "admin"), "fornecedor encerrou")]


async def test_dead_letter_actions_need_the_operate_permission(api: Api, clock: FixedClock) -> None:
    letter, _ = await _dead_letter(api, clock)
    headers = await _as(api, "reader")
    for action in ("reprocess", "abandon"):
        url = f"{LETTERS}/{letter}/{action}"
        assert (await api.client.get(url)).status_code == 403
        assert (await _post(api, url, headers, reason="x")).status_code == 403
    found = await api.client.get(f"/api/v1/dead-letters/{letter}", headers=api.auth())
    assert found.json()["status"] == "open"


# --- repair ------------------------------------------------------------------------------------


async def test_a_repair_moves_the_token_once_with_the_reason_audited(api: Api) -> None:
    instance = (await start_purchase(api, 20_000))["id"]
    headers = await _as(api)
    page = await api.client.get(f"/cms/workflow/instances/{instance}/repair")
    assert page.status_code == 200
    action = page.text.split('action="', 2)[2].split('"', 1)[0].replace("&amp;", "&")
    assert "row_version=" in action

    missing = await _post(api, action, headers, token="t", to_node="notify")
    assert missing.status_code == 400
    done = await _post(api, action, headers, token="t", to_node="notify", reason="já aprovado")
    assert done.status_code == 303
    assert (await api.service.engine.status(instance)).current_nodes == ("notify",)
    again = await _post(api, action, headers, token="t", to_node="notify", reason="já aprovado")
    assert again.status_code == 409  # the row version the page was read at is gone
    entries = await _audit(api, "workflow.instance.repaired")
    assert [(a, r) for a, r, _ in entries] == [(user_id(api, "admin"), "já aprovado")]


async def test_an_impossible_repair_is_explained_and_changes_nothing(api: Api) -> None:
    instance = (await start_purchase(api, 20_000))["id"]
    headers = await _as(api)
    view = await api.service.engine.status(instance)
    url = f"/cms/workflow/instances/{instance}/repair?row_version={view.row_version}"
    response = await _post(api, url, headers, token="t", to_node="nowhere", reason="teste")
    assert response.status_code == 422
    assert "unknown_node" in response.text and "Traceback" not in response.text
    assert (await api.service.engine.status(instance)).current_nodes == view.current_nodes


async def test_repairing_needs_the_operate_permission(api: Api) -> None:
    instance = (await start_purchase(api, 20_000))["id"]
    headers = await _as(api, "manager")
    url = f"/cms/workflow/instances/{instance}/repair"
    assert (await api.client.get(url)).status_code == 403
    response = await _post(api, url, headers, token="t", to_node="notify", reason="x")
    assert response.status_code == 403


# --- extend a deadline -------------------------------------------------------------------------


async def _esic_with_deadline(api: Api) -> str:
    from contracts.workflow.types import StartRequest

    engine = api.service.engine
    await engine.publisher.publish(ESIC, actor=OFFICER)
    view = await engine.start(StartRequest(definition_key="esic.request", actor=OFFICER))
    await api.service.deadlines.start(view.id, DEADLINE, ESIC_REQUEST, "br-national", OFFICER)
    return view.id


async def test_a_deadline_is_extended_once_with_the_justification_audited(api: Api) -> None:
    instance = await _esic_with_deadline(api)
    before = (await api.service.deadlines.show(instance, DEADLINE))[0]
    headers = await _as(api)
    case = await api.client.get(f"/cms/workflow/instances/{instance}")
    url = f"/cms/workflow/instances/{instance}/deadlines/{DEADLINE}/extend"
    assert url in case.text
    assert (await api.client.get(url)).status_code == 200

    assert (await _post(api, url, headers, reason="")).status_code == 400
    done = await _post(api, url, headers, reason="volume de documentos")
    assert done.status_code == 303
    after = (await api.service.deadlines.show(instance, DEADLINE))[0]
    assert after.extensions_used == before.extensions_used + 1
    assert after.due_at is not None and before.due_at is not None
    assert after.due_at > before.due_at
    again = await _post(api, url, headers, reason="volume de documentos")
    assert again.status_code == 422  # the e-SIC rule allows one extension
    assert (await api.service.deadlines.show(instance, DEADLINE))[0] == after
    entries = await _audit(api, "workflow.deadline.extended")
    assert [(a, r) for a, r, _ in entries] == [(user_id(api, "admin"), "volume de documentos")]


async def test_extending_needs_the_operate_permission(api: Api) -> None:
    instance = await _esic_with_deadline(api)
    headers = await _as(api, "reader")
    url = f"/cms/workflow/instances/{instance}/deadlines/{DEADLINE}/extend"
    assert (await _post(api, url, headers, reason="x")).status_code == 403
    assert (await api.service.deadlines.show(instance, DEADLINE))[0].extensions_used == 0


# --- the citizen's link ------------------------------------------------------------------------


async def test_issuing_the_citizen_link_shows_it_and_audits_who_and_why(api: Api) -> None:
    instance = (await start_purchase(api, 20_000))["id"]
    headers = await _as(api, "reader")
    url = f"/cms/workflow/instances/{instance}/public-link"
    assert (await _post(api, url, headers, reason="")).status_code == 400
    assert await _audit(api, "workflow.instance.public_link_issued") == []

    issued = await _post(api, url, headers, reason="requerente pediu por telefone")
    assert issued.status_code == 200
    link = issued.text.split('id="link" type="text" readonly value="', 1)[1].split('"', 1)[0]
    path = link.split("://", 1)[1].split("/", 1)[1]
    timeline = await api.client.get("/" + path)
    assert timeline.status_code == 200
    entries = await _audit(api, "workflow.instance.public_link_issued")
    assert [(a, r) for a, r, _ in entries] == [
        (user_id(api, "reader"), "requerente pediu por telefone")
    ]
    assert link.rsplit("/", 1)[1] not in str(entries)  # the token itself is never audited


async def test_issuing_the_citizen_link_needs_the_read_permission(api: Api) -> None:
    instance = (await start_purchase(api, 20_000))["id"]
    # "nobody" has no permission at all: even the inbox refuses, so sign in and post directly.
    session = await open_session(api.platform, user_id(api, "nobody"))
    api.client.cookies.set(SESSION_COOKIE, str(session.value))
    response = await api.client.get(f"/cms/workflow/instances/{instance}/public-link")
    assert response.status_code == 403


# --- queue members -----------------------------------------------------------------------------


async def test_a_member_is_added_by_login_name_and_removed_each_audited(api: Api) -> None:
    reader = user_id(api, "reader")
    headers = await _as(api)
    listing = await api.client.get("/cms/workflow/queues")
    assert MEMBERS in listing.text
    assert "reader user" not in (await api.client.get(MEMBERS)).text

    added = await _post(api, f"{MEMBERS}/add", headers, username="reader-user", reason="reforço")
    assert added.headers["location"].endswith("?msg=added")
    assert reader in await api.service.catalog.members(QUEUE)
    assert "reader user" in (await api.client.get(MEMBERS)).text
    twice = await _post(api, f"{MEMBERS}/add", headers, username="reader-user", reason="reforço")
    assert twice.headers["location"].endswith("?msg=unchanged")
    assert [(a, r) for a, r, _ in await _audit(api, "workflow.queue.members_added")][-1] == (
        user_id(api, "admin"),
        "reforço",
    )

    url = f"{MEMBERS}/{reader}/remove"
    assert (await api.client.get(url)).status_code == 200
    assert (await _post(api, url, headers, reason="")).status_code == 400
    assert reader in await api.service.catalog.members(QUEUE)
    removed = await _post(api, url, headers, reason="férias")
    assert removed.headers["location"].endswith("?msg=removed")
    again = await _post(api, url, headers, reason="férias")
    assert again.headers["location"].endswith("?msg=unchanged")
    assert reader not in await api.service.catalog.members(QUEUE)
    entries = await _audit(api, "workflow.queue.member_removed")
    assert entries == [(user_id(api, "admin"), "férias", {"member": reader})]


async def test_a_member_is_found_by_part_of_the_name_like_the_grant_form(api: Api) -> None:
    directory = api.platform.directory
    await directory.ensure_profile("clerk", "Clerk", [])
    maria = await directory.create_user("msouza2", display_name="Maria Souza", profile="clerk")
    mariana = await directory.create_user(
        "mlima", display_name="Mariana Souza Lima", profile="clerk"
    )
    headers = await _as(api)
    assert "Pessoa (nome ou login)" in (await api.client.get(f"{MEMBERS}/add")).text

    one = await _post(api, f"{MEMBERS}/add", headers, username="souza lima", reason="reforço")
    assert one.headers["location"].endswith("?msg=added")  # one match: added
    assert str(mariana.id) in await api.service.catalog.members(QUEUE)

    both = await _post(api, f"{MEMBERS}/add", headers, username="SOUZA", reason="férias")
    assert both.status_code == 422, both.text  # two: listed to choose, what was typed kept
    assert "<legend>Escolha a pessoa</legend>" in both.text
    assert 'aria-describedby="username-error"' in both.text
    assert f'name="person" value="{maria.id}"' in both.text
    assert "Maria Souza (msouza2)" in both.text and "Mariana Souza Lima (mlima)" in both.text
    assert 'value="SOUZA"' in both.text and "férias</textarea>" in both.text
    assert str(maria.id) not in await api.service.catalog.members(QUEUE)
    chosen = await _post(
        api, f"{MEMBERS}/add", headers, username="SOUZA", person=str(maria.id), reason="férias"
    )
    assert chosen.headers["location"].endswith("?msg=added")
    assert str(maria.id) in await api.service.catalog.members(QUEUE)

    before = await api.service.catalog.members(QUEUE)
    none = await _post(api, f"{MEMBERS}/add", headers, username="Zuleica", reason="x")
    assert none.status_code == 422
    assert 'id="username-error">Ninguém encontrado com esse nome ou login.' in none.text
    assert await api.service.catalog.members(QUEUE) == before


async def test_queue_pages_need_the_admin_permission(api: Api) -> None:
    headers = await _as(api, "manager")
    assert (await api.client.get("/cms/workflow/queues")).status_code == 403
    response = await _post(api, f"{MEMBERS}/add", headers, username="reader-user", reason="x")
    assert response.status_code == 403
    assert user_id(api, "reader") not in await api.service.catalog.members(QUEUE)
