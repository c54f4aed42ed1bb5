"""A NUP typed anywhere a case number is asked — the API's search and message correlation, the
search page, the inbox filter, the commands — is read with or without its punctuation, and one
with a wrong check digit is refused by name (pt-BR for people), never a silent "not found"."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest
from litestar.testing import AsyncTestClient

from core.app import Platform
from core.auth import issue_token
from core.clock import FixedClock
from core.ids import SequentialIdGen
from core.plugins import PluginHost
from core.settings import Settings
from services.workflow.bootstrap import service_of
from services.workflow.ui.web import SESSION_COOKIE, open_session
from tests.apps import client_for
from tests.e2e.api.esic_like import PERSONAL, EsicLikePlugin
from tests.e2e.cli.helpers import error_line, run

NUP = "00001.000001/2026-91"
DIGITS = "00001000001202691"
WRONG = "00001.000001/2026-19"
REFUSED_PT = "Dígito verificador inválido: este NUP não existe. Confira o número digitado."
NUP_ENV = {"TRAMITA_WF_PROTOCOL_FORMAT": "nup", "TRAMITA_WF_PROTOCOL_UNIT": "00001"}


@dataclass
class Nup:
    client: AsyncTestClient  # type: ignore[type-arg]
    token: str
    instance_id: str

    def auth(self, **extra: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}", **extra}


@pytest.fixture
async def nup(
    database_url: str, clock: FixedClock, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[Nup]:
    """A NUP deployment (unit 00001) with one e-SIC-like case, an API token and a page session
    for an administrator."""
    for name, value in NUP_ENV.items():
        monkeypatch.setenv(name, value)
    host = PluginHost()
    host.discover(groups=["tramita.services"])
    host.register(EsicLikePlugin(), "esic_like_test")
    platform = await Platform.boot(
        Settings(database_url=database_url),
        clock=clock,
        ids=SequentialIdGen(clock),
        host=host,
        upgrade=False,
    )
    try:
        rights = ["workflow.read", "workflow.start", "workflow.tasks", "workflow.admin"]
        await platform.directory.ensure_profile("admin", "Admin", rights)
        user = await platform.directory.create_user("admin-user", display_name="A", profile="admin")
        token = issue_token(platform.settings.secret_key, user.id, now=platform.clock.now())
        session = await open_session(platform, user.id)
        async with client_for(platform) as client:
            client.cookies.set(SESSION_COOKIE, str(session.value))
            started = await client.post(
                "/api/v1/instances",
                json={"definition_key": "esic_like.request", "context": PERSONAL},
                headers={"Authorization": f"Bearer {token}"},
            )
            assert started.status_code == 201, started.text
            assert started.json()["protocol"] == NUP
            await service_of(platform).delivery.drain()
            yield Nup(client=client, token=token, instance_id=started.json()["id"])
    finally:
        await platform.close()


@pytest.mark.parametrize("typed", [NUP, DIGITS, f" {NUP} "])
async def test_the_api_search_finds_a_nup_typed_with_or_without_punctuation(
    nup: Nup, typed: str
) -> None:
    found = await nup.client.get(
        "/api/v1/instances", params={"protocol": typed}, headers=nup.auth()
    )
    assert found.status_code == 200, found.text
    assert [i["id"] for i in found.json()["items"]] == [nup.instance_id]


async def test_the_api_search_refuses_a_wrong_check_digit_by_name(nup: Nup) -> None:
    refused = await nup.client.get(
        "/api/v1/instances", params={"protocol": WRONG}, headers=nup.auth()
    )
    assert refused.status_code == 422, refused.text
    body = refused.json()
    assert body["detail"] == "Invalid protocol number."
    assert [(e["path"], e["code"], e["message"]) for e in body["errors"]] == [
        ("protocol", "nup_check_digit", REFUSED_PT)
    ]
    english = await nup.client.get(
        "/api/v1/instances",
        params={"protocol": WRONG},
        headers=nup.auth(**{"Accept-Language": "en"}),
    )
    assert english.json()["errors"][0]["message"].startswith("Invalid check digit")


async def test_a_message_for_a_nup_with_a_wrong_check_digit_is_refused_not_404(nup: Nup) -> None:
    message = {"name": "triagem_setor_juridico"}
    refused = await nup.client.post(
        "/api/v1/messages", json={**message, "protocol": WRONG}, headers=nup.auth()
    )
    assert refused.status_code == 422, refused.text
    assert refused.json()["errors"][0]["code"] == "nup_check_digit"
    delivered = await nup.client.post(
        "/api/v1/messages", json={**message, "protocol": DIGITS}, headers=nup.auth()
    )
    assert delivered.status_code == 200, delivered.text
    assert delivered.json()["id"] == nup.instance_id


async def test_the_search_page_reads_digits_and_names_a_wrong_check_digit(nup: Nup) -> None:
    found = await nup.client.get("/cms/workflow/search", params={"protocol": DIGITS})
    assert found.status_code == 200, found.text
    assert f"/cms/workflow/instances/{nup.instance_id}" in found.text
    refused = await nup.client.get("/cms/workflow/search", params={"protocol": WRONG})
    assert refused.status_code == 400
    assert REFUSED_PT in refused.text
    assert 'aria-describedby="s-protocol-error"' in refused.text


async def test_the_inbox_filter_names_a_wrong_check_digit(nup: Nup) -> None:
    team = {"scope": "team"}  # the administrator's view of every queue
    found = await nup.client.get("/cms/workflow/inbox", params={**team, "protocol": DIGITS})
    assert found.status_code == 200, found.text
    assert REFUSED_PT not in found.text
    assert NUP in found.text
    refused = await nup.client.get("/cms/workflow/inbox", params={**team, "protocol": WRONG})
    assert refused.status_code == 200
    assert REFUSED_PT in refused.text
    assert NUP not in refused.text


def test_the_commands_read_a_nup_and_refuse_a_wrong_check_digit(
    nup: Nup, database_url: str
) -> None:
    shown = run("instance", "show", DIGITS, database_url=database_url, **NUP_ENV)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.startswith(f"{NUP}  esic_like.request v1  ")
    refused = run("instance", "show", WRONG, database_url=database_url, **NUP_ENV)
    assert refused.returncode == 1
    assert error_line(refused) == f"erro: Número de protocolo inválido. (instance: {REFUSED_PT})"
