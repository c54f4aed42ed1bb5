"""Files in the styles of common modelers import into valid definitions.

The files under ``data/modelers`` were written for these tests in the shape each tool emits:
Camunda Modeler 7 (``camunda:`` attributes, DI), Camunda Modeler 8 (``zeebe:`` extension
elements, a pool with lanes, DI), bpmn.io's minimal diagram (``bpmn2:`` prefix, DI), a Signavio
export (default namespace, ``sid-`` ids, ``signavio:`` metadata, no DI) and a hand-written file
with no DI at all.
"""

from __future__ import annotations

import pytest
from bpmnkit import DATA, semantic_errors, xsd_errors

from services.workflow.definition.bpmn import (
    export_bpmn,
    import_bpmn,
    import_bpmn_with_sources,
    normalise,
)
from services.workflow.definition.gaps import accept

FILES = {
    "camunda7": [
        ("start_event_1", "start"),
        ("gateway_amount", "exclusive"),
        ("activity_approve", "approval"),
        ("activity_create_order", "service_task"),
        ("event_done", "end"),
        ("event_rejected", "end"),
        ("event_expired", "end"),
    ],
    "camunda8": [
        ("start_event_1", "start"),
        ("gateway_fork", "parallel"),
        ("activity_edit", "user_task"),
        ("activity_legal", "user_task"),
        ("gateway_join", "parallel"),
        ("event_wait", "timer"),
        ("activity_publish", "service_task"),
        ("event_published", "end"),
    ],
    "bpmnio_minimal": [
        ("start_event_1", "start"),
        ("task_1", "manual_task"),
        ("end_event_1", "end"),
    ],
    "signavio": [
        ("sid_0a1b2c3d_1111_4e5f_8a9b_000000000001", "start"),
        ("sid_0a1b2c3d_1111_4e5f_8a9b_000000000002", "exclusive"),
        ("sid_0a1b2c3d_1111_4e5f_8a9b_000000000003", "user_task"),
        ("sid_0a1b2c3d_1111_4e5f_8a9b_000000000004", "notification"),
        ("sid_0a1b2c3d_1111_4e5f_8a9b_000000000005", "end"),
    ],
    "no_di": [
        ("received", "start"),
        ("check", "validation"),
        ("sign", "manual_task"),
        ("tell", "notification"),
        ("signed", "end"),
    ],
}


def read(name: str) -> bytes:
    return (DATA / "modelers" / f"{name}.bpmn").read_bytes()


@pytest.mark.parametrize("name", list(FILES))
def test_modeler_file_is_itself_valid_bpmn(name: str) -> None:
    assert xsd_errors(read(name)) == []


@pytest.mark.parametrize("name", list(FILES))
def test_modeler_file_imports_to_the_expected_nodes(name: str) -> None:
    nodes = import_bpmn(read(name))["nodes"]
    assert [(n["id"], n["type"]) for n in nodes] == FILES[name]


@pytest.mark.parametrize("name", list(FILES))
def test_modeler_file_imports_to_a_valid_definition_once_suggestions_are_accepted(
    name: str,
) -> None:
    imported = import_bpmn_with_sources(read(name))
    assert semantic_errors(accept(imported.definition, imported.suggestions)) == []


@pytest.mark.parametrize("name", list(FILES))
def test_modeler_file_survives_export_and_reimport(name: str) -> None:
    imported = import_bpmn(read(name))
    exported = export_bpmn(imported)
    assert xsd_errors(exported) == []
    assert import_bpmn(exported) == normalise(imported)


def test_camunda7_file_suggests_camunda_attributes_and_maps_juel_conditions() -> None:
    imported = import_bpmn_with_sources(read("camunda7"))
    assert {(s.node, s.field, s.value) for s in imported.suggestions} == {
        ("activity_approve", "queue", "managers"),
        ("activity_approve", "form", "order.form"),
        ("activity_create_order", "handler", "erp.create_order"),
    }
    nodes = {n["id"]: n for n in accept(imported.definition, imported.suggestions)["nodes"]}
    approve = nodes["activity_approve"]
    assert (approve["queue"], approve["form"]) == ("managers", "order.form")
    assert approve["outcomes"] == {"approve": "activity_create_order", "reject": "event_rejected"}
    assert approve["timers"] == [
        {"id": "event_timeout", "duration": "P2D", "interrupting": True, "next": "event_expired"}
    ]
    assert nodes["gateway_amount"]["branches"] == [
        {"when": "amount > 1000", "next": "activity_approve"}
    ]
    assert nodes["activity_create_order"]["handler"] == "erp.create_order"


def test_camunda8_file_takes_the_pool_name_and_ignores_lanes() -> None:
    definition = import_bpmn(read("camunda8"))
    assert (definition["key"], definition["name"]) == ("gazette.publication", "Gazette publication")


def test_signavio_file_reads_a_differently_prefixed_tramita_namespace() -> None:
    definition = import_bpmn(read("signavio"))
    assert (definition["key"], definition["protocol_prefix"]) == ("esic.request", "SIC")
    gateway = definition["nodes"][1]
    assert gateway["branches"][0]["when"] == "urgent == true"
