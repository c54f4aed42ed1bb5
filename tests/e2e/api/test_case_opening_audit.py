"""Read audit of restricted and secret cases (issue #23 item 4), on both databases: opening one
— the API's read of the instance, the instance page, ``tramita instance show`` — writes one
``case.opened`` entry (instance, viewer, level) into the audit chain; a public case and a
refused viewer write none. ``tramita audit reads`` and the admin page list the entries in
Portuguese and English, and ``tramita audit verify`` still finds the chain intact."""

from __future__ import annotations

import asyncio
import json
import uuid
from typing import Any

from click.testing import CliRunner

from contracts.kernel import Actor
from contracts.workflow.case import CASE_OPENED
from core.audit import read_entries
from core.cli_audit import reads_cmd, verify_cmd
from services.workflow.cli.workflow import show_cmd
from services.workflow.runtime.ports.access import Viewer
from services.workflow.ui.web import SESSION_COOKIE, open_session
from tests.e2e.api.conftest import Api
from tests.e2e.api.esic_like import PERSONAL
from tests.e2e.api.human_helpers import user_id


def _cli(command: Any, *args: str) -> Any:
    return CliRunner().invoke(command, list(args))


async def _start(api: Api, level: str) -> dict[str, Any]:
    started = await api.client.post(
        "/api/v1/instances",
        json={"definition_key": "esic_like.request", "context": PERSONAL},
        headers=api.auth("requester"),
    )
    assert started.status_code == 201, started.text
    case: dict[str, Any] = started.json()
    if level != "public":
        await api.service.access.change(
            case["id"],
            level,
            "lai.art31",
            viewer=Viewer(tenant="default", user_id=user_id(api, "admin"), classifier=True),
            actor=Actor.system("test"),
            reason="Dados pessoais do requerente",
        )
    return case


async def _open_everywhere(api: Api, case: dict[str, Any], who: str) -> list[int]:
    """The API, the page and the command, as ``who``: their status codes (0 for the command's
    success)."""
    me = user_id(api, who)
    got = await api.client.get(f"/api/v1/instances/{case['id']}", headers=api.auth(who))
    session = await open_session(api.platform, me)
    api.client.cookies.set(SESSION_COOKIE, str(session.value))
    page = await api.client.get(f"/cms/workflow/instances/{case['id']}")
    api.client.cookies.delete(SESSION_COOKIE)
    shown = await asyncio.to_thread(_cli, show_cmd, case["protocol"], "--as", me)
    if shown.exit_code == 0:
        assert case["protocol"] in shown.output
    return [got.status_code, page.status_code, shown.exit_code]


async def _openings(api: Api, instance_id: str) -> list[tuple[str, str, Any]]:
    async with api.service.engine._uow() as uow:
        records = await read_entries(uow.conn, instance_id)  # type: ignore[attr-defined]
    return [(r.entry.action, r.entry.actor.id, r.entry.after) for r in records]


async def test_opening_a_restricted_case_is_audited_once_per_opening_public_and_refused_not(
    api: Api, database_url: str, monkeypatch: Any
) -> None:
    monkeypatch.setenv("TRAMITA_DATABASE_URL", database_url)
    public, restricted = await _start(api, "public"), await _start(api, "restricted")
    await api.drain()
    manager = user_id(api, "manager")  # a member of the case's task queue: involved

    assert await _open_everywhere(api, restricted, "manager") == [200, 200, 0]
    opened = (CASE_OPENED, manager, {"level": "restricted"})
    assert await _openings(api, restricted["id"]) == [opened] * 3

    assert await _open_everywhere(api, public, "manager") == [200, 200, 0]
    assert await _openings(api, public["id"]) == []

    refused = await _open_everywhere(api, restricted, "reader")  # not involved: 404 everywhere
    assert refused[:2] == [404, 404] and refused[2] != 0
    assert await _openings(api, restricted["id"]) == [opened] * 3

    pt = await asyncio.to_thread(_cli, reads_cmd, "--instance", restricted["id"])
    assert pt.exit_code == 0, pt.output
    assert pt.output.count("manager user abriu o caso restrito") == 3, pt.output
    monkeypatch.setenv("TRAMITA_LANG", "en")
    en = await asyncio.to_thread(_cli, reads_cmd, "--instance", restricted["id"], "--json")
    assert [row["action"] for row in json.loads(en.output)] == [CASE_OPENED] * 3
    en = await asyncio.to_thread(_cli, reads_cmd, "--instance", restricted["id"])
    assert en.output.count("manager user opened the restricted case") == 3, en.output
    monkeypatch.delenv("TRAMITA_LANG")

    session = await open_session(api.platform, user_id(api, "admin"))
    api.client.cookies.set(SESSION_COOKIE, str(session.value))
    listed = await api.client.get(
        f"/cms/workflow/instances/{restricted['id']}/reads", headers={"accept-language": "pt-BR"}
    )
    assert listed.status_code == 200, listed.text
    assert listed.text.count("Abriu o caso restrito") == 3
    listed = await api.client.get(
        f"/cms/workflow/instances/{restricted['id']}/reads", headers={"accept-language": "en"}
    )
    assert listed.text.count("Opened the restricted case") == 3
    # The admin's own opening of the instance page is one more entry, in the same chain.
    assert (await api.client.get(f"/cms/workflow/instances/{restricted['id']}")).is_success
    assert len(await _openings(api, restricted["id"])) == 4

    verified = await asyncio.to_thread(_cli, verify_cmd, "--json")
    assert verified.exit_code == 0, verified.output
    assert json.loads(verified.output)["ok"] is True


async def test_opening_a_secret_case_is_audited_for_its_grantee_and_refused_to_the_involved(
    api: Api, database_url: str, monkeypatch: Any
) -> None:
    monkeypatch.setenv("TRAMITA_DATABASE_URL", database_url)
    case = await _start(api, "public")
    await api.drain()
    reader, admin = user_id(api, "reader"), user_id(api, "admin")
    classifier = Viewer(tenant="default", user_id=admin, classifier=True)
    await api.service.access.grant(
        case["id"], reader, None, viewer=classifier, actor=Actor.system("test"), reason="Parecer"
    )
    await api.service.access.change(
        case["id"],
        "secret",
        "lai.art23",
        viewer=Viewer(tenant="default", user_id=reader),  # the grantee: the answer is read as them
        actor=Actor.system("test"),
        reason="Investigação em curso",
    )

    assert await _open_everywhere(api, case, "reader") == [200, 200, 0]
    opened = (CASE_OPENED, reader, {"level": "secret"})
    assert await _openings(api, case["id"]) == [opened] * 3

    refused = await _open_everywhere(api, case, "manager")  # in its task's queue, not granted
    assert refused[:2] == [404, 404] and refused[2] != 0
    assert await _openings(api, case["id"]) == [opened] * 3


PARTS = ("history", "tasks", "documents", "deadlines", "audit")
"""The API's routes under a case that show what is in it."""


async def _open_parts(api: Api, case: dict[str, Any], who: str) -> list[int]:
    """Each part of the case over the API, then its task's page and its deadlines page, as
    ``who``: their status codes; a refusal is also checked to be an unknown id's answer."""
    unknown = str(uuid.uuid4())
    codes = []
    for part in PARTS:
        got = await api.client.get(f"/api/v1/instances/{case['id']}/{part}", headers=api.auth(who))
        codes.append(got.status_code)
        if got.status_code == 404:
            alike = await api.client.get(
                f"/api/v1/instances/{unknown}/{part}", headers=api.auth(who)
            )
            assert (404, got.text.replace(case["id"], "ID")) == (
                alike.status_code,
                alike.text.replace(unknown, "ID"),
            ), part
    (task,) = await api.service.engine.tasks(case["id"])
    session = await open_session(api.platform, user_id(api, who))
    api.client.cookies.set(SESSION_COOKIE, str(session.value))
    for page in (f"tasks/{task.id}", "deadlines"):
        got = await api.client.get(f"/cms/workflow/instances/{case['id']}/{page}")
        codes.append(got.status_code)
    api.client.cookies.delete(SESSION_COOKIE)
    return codes


async def test_the_parts_of_a_restricted_case_and_its_task_page_are_audited_once_each(
    api: Api, database_url: str, monkeypatch: Any
) -> None:
    monkeypatch.setenv("TRAMITA_DATABASE_URL", database_url)
    public, restricted = await _start(api, "public"), await _start(api, "restricted")
    await api.drain()
    manager = user_id(api, "manager")  # a member of the case's task queue: involved

    assert await _open_parts(api, restricted, "manager") == [200] * 7
    opened = (CASE_OPENED, manager, {"level": "restricted"})
    assert await _openings(api, restricted["id"]) == [opened] * 7

    assert await _open_parts(api, public, "manager") == [200] * 7
    assert await _openings(api, public["id"]) == []
    assert await _open_parts(api, restricted, "reader") == [404] * 7
    assert await _openings(api, restricted["id"]) == [opened] * 7

    verified = await asyncio.to_thread(_cli, verify_cmd, "--json")
    assert verified.exit_code == 0, verified.output
    assert json.loads(verified.output)["ok"] is True
