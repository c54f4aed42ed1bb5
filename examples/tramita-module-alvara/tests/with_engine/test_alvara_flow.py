"""With the workflow service the status follows the flow; plain moves are refused."""

from __future__ import annotations

import pytest
from tramita_alvara.domain import LicenceStatus
from tramita_alvara.plugin import RUNTIME

from contracts.errors import Conflict
from contracts.kernel import Actor
from core.app import Platform
from services.workflow.bootstrap import service_of

OPINION = {"parecer": "Uso do solo incompatível com a atividade.", "vistoria": False}
APPLICANT = Actor(id="0190d1a0-0000-7000-8000-00000000c001")


async def test_a_rejected_request_ends_rejected_and_plain_moves_are_refused(
    with_engine: Platform,
) -> None:
    engine, service = with_engine.workflow, service_of(with_engine)
    assert engine is not None
    directory = with_engine.directory
    await directory.ensure_profile("fiscal", "Fiscal", ["alvara.analyse", "workflow.tasks"])
    officer = await directory.create_user("fiscal", display_name="Fiscal", profile="fiscal")
    await service.catalog.add_member("alvara.analise", officer.id, actor=Actor.system("test"))
    licences = RUNTIME.licences
    draft = await licences.request(
        business_name="Bar do Largo", activity="comercio", area_m2=30, applicant_id=APPLICANT.id
    )
    submitted = await licences.submit(draft.id, actor=APPLICANT)
    await service.delivery.drain()
    assert (await licences.get(draft.id)).status is LicenceStatus.UNDER_REVIEW
    with pytest.raises(Conflict):  # the flow decides now, not the module's plain moves
        await licences.move(draft.id, LicenceStatus.APPROVED, actor=Actor(id=officer.id))
    assert submitted.instance_id is not None
    (task,) = await engine.tasks(submitted.instance_id)
    await engine.complete(task.id, actor=Actor(id=officer.id), outcome="reject", data=OPINION)
    await service.delivery.drain()
    assert (await licences.get(draft.id)).status is LicenceStatus.REJECTED
    assert (await engine.status(submitted.instance_id)).status == "rejected"
