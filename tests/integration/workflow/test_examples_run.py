"""Every definition in ``examples/`` (JSON, or BPMN 2.0 XML) publishes and runs to its end on a
fresh install, with what it names registered by the examples package
(``examples/tramita-examples``):
published with ``tramita workflow publish`` as an operator would, then started and worked to
completion by people who are members of its queues."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest

from contracts.kernel import Actor
from contracts.workflow.types import StartRequest
from core.app import Platform
from core.clock import FixedClock
from tests.fakes.boot import booted
from tests.integration.durable.harness import install_plugin

pytestmark = pytest.mark.slow
ROOT = Path(__file__).parents[3]
EXAMPLES = ROOT / "examples"
TRAMITA = [sys.executable, "-c", "from core.cli import main; main()"]
AUTHOR = Actor(id="author")

CASES: dict[str, tuple[str, dict[str, Any], dict[str, dict[str, Any]]]] = {
    # file: (definition key, start context, completion data per task node)
    "purchase_approval.json": (
        "purchase.approval",
        {
            "value": 20_000,
            "item": "papel A4",
            "quantity": 10,
            "requester": "Maria Silva",
            "requester_email": "maria@example.org",
        },
        {"manager_approval": {"approval_comment": "De acordo."}},
    ),
    "six_node.json": (
        "document.publication",
        {"title": "Edital nº 1", "body": "Texto do edital.", "author_email": "autor@example.org"},
        {"review": {"decision_note": "Publicar."}},
    ),
    "document_notice.bpmn": (
        "document.notice",
        {"title": "Aviso nº 1", "body": "Texto do aviso.", "author_email": "autor@example.org"},
        {"review": {"decision_note": "Publicar."}},
    ),
    "parallel_review.json": (
        "contract.review",
        {"supplier_id": "S-1", "amount": 5_000},
        {"legal_review": {"legal_note": "Sem óbices."}, "finance_review": {"finance_note": "Ok."}},
    ),
}


DEFINITION_SUFFIXES = (".json", ".bpmn", ".xml")


def test_every_example_file_has_a_case() -> None:
    """Walks the whole folder: a definition added anywhere in ``examples/`` needs a case here."""
    found = [
        str(p.relative_to(EXAMPLES))
        for p in EXAMPLES.rglob("*")
        if p.suffix in DEFINITION_SUFFIXES and not any(".egg-info" in part for part in p.parts)
    ]
    assert sorted(found) == sorted(CASES)


@pytest.fixture
def examples_site(tmp_path: Path) -> Iterator[Path]:
    site = install_plugin(tmp_path / "site", EXAMPLES / "tramita-examples")
    sys.path.insert(0, str(site))
    yield site
    sys.path.remove(str(site))
    for name in [m for m in sys.modules if m.startswith("tramita_examples")]:
        del sys.modules[name]


@pytest.mark.parametrize("file", sorted(CASES))
async def test_an_example_publishes_and_runs_to_its_end(
    file: str, database_url: str, clock: FixedClock, examples_site: Path
) -> None:
    key, context, answers = CASES[file]
    env = {
        **os.environ,
        "PYTHONPATH": f"{examples_site}:{ROOT}",
        "TRAMITA_DATABASE_URL": database_url,
        "TRAMITA_LOG_JSON": "0",
    }
    published = subprocess.run(
        [*TRAMITA, "workflow", "publish", str(EXAMPLES / file), "--json"],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert published.returncode == 0, published.stderr
    assert json.loads(published.stdout)["key"] == key
    async with booted(database_url, clock) as service:
        people = []
        directory = cast(Platform, service.platform).directory
        await directory.ensure_profile("staff", "Staff", ["workflow.tasks"])
        for name in ("ana", "bruno"):
            user = await directory.create_user(name, display_name=name, profile="staff")
            people.append(Actor(id=user.id))
            for queue in service.platform.registrations.queues:
                await service.catalog.add_member(queue, user.id, actor=Actor.system("test"))
        view = await service.engine.start(
            StartRequest(definition_key=key, context=context, actor=AUTHOR)
        )
        for _ in range(20):
            await service.delivery.drain()
            open_tasks = [
                t for t in await service.engine.tasks(view.id) if t.status in ("ready", "claimed")
            ]
            if not open_tasks:
                break
            for task in open_tasks:
                person = people[_ % 2]  # a quorum needs two different people
                await service.engine.complete(
                    task.id,
                    actor=person,
                    outcome="approve" if "approve" in task.outcomes else None,
                    data=answers.get(task.node_id, {}),
                )
        final = await service.engine.status(view.id)
        assert (final.status, final.current_nodes) == ("completed", ())
