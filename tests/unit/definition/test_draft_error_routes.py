"""The draft editor keeps a service task's error routes consistent: they are listed as
transitions, follow a renamed target, go with a removed one, and can be disconnected."""

from __future__ import annotations

from typing import Any

from services.workflow.definition.drafts.links import disconnect
from services.workflow.definition.drafts.ops import find, links, remove_node, rename_node


def _doc() -> dict[str, Any]:
    return {
        "format": 1,
        "key": "t.errors",
        "name": "T",
        "protocol_prefix": "TST",
        "nodes": [
            {"id": "begin", "type": "start", "next": "charge"},
            {
                "id": "charge",
                "type": "service_task",
                "handler": "h.x",
                "next": "done",
                "errors": [
                    {"code": "payment_refused", "next": "refused", "store": "refusal"},
                    {"code": "*", "next": "done"},
                ],
            },
            {"id": "refused", "type": "manual_task", "queue": "q", "next": "done"},
            {"id": "done", "type": "end"},
        ],
    }


def test_error_routes_are_listed_as_transitions() -> None:
    found = [(link.key, link.target) for link in links(find(_doc(), "charge"))]
    assert found == [
        ("next", "done"),
        ("error.0.payment_refused", "refused"),
        ("error.1.*", "done"),
    ]
    assert "payment_refused" in links(find(_doc(), "charge"))[1].label


def test_renaming_a_target_renames_the_route() -> None:
    doc = rename_node(_doc(), "refused", "notify").document
    assert find(doc, "charge")["errors"][0]["next"] == "notify"


def test_removing_a_target_removes_its_route_and_says_so() -> None:
    applied = remove_node(_doc(), "refused")
    assert find(applied.document, "charge")["errors"] == [{"code": "*", "next": "done"}]
    assert [(r.source, r.link.key) for r in applied.removed] == [
        ("charge", "error.0.payment_refused")
    ]


def test_disconnecting_the_last_routes_removes_errors() -> None:
    doc = disconnect(_doc(), "charge", "error.1.*").document
    doc = disconnect(doc, "charge", "error.0.payment_refused").document
    assert "errors" not in find(doc, "charge")
