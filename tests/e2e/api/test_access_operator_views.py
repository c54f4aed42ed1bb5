"""Access levels in the operators' views (issue #23 item 2): the dead letters (list, one letter,
its actions), the stuck cases, the dashboard's counts (per queue, per definition, the versions
table) and the migration wizard's instance list leave out a secret case for an operator who is
not granted it — no id, no protocol, no count — and show it to the person who is.

Ids a person names (giving up dead letters in bulk over the API, in the background and on the
page; a migration over the API; ``tramita migrate --as``, with ``--all-in-flight`` too; a bulk
claim of tasks over the API, in the background and on the inbox's form) treat a hidden case
exactly like an id that names nothing: the same answer, nothing done.

Three purchases on both databases: a secret one dead-lettered, a secret one waiting on its
approval task (counted), a public one waiting too (what the operator still sees). Two hours
later all three are stuck. ``admin`` holds every workflow permission but no grant;
``classifier`` made the two cases secret and so holds their grants.
"""

from __future__ import annotations

import asyncio
import json
import re
import uuid
from datetime import timedelta
from typing import Any

from click.testing import CliRunner

from contracts.kernel import Actor
from contracts.workflow.types import StartRequest
from core.auth import issue_token
from core.clock import FixedClock
from services.workflow.cli.migrate import migrate_cmd, repair_cmd
from services.workflow.ui.web import SESSION_COOKIE, open_session
from tests.e2e.api.conftest import ALL_WORKFLOW, Api, start_purchase
from tests.e2e.api.human_helpers import open_tasks, user_id
from tests.fakes.purchase import retryable
from tests.integration.migration.helpers import purchase_v1, with_node
from tests.integration.migration.test_cli_migrate import leave

CSRF_COOKIE = "tramita_csrf"
LETTERS = "/api/v1/dead-letters"
WIZARD = "/cms/workflow/operations/migrations"
MIGRATIONS = "/api/v1/workflows/purchase.approval/migrations"
VERSIONS = {"definition": "purchase.approval", "from_version": "1", "to_version": "2"}


async def _classifier(api: Api) -> None:
    directory = api.platform.directory
    await directory.ensure_profile("classifier", "Classifier", [*ALL_WORKFLOW, "workflow.classify"])
    made = await directory.create_user("classifier-user", display_name="c", profile="classifier")
    api.tokens["classifier"] = issue_token(
        api.platform.settings.secret_key, made.id, now=api.platform.clock.now()
    )


async def _make_secret(api: Api, instance_id: str) -> None:
    changed = await api.client.post(
        f"/api/v1/instances/{instance_id}/access",
        json={"level": "secret", "ground": "lai.art23", "reason": "Investigação em curso"},
        headers=api.auth("classifier"),
    )
    assert changed.status_code == 200, changed.text


async def _cases(api: Api, clock: FixedClock) -> dict[str, dict[str, Any]]:
    """(dead-lettered secret, waiting secret, waiting public), each with its protocol."""
    api.purchase.stock.fail_next.extend([retryable() for _ in range(5)])
    lettered = await start_purchase(api, 500)
    for _ in range(5):
        clock.advance(timedelta(seconds=31))
        await api.drain()
    waiting, public = (t["instance_id"] for t in await open_tasks(api, 2))
    cases = {"lettered": lettered["id"], "waiting": waiting, "public": public}
    found: dict[str, dict[str, Any]] = {}
    for name, iid in cases.items():
        shown = await api.client.get(f"/api/v1/instances/{iid}", headers=api.auth())
        found[name] = {"id": iid, "protocol": shown.json()["protocol"]}
    (letter,) = (await api.client.get(LETTERS, headers=api.auth())).json()["items"]
    assert letter["instance_id"] == lettered["id"]
    found["lettered"]["letter"] = letter["id"]
    await _make_secret(api, lettered["id"])
    await _make_secret(api, waiting)
    published = await api.client.post(
        "/api/v1/workflows",
        json=with_node(purchase_v1(), "manager_approval", name="Manager sign-off"),
        headers=api.auth(),
    )
    assert published.json()["version"] == 2, published.text
    clock.advance(timedelta(hours=2))
    return found


async def _sign_in(api: Api, user: str) -> dict[str, str]:
    api.client.cookies.clear()
    session = await open_session(api.platform, user_id(api, user))
    api.client.cookies.set(SESSION_COOKIE, str(session.value))
    await api.client.get("/cms/login")  # any page: the CSRF middleware sets its cookie
    return {"x-csrftoken": api.client.cookies[CSRF_COOKIE]}


def _open_in(rows: list[dict[str, Any]], key: str) -> int:
    return sum(r["open"] for r in rows if r["key"] == key)


async def _api_views(api: Api, cases: dict[str, dict[str, Any]], user: str, sees: bool) -> None:
    headers = api.auth(user)
    letter = cases["lettered"]["letter"]
    listed = await api.client.get(LETTERS, params={"status": "all"}, headers=headers)
    assert listed.status_code == 200, listed.text
    assert (letter in listed.text) is sees, (user, "letters")
    assert (cases["lettered"]["id"] in listed.text) is sees, (user, "letters")
    one = await api.client.get(f"{LETTERS}/{letter}", headers=headers)
    unknown_id = str(uuid.uuid4())
    unknown = await api.client.get(f"{LETTERS}/{unknown_id}", headers=headers)
    if sees:
        assert one.status_code == 200 and one.json()["instance_id"] == cases["lettered"]["id"]
    else:
        assert unknown.status_code == 404
        assert (one.status_code, one.text.replace(letter, "ID")) == (
            unknown.status_code,
            unknown.text.replace(unknown_id, "ID"),
        )
        reprocess = await api.client.post(f"{LETTERS}/{letter}/reprocess", headers=headers)
        assert reprocess.status_code == 404, reprocess.text
        assert cases["lettered"]["id"] not in reprocess.text
    for by, key in (("queue", "purchase.managers"), ("definition", "purchase.approval")):
        counted = await api.client.get(
            "/api/v1/dashboard/workload", params={"by": by}, headers=headers
        )
        assert counted.status_code == 200, counted.text
        assert _open_in(counted.json()["rows"], key) == (2 if sees else 1), (user, by)


def _cases_in_v1(html: str) -> int:
    """The total of the versions table's counts on purchase.approval version 1."""
    rows = [r for r in html.split("<tr") if "purchase.approval" in r and '"Versão">1</td>' in r]
    (row,) = rows
    cell = row.split('data-label="Processos por situação">', 1)[1].split("</td>", 1)[0]
    return sum(int(n) for n in re.findall(r": (\d+)", cell))


async def _page_views(api: Api, cases: dict[str, dict[str, Any]], user: str, sees: bool) -> None:
    csrf = await _sign_in(api, user)
    hidden = [cases["lettered"], cases["waiting"]]
    letters = await api.client.get("/cms/workflow/operations/dead-letters?status=open")
    assert letters.status_code == 200, letters.text
    stuck = await api.client.get("/cms/workflow/operations/stuck?hours=1")
    assert stuck.status_code == 200, stuck.text
    assert cases["public"]["protocol"] in stuck.text, user
    picked = await api.client.get(f"{WIZARD}/instances", params=VERSIONS)
    assert picked.status_code == 200, picked.text
    assert cases["public"]["protocol"] in picked.text, user
    for case in hidden:
        for html, view in ((stuck.text, "stuck"), (picked.text, "migration")):
            assert (case["id"] in html) is sees, (user, view)
            assert (case["protocol"] in html) is sees, (user, view)
    assert (cases["lettered"]["id"] in letters.text) is sees, (user, "letters page")
    assert (cases["lettered"]["letter"] in letters.text) is sees, (user, "letters page")
    board = await api.client.get("/cms/workflow/dashboard")
    assert board.status_code == 200, board.text
    assert f"{2 if sees else 1} tarefas abertas" in board.text, user
    assert _cases_in_v1(board.text) == (3 if sees else 1), user
    by_definition = await api.client.get("/cms/workflow/dashboard/export.csv?by=definition")
    (row,) = [r for r in by_definition.text.splitlines() if r.startswith("purchase.approval,")]
    assert row.split(",")[2] == ("2" if sees else "1"), (user, row)
    for step in ("reprocess", "abandon"):
        action = await api.client.get(
            f"/cms/workflow/operations/dead-letters/{cases['lettered']['letter']}/{step}"
        )
        assert (action.status_code == 200) is sees, (user, step, action.status_code)
        assert (cases["lettered"]["protocol"] in action.text) is sees, (user, step)
    # a hidden case chosen by its id is refused like any id that is not a candidate
    chosen = await api.client.post(
        f"{WIZARD}/mapping",
        data={**VERSIONS, "instance": cases["waiting"]["id"]},
        headers=csrf,
    )
    assert (chosen.status_code == 200) is sees, (user, chosen.status_code)
    if not sees:
        assert chosen.status_code == 422
        assert cases["waiting"]["protocol"] not in chosen.text
    api.client.cookies.clear()


def _alike(hidden: Any, unknown: Any, ids: tuple[str, str]) -> None:
    """The answers about a hidden id and an unknown one are the same but for the ids."""
    assert json.dumps(hidden).replace(ids[0], "ID") == json.dumps(unknown).replace(ids[1], "ID")


async def _named_letters(api: Api, cases: dict[str, dict[str, Any]], user: str) -> bool:
    """Give up the secret case's letter with an unknown one, over the API (in the request and
    in the background) and on the page; whether the letter was given up."""
    letter, unknown = cases["lettered"]["letter"], str(uuid.uuid4())
    body = {"letter_ids": [letter, unknown], "reason": "Parceiro extinto"}
    operations = api.service.operations
    assert operations is not None
    operations.always = True
    started = await api.client.post(f"{LETTERS}/abandon", json=body, headers=api.auth(user))
    operations.always = False
    assert started.status_code == 202, started.text
    await api.drain()
    run = await api.client.get(f"/api/v1/operations/{started.json()['id']}", headers=api.auth())
    refusals = run.json()["refusals"]
    if user == "admin":
        assert (run.json()["done"], len(refusals)) == (0, 2), run.text
        _alike(refusals[0], refusals[1], (letter, unknown))
        answered = await api.client.post(f"{LETTERS}/abandon", json=body, headers=api.auth())
        items = answered.json()["items"]
        assert [i["ok"] for i in items] == [False, False], answered.text
        _alike(items[0], items[1], (letter, unknown))
        csrf = await _sign_in(api, user)
        selected = f"/cms/workflow/operations/dead-letters/abandon-selected?letter_ids={letter}"
        shown = await api.client.post(
            f"{selected}&letter_ids={unknown}", data={"reason": "Lote"}, headers=csrf
        )
        assert "todas as etapas selecionadas foram recusadas" in shown.text, shown.text
        assert shown.text.count("Mensagem morta desconhecida.") == 2
        assert cases["lettered"]["protocol"] not in shown.text
        assert cases["lettered"]["id"] not in shown.text
        api.client.cookies.clear()
    else:
        assert [r["item_id"] for r in refusals] == [unknown], run.text
    one = await api.client.get(f"{LETTERS}/{letter}", headers=api.auth("classifier"))
    return bool(one.json()["status"] == "abandoned")


async def _named_migration(api: Api, cases: dict[str, dict[str, Any]], user: str) -> list[Any]:
    """The secret waiting case and an unknown id over the API's migration: the dry run's and
    the real run's plans."""
    waiting, unknown = cases["waiting"]["id"], str(uuid.uuid4())
    body = {"from_version": 1, "to_version": 2, "instance_ids": [waiting, unknown]}
    dry = await api.client.post(MIGRATIONS, json=body, headers=api.auth(user))
    real = await api.client.post(
        MIGRATIONS, json={**body, "dry_run": False, "reason": "Nova versão"}, headers=api.auth(user)
    )
    assert dry.status_code == real.status_code == 200, (dry.text, real.text)
    return [dry.json()["instances"], real.json()["instances"]]


def _migrate_cli(*args: str) -> dict[str, Any]:
    """``tramita migrate`` of leave.request v1 -> v2 (a dry run), its instances by id."""
    every = ["leave.request", "--from", "1", "--to", "2", "--map", "review=check", "--json"]
    result = CliRunner().invoke(migrate_cmd, [*every, *args])
    assert result.exit_code == 0, result.output
    return {p["instance_id"]: p for p in json.loads(result.stdout)["instances"]}


async def _cli_migration(api: Api) -> None:
    """A definition the command's own platform runs (no test plugin): a secret case and a
    public one in flight on v1."""
    publisher, engine = api.service.engine.publisher, api.service.engine
    await publisher.publish(leave("review"), actor=Actor.system("test"))
    secret, public = [
        (await engine.start(StartRequest(definition_key="leave.request"))).id for _ in range(2)
    ]
    await _make_secret(api, secret)
    await publisher.publish(leave("check"), actor=Actor.system("test"))
    unknown = str(uuid.uuid4())
    named = ["--instance", secret, "--instance", unknown, "--all-in-flight"]
    seen = await asyncio.to_thread(_migrate_cli, *named, "--as", user_id(api, "admin"))
    assert list(seen) == [secret, unknown, public]  # --all-in-flight: the public one only
    _alike(seen[secret], seen[unknown], (secret, unknown))
    assert seen[public]["result"] == "would_migrate"
    seen = await asyncio.to_thread(
        _migrate_cli, "--all-in-flight", "--as", user_id(api, "classifier")
    )
    assert seen[secret]["result"] == seen[public]["result"] == "would_migrate"
    repaired = [
        await asyncio.to_thread(
            CliRunner().invoke,
            repair_cmd,
            [ref, "--to", "review", "--reason", "x", "--as", user_id(api, "admin")],
        )
        for ref in (secret, unknown)
    ]
    assert repaired[0].exit_code == repaired[1].exit_code != 0
    assert repaired[0].output == repaired[1].output, repaired[0].output


async def _named_tasks(api: Api, cases: dict[str, dict[str, Any]]) -> None:
    """A member of the task's queue, not granted, claims the secret case's task with an unknown
    one in bulk: over the API (in the request and in the background) and the inbox's form."""
    (task,) = await api.service.engine.tasks(cases["waiting"]["id"])
    unknown = str(uuid.uuid4())
    body = {"action": "claim", "task_ids": [task.id, unknown]}
    answered = await api.client.post("/api/v1/tasks/bulk", json=body, headers=api.auth("manager"))
    items = answered.json()["items"]
    assert [i["ok"] for i in items] == [False, False], answered.text
    _alike(items[0], items[1], (task.id, unknown))
    started = await api.client.post(
        "/api/v1/operations/bulk", json=body, headers=api.auth("manager")
    )
    assert started.status_code == 202, started.text
    await api.drain()
    run = await api.client.get(f"/api/v1/operations/{started.json()['id']}", headers=api.auth())
    refusals = run.json()["refusals"]
    assert len(refusals) == 2, run.text
    _alike(refusals[0], refusals[1], (task.id, unknown))
    csrf = await _sign_in(api, "manager")
    shown = await api.client.post(
        "/cms/workflow/tasks/bulk",
        data={"action": "claim", "task_ids": body["task_ids"]},
        headers=csrf,
    )
    api.client.cookies.clear()
    assert shown.status_code == 200, shown.text
    assert cases["waiting"]["protocol"] not in shown.text
    assert (await api.service.engine.tasks(cases["waiting"]["id"]))[0].status == "ready"


async def test_operator_views_leave_out_a_secret_case_without_a_grant(
    api: Api, clock: FixedClock, database_url: str, monkeypatch: Any
) -> None:
    await _classifier(api)
    cases = await _cases(api, clock)
    for user, sees in (("admin", False), ("classifier", True)):
        await _api_views(api, cases, user, sees)
        await _page_views(api, cases, user, sees)

    monkeypatch.setenv("TRAMITA_DATABASE_URL", database_url)
    await _cli_migration(api)
    await _named_tasks(api, cases)
    waiting = cases["waiting"]["id"]
    assert not await _named_letters(api, cases, "admin")
    hidden_dry, hidden_real = await _named_migration(api, cases, "admin")
    for plans in (hidden_dry, hidden_real):
        assert [b["code"] for b in plans[0]["blockers"]] == ["not_found"], plans
        _alike(plans[0], plans[1], (waiting, str(plans[1]["instance_id"])))
    assert (await api.service.engine.status(waiting)).definition_version == 1
    assert await _named_letters(api, cases, "classifier")
    dry, real = await _named_migration(api, cases, "classifier")
    assert (dry[0]["result"], real[0]["result"]) == ("would_migrate", "migrated")
