"""Files in the style of other modelers (``data/corpus``) import into drafts with every gap
listed at once, and vendor extensions become suggestions the designer confirms.

The files were written for these tests in the shape each tool saves: Camunda Modeler 7
(``camunda:`` attributes, a JUEL timer), Camunda Modeler 8 (``zeebe:`` elements, a pool with a
``correlationKey`` and a lane, a FEEL timer), bpmn.io's demo (``bpmn2:`` prefix, nothing
Tramita-specific), SpiffWorkflow's editor (``spiffworkflow:`` properties and a service operator,
a lane) and Flowable's modeler (default namespace, ``flowable:`` attributes). Files under
``corpus/refused`` are outside the subset.
"""

from __future__ import annotations

import pytest
from bpmnkit import DATA

from contracts.errors import TramitaError
from services.workflow.definition.bpmn import import_bpmn_with_sources
from services.workflow.definition.gaps import accept, gaps_of, pending

CORPUS = DATA / "corpus"

#: file → every gap as (JSON path, code, suggested value or None).
GAPS = {
    "camunda7_request": [
        ("protocol_prefix", "gap.missing", None),
        ("nodes[1] (activity_review).queue", "gap.suggested", "permit_reviewers"),
        ("nodes[1] (activity_review).form", "gap.suggested", "review"),
        ("nodes[2] (activity_register).handler", "gap.suggested", "permit.register"),
    ],
    "camunda8_request": [
        ("protocol_prefix", "gap.missing", None),
        ("nodes[1] (activity_triage).queue", "gap.suggested", "triage"),
        ("nodes[1] (activity_triage).form", "gap.suggested", "triage_form"),
        ("nodes[3] (activity_answer).handler", "gap.suggested", "ombudsman.answer"),
    ],
    "bpmnio_minimal": [
        ("protocol_prefix", "gap.missing", None),
        ("nodes[1] (activity_1).name", "gap.missing", None),
        ("nodes[1] (activity_1).queue", "gap.missing", None),
        ("nodes[2] (activity_2).handler", "gap.missing", None),
    ],
    "spiff_request": [
        ("protocol_prefix", "gap.missing", None),
        ("nodes[1] (activity_grant).queue", "gap.suggested", "it_support"),
        ("nodes[1] (activity_grant).form", "gap.suggested", "grant_access"),
        ("nodes[2] (activity_call).handler", "gap.suggested", "http_getrequest"),
    ],
    "flowable_leave": [
        ("protocol_prefix", "gap.missing", None),
        ("nodes[1] (approve_task).queue", "gap.suggested", "managers"),
        ("nodes[1] (approve_task).form", "gap.suggested", "leave.approval"),
        ("nodes[2] (record_task).handler", "gap.suggested", "hr.record_leave"),
    ],
}
#: file → the extensions reported as ignored (notes), by name.
IGNORED = {
    "camunda7_request": {"camunda:historyTimeToLive", "camunda:assignee"},
    "camunda8_request": {"zeebe:ioMapping"},
    "bpmnio_minimal": set(),
    "spiff_request": {"spiffworkflow:instructionsForEndUser"},
    "flowable_leave": {"flowable:formFieldValidation"},
}
REFUSED = {
    "camunda_xinclude": {"bpmn.unsupported.xinclude", "bpmn.unsupported.element"},
    "flowable_java_delegate": {"bpmn.unsupported.code_extension", "bpmn.unsupported.element"},
    "malformed": {"bpmn.xml.malformed"},
}


def read(name: str) -> bytes:
    return (CORPUS / f"{name}.bpmn").read_bytes()


@pytest.mark.parametrize("name", list(GAPS))
def test_every_gap_is_listed_at_once_with_its_suggestion(name: str) -> None:
    imported = import_bpmn_with_sources(read(name))
    found = gaps_of(imported.definition, imported.suggestions)
    assert [(g.path, g.code) for g in found] == [(p, c) for p, c, _ in GAPS[name]]
    for (_path, _code, value), gap in zip(GAPS[name], found, strict=True):
        if value is not None:
            assert f"suggested: `{value}`" in gap.message, gap.message


@pytest.mark.parametrize("name", list(GAPS))
def test_suggestions_are_not_applied_until_accepted(name: str) -> None:
    imported = import_bpmn_with_sources(read(name))
    for hint in imported.suggestions:
        node = next(n for n in imported.definition["nodes"] if n["id"] == hint.node)
        assert hint.field not in node
    accepted = accept(imported.definition, imported.suggestions)
    assert pending(accepted, imported.suggestions) == []
    left = {g.code for g in gaps_of(accepted, imported.suggestions)}
    assert "gap.suggested" not in left


@pytest.mark.parametrize("name", list(IGNORED))
def test_unmapped_extensions_are_reported_as_notes(name: str) -> None:
    notes = import_bpmn_with_sources(read(name)).notes
    ignored = {n.params["name"] for n in notes if n.code == "bpmn.note.ignored_extension"}
    assert ignored == IGNORED[name]


def test_a_vendor_timer_expression_holding_a_literal_duration_is_read_and_noted() -> None:
    imported = import_bpmn_with_sources(read("camunda8_request"))
    wait = next(n for n in imported.definition["nodes"] if n["id"] == "event_wait")
    assert wait["duration"] == "P1D"
    assert any(n.code == "bpmn.note.duration_unwrapped" for n in imported.notes)


def test_a_correlation_key_in_a_one_pool_collaboration_is_accepted() -> None:
    imported = import_bpmn_with_sources(read("camunda8_request"))
    assert imported.definition["name"] == "Ombudsman case"


def test_an_original_that_cannot_be_a_value_is_a_gap_that_shows_it() -> None:
    xml = read("flowable_leave").replace(b'candidateGroups="managers"', b'candidateGroups="a,b"')
    imported = import_bpmn_with_sources(xml)
    (gap,) = [g for g in gaps_of(imported.definition, imported.suggestions) if "queue" in g.path]
    assert gap.code == "gap.unmapped" and 'flowable:candidateGroups="a,b"' in gap.message


@pytest.mark.parametrize("name", list(REFUSED))
def test_files_outside_the_subset_are_refused_with_every_problem(name: str) -> None:
    with pytest.raises(TramitaError) as caught:
        import_bpmn_with_sources((CORPUS / "refused" / f"{name}.bpmn").read_bytes())
    assert {e.code for e in caught.value.errors} == REFUSED[name]
    assert all(" line " in e.path for e in caught.value.errors)


def test_vendor_attributes_on_flows_and_boundary_events_are_noted() -> None:
    xml = (
        read("camunda7_request")
        .replace(
            b'<bpmn:sequenceFlow id="Flow_2"',
            b'<bpmn:sequenceFlow camunda:asyncAfter="true" id="Flow_2"',
        )
        .replace(
            b'<bpmn:boundaryEvent id="Event_Late"',
            b'<bpmn:boundaryEvent camunda:asyncBefore="true" id="Event_Late"',
        )
    )
    notes = {
        (n.path.split(" line")[0], n.params.get("name"))
        for n in import_bpmn_with_sources(xml).notes
    }
    assert ('bpmn:sequenceFlow id="Flow_2"', "camunda:asyncAfter") in notes
    assert ('bpmn:boundaryEvent id="Event_Late"', "camunda:asyncBefore") in notes


def test_a_camunda_form_reference_is_a_form_suggestion() -> None:
    xml = read("camunda7_request").replace(
        b'camunda:formKey="embedded:app:forms/review.html"',
        b'camunda:formRef="permit-review" camunda:formRefBinding="latest"',
    )
    imported = import_bpmn_with_sources(xml)
    forms = [s for s in imported.suggestions if s.field == "form"]
    assert [(s.source, s.value) for s in forms] == [("camunda:formRef", "permit_review")]
    assert not any(n.params.get("name") == "camunda:formRefBinding" for n in imported.notes)
