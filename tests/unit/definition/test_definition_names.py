"""Human names: a node a person works on is refused at publish without a name people read;
versions published before the rule still load."""

from __future__ import annotations

from typing import Any

import pytest
from wfdocs import end, errors_of, flow, one, start, task, work
from wfkit import COMPILER, KNOWN, TABLES

from contracts.errors import DefinitionInvalid
from services.workflow.definition import compile_definition, parse_definition
from services.workflow.definition.model import canonical_json


def _nameless(kind: str, name: Any = None) -> dict[str, Any]:
    node: dict[str, Any] = {"id": "work", "type": kind, "queue": "people"}
    if kind == "approval":
        node["outcomes"] = {"ok": "finish", "no": "finish"}
    else:
        node["next"] = "finish"
    if name is not None:
        node["name"] = name
    return node


@pytest.mark.parametrize("kind", ["approval", "user_task", "manual_task"])
@pytest.mark.parametrize("name", [None, "", "   "])
def test_a_node_a_person_works_on_needs_a_name(kind: str, name: str | None) -> None:
    error = one(flow(start(), _nameless(kind, name), end()), "missing_name", "work")
    assert error.path == "nodes[1] (work).name"


def test_a_name_longer_than_two_hundred_characters_is_refused() -> None:
    one(flow(start(), _nameless("user_task", "x" * 201), end()), "name_too_long", "work")


def test_a_named_task_and_nameless_automatic_steps_publish() -> None:
    doc = flow(start(), task("work", {"ok": "svc", "no": "finish"}), work("svc"), end())
    assert not [e for e in errors_of(doc) if e.code == "missing_name"]


def test_publishing_refuses_and_a_stored_version_still_compiles() -> None:
    defn = parse_definition(flow(start(), _nameless("user_task"), end()))
    with pytest.raises(DefinitionInvalid) as caught:
        compile_definition(defn, KNOWN, COMPILER, TABLES)
    assert [e.code for e in caught.value.errors] == ["missing_name"]
    model = compile_definition(defn, KNOWN, COMPILER, TABLES, stored=True)
    assert "work" in model.nodes


def _named_outcomes(names: dict[str, str]) -> dict[str, Any]:
    node = task("work", {"ok": "finish", "no": "finish"})
    node["outcome_names"] = names
    doc: dict[str, Any] = flow(start(), node, end())
    return doc


def test_outcome_names_publish_and_name_real_outcomes() -> None:
    assert errors_of(_named_outcomes({"ok": "Deferir", "no": "Indeferir"})) == []
    error = one(_named_outcomes({"ok": "Deferir", "maybe": "Talvez"}), "unknown_outcome", "work")
    assert error.path == "nodes[1] (work).outcome_names.maybe"


def test_a_blank_outcome_name_is_refused() -> None:
    error = one(_named_outcomes({"ok": "  "}), "missing_name", "work")
    assert error.path == "nodes[1] (work).outcome_names.ok"


def test_outcome_names_leave_the_checksum_of_a_definition_without_them_alone() -> None:
    doc = flow(start(), task("work", {"ok": "finish", "no": "finish"}), end())
    assert b"outcome_names" not in canonical_json(parse_definition(doc))
    named = canonical_json(parse_definition(_named_outcomes({"ok": "Deferir"})))
    assert b'"outcome_names":{"ok":"Deferir"}' in named
