"""``/public/timeline/{token}`` explains the deadline in plain words, like the portal page: the
filing and receipt, the count, the day that moved it, the local due day, a suspension with its
legal basis — never its internal reason, an actor or a personal value (SQLite and PostgreSQL)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from contracts.kernel import Actor
from tests.e2e.api.conftest import Api
from tests.e2e.api.esic_like import DEFINITION, PERSONAL
from tests.e2e.api.human_helpers import user_id

INTERNAL = [n["id"] for n in DEFINITION["nodes"]] + [n["name"] for n in DEFINITION["nodes"]]


async def _request_and_link(api: Api) -> tuple[dict[str, Any], str]:
    started = await api.client.post(
        "/api/v1/instances",
        json={"definition_key": "esic_like.request", "context": PERSONAL},
        headers=api.auth("requester"),
    )
    assert started.status_code == 201, started.text
    await api.drain()
    instance: dict[str, Any] = started.json()
    link = await api.client.post(
        f"/api/v1/instances/{instance['id']}/public-link", headers=api.auth("reader")
    )
    assert link.status_code == 201, link.text
    return instance, str(link.json()["path"])


def _section(html: str) -> str:
    assert 'class="deadline-explain"' in html
    return html.split('class="deadline-explain"', 1)[1].split("</section>", 1)[0]


async def test_the_public_page_explains_the_deadline_in_local_dates(api: Api) -> None:
    # The fixed clock: Monday 02/03/2026 09:00 in Brasília; 20 days end on Sunday 22/03.
    _, path = await _request_and_link(api)
    response = await api.client.get(path)
    assert response.status_code == 200, response.text
    story = _section(response.text)
    for line in (
        "Protocolado em 02/03/2026 09:00.",
        "Recebido em 02/03/2026.",
        "20 dias corridos, contados a partir do dia seguinte a 02/03/2026.",
        "A contagem termina em 22/03/2026, dia sem expediente, e o prazo passa ao dia útil",
        "22/03/2026: fim de semana.",
        "Vence em 23/03/2026, às 23:59 (horário local).",
    ):
        assert line in story


async def test_a_suspension_shows_its_legal_basis_and_the_days_paid_back_never_its_reason(
    api: Api, clock: Any
) -> None:
    instance, path = await _request_and_link(api)
    clerk = Actor(id=user_id(api, "admin"))
    clock.advance(timedelta(days=3))  # Thursday 05/03
    await api.service.deadlines.suspend(
        instance["id"],
        "prazo",
        "Aguardando complemento de Joana",
        clerk,
        legal_basis="Decreto 7.724/2012, art. 16",
    )
    suspended = _section((await api.client.get(path)).text)
    assert (
        "Suspenso desde 05/03/2026: o prazo está parado. Base legal: Decreto 7.724/2012, art. 16."
        in suspended
    )
    clock.advance(timedelta(days=4))  # Monday 09/03
    await api.service.deadlines.resume(instance["id"], "prazo", clerk)
    page = (await api.client.get(path)).text
    story = _section(page)
    assert "Suspenso de 05/03/2026 a 09/03/2026 (4 dias). Base legal: Decreto 7.724/2012" in story
    assert "Vence em 26/03/2026, às 23:59 (horário local)." in story
    forbidden = [*map(str, PERSONAL.values()), *INTERNAL, "Joana", "Aguardando", instance["id"]]
    assert [v for v in forbidden if v in page] == []
    assert "admin" not in page
