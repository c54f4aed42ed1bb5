"""Error boundary events: a service task's ``errors`` routes export as boundary events with an
``errorEventDefinition`` (and a root ``bpmn:error`` per code), import back to the same routes,
and what cannot be a route is refused with the element's id and line."""

from __future__ import annotations

from typing import Any

import pytest
from bpmnkit import NS, semantic_errors, xsd_errors

from contracts.errors import DefinitionInvalid
from services.workflow.definition.bpmn import export_bpmn, import_bpmn, normalise

ROUTES = [
    {"code": "payment_refused", "next": "notify", "store": "refusal"},
    {"code": "*", "next": "paid"},
]
ROUTED: dict[str, Any] = {
    "format": 1,
    "key": "test.everything",  # its pending queue is registered in bpmnkit.KNOWN
    "name": "Charge",
    "protocol_prefix": "CHG",
    "nodes": [
        {"id": "begin", "type": "start", "produces": ["amount"], "next": "charge"},
        {
            "id": "charge",
            "type": "integration",
            "handler": "erp.create_order",
            "consumes": ["amount"],
            "next": "paid",
            "errors": ROUTES,
        },
        {
            "id": "notify",
            "type": "service_task",
            "handler": "test.notify",
            "consumes": ["refusal"],
            "next": "paid",
        },
        {"id": "paid", "type": "end"},
    ],
}


def test_error_routes_round_trip() -> None:
    assert semantic_errors(ROUTED) == []
    assert import_bpmn(export_bpmn(ROUTED)) == normalise(ROUTED)


def test_the_export_validates_and_draws_boundary_events() -> None:
    xml = export_bpmn(ROUTED)
    assert xsd_errors(xml) == []
    text = xml.decode()
    assert '<bpmn:error id="error_payment_refused"' in text
    assert 'errorCode="payment_refused"' in text
    assert '<bpmn:errorEventDefinition errorRef="error_payment_refused"/>' in text
    assert "<bpmn:errorEventDefinition/>" in text  # the catch-all
    assert 'bpmnElement="charge_error_any"' in text


def test_a_malformed_route_of_a_draft_is_kept_as_a_property() -> None:
    draft = {**ROUTED, "nodes": [dict(n) for n in ROUTED["nodes"]]}
    draft["nodes"][1]["errors"] = [{"code": "Not An Id", "next": "paid"}]
    xml = export_bpmn(draft)
    assert b"errorEventDefinition" not in xml
    assert import_bpmn(xml)["nodes"][1]["errors"] == [{"code": "Not An Id", "next": "paid"}]


MODELER = f"""<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions {NS} id="d" targetNamespace="urn:test">
  <bpmn:error id="Error_0abc" name="Pagamento recusado" errorCode="payment_refused"/>
  <bpmn:process id="p" name="P" tramita:protocolPrefix="TST">
    <bpmn:startEvent id="s"><bpmn:outgoing>f1</bpmn:outgoing></bpmn:startEvent>
    <bpmn:serviceTask id="Charge_1" tramita:handler="payment.charge"/>
    <bpmn:boundaryEvent id="Boundary_1" attachedToRef="Charge_1">
      <bpmn:errorEventDefinition id="Def_1" errorRef="{{ref}}"/>
    </bpmn:boundaryEvent>
    <bpmn:manualTask id="Refused" name="Avisar" tramita:queue="q"/>
    <bpmn:endEvent id="e"/>
    <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="Charge_1"/>
    <bpmn:sequenceFlow id="f2" sourceRef="Charge_1" targetRef="e"/>
    <bpmn:sequenceFlow id="f3" sourceRef="Boundary_1" targetRef="Refused"/>
    <bpmn:sequenceFlow id="f4" sourceRef="Refused" targetRef="e"/>
  </bpmn:process>
</bpmn:definitions>
"""


def test_a_modeler_error_boundary_imports_as_a_route() -> None:
    imported = import_bpmn(MODELER.replace("{ref}", "Error_0abc").encode())
    charge = next(n for n in imported["nodes"] if n["id"] == "charge_1")
    assert charge["errors"] == [{"code": "payment_refused", "next": "refused"}]


def refusal(xml: str) -> list[str]:
    with pytest.raises(DefinitionInvalid) as caught:
        import_bpmn(xml.encode())
    return [f"{e.path} | {e.code}" for e in caught.value.errors]


def test_an_error_ref_naming_no_error_is_refused_with_its_line() -> None:
    found = refusal(MODELER.replace("{ref}", "Error_missing"))
    assert found == ['bpmn:errorEventDefinition id="Def_1" line 8 | bpmn.boundary.error_ref']


def test_an_error_code_that_is_not_an_identifier_is_refused() -> None:
    xml = MODELER.replace("{ref}", "Error_0abc").replace('"payment_refused"', '"PAY-01"')
    assert refusal(xml) == ['bpmn:error id="Error_0abc" line 3 | bpmn.error.code']


def test_a_non_interrupting_error_boundary_is_refused() -> None:
    xml = MODELER.replace("{ref}", "Error_0abc").replace(
        'attachedToRef="Charge_1"', 'attachedToRef="Charge_1" cancelActivity="false"'
    )
    assert refusal(xml) == [
        'bpmn:boundaryEvent id="Boundary_1" line 7 | bpmn.boundary.error_interrupting'
    ]


def test_an_error_boundary_on_a_human_task_is_refused() -> None:
    xml = MODELER.replace("{ref}", "Error_0abc").replace(
        'attachedToRef="Charge_1"', 'attachedToRef="Refused"'
    )
    assert refusal(xml) == ['bpmn:boundaryEvent id="Boundary_1" line 7 | bpmn.boundary.error_owner']
