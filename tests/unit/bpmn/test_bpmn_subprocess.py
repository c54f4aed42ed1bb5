"""Embedded sub-processes in BPMN (issue #24): a subprocess node exports as a bpmn:subProcess
holding its nodes (inner ids taken elsewhere in the document kept in tramita:nodeId), drawn
collapsed with its content on a diagram of its own, its timers and error routes as boundary
events on it, and re-imports to the same definition (an event sub-process is refused:
test_bpmn_import_refusals)."""

from __future__ import annotations

from typing import Any

from bpmnkit import semantic_errors, xsd_errors

from services.workflow.definition.bpmn import export_bpmn, import_bpmn, normalise

STEP = {"type": "service_task", "handler": "test.check", "next": "done"}
BOSS = {"escalate_to": "test.directors"}
DEFINITION: dict[str, Any] = {
    "format": 1,
    "key": "test.everything",
    "name": "Pedido",
    "protocol_prefix": "PED",
    "nodes": [
        {"id": "begin", "type": "start", "produces": ["amount"], "next": "analysis"},
        {
            "id": "analysis",
            "type": "subprocess",
            "name": "Análise",
            "nodes": [
                {"id": "begin", "type": "start", "produces": ["amount"], "next": "check"},
                {"id": "check", **STEP, "consumes": ["amount"], "next": "review"},
                {"id": "review", "type": "user_task", "name": "Conferir", "queue": "test.clerks"}
                | {"timers": [{"id": "slow", "duration": "P1D", "interrupting": False} | BOSS]}
                | {"next": "done"},
                {"id": "done", "type": "end"},
            ],
            "timers": [
                {"id": "late", "duration": "PT1H", "next": "too_late"},
                {"id": "remind", "duration": "PT30M", "interrupting": False, "next": "notice"},
            ],
            "errors": [{"code": "refused", "next": "refusal", "store": "why"}],
            "next": "after",
        },
        {"id": "after", **STEP},
        {"id": "too_late", **STEP},
        {"id": "refusal", **STEP},
        {"id": "notice", "type": "notification", "handler": "test.notify", "next": "quiet"},
        {"id": "quiet", "type": "end"},
        {"id": "done", "type": "end"},
    ],
}


def test_a_subprocess_round_trips_with_its_boundary_events() -> None:
    assert semantic_errors(DEFINITION) == []
    xml = export_bpmn(DEFINITION)
    assert xsd_errors(xml) == []
    text = xml.decode()
    assert '<bpmn:subProcess id="analysis" name="Análise">' in text
    assert 'tramita:nodeId="begin"' in text and 'tramita:nodeId="done"' in text
    assert text.count("<bpmndi:BPMNDiagram") == 2 and 'isExpanded="false"' in text
    assert 'attachedToRef="analysis"' in text and 'errorCode="refused"' in text
    assert import_bpmn(xml) == normalise(DEFINITION)
