"""Parsing: shapes and types come from msgspec, errors come back as plain sentences."""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest
from wfkit import EXAMPLES, example, example_doc

from contracts.errors import DefinitionInvalid, FieldError
from services.workflow.definition import canonical_json, checksum, parse_definition
from services.workflow.definition.model import IntegrationNode, ServiceTaskNode

PURCHASE_CHECKSUM = "193f099b920a4b8c25f4f7d18045d9784bc54c442c7772f419d69d467554e4be"
"""examples/purchase_approval.json as published before ``third_party`` existed."""


def _parse_error(doc: Any) -> FieldError:
    with pytest.raises(DefinitionInvalid) as info:
        parse_definition(doc)
    assert len(info.value.errors) == 1
    return info.value.errors[0]


@pytest.mark.parametrize("name", ["purchase_approval", "six_node", "parallel_review"])
def test_examples_parse(name: str) -> None:
    assert parse_definition((EXAMPLES / f"{name}.json").read_bytes()).format == 1


def test_parse_accepts_str_bytes_and_mappings_alike() -> None:
    doc = example_doc("six_node")
    text = json.dumps(doc)
    assert parse_definition(text) == parse_definition(text.encode()) == parse_definition(doc)


def test_unknown_field_names_the_node_and_the_field() -> None:
    doc = example_doc("purchase_approval")
    doc["nodes"][4]["retries"] = 3
    error = _parse_error(doc)
    assert error.code == "unknown_field"
    assert error.path == "nodes[4] (reserve_stock).retries"
    assert "`retries` is not a field" in error.message


def test_wrong_type_is_a_plain_sentence() -> None:
    doc = example_doc("purchase_approval")
    doc["nodes"][3]["outcomes"]["approve"] = 7
    error = _parse_error(doc)
    assert error.code == "wrong_type"
    assert error.path == "nodes[3] (manager_approval).outcomes"
    assert error.message == "Every value of `outcomes` must be a string, not a whole number."


def test_missing_required_field_is_reported_with_its_name() -> None:
    doc = example_doc("purchase_approval")
    del doc["nodes"][3]["queue"]
    error = _parse_error(doc)
    assert (error.code, error.path) == ("missing_field", "nodes[3] (manager_approval).queue")
    assert "`queue` is required" in error.message


def test_unknown_node_type_lists_the_valid_types() -> None:
    doc = example_doc("six_node")
    doc["nodes"][2]["type"] = "aproval"
    error = _parse_error(doc)
    assert error.code == "invalid_value"
    assert error.path == "nodes[2] (review).type"
    assert "'aproval'" in error.message and "approval, user_task" in error.message


def test_boundary_timers_on_a_service_task_are_refused_at_parse_time() -> None:
    doc = example_doc("purchase_approval")
    doc["nodes"][4]["timers"] = [{"id": "late", "duration": "PT1H", "next": "expired"}]
    error = _parse_error(doc)
    assert error.code == "unknown_field"
    assert error.path == "nodes[4] (reserve_stock).timers"
    assert "only allowed on approval, user_task, manual_task, call and subprocess" in error.message


def test_an_end_node_cannot_have_next() -> None:
    doc = example_doc("six_node")
    doc["nodes"][5]["next"] = "submit"
    error = _parse_error(doc)
    assert error.path == "nodes[5] (done).next"
    assert "end node has no outgoing flow" in error.message


def test_bad_identifier_explains_the_expected_format() -> None:
    doc = example_doc("six_node")
    doc["nodes"][1]["id"] = "Validate Step"
    error = _parse_error(doc)
    assert error.code == "invalid_format"
    assert error.path == "nodes[1] (Validate Step).id"
    assert "lowercase identifier" in error.message


def test_out_of_range_number() -> None:
    doc = example_doc("purchase_approval")
    doc["nodes"][5]["failure"]["max_attempts"] = 0
    error = _parse_error(doc)
    assert (error.code, error.path) == (
        "out_of_range",
        "nodes[5] (charge_payment).failure.max_attempts",
    )
    assert error.message == "`max_attempts` must be at least 1."


def test_protocol_prefix_format() -> None:
    doc = example_doc("six_node")
    doc["protocol_prefix"] = "doc"
    error = _parse_error(doc)
    assert error.path == "protocol_prefix" and "capital letters" in error.message


def test_malformed_json_is_reported_without_a_traceback() -> None:
    error = _parse_error(b'{"format": 1, "nodes": [')
    assert (error.code, error.path) == ("malformed_json", "definition")


def test_integration_is_an_alias_of_service_task_that_round_trips() -> None:
    node = example("six_node").nodes[3]
    assert isinstance(node, IntegrationNode) and isinstance(node, ServiceTaskNode)
    assert b'"type":"integration"' in canonical_json(example("six_node"))


def test_checksum_is_stable_across_key_order_whitespace_and_explicit_defaults() -> None:
    doc = example_doc("purchase_approval")
    reordered = json.loads(json.dumps(doc, sort_keys=True, indent=4))
    reordered["nodes"][4]["failure"] = {"max_attempts": 5}  # the default, written out
    assert checksum(parse_definition(doc)) == checksum(parse_definition(reordered))


def test_checksum_changes_when_content_changes() -> None:
    doc = example_doc("purchase_approval")
    before = checksum(parse_definition(doc))
    doc["nodes"][2]["branches"][0]["when"] = "value > 20000"
    assert checksum(parse_definition(doc)) != before


def test_canonical_json_parses_back_to_the_same_definition() -> None:
    defn = example("parallel_review")
    again = parse_definition(canonical_json(defn))
    assert again == defn
    assert canonical_json(again) == canonical_json(defn)
    assert len(checksum(defn)) == 64


def test_a_definition_without_third_party_keys_keeps_the_checksum_it_had_before_the_field() -> None:
    doc = example_doc("purchase_approval")
    for node in doc["nodes"]:  # the example names its outcomes since; without them, as before
        node.pop("outcome_names", None)
    assert b"third_party" not in canonical_json(parse_definition(doc))
    assert checksum(parse_definition(doc)) == PURCHASE_CHECKSUM
    doc["third_party"] = ["requester"]
    assert msgspec.json.decode(canonical_json(parse_definition(doc)))["third_party"] == [
        "requester"
    ]


def test_definitions_are_immutable() -> None:
    defn = example("six_node")
    with pytest.raises(AttributeError):
        defn.key = "other"  # type: ignore[misc]
    assert msgspec.json.decode(canonical_json(defn))["key"] == "document.publication"
