"""Escalation to a supervisor queue in BPMN: a non-interrupting timer boundary event whose flow
reaches an escalation end event is the timer's ``escalate_to``; the export draws it that way
(valid against the XSD, with DI) and imports back to the same definition; other escalation
shapes are refused, one problem per element with its line."""

from __future__ import annotations

from typing import Any

import pytest
from bpmnkit import FIXTURES, NS, semantic_errors, xsd_errors

from contracts.errors import DefinitionInvalid
from services.workflow.definition.bpmn import export_bpmn, import_bpmn, normalise

ESCALATING: dict[str, Any] = {
    "format": 1,
    "key": "test.escalation",
    "name": "Escalation",
    "protocol_prefix": "ESC",
    "nodes": [
        {"id": "begin", "type": "start", "next": "review"},
        {
            "id": "review",
            "type": "user_task",
            "name": "Analisar",
            "queue": "test.reviewers",
            "timers": [
                {
                    "id": "late",
                    "business_days": 3,
                    "interrupting": False,
                    "escalate_to": "test.directors",
                }
            ],
            "next": "done",
        },
        {"id": "done", "type": "end"},
    ],
}


def test_an_escalating_timer_exports_as_an_escalation_end_event_and_round_trips() -> None:
    assert semantic_errors(ESCALATING) == []
    xml = export_bpmn(ESCALATING)
    assert xsd_errors(xml) == []
    text = xml.decode()
    assert 'escalationCode="test.directors"' in text
    assert '<bpmn:escalationEventDefinition escalationRef="escalation_test_directors"/>' in text
    assert 'cancelActivity="false"' in text and "escalateTo" not in text
    assert 'bpmnElement="review_late_escalation"' in text  # drawn (DI shape)
    assert import_bpmn(xml) == normalise(ESCALATING)


def test_a_queue_escalated_to_from_a_subprocess_too_is_declared_once() -> None:
    text = export_bpmn(FIXTURES["phase2"]).decode()  # escalations in the process and inside
    assert text.count("<bpmn:escalation ") == 1
    assert text.count('escalationRef="escalation_diario_publicacao"') == 2


MODELER = f"""<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions {NS} id="d" targetNamespace="urn:test">
  <bpmn:escalation id="Escalation_1" name="Diretoria" escalationCode="{{code}}"/>
  <bpmn:process id="p" name="P" tramita:protocolPrefix="TST">
    <bpmn:startEvent id="s"/>
    <bpmn:userTask id="Review" tramita:queue="test.reviewers"/>
    <bpmn:boundaryEvent id="Late" attachedToRef="Review" cancelActivity="{{cancel}}">
      <bpmn:timerEventDefinition><bpmn:timeDuration>PT36H</bpmn:timeDuration>
      </bpmn:timerEventDefinition>
    </bpmn:boundaryEvent>
    <bpmn:endEvent id="Escalate">
      <bpmn:escalationEventDefinition escalationRef="Escalation_1"/>
    </bpmn:endEvent>
    <bpmn:endEvent id="e"/>
    <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="Review"/>
    <bpmn:sequenceFlow id="f2" sourceRef="Review" targetRef="e"/>
    <bpmn:sequenceFlow id="f3" sourceRef="Late" targetRef="Escalate"/>{{extra}}
  </bpmn:process>
</bpmn:definitions>
"""


def modeler(code: str = "test.directors", cancel: str = "false", extra: str = "") -> bytes:
    return MODELER.format(code=code, cancel=cancel, extra=extra).encode()


def test_a_modeler_escalation_becomes_the_timer_escalate_to() -> None:
    imported = import_bpmn(modeler())
    review = next(n for n in imported["nodes"] if n["id"] == "review")
    assert review["timers"] == [
        {
            "id": "late",
            "duration": "PT36H",
            "interrupting": False,
            "escalate_to": "test.directors",
        }
    ]
    assert [n["id"] for n in imported["nodes"]] == ["s", "review", "e"]  # no node for it


def refusal(xml: bytes) -> list[str]:
    with pytest.raises(DefinitionInvalid) as caught:
        import_bpmn(xml)
    return [f"{e.path} | {e.code}" for e in caught.value.errors]


@pytest.mark.parametrize(
    ("xml", "expected"),
    [
        (
            modeler(cancel="true"),
            ['bpmn:sequenceFlow id="f3" line 17 | bpmn.escalation.source'],
        ),
        (
            modeler(code="Diretoria Geral"),
            ['bpmn:endEvent id="Escalate" line 11 | bpmn.escalation.queue'],
        ),
        (
            modeler(extra='\n<bpmn:sequenceFlow id="f4" sourceRef="Escalate" targetRef="e"/>'),
            ['bpmn:sequenceFlow id="f4" line 18 | bpmn.escalation.outgoing'],
        ),
        (
            modeler(extra='\n<bpmn:sequenceFlow id="f4" sourceRef="s" targetRef="Escalate"/>'),
            ['bpmn:sequenceFlow id="f4" line 18 | bpmn.escalation.source'],
        ),
    ],
    ids=["interrupting", "code_not_a_queue", "continues", "reached_from_a_node"],
)
def test_other_escalation_shapes_are_refused_one_problem_each(
    xml: bytes, expected: list[str]
) -> None:
    assert refusal(xml) == expected
