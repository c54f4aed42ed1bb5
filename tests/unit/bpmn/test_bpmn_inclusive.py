"""Inclusive (OR) gateways in BPMN: a fork's conditional flows, its default and an unconditioned
flow (always taken) import as branches; a gateway with one outgoing flow joins; both export back
with diagram interchange and re-import to the same definition."""

from __future__ import annotations

from typing import Any

import pytest
from bpmnkit import NS, semantic_errors, xsd_errors

from contracts.errors import DefinitionInvalid
from services.workflow.definition.bpmn import export_bpmn, import_bpmn, normalise

INCLUSIVE: dict[str, Any] = {
    "format": 1,
    "key": "test.everything",
    "name": "Licença",
    "protocol_prefix": "LIC",
    "nodes": [
        {"id": "begin", "type": "start", "produces": ["area", "noise"], "next": "split"},
        {
            "id": "split",
            "type": "inclusive",
            "name": "Quais pareceres?",
            "branches": [
                {"when": "area > 100", "next": "urban"},
                {"when": "noise", "next": "environment"},
            ],
            "default": "archive",
        },
        {"id": "urban", "type": "service_task", "handler": "test.check", "next": "join"},
        {"id": "environment", "type": "service_task", "handler": "test.check", "next": "join"},
        {"id": "archive", "type": "service_task", "handler": "test.archive", "next": "join"},
        {"id": "join", "type": "inclusive", "next": "done"},
        {"id": "done", "type": "end"},
    ],
}


def test_inclusive_gateways_round_trip() -> None:
    assert semantic_errors(INCLUSIVE) == []
    assert import_bpmn(export_bpmn(INCLUSIVE)) == normalise(INCLUSIVE)


def test_the_export_validates_and_draws_both_gateways() -> None:
    xml = export_bpmn(INCLUSIVE)
    assert xsd_errors(xml) == []
    text = xml.decode()
    assert 'default="split_to_archive"' in text
    assert text.count("<bpmn:inclusiveGateway") == 2
    assert 'bpmnElement="split"' in text and 'bpmnElement="join"' in text


MODELER = f"""<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions {NS} id="d" targetNamespace="urn:test">
  <bpmn:process id="p" name="P" tramita:protocolPrefix="TST">
    <bpmn:startEvent id="s"/>
    <bpmn:inclusiveGateway id="Gateway_0or1" default="f4"/>
    <bpmn:serviceTask id="A" tramita:handler="test.check"/>
    <bpmn:serviceTask id="B" tramita:handler="test.check"/>
    <bpmn:serviceTask id="C" tramita:handler="test.check"/>
    <bpmn:inclusiveGateway id="Gateway_0or2"/>
    <bpmn:endEvent id="e"/>
    <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="Gateway_0or1"/>
    <bpmn:sequenceFlow id="f2" sourceRef="Gateway_0or1" targetRef="A">
      <bpmn:conditionExpression xsi:type="bpmn:tFormalExpression">x&gt;1</bpmn:conditionExpression>
    </bpmn:sequenceFlow>
    <bpmn:sequenceFlow id="f3" sourceRef="Gateway_0or1" targetRef="B"/>
    <bpmn:sequenceFlow id="f4" sourceRef="Gateway_0or1" targetRef="C"/>
    <bpmn:sequenceFlow id="f5" sourceRef="A" targetRef="Gateway_0or2"/>
    <bpmn:sequenceFlow id="f6" sourceRef="B" targetRef="Gateway_0or2"/>
    <bpmn:sequenceFlow id="f7" sourceRef="C" targetRef="Gateway_0or2"/>
    <bpmn:sequenceFlow id="f8" sourceRef="Gateway_0or2" targetRef="e"/>
  </bpmn:process>
</bpmn:definitions>
"""


def test_a_modeler_inclusive_fork_and_join_import_as_branches_and_next() -> None:
    nodes = {n["id"]: n for n in import_bpmn(MODELER.encode())["nodes"]}
    assert nodes["gateway_0or1"] == {
        "id": "gateway_0or1",
        "type": "inclusive",
        "branches": [{"when": "x>1", "next": "a"}, {"when": "true", "next": "b"}],
        "default": "c",
    }
    assert nodes["gateway_0or2"] == {"id": "gateway_0or2", "type": "inclusive", "next": "e"}


def test_a_gateway_that_joins_and_forks_is_refused_with_its_line() -> None:
    xml = MODELER.replace('targetRef="Gateway_0or2"/>', 'targetRef="Gateway_0or1"/>').replace(
        '<bpmn:sequenceFlow id="f8" sourceRef="Gateway_0or2" targetRef="e"/>',
        '<bpmn:sequenceFlow id="f8" sourceRef="Gateway_0or1" targetRef="e"/>',
    )
    with pytest.raises(DefinitionInvalid) as caught:
        import_bpmn(xml.encode())
    found = [f"{e.path} | {e.code}" for e in caught.value.errors]
    assert 'bpmn:inclusiveGateway id="Gateway_0or1" line 5 | bpmn.flow.inclusive_mixed' in found
