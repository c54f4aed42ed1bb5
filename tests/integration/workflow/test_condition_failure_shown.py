"""A gateway condition that fails at run time: the instance says why, through the engine, the
API's view and ``tramita instance show``."""

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
from services.workflow.cli.workflow import show_cmd

OPERATOR = Actor(id="operator-1")


def routed(condition: str) -> dict[str, Any]:
    return {
        "format": 1,
        "key": "route.test",
        "name": "Route test",
        "protocol_prefix": "RTE",
        "nodes": [
            {"id": "ask", "type": "start", "produces": ["n", "items"], "next": "route"},
            {
                "id": "route",
                "type": "exclusive",
                "branches": [{"when": condition, "next": "done"}],
                "default": "done",
            },
            {"id": "done", "type": "end"},
        ],
    }


def failed_instance(database_url: str, condition: str, context: dict[str, Any]) -> str:
    async def _go() -> str:
        platform = await Platform.boot(Settings(database_url=database_url), upgrade=False)
        try:
            engine = service_of(platform).engine
            await engine.publisher.publish(routed(condition), actor=OPERATOR)
            view = await engine.start(
                StartRequest(definition_key="route.test", context=context, actor=OPERATOR)
            )
            return view.id
        finally:
            await platform.close()

    return asyncio.run(_go())


@pytest.fixture
def cli_env(database_url: str, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("TRAMITA_DATABASE_URL", database_url)
    return database_url


@pytest.mark.parametrize(
    ("condition", "context", "cause", "words"),
    [
        ("100 / n > 1", {"n": 0, "items": []}, "division_by_zero", "divisão por zero"),
        ("n.limit > 1", {"n": {"other": 1}, "items": []}, "no_such_key", "falta um campo"),
        (
            "size(items) > n",
            {"n": 1, "items": ["x" * 1000] * 300},
            "activation_too_large",
            "grandes demais",
        ),
    ],
)
def test_the_instance_keeps_and_shows_why_its_condition_failed(
    cli_env: str, condition: str, context: dict[str, Any], cause: str, words: str
) -> None:
    instance_id = failed_instance(cli_env, condition, context)
    shown = CliRunner().invoke(show_cmd, [instance_id, "--json"])
    assert shown.exit_code == 0, shown.output
    view = json.loads(shown.output)["instance"]
    assert view["status"] == "failed"
    assert {k: view["failure"][k] for k in ("reason", "node_id", "cause")} == {
        "reason": "condition_error",
        "node_id": "route",
        "cause": cause,
    }
    assert words in view["failure"]["message"]
    text = CliRunner().invoke(show_cmd, [instance_id])
    assert text.exit_code == 0, text.output
    assert f"falha: {view['failure']['message']} [condition_error/{cause}]" in text.output
