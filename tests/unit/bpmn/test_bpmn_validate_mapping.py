"""Semantic errors of an imported definition are reported against BPMN ids and lines."""

from __future__ import annotations

from typing import Any

import pytest
from bpmnkit import document, line_of, semantic_errors

from contracts.errors import DefinitionInvalid, FieldError
from services.workflow.definition.bpmn import import_and_validate

GOOD_TASK = '<bpmn:userTask id="Task_1" name="Analisar" tramita:queue="test.clerks"/>'


def body(task: str = GOOD_TASK, condition: str = "true", timer: str = "PT1H") -> str:
    return (
        '<bpmn:startEvent id="Start"/>\n'
        '<bpmn:exclusiveGateway id="Route" default="f_default"/>\n'
        f"{task}\n"
        '<bpmn:boundaryEvent id="Late" attachedToRef="Task_1"><bpmn:timerEventDefinition>'
        f"<bpmn:timeDuration>{timer}</bpmn:timeDuration></bpmn:timerEventDefinition>"
        "</bpmn:boundaryEvent>\n"
        '<bpmn:endEvent id="End"/>\n'
        '<bpmn:sequenceFlow id="f1" sourceRef="Start" targetRef="Route"/>\n'
        '<bpmn:sequenceFlow id="f_cond" sourceRef="Route" targetRef="Task_1">'
        f"<bpmn:conditionExpression>{condition}</bpmn:conditionExpression></bpmn:sequenceFlow>\n"
        '<bpmn:sequenceFlow id="f_default" sourceRef="Route" targetRef="End"/>\n'
        '<bpmn:sequenceFlow id="f2" sourceRef="Task_1" targetRef="End"/>\n'
        '<bpmn:sequenceFlow id="f3" sourceRef="Late" targetRef="End"/>'
    )


def errors_for(xml: bytes) -> list[FieldError]:
    with pytest.raises(DefinitionInvalid) as caught:
        import_and_validate(xml, semantic_errors)
    return list(caught.value.errors)


def test_a_valid_file_returns_the_definition() -> None:
    definition = import_and_validate(document(body()), semantic_errors)
    assert [n["id"] for n in definition["nodes"]] == ["start", "route", "task_1", "end"]


def test_node_error_points_at_the_bpmn_element() -> None:
    xml = document(body(task='<bpmn:userTask id="Task_1" tramita:queue="nobody.home"/>'))
    paths = [e.path for e in errors_for(xml)]
    line = line_of(xml, 'id="Task_1"')
    assert f'bpmn:userTask id="Task_1" line {line} [nodes[2] (task_1).queue]' in paths


def test_condition_error_points_at_the_sequence_flow() -> None:
    xml = document(body(condition="amount &gt;"))
    paths = [e.path for e in errors_for(xml)]
    line = line_of(xml, 'id="f_cond"')
    assert any(p.startswith(f'bpmn:sequenceFlow id="f_cond" line {line} [') for p in paths), paths


def test_boundary_timer_error_points_at_the_boundary_event() -> None:
    xml = document(body(timer="soon"))
    paths = [e.path for e in errors_for(xml)]
    line = line_of(xml, 'id="Late"')
    assert any(p.startswith(f'bpmn:boundaryEvent id="Late" line {line} [') for p in paths), paths


def test_definition_level_errors_point_at_the_process() -> None:
    xml = document(body(), process='id="p" name="P"')  # no protocol prefix
    assert errors_for(xml)[0].path.startswith('bpmn:process id="p" line 3 [')


def test_a_validator_raising_is_mapped_too() -> None:
    def raising(definition: dict[str, Any]) -> None:
        raise DefinitionInvalid(
            "bad", errors=[FieldError(path="nodes[2] (task_1)", code="x", message="m")]
        )

    with pytest.raises(DefinitionInvalid) as caught:
        import_and_validate(document(body()), raising)
    line = line_of(document(body()), 'id="Task_1"')
    assert (
        caught.value.errors[0].path == f'bpmn:userTask id="Task_1" line {line} [nodes[2] (task_1)]'
    )
