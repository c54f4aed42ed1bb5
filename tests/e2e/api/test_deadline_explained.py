"""Every deadline explains itself on the instance page, the task page and the citizen's
timeline: filing, receipt, the count, the day that moved it and the due day, in pt-BR with
local dates; the citizen reads it in plain words without the legal-basis or internal text."""

from __future__ import annotations

from typing import Any

from services.workflow.ui.web import SESSION_COOKIE, open_session
from tests.e2e.api.conftest import Api
from tests.e2e.api.esic_like import PERSONAL
from tests.e2e.api.human_helpers import user_id

# The fixed clock: Monday 02/03/2026 09:00 in Brasília; 20 days end on Sunday 22/03.
STORY = [
    "Protocolado em 02/03/2026 09:00.",
    "Recebido em 02/03/2026.",
    "20 dias corridos, contados a partir do dia seguinte a 02/03/2026.",
    "A contagem termina em 22/03/2026, dia sem expediente, e o prazo passa ao dia útil seguinte.",
    "22/03/2026: fim de semana",
    "Vence em 23/03/2026, às 23:59 (horário local).",
]


async def _request(api: Api) -> dict[str, Any]:
    started = await api.client.post(
        "/api/v1/instances",
        json={"definition_key": "esic_like.request", "context": PERSONAL},
        headers=api.auth("requester"),
    )
    assert started.status_code == 201, started.text
    await api.drain()
    instance: dict[str, Any] = started.json()
    return instance


async def _sign_in(api: Api, admin_id: str | None = None) -> None:
    session = await open_session(api.platform, admin_id or user_id(api, "admin"))
    api.client.cookies.set(SESSION_COOKIE, str(session.value))


def _section(html: str) -> str:
    assert 'class="deadline-explain"' in html
    return html.split('class="deadline-explain"', 1)[1].split("</section>", 1)[0]


async def test_the_instance_page_explains_the_deadline_with_local_dates(api: Api) -> None:
    instance = await _request(api)
    await _sign_in(api)
    response = await api.client.get(f"/cms/workflow/instances/{instance['id']}")
    assert response.status_code == 200, response.text
    story = _section(response.text)
    for line in STORY:
        assert line in story
    assert "Base legal:" in story


async def test_the_task_page_explains_the_deadline_of_its_case(api: Api) -> None:
    instance = await _request(api)
    (task,) = (
        await api.client.get(f"/api/v1/instances/{instance['id']}/tasks", headers=api.auth())
    ).json()
    await _sign_in(api)
    response = await api.client.get(f"/cms/workflow/instances/{instance['id']}/tasks/{task['id']}")
    assert response.status_code == 200, response.text
    story = _section(response.text)
    assert STORY[-1] in story


async def test_the_citizen_reads_the_deadline_in_plain_words_without_internal_text(
    api: Api,
) -> None:
    instance = await _request(api)
    link = await api.client.post(
        f"/api/v1/instances/{instance['id']}/public-link", headers=api.auth("reader")
    )
    assert link.status_code == 201, link.text
    portal = str(link.json()["path"]).replace("/public/", "/portal/", 1)
    response = await api.client.get(portal)
    assert response.status_code == 200, response.text
    story = _section(response.text)
    for line in STORY:
        assert line in story
    assert "Base legal" not in story
    assert [v for v in PERSONAL.values() if str(v) in response.text] == []


async def test_a_page_without_a_counted_deadline_shows_no_explanation(api: Api) -> None:
    from tests.e2e.api.conftest import start_purchase

    instance = await start_purchase(api, 20_000)
    await _sign_in(api)
    response = await api.client.get(f"/cms/workflow/instances/{instance['id']}")
    assert response.status_code == 200
    assert 'class="deadline-explain"' not in response.text


async def test_a_suspension_explains_the_days_given_back_its_reason_only_to_staff(
    api: Api, clock: Any
) -> None:
    from datetime import timedelta

    from contracts.kernel import Actor

    instance = await _request(api)
    link = await api.client.post(
        f"/api/v1/instances/{instance['id']}/public-link", headers=api.auth("reader")
    )
    deadlines = api.service.deadlines
    admin_id = user_id(api, "admin")
    clerk = Actor(id=admin_id)
    clock.advance(timedelta(days=3))  # Thursday 05/03
    await deadlines.suspend(
        instance["id"],
        "prazo",
        "Aguardando complemento do pedido",
        clerk,
        legal_basis="Decreto 7.724/2012, art. 16",
    )
    clock.advance(timedelta(days=4))  # Monday 09/03
    await deadlines.resume(instance["id"], "prazo", clerk)
    await _sign_in(api, admin_id)
    staff = _section((await api.client.get(f"/cms/workflow/instances/{instance['id']}")).text)
    assert "Suspenso de 05/03/2026 a 09/03/2026 (4 dias)." in staff
    assert "Motivo: Aguardando complemento do pedido" in staff
    # The due day shown is the tracked deadline's after the pause, not the first count's.
    assert "Vence em 23/03/2026" not in staff
    assert "Vence em 26/03/2026, às 23:59 (horário local)." in staff
    portal = str(link.json()["path"]).replace("/public/", "/portal/", 1)
    citizen = _section((await api.client.get(portal)).text)
    assert "Suspenso de 05/03/2026 a 09/03/2026 (4 dias)." in citizen
    assert "Aguardando complemento" not in citizen


async def test_a_supervisor_sets_the_priority_from_the_task_page_and_the_inbox_shows_it(
    api: Api,
) -> None:
    instance = await _request(api)
    (task,) = (
        await api.client.get(f"/api/v1/instances/{instance['id']}/tasks", headers=api.auth())
    ).json()
    await _sign_in(api)
    page_url = f"/cms/workflow/instances/{instance['id']}/tasks/{task['id']}"
    html = (await api.client.get(page_url)).text
    assert 'action="/cms/workflow/tasks/' in html and "Definir prioridade" in html
    csrf = api.client.cookies["tramita_csrf"]
    done = await api.client.post(
        f"/cms/workflow/tasks/{task['id']}/priority",
        data={"priority": "9", "reason": "Pedido de órgão de controle", "back": page_url},
        headers={"x-csrftoken": csrf},
        follow_redirects=False,
    )
    assert done.status_code == 303, done.text
    assert done.headers["location"] == f"{page_url}?msg=prioritised"
    inbox = (await api.client.get("/cms/workflow/inbox")).text
    assert '<td data-label="Prioridade">Urgente</td>' in inbox
    odd = await api.client.post(
        f"/cms/workflow/tasks/{task['id']}/priority",
        data={"priority": "7", "reason": "x"},
        headers={"x-csrftoken": csrf},
    )
    assert odd.status_code == 400
    assert "Traceback" not in odd.text
