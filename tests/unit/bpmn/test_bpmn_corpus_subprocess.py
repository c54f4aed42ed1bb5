"""The gaps and suggestions of steps inside an embedded sub-process (``data/corpus``
``camunda7_subprocess``, in the shape Camunda Modeler 7 saves it): listed with the others,
each against its own BPMN element and named by its chain as the editor names inner steps
(``analise \u203a conferir``), and written into the inner step when accepted."""

from __future__ import annotations

from typing import Any

from bpmnkit import DATA

from services.workflow.definition.bpmn import gaps_of_import, import_bpmn_with_sources
from services.workflow.definition.drafts.scopes import steps_of_path
from services.workflow.definition.gaps import Suggestion, accept, gaps_of, pending

FILE = DATA / "corpus" / "camunda7_subprocess.bpmn"
ARROW = " \u203a "
"""How the editor joins a step's chain (``analise \u203a conferir``)."""
IN = "nodes[1] (analise)."
#: every gap as (JSON path, code, the step's chain, suggested value or None).
GAPS = [
    ("protocol_prefix", "gap.missing", None, None),
    (f"{IN}nodes[1] (conferir).queue", "gap.suggested", "analise.conferir", "permit_reviewers"),
    (f"{IN}nodes[1] (conferir).form", "gap.suggested", "analise.conferir", "review"),
    (f"{IN}nodes[2] (registrar).handler", "gap.suggested", "analise.registrar", "permit.register"),
]


def _inner(document: dict[str, Any], node_id: str) -> dict[str, Any]:
    (analise,) = [n for n in document["nodes"] if n["id"] == "analise"]
    (node,) = [n for n in analise["nodes"] if n["id"] == node_id]
    return node  # type: ignore[no-any-return]


def test_the_gaps_inside_the_subprocess_are_listed_with_the_others() -> None:
    imported = import_bpmn_with_sources(FILE.read_bytes())
    found = gaps_of(imported.definition, imported.suggestions)
    assert [(g.path, g.code) for g in found] == [(p, c) for p, c, _, _ in GAPS]
    for (_path, _code, chain, value), gap in zip(GAPS, found, strict=True):
        if chain is not None:
            label = chain.replace(".", ARROW)
            assert gap.params["node"] == label
            assert f"Node `{label}` needs" in gap.message
            assert f"suggested: `{value}`" in gap.message
            assert steps_of_path(imported.definition, gap.path) == tuple(chain.split("."))


def test_each_inner_gap_names_its_own_bpmn_element_and_line() -> None:
    found = gaps_of_import(import_bpmn_with_sources(FILE.read_bytes()))
    where = [g.path.split(" [")[0] for g in found]
    assert where == [
        'bpmn:process id="Permit_Inspection" line 3',
        'bpmn:userTask id="Conferir" line 13',
        'bpmn:userTask id="Conferir" line 13',
        'bpmn:serviceTask id="Registrar" line 17',
    ]


def test_the_vendor_extensions_inside_become_suggestions_scoped_to_the_subprocess() -> None:
    imported = import_bpmn_with_sources(FILE.read_bytes())
    assert imported.suggestions == [
        Suggestion(
            node="conferir",
            field="queue",
            source="camunda:candidateGroups",
            original="Permit Reviewers",
            value="permit_reviewers",
            scope=("analise",),
        ),
        Suggestion(
            node="conferir",
            field="form",
            source="camunda:formKey",
            original="embedded:app:forms/review.html",
            value="review",
            scope=("analise",),
        ),
        Suggestion(
            node="registrar",
            field="handler",
            source="camunda:topic",
            original="permit.register",
            value="permit.register",
            scope=("analise",),
        ),
    ]
    ignored = {n.params["name"] for n in imported.notes if n.code == "bpmn.note.ignored_extension"}
    assert ignored == {"camunda:historyTimeToLive", "camunda:assignee", "camunda:asyncBefore"}


def test_accepting_writes_each_suggestion_into_the_inner_step() -> None:
    imported = import_bpmn_with_sources(FILE.read_bytes())
    assert "queue" not in _inner(imported.definition, "conferir")  # nothing applied unasked
    accepted = accept(imported.definition, imported.suggestions)
    assert (_inner(accepted, "conferir")["queue"], _inner(accepted, "conferir")["form"]) == (
        "permit_reviewers",
        "review",
    )
    assert _inner(accepted, "registrar")["handler"] == "permit.register"
    assert pending(accepted, imported.suggestions) == []
    left = gaps_of(accepted, imported.suggestions)
    assert [g.path for g in left] == ["protocol_prefix"]


def test_a_gap_filled_by_hand_inside_disappears_and_its_suggestion_is_no_longer_offered() -> None:
    imported = import_bpmn_with_sources(FILE.read_bytes())
    _inner(imported.definition, "conferir")["queue"] = "permit.review"
    paths = [g.path for g in gaps_of(imported.definition, imported.suggestions)]
    assert f"{IN}nodes[1] (conferir).queue" not in paths
    assert [s.field for s in pending(imported.definition, imported.suggestions)] == [
        "form",
        "handler",
    ]


def test_steps_two_sub_processes_deep_are_looked_at_too() -> None:
    deep = {"id": "conferir", "type": "user_task", "name": "Conferir", "next": "fim"}
    inner = {"id": "revisao", "type": "subprocess", "nodes": [deep]}
    document = {
        "key": "permit.deep",
        "name": "Deep",
        "protocol_prefix": "DP",
        "nodes": [{"id": "analise", "type": "subprocess", "nodes": [inner]}],
    }
    hint = Suggestion(
        node="conferir",
        field="queue",
        source="camunda:candidateGroups",
        original="reviewers",
        value="reviewers",
        scope=("analise", "revisao"),
    )
    (gap,) = gaps_of(document, [hint])
    assert gap.path == "nodes[0] (analise).nodes[0] (revisao).nodes[0] (conferir).queue"
    assert gap.params["node"] == ARROW.join(("analise", "revisao", "conferir"))
    assert accept(document, [hint])["nodes"][0]["nodes"][0]["nodes"][0]["queue"] == "reviewers"
