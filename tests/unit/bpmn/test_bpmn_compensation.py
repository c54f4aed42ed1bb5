"""Compensation in BPMN: a compensation boundary event associated with an
``isForCompensation`` service task is the task's ``compensation``; an end event with a
``compensateEventDefinition`` is an end with ``compensate``. The export draws both (valid
against the XSD, with DI) and imports back to the same definition; other shapes are refused,
one problem per element with its line."""

from __future__ import annotations

from typing import Any

import pytest
from bpmnkit import NS, semantic_errors, xsd_errors

from contracts.errors import DefinitionInvalid
from services.workflow.definition.bpmn import export_bpmn, import_bpmn, normalise

SAGA: dict[str, Any] = {
    "format": 1,
    "key": "test.everything",  # its pending queue is registered in bpmnkit.KNOWN
    "name": "Saga",
    "protocol_prefix": "SAG",
    "nodes": [
        {"id": "begin", "type": "start", "next": "reserve"},
        {
            "id": "reserve",
            "type": "service_task",
            "handler": "erp.create_order",
            "compensation": "test.archive",
            "next": "charge",
        },
        {
            "id": "charge",
            "type": "service_task",
            "handler": "test.check",
            "compensation": "test.notify",
            "next": "undo",
        },
        {"id": "undo", "type": "end", "result": "rejected", "compensate": True},
    ],
}


def test_compensations_export_as_boundary_events_and_round_trip() -> None:
    assert semantic_errors(SAGA) == []
    xml = export_bpmn(SAGA)
    assert xsd_errors(xml) == []
    text = xml.decode()
    assert text.count("<bpmn:compensateEventDefinition/>") == 3  # two boundaries, the end
    assert 'isForCompensation="true" tramita:handler="test.archive"' in text
    assert 'sourceRef="reserve_compensation" targetRef="reserve_compensation_handler"' in text
    assert 'bpmnElement="reserve_compensation_association"' in text  # drawn (DI edge)
    assert import_bpmn(xml) == normalise(SAGA)


MODELER = f"""<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions {NS} id="d" targetNamespace="urn:test">
  <bpmn:process id="p" name="P" tramita:protocolPrefix="TST">
    <bpmn:startEvent id="s"/>
    <bpmn:serviceTask id="Reserve" tramita:handler="stock.reserve"/>
    <bpmn:boundaryEvent id="Undo_Reserve" attachedToRef="Reserve">
      <bpmn:compensateEventDefinition/>
    </bpmn:boundaryEvent>
    <bpmn:{{task}} id="Release" isForCompensation="true" tramita:handler="stock.release"/>
    <bpmn:endEvent id="Cancel"><bpmn:compensateEventDefinition {{ref}}/></bpmn:endEvent>
    <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="Reserve"/>
    <bpmn:sequenceFlow id="f2" sourceRef="Reserve" targetRef="Cancel"/>{{extra}}
    <bpmn:association id="a1" sourceRef="Undo_Reserve" targetRef="{{target}}"/>
  </bpmn:process>
</bpmn:definitions>
"""


def modeler(
    task: str = "serviceTask", ref: str = "", extra: str = "", target: str = "Release"
) -> bytes:
    return MODELER.format(task=task, ref=ref, extra=extra, target=target).encode()


def test_a_modeler_compensation_becomes_the_task_compensation_and_a_compensation_end() -> None:
    imported = import_bpmn(modeler())
    assert imported["nodes"] == [
        {"id": "s", "type": "start", "next": "reserve"},
        {
            "id": "reserve",
            "type": "service_task",
            "handler": "stock.reserve",
            "compensation": "stock.release",
            "next": "cancel",
        },
        {"id": "cancel", "type": "end", "compensate": True},
    ]


def refusal(xml: bytes) -> list[str]:
    with pytest.raises(DefinitionInvalid) as caught:
        import_bpmn(xml)
    return [f"{e.path} | {e.code}" for e in caught.value.errors]


@pytest.mark.parametrize(
    ("xml", "expected"),
    [
        (
            modeler(task="userTask"),
            ['bpmn:userTask id="Release" line 9 | bpmn.compensation.handler'],
        ),
        (
            modeler(target="s"),
            [
                'bpmn:boundaryEvent id="Undo_Reserve" line 6 | bpmn.compensation.unassociated',
                'bpmn:serviceTask id="Release" line 9 | bpmn.compensation.unassociated',
            ],
        ),
        (
            modeler(extra='\n<bpmn:sequenceFlow id="f3" sourceRef="Release" targetRef="Cancel"/>'),
            ['bpmn:sequenceFlow id="f3" line 13 | bpmn.compensation.flow'],
        ),
        (
            modeler(ref='activityRef="Reserve"'),
            [
                "bpmn:compensateEventDefinition in bpmn:endEvent "
                'id="Cancel" line 10 | bpmn.compensation.activity_ref'
            ],
        ),
    ],
    ids=["not_a_service_task", "unassociated", "sequence_flow", "activity_ref"],
)
def test_other_compensation_shapes_are_refused_one_problem_each(
    xml: bytes, expected: list[str]
) -> None:
    assert refusal(xml) == expected
