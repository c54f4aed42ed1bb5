"""Event-based gateways in BPMN (issue #24 item 3): a modeler's eventBasedGateway with a message
catch and a timer catch imports as an event_gateway waiting for both; the export writes the
gateway, a receiveTask for each message it waits for and the timer catch, with diagram
interchange, and re-imports to the same definition."""

from __future__ import annotations

from typing import Any

import pytest
from bpmnkit import NS, semantic_errors, xsd_errors

from contracts.errors import DefinitionInvalid
from services.workflow.definition.bpmn import export_bpmn, import_bpmn, normalise

RACE: dict[str, Any] = {
    "format": 1,
    "key": "test.everything",
    "name": "Exigência",
    "protocol_prefix": "EXG",
    "nodes": [
        {"id": "begin", "type": "start", "next": "race"},
        {
            "id": "race",
            "type": "event_gateway",
            "name": "O que vem antes?",
            "next": ["reply", "wait"],
        },
        {
            "id": "reply",
            "name": "Resposta do requerente",
            "type": "user_task",
            "queue": "test.clerks",
            "next": "answered",
        },
        {"id": "wait", "type": "timer", "duration": "P10D", "next": "lapsed"},
        {"id": "answered", "type": "service_task", "handler": "test.check", "next": "done"},
        {"id": "lapsed", "type": "service_task", "handler": "test.archive", "next": "done"},
        {"id": "done", "type": "end"},
    ],
}


def test_an_event_gateway_round_trips() -> None:
    assert semantic_errors(RACE) == []
    assert import_bpmn(export_bpmn(RACE)) == normalise(RACE)


def test_the_export_validates_and_waits_on_a_receive_task_and_a_timer_catch() -> None:
    xml = export_bpmn(RACE)
    assert xsd_errors(xml) == []
    text = xml.decode()
    assert text.count("<bpmn:eventBasedGateway") == 1
    assert '<bpmn:receiveTask id="reply"' in text
    assert '<bpmn:intermediateCatchEvent id="wait"' in text
    assert 'bpmnElement="race"' in text


MODELER = f"""<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions {NS} id="d" targetNamespace="urn:test">
  <bpmn:message id="m" name="resposta"/>
  <bpmn:process id="p" name="P" tramita:protocolPrefix="TST">
    <bpmn:startEvent id="s"/>
    <bpmn:eventBasedGateway id="Gateway_race"/>
    <bpmn:intermediateCatchEvent id="Reply" tramita:queue="test.clerks">
      <bpmn:messageEventDefinition messageRef="m"/>
    </bpmn:intermediateCatchEvent>
    <bpmn:intermediateCatchEvent id="Wait">
      <bpmn:timerEventDefinition><bpmn:timeDuration>P10D</bpmn:timeDuration>
      </bpmn:timerEventDefinition>
    </bpmn:intermediateCatchEvent>
    <bpmn:endEvent id="e"/>
    <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="Gateway_race"/>
    <bpmn:sequenceFlow id="f2" sourceRef="Gateway_race" targetRef="Reply"/>
    <bpmn:sequenceFlow id="f3" sourceRef="Gateway_race" targetRef="Wait"/>
    <bpmn:sequenceFlow id="f4" sourceRef="Reply" targetRef="e"/>
    <bpmn:sequenceFlow id="f5" sourceRef="Wait" targetRef="e"/>
  </bpmn:process>
</bpmn:definitions>
"""


def test_a_modeler_event_gateway_imports_with_its_message_and_timer_catches() -> None:
    nodes = {n["id"]: n for n in import_bpmn(MODELER.encode())["nodes"]}
    assert nodes["gateway_race"] == {
        "id": "gateway_race",
        "type": "event_gateway",
        "next": ["reply", "wait"],
    }
    assert nodes["reply"]["type"] == "user_task" and nodes["reply"]["next"] == "e"
    assert nodes["wait"]["type"] == "timer" and nodes["wait"]["duration"] == "P10D"


def test_an_event_gateway_leading_to_a_step_is_refused_naming_both() -> None:
    xml = (
        MODELER.replace(
            '<bpmn:endEvent id="e"/>',
            '<bpmn:serviceTask id="Step" tramita:handler="test.check"/><bpmn:endEvent id="e"/>',
        )
        .replace(
            'sourceRef="Gateway_race" targetRef="Wait"/>',
            'sourceRef="Gateway_race" targetRef="Step"/>',
        )
        .replace(
            '<bpmn:sequenceFlow id="f5" sourceRef="Wait" targetRef="e"/>',
            '<bpmn:sequenceFlow id="f5" sourceRef="Step" targetRef="e"/>',
        )
    )
    xml = xml.replace(
        xml[xml.index('<bpmn:intermediateCatchEvent id="Wait">') : xml.index("<bpmn:serviceTask")],
        "",
    )
    found = semantic_errors(import_bpmn(xml.encode()))
    errors = [e for e in found if e.code.startswith("event_gateway")]
    assert [e.code for e in errors] == ["event_gateway_target"]
    assert "`gateway_race`" in errors[0].message and "`step`" in errors[0].message


@pytest.mark.parametrize("attribute", ['instantiate="true"', 'eventGatewayType="Parallel"'])
def test_an_instantiating_or_parallel_event_gateway_is_refused(attribute: str) -> None:
    xml = MODELER.replace(
        '<bpmn:eventBasedGateway id="Gateway_race"/>',
        f'<bpmn:eventBasedGateway id="Gateway_race" {attribute}/>',
    )
    with pytest.raises(DefinitionInvalid) as caught:
        import_bpmn(xml.encode())
    found = [f"{e.path} | {e.code}" for e in caught.value.errors]
    assert found == [
        'bpmn:eventBasedGateway id="Gateway_race" line 6 | bpmn.unsupported.event_gateway'
    ]
