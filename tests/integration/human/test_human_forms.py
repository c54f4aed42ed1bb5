"""Form versions are published at boot, immutable, and pin what each task is answered with."""

from __future__ import annotations

import pytest

from contracts.errors import Conflict
from contracts.kernel import Actor
from services.workflow.bootstrap import WorkflowService
from services.workflow.forms import decode_snapshot
from tests.integration.human.casework import DECISION_FORM
from tests.integration.human.kit import ANA, NOTE, open_case, staff

BOOT = Actor.system("boot")


async def test_registered_forms_are_published_at_boot(wf: WorkflowService) -> None:
    async with wf.uow_factory() as uow:
        stored = await uow.human.form("casework.decision", 1)
    assert stored is not None and stored.status == "published"


async def test_registering_the_same_form_again_changes_nothing(wf: WorkflowService) -> None:
    assert await wf.catalog.sync({}, [DECISION_FORM], actor=BOOT) == []


async def test_a_published_version_cannot_change(wf: WorkflowService) -> None:
    changed = {**DECISION_FORM, "title": "Another title"}
    with pytest.raises(Conflict):
        await wf.catalog.sync({}, [changed], actor=BOOT)


async def test_a_new_form_version_leaves_open_tasks_on_the_version_they_opened_with(
    wf: WorkflowService,
) -> None:
    await staff(wf)
    _, task = await open_case(wf)
    fields = [*DECISION_FORM["fields"], {"id": "extra", "type": "text", "required": True}]  # type: ignore[list-item]
    lines = await wf.catalog.sync(
        {}, [{**DECISION_FORM, "version": 2, "fields": fields}], actor=BOOT
    )
    assert lines == ["form casework.decision@2 (new)"]
    await wf.tasks.complete(task.id, actor=ANA, outcome="reject", data=NOTE)
    async with wf.uow_factory() as uow:
        (stored,) = await uow.human.submissions(task.id)
    assert decode_snapshot(stored).form_version == 1
