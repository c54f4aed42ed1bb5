"""What the definitions pages derive from a definition, without a browser: lanes, errors per
node and the node-by-node comparison (the browser tests cover the pages around them)."""

from __future__ import annotations

import copy

from contracts.errors import FieldError
from modules.diario.workflows import PUBLICACAO
from services.workflow.ui.definition_views import compare, node_errors, swimlanes


def test_nodes_are_grouped_by_human_queue_worker_queue_and_inline_in_definition_order() -> None:
    lanes = {lane.title: [n.id for n in lane.nodes] for lane in swimlanes(PUBLICACAO)}
    assert lanes == {
        "(motor — em linha)": ["submitted", "published", "rejected"],
        "diario.revisao": ["review"],
        "diario.publicacao": ["approve"],
        "integration": ["publish"],
    }


def test_a_bpmn_error_lands_on_its_node_and_a_header_error_stays_general() -> None:
    bpmn = FieldError(
        path='bpmn:userTask id="Review" line 12 [nodes[1] (review).queue]',
        code="unknown_queue",
        message="unknown queue",
    )
    header = FieldError(path="protocol_prefix", code="pattern", message="bad prefix")
    by_node, general = node_errors(PUBLICACAO, [bpmn, header])
    assert (by_node, general) == ({"review": [bpmn]}, [header])


def test_comparing_versions_reports_removed_added_and_changed_fields() -> None:
    newer = copy.deepcopy(PUBLICACAO)
    newer["nodes"] = [n for n in newer["nodes"] if n["id"] != "rejected"]
    newer["nodes"][1] = {**newer["nodes"][1], "queue": "diario.outra", "outcomes": {"a": "b"}}
    newer["nodes"].append({"id": "archived", "type": "end"})
    changes = {c.id: (c.change, c.fields) for c in compare(PUBLICACAO, newer)}
    assert changes["rejected"] == ("removed", [])
    assert changes["archived"] == ("added", [])
    assert changes["review"] == ("changed", ["queue", "outcomes"])
    assert changes["publish"] == ("same", [])
