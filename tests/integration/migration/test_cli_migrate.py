"""``tramita migrate`` and ``tramita repair`` against a real database, through click."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from click.testing import CliRunner

from contracts.kernel import Actor
from contracts.workflow.types import StartRequest
from core.app import Platform
from core.settings import Settings
from services.workflow.bootstrap import service_of
from services.workflow.cli.migrate import migrate_cmd, repair_cmd

OPERATOR = Actor(id="operator-7")


def leave(task_id: str) -> dict[str, Any]:
    return {
        "format": 1,
        "key": "leave.request",
        "name": "Leave request",
        "protocol_prefix": "LVR",
        "nodes": [
            {"id": "ask", "type": "start", "next": task_id},
            {
                "id": task_id,
                "name": "Tarefa",
                "type": "user_task",
                "queue": "approval",
                "next": "done",
            },
            {"id": "done", "type": "end"},
        ],
    }


def prepare(database_url: str, count: int) -> list[str]:
    """Publish v1 (task ``review``) and v2 (task ``check``); start ``count`` instances on v1."""

    async def _go() -> list[str]:
        platform = await Platform.boot(Settings(database_url=database_url), upgrade=False)
        try:
            engine = service_of(platform).engine
            await engine.publisher.publish(leave("review"), actor=OPERATOR)
            ids = [
                (
                    await engine.start(StartRequest(definition_key="leave.request", actor=OPERATOR))
                ).id
                for _ in range(count)
            ]
            await engine.publisher.publish(leave("check"), actor=OPERATOR)
            return ids
        finally:
            await platform.close()

    return asyncio.run(_go())


def statuses(database_url: str, ids: list[str]) -> list[tuple[int, tuple[str, ...]]]:
    async def _go() -> list[tuple[int, tuple[str, ...]]]:
        platform = await Platform.boot(Settings(database_url=database_url), upgrade=False)
        try:
            engine = service_of(platform).engine
            views = [await engine.status(i) for i in ids]
            return [(v.definition_version, v.current_nodes) for v in views]
        finally:
            await platform.close()

    return asyncio.run(_go())


@pytest.fixture
def cli_env(database_url: str, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("TRAMITA_DATABASE_URL", database_url)
    return database_url


def test_the_cli_dry_run_prints_the_plan_and_moves_nothing(cli_env: str) -> None:
    ids = prepare(cli_env, 1)
    args = ["leave.request", "--from", "1", "--to", "2", "--map", "review=check"]
    result = CliRunner().invoke(migrate_cmd, [*args, "--instance", ids[0]])
    assert result.exit_code == 0, result.output
    assert "t: review -> check [reentra]" in result.output
    assert "LVR-2026-000001  Será migrado\n" in result.output
    assert "  Será migrado: 1\n" in result.output
    assert result.stdout.startswith("simulação: leave.request v1 -> v2")
    assert statuses(cli_env, ids) == [(1, ("review",))]


def test_the_cli_applies_a_batch_only_to_the_chosen_saying_first_what_it_does(
    cli_env: str,
) -> None:
    ids = prepare(cli_env, 21)
    chosen, left = ids[:20], ids[20:]
    args = ["leave.request", "--from", "1", "--to", "2", "--map", "review=check", "--apply"]
    picked = [a for i in chosen for a in ("--instance", i)]
    result = CliRunner().invoke(migrate_cmd, [*args, *picked, "--as", "operator-7"])
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines() == [
        "migrando 20 instâncias de leave.request da v1 para a v2…"
    ]  # not a terminal and no --progress: the first line only
    assert "  Migrado: 20\n" in result.stdout
    assert statuses(cli_env, chosen) == [(2, ("check",))] * 20
    assert statuses(cli_env, left) == [(1, ("review",))]


def test_progress_reports_the_count_on_stderr(cli_env: str) -> None:
    ids = prepare(cli_env, 20)
    args = ["leave.request", "--from", "1", "--to", "2", "--map", "review=check", "--apply"]
    picked = [a for i in ids for a in ("--instance", i)]
    result = CliRunner().invoke(migrate_cmd, [*args, *picked, "--progress", "--json"])
    assert result.exit_code == 0, result.output
    lines = result.stderr.splitlines()
    assert lines[0] == "migrando 20 instâncias de leave.request da v1 para a v2…"
    assert lines[1:] == [f"migrando {n}/20 instâncias…" for n in range(2, 21, 2)]
    assert len(json.loads(result.stdout)["instances"]) == 20  # stdout stays the document


def test_the_cli_reports_json_for_scripts(cli_env: str) -> None:
    ids = prepare(cli_env, 1)
    args = ["leave.request", "--from", "1", "--to", "2", "--map", "review=check", "--apply"]
    result = CliRunner().invoke(migrate_cmd, [*args, "--instance", ids[0], "--json"])
    assert result.exit_code == 0, result.output
    (instance,) = json.loads(result.stdout)["instances"]
    assert (instance["result"], instance["tokens"][0]["to_node"]) == ("migrated", "check")


def test_the_cli_refuses_a_migration_without_chosen_instances(cli_env: str) -> None:
    result = CliRunner().invoke(migrate_cmd, ["leave.request", "--from", "1", "--to", "2"])
    assert result.exit_code == 2 and "escolha as instâncias" in result.output


def test_the_cli_repair_moves_the_token_with_a_reason(cli_env: str) -> None:
    (instance_id,) = prepare(cli_env, 1)
    args = [instance_id, "--to", "done", "--reason", "handled by phone"]
    result = CliRunner().invoke(repair_cmd, args)
    assert result.exit_code == 0, result.output
    assert result.stdout.endswith(" concluído em -\n")


APPLY = ["leave.request", "--from", "1", "--to", "2", "--map", "review=check", "--apply"]


def _chosen(ids: list[str]) -> list[str]:
    return [a for i in ids for a in ("--instance", i)]


def test_past_the_threshold_the_cli_starts_a_background_operation_once(
    cli_env: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TRAMITA_WF_OPERATION_THRESHOLD", "3")
    ids = prepare(cli_env, 4)
    result = CliRunner().invoke(migrate_cmd, [*APPLY, *_chosen(ids), "--reason", "v2"])
    assert result.exit_code == 0, result.output
    first = result.stdout.splitlines()
    assert first[0].startswith("migração em execução em segundo plano: operação ")
    operation_id = first[0].split("operação ")[1].split(" ")[0]
    assert f"página de progresso: /cms/workflow/operations/{operation_id}" in result.stdout
    assert f"acompanhe com: tramita operation show {operation_id}" in result.stdout
    # Nothing waited for it: the instances are still where they were (a worker runs it).
    assert statuses(cli_env, ids) == [(1, ("review",))] * 4
    # The same command again while it is queued gets the same operation, not a second one.
    again = CliRunner().invoke(
        migrate_cmd, [*APPLY, *_chosen(list(reversed(ids))), "--reason", "v2"]
    )
    assert again.exit_code == 0, again.output
    assert f"operação {operation_id} " in again.stdout


def test_wait_follows_the_background_migration_on_stderr_until_it_is_over(
    cli_env: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TRAMITA_WF_OPERATION_THRESHOLD", "3")
    ids = prepare(cli_env, 5)
    chosen = [*_chosen(ids), "--instance", "019cae6b-6600-7000-8000-0000000000ff"]
    result = CliRunner().invoke(migrate_cmd, [*APPLY, *chosen, "--wait"])
    assert result.exit_code == 1, result.output  # one id is refused
    assert "migrando em segundo plano: operação " in result.stderr
    assert "6/6 tratados (100%): 5 feitos, 1 recusados" in result.stderr
    assert ": concluída; 6/6 tratados (100%): 5 feitos, 1 recusados" in result.stdout
    assert "recusado 019cae6b-6600-7000-8000-0000000000ff: processo não encontrado" in result.stdout
    assert "Traceback" not in result.output
    assert statuses(cli_env, ids) == [(2, ("check",))] * 5


def test_wait_prints_the_operation_as_json_for_scripts(
    cli_env: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TRAMITA_WF_BACKGROUND_ALWAYS", "1")
    ids = prepare(cli_env, 2)
    result = CliRunner().invoke(migrate_cmd, [*APPLY, *_chosen(ids), "--wait", "--json"])
    assert result.exit_code == 0, result.output
    view = json.loads(result.stdout)
    assert (view["kind"], view["status"], view["done"], view["refused"]) == (
        "migration",
        "finished",
        2,
        0,
    )


def test_the_background_lines_are_english_with_tramita_lang_en(
    cli_env: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TRAMITA_WF_OPERATION_THRESHOLD", "1")
    monkeypatch.setenv("TRAMITA_LANG", "en")
    ids = prepare(cli_env, 2)
    result = CliRunner().invoke(migrate_cmd, [*APPLY, *_chosen(ids), "--reason", "v2"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith("migration running in the background: operation ")
    assert lines[0].endswith(" (2 instances)")
    assert lines[1].startswith("progress page: /cms/workflow/operations/")
    assert lines[2].startswith("follow it with: tramita operation show ")
