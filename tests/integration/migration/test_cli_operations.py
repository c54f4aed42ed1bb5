"""``tramita operation list|show|cancel`` against a real database, through click."""

from __future__ import annotations

import asyncio

import pytest
from click.testing import CliRunner

from core.app import Platform
from core.settings import Settings
from services.workflow.bootstrap import service_of
from services.workflow.cli.operations import cancel_cmd, list_cmd, show_cmd
from tests.integration.migration.test_cli_migrate import OPERATOR, prepare

UNKNOWN = "019cae6b-6600-7000-8000-0000000000ff"


def start(database_url: str, ids: list[str], *, run: bool) -> str:
    """A migration operation over ``ids`` (v1 ``review`` -> v2 ``check``), run or left queued."""

    async def _go() -> str:
        platform = await Platform.boot(Settings(database_url=database_url), upgrade=False)
        try:
            service = service_of(platform)
            assert service.operations is not None
            started = await service.operations.start(
                "migration",
                ids,
                actor=OPERATOR,
                reason="cli",
                params={
                    "definition_key": "leave.request",
                    "from_version": 1,
                    "to_version": 2,
                    "mapping": {"review": "check"},
                },
            )
            if run:
                await service.settle()
            return started.id
        finally:
            await platform.close()

    return asyncio.run(_go())


@pytest.fixture
def cli_env(database_url: str, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("TRAMITA_DATABASE_URL", database_url)
    return database_url


def test_show_prints_the_counters_and_each_refused_item(cli_env: str) -> None:
    ids = prepare(cli_env, 2)
    operation_id = start(cli_env, [*ids, UNKNOWN], run=True)
    result = CliRunner().invoke(show_cmd, [operation_id])
    assert result.exit_code == 0, result.output
    assert (
        f"operação {operation_id}: Migração de processos para outra versão, concluída"
        in result.output
    )
    assert "3/3 tratados (100%): 2 feitos, 1 recusados, 0 a fazer" in result.output
    assert f"recusado {UNKNOWN}: processo não encontrado" in result.output
    listed = CliRunner().invoke(list_cmd, [])
    assert listed.exit_code == 0 and operation_id in listed.output


def test_cancel_stops_a_queued_operation_and_an_unknown_id_is_one_line(cli_env: str) -> None:
    ids = prepare(cli_env, 1)
    operation_id = start(cli_env, ids, run=False)
    result = CliRunner().invoke(cancel_cmd, [operation_id, "--reason", "not now"])
    assert result.exit_code == 0, result.output
    assert f"operação {operation_id} cancelada; 0/1 tratados" in result.output
    missing = CliRunner().invoke(show_cmd, [UNKNOWN])
    assert missing.exit_code == 1
    assert "Traceback" not in missing.output


def test_show_speaks_english_with_tramita_lang_en(
    cli_env: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TRAMITA_LANG", "en")
    ids = prepare(cli_env, 1)
    operation_id = start(cli_env, [*ids, UNKNOWN], run=True)
    result = CliRunner().invoke(show_cmd, [operation_id])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[:2] == [
        f"operation {operation_id}: Migration of cases to another version, finished",
        "2/2 handled (100%): 1 done, 1 refused, 0 to do",
    ]
    assert f"refused {UNKNOWN}: case not found" in result.output


def test_an_empty_list_says_so_in_portuguese(cli_env: str) -> None:
    result = CliRunner().invoke(list_cmd, [])
    assert result.exit_code == 0, result.output
    assert result.output == "nenhuma operação\n"
