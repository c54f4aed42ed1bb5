"""Multi-instance user tasks in BPMN (issue #24 item 3): the export draws the standard marker
(sequential or parallel, the completion condition) and keeps ``multi`` in a tramita property;
the import reads the marker on such a task, the marker winning for what a modeler edits, and
refuses a marker on a task that does not say what to repeat over."""

from __future__ import annotations

from typing import Any

import pytest
from bpmnkit import document, semantic_errors, xsd_errors

from contracts.errors import DefinitionInvalid
from services.workflow.definition.bpmn import export_bpmn, import_bpmn, normalise

QUORUM = 'results.filter(r, r.vote == "approve").size() >= 2'
REVIEWS: dict[str, Any] = {
    "format": 1,
    "key": "test.everything",
    "name": "Pareceres",
    "protocol_prefix": "PAR",
    "nodes": [
        {"id": "begin", "type": "start", "produces": ["reviewers"], "next": "review"},
        {
            "id": "review",
            "name": "Parecer",
            "type": "user_task",
            "queue": "test.clerks",
            "produces": ["vote"],
            "multi": {"over": "reviewers", "item": "reviewer", "complete_when": QUORUM},
            "next": "done",
        },
        {"id": "done", "type": "end"},
    ],
}


def test_a_multi_instance_task_exports_the_marker_and_round_trips() -> None:
    assert semantic_errors(REVIEWS) == []
    xml = export_bpmn(REVIEWS)
    assert xsd_errors(xml) == []
    text = xml.decode()
    assert '<bpmn:multiInstanceLoopCharacteristics isSequential="false">' in text
    assert "<bpmn:completionCondition" in text
    assert import_bpmn(xml) == normalise(REVIEWS)


def test_the_marker_wins_for_the_mode_and_the_condition() -> None:
    xml = (
        export_bpmn(REVIEWS)
        .decode()
        .replace('isSequential="false"', 'isSequential="true"')
        .replace("&gt;= 2", "&gt;= 3")
    )
    (review,) = [n for n in import_bpmn(xml.encode())["nodes"] if n["id"] == "review"]
    assert review["multi"]["mode"] == "sequential"
    assert review["multi"]["complete_when"].endswith(">= 3")


def test_a_marker_without_what_to_repeat_over_is_refused() -> None:
    xml = document(
        '<bpmn:startEvent id="s"/>'
        '<bpmn:userTask id="t" name="Parecer" tramita:queue="test.clerks">'
        "<bpmn:multiInstanceLoopCharacteristics/></bpmn:userTask>"
        '<bpmn:endEvent id="e"/>'
        '<bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="t"/>'
        '<bpmn:sequenceFlow id="f2" sourceRef="t" targetRef="e"/>'
    )
    with pytest.raises(DefinitionInvalid) as info:
        import_bpmn(xml)
    (error,) = info.value.errors
    assert error.code == "bpmn.unsupported.multi_instance" and "`over`" in error.message
