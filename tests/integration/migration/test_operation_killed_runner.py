"""A runner process killed with SIGKILL in the middle of a migration operation: another process
continues from the instances not yet handled, and no instance is migrated twice."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from pathlib import Path

from core.audit import read_trail
from services.workflow.bootstrap import WorkflowService
from services.workflow.runtime.services.operations import OperationService
from tests.integration.migration.helpers import (
    OPERATOR,
    publish,
    purchase_v1,
    waiting_purchases,
    with_node,
)

ROOT = Path(__file__).resolve().parents[3]
COUNT = 40
CHILD = "tests.integration.migration.operation_runner_child"


def _ops(wf: WorkflowService) -> OperationService:
    assert wf.operations is not None
    return wf.operations


def _runner(database_url: str, operation_id: str) -> subprocess.Popen[str]:
    env = {
        **os.environ,
        "TRAMITA_WF_OPERATION_LEASE_S": "1",
        "TRAMITA_WF_OPERATION_CHUNK": "1000",
        "TRAMITA_LOG_LEVEL": "ERROR",
    }
    return subprocess.Popen(
        [sys.executable, "-m", CHILD, database_url, operation_id],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )


async def test_a_killed_runner_process_is_continued_without_repeating_an_instance(
    wf: WorkflowService, database_url: str
) -> None:
    ids = await waiting_purchases(wf, COUNT)
    await publish(wf, with_node(purchase_v1(), "manager_approval", id="manager_review"))
    started = await _ops(wf).start(
        "migration",
        ids,
        actor=OPERATOR,
        reason="crash test",
        params={
            "definition_key": "purchase.approval",
            "from_version": 1,
            "to_version": 2,
            "mapping": {"manager_approval": "manager_review"},
        },
    )
    first = _runner(database_url, started.id)
    try:
        while (await _ops(wf).get(started.id)).done < 1 and first.poll() is None:
            await asyncio.sleep(0.005)
        first.send_signal(signal.SIGKILL)
    finally:
        first.wait()
    killed = await _ops(wf).get(started.id)
    assert first.returncode == -signal.SIGKILL
    assert killed.status == "running" and 1 <= killed.done < COUNT

    second = _runner(database_url, started.id)
    out, _ = second.communicate(timeout=120)
    assert second.returncode == 0 and out.strip() == "finished"
    over = await _ops(wf).get(started.id)
    assert (over.status, over.done, over.refused) == ("finished", COUNT, 0)
    versions = {(await wf.engine.status(i)).definition_version for i in ids}
    assert versions == {2}
    async with wf.engine._uow() as uow:
        for instance_id in ids:
            trail = await read_trail(uow.conn, "workflow_instance", instance_id)
            assert [r.entry.action for r in trail].count("workflow.instance.migrated") == 1
