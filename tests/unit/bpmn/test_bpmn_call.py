"""Call activities in BPMN (issue #24 item 3): a call node exports as a callActivity whose
standard calledElement names the called definition (its in/out mapping as tramita:property,
its child_failed route as an error boundary event) and re-imports to the same definition; a
modeler's callActivity imports as a call of its calledElement."""

from __future__ import annotations

from typing import Any

from bpmnkit import NS, semantic_errors, xsd_errors

from services.workflow.definition.bpmn import export_bpmn, import_bpmn, normalise

CALLER: dict[str, Any] = {
    "format": 1,
    "key": "test.everything",
    "name": "Pedido",
    "protocol_prefix": "PED",
    "nodes": [
        {"id": "begin", "type": "start", "produces": ["amount"], "next": "sub"},
        {
            "id": "sub",
            "type": "call",
            "name": "Parecer jurídico",
            "definition": "test.opinion",
            "version": 2,
            "in": {"value": "amount * 2"},
            "out": {"verdict": "result"},
            "produces": ["verdict"],
            "errors": [{"code": "child_failed", "next": "oops", "store": "why"}],
            "next": "after",
        },
        {"id": "after", "type": "service_task", "handler": "test.check", "next": "done"},
        {"id": "oops", "type": "service_task", "handler": "test.archive", "next": "done"},
        {"id": "done", "type": "end"},
    ],
}


def test_a_call_round_trips_as_a_call_activity_with_an_error_boundary() -> None:
    assert semantic_errors(CALLER) == []
    xml = export_bpmn(CALLER)
    assert xsd_errors(xml) == []
    text = xml.decode()
    assert (
        '<bpmn:callActivity id="sub" name="Parecer jurídico" calledElement="test.opinion"' in text
    )
    assert 'errorCode="child_failed"' in text
    assert import_bpmn(xml) == normalise(CALLER)


MODELER = f"""<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions {NS} id="d" targetNamespace="urn:test">
  <bpmn:process id="p" name="P" tramita:protocolPrefix="TST">
    <bpmn:startEvent id="s"/>
    <bpmn:callActivity id="Activity_opinion" name="Parecer" calledElement="test.opinion"/>
    <bpmn:endEvent id="e"/>
    <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="Activity_opinion"/>
    <bpmn:sequenceFlow id="f2" sourceRef="Activity_opinion" targetRef="e"/>
  </bpmn:process>
</bpmn:definitions>
"""


def test_a_modeler_call_activity_imports_as_a_call_of_its_called_element() -> None:
    nodes = {n["id"]: n for n in import_bpmn(MODELER.encode())["nodes"]}
    assert nodes["activity_opinion"] == {
        "id": "activity_opinion",
        "type": "call",
        "name": "Parecer",
        "definition": "test.opinion",
        "next": "e",
    }
