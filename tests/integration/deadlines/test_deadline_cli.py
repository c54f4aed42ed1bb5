"""``tramita deadline`` through click, against a real database."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime

import pytest
from click.testing import CliRunner

from contracts.workflow.types import StartRequest
from core.app import Platform
from core.clock import FixedClock
from core.ids import SequentialIdGen
from core.settings import Settings
from services.workflow.bootstrap import service_of
from services.workflow.calendar import ESIC_REQUEST
from services.workflow.cli.deadlines import deadline_group
from tests.integration.deadlines.esic import DEADLINE, ESIC, OFFICER


def prepare(database_url: str) -> str:
    """An instance with a running e-SIC deadline started now (the real clock: the CLI's)."""

    async def _go() -> str:
        clock = FixedClock(datetime.now(UTC))
        settings = Settings(database_url=database_url)
        platform = await Platform.boot(
            settings, clock=clock, ids=SequentialIdGen(clock), upgrade=False
        )
        try:
            service = service_of(platform)
            await service.engine.publisher.publish(ESIC, actor=OFFICER)
            view = await service.engine.start(
                StartRequest(definition_key="esic.request", actor=OFFICER)
            )
            await service.deadlines.start(view.id, DEADLINE, ESIC_REQUEST, "br-national", OFFICER)
            return view.id
        finally:
            await platform.close()

    return asyncio.run(_go())


@pytest.fixture
def cli_env(database_url: str, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("TRAMITA_DATABASE_URL", database_url)
    return database_url


def test_the_cli_suspends_resumes_and_shows_a_deadline(cli_env: str) -> None:
    instance_id = prepare(cli_env)
    runner = CliRunner()
    args = [instance_id, DEADLINE, "--as", "officer-7"]
    suspended = runner.invoke(
        deadline_group,
        [
            "suspend",
            *args,
            "--reason",
            "complement",
            "--legal-basis",
            "Decreto 9.492/2018, art. 18",
        ],
    )
    assert suspended.exit_code == 0, suspended.output
    assert f"{DEADLINE} suspended vence -" in suspended.output
    resumed = runner.invoke(deadline_group, ["resume", *args])
    assert resumed.exit_code == 0 and f"{DEADLINE} running vence " in resumed.output
    shown = runner.invoke(deadline_group, ["show", instance_id, "--json"])
    (view,) = json.loads(shown.output)
    assert (view["status"], view["calendar_key"], view["calendar_version"]) == (
        "running",
        "br-national",
        1,
    )


def test_the_cli_extends_once_and_reports_the_refusal_of_a_second_extension(
    cli_env: str,
) -> None:
    instance_id = prepare(cli_env)
    runner = CliRunner()
    args = ["extend", instance_id, DEADLINE, "--justification", "consolidation needed"]
    first = runner.invoke(deadline_group, args)
    assert first.exit_code == 0 and "prorrogações 1/1" in first.output
    second = runner.invoke(deadline_group, args)
    assert second.exit_code == 1 and "extensions: " in second.stderr
    assert "consolidation" not in second.output


LEGAL: dict[str, object] = {
    "format": 1,
    "key": "cli.legal",
    "name": "Pedido com prazo legal",
    "protocol_prefix": "LEG",
    "nodes": [
        {"id": "receive", "type": "start", "next": "answer"},
        {
            "id": "answer",
            "name": "Answer",
            "type": "user_task",
            "queue": "approval",
            "timers": [{"id": DEADLINE, "deadline": {"rule": "lai.request"}, "next": "late"}],
            "next": "done",
        },
        {"id": "done", "type": "end"},
        {"id": "late", "type": "end", "result": "expired"},
    ],
}


def prepare_legal(database_url: str) -> str:
    """An instance whose task timer counts ``lai.request`` (the e-SIC module's rule) now."""

    async def _go() -> str:
        clock = FixedClock(datetime.now(UTC))
        settings = Settings(database_url=database_url)
        platform = await Platform.boot(
            settings, clock=clock, ids=SequentialIdGen(clock), upgrade=False
        )
        try:
            service = service_of(platform)
            await service.engine.publisher.publish(LEGAL, actor=OFFICER)
            view = await service.engine.start(
                StartRequest(definition_key="cli.legal", actor=OFFICER)
            )
            return view.id
        finally:
            await platform.close()

    return asyncio.run(_go())


def test_the_cli_extends_an_esic_deadline_once_and_refuses_more_in_one_portuguese_line(
    cli_env: str,
) -> None:
    instance_id = prepare_legal(cli_env)
    runner = CliRunner()
    args = ["extend", instance_id, DEADLINE, "--justification", "Consolidação de dados"]
    first = runner.invoke(deadline_group, args)
    assert first.exit_code == 0, first.output
    assert "prorrogações 1/1" in first.output
    second = runner.invoke(deadline_group, args)
    assert second.exit_code == 1
    assert second.stderr.strip().splitlines() == [
        "erro: Este prazo legal já foi prorrogado tanto quanto a sua regra permite."
    ]
