"""An escalation drawn in BPMN (a non-interrupting timer boundary event reaching an escalation
end event) runs as the timer's ``escalate_to``: the open task moves to the supervisors' queue
and stays open, and the case keeps waiting on it."""

from __future__ import annotations

from datetime import timedelta

from contracts.kernel import Actor
from contracts.workflow.types import StartRequest
from core.clock import FixedClock
from services.workflow.bootstrap import WorkflowService
from services.workflow.definition.bpmn import import_bpmn
from tests.integration.human.kit import AUTHOR

DRAWN = b"""<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL"
    xmlns:tramita="https://tramita.dev/bpmn" id="d" targetNamespace="urn:test">
  <bpmn:escalation id="Escalation_1" name="Supervisores" escalationCode="casework.supervisors"/>
  <bpmn:process id="casework_escalation" name="Escalation" tramita:protocolPrefix="ESC">
    <bpmn:startEvent id="s"/>
    <bpmn:userTask id="Review" name="Analisar" tramita:queue="casework.reviewers"/>
    <bpmn:boundaryEvent id="Late" attachedToRef="Review" cancelActivity="false">
      <bpmn:timerEventDefinition><bpmn:timeDuration>PT36H</bpmn:timeDuration>
      </bpmn:timerEventDefinition>
    </bpmn:boundaryEvent>
    <bpmn:endEvent id="Escalate">
      <bpmn:escalationEventDefinition escalationRef="Escalation_1"/>
    </bpmn:endEvent>
    <bpmn:endEvent id="e"/>
    <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="Review"/>
    <bpmn:sequenceFlow id="f2" sourceRef="Review" targetRef="e"/>
    <bpmn:sequenceFlow id="f3" sourceRef="Late" targetRef="Escalate"/>
  </bpmn:process>
</bpmn:definitions>
"""


async def test_a_bpmn_escalation_moves_the_open_task_to_the_supervisors(
    wf: WorkflowService, clock: FixedClock
) -> None:
    await wf.engine.publisher.publish(import_bpmn(DRAWN), actor=Actor(id="designer"))
    view = await wf.engine.start(
        StartRequest(definition_key="casework_escalation", context={}, actor=AUTHOR)
    )
    await wf.delivery.drain()
    (task,) = await wf.engine.tasks(view.id)
    assert task.queue == "casework.reviewers"
    clock.advance(timedelta(hours=36))
    assert await wf.engine.tick() == 1
    await wf.delivery.drain()
    (moved,) = await wf.engine.tasks(view.id)
    assert (moved.id, moved.queue, moved.status) == (task.id, "casework.supervisors", "ready")
    assert (await wf.engine.status(view.id)).status == "waiting"
