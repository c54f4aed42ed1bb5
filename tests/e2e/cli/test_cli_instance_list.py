"""``tramita instance list``: a table for a person, JSON for a script, filters and pages."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime

from contracts.workflow.types import StartRequest
from core.app import Platform
from core.clock import FixedClock
from core.ids import SequentialIdGen
from core.settings import Settings
from services.workflow.bootstrap import service_of
from tests.e2e.cli.helpers import error_line, run
from tests.integration.deadlines.esic import ESIC, OFFICER

LONG_AGO = datetime(2025, 1, 10, 13, 5, tzinfo=UTC)
"""10/01/2025 10:05 in Brasília; the answer task (due in 90 days) is overdue today."""
APPEAL = {**ESIC, "key": "esic.appeal", "protocol_prefix": "REC"}


def _seed(database_url: str) -> dict[str, str]:
    """Three instances: an old overdue request, a new request and a new appeal (protocols)."""

    async def _go() -> dict[str, str]:
        clock = FixedClock(LONG_AGO)
        platform = await Platform.boot(
            Settings(database_url=database_url),
            clock=clock,
            ids=SequentialIdGen(clock),
            upgrade=False,
        )
        try:
            service = service_of(platform)
            for definition in (ESIC, APPEAL):
                await service.engine.publisher.publish(definition, actor=OFFICER)
            seeded = {}
            for name, key, when in (
                ("old", "esic.request", LONG_AGO),
                ("new", "esic.request", datetime.now(UTC)),
                ("appeal", "esic.appeal", datetime.now(UTC)),
            ):
                clock.set(when)
                view = await service.engine.start(StartRequest(definition_key=key, actor=OFFICER))
                await service.settle()
                seeded[name] = view.protocol
            return seeded
        finally:
            await platform.close()

    return asyncio.run(_go())


def test_the_table_shows_protocol_definition_status_step_and_local_start(
    database_url: str,
) -> None:
    seeded = _seed(database_url)
    result = run("instance", "list", database_url=database_url)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["Protocolo", "Fluxo", "Situação", "Etapa", "atual", "Início"]
    (old,) = [line for line in lines if line.startswith(seeded["old"])]
    assert "esic.request v1" in old and "answer" in old
    assert "10/01/2025 10:05" in old and old.endswith("Vencida")
    assert lines[1].startswith(seeded["appeal"])  # newest first
    assert lines[-1] == "1 a 3 de 3"
    assert result.stderr == ""


def test_json_filters_and_pages(database_url: str) -> None:
    seeded = _seed(database_url)

    def listed(*args: str) -> dict[str, object]:
        result = run("instance", "list", "--json", *args, database_url=database_url)
        assert result.returncode == 0, result.stderr
        document: dict[str, object] = json.loads(result.stdout)
        return document

    def protocols(document: dict[str, object]) -> list[str]:
        items = document["instances"]
        assert isinstance(items, list)
        return [i["protocol"] for i in items]

    everything = listed()
    assert everything["total"] == 3 and everything["limit"] == 50
    assert protocols(listed("--definition", "esic.appeal")) == [seeded["appeal"]]
    overdue = listed("--overdue")
    assert protocols(overdue) == [seeded["old"]]
    assert overdue["instances"][0]["overdue"] is True  # type: ignore[index]
    assert listed("--status", "completed")["total"] == 0
    second = listed("--limit", "1", "--offset", "1")
    assert second["total"] == 3 and protocols(second) == [seeded["new"]]


def test_english_with_tramita_lang_and_an_empty_page(database_url: str) -> None:
    _seed(database_url)
    result = run("instance", "list", database_url=database_url, TRAMITA_LANG="en")
    assert result.stdout.splitlines()[0].split()[:2] == ["Protocol", "Definition"]
    empty = run("instance", "list", "--status", "failed", database_url=database_url)
    assert empty.returncode == 0 and empty.stdout.strip() == "nenhum processo encontrado"


def test_a_bad_filter_is_one_line_and_exit_2(database_url: str) -> None:
    result = run("instance", "list", "--status", "sleeping", database_url=database_url)
    assert result.returncode == 2
    assert error_line(result).startswith("erro: ")
