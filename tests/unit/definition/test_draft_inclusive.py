"""The draft editor's operations on an inclusive (OR) gateway: added like any step, its fork
gains a branch per condition and one default path (a second default replaces the first, and the
replaced one is reported), its join gets its single way out without a condition, and the two
roles never mix. A draft built only with these operations validates; a bad condition or a
missing join is the real validation's to report."""

from __future__ import annotations

from typing import Any

import pytest
from wfdocs import errors_of

from services.workflow.definition.drafts.links import connect, disconnect
from services.workflow.definition.drafts.ops import (
    NODE_TYPES,
    OpError,
    add_node,
    find,
    links,
    remove_node,
    rename_node,
)
from services.workflow.definition.drafts.props import new_document, set_condition, set_properties


def _added(*steps: tuple[str, str]) -> dict[str, Any]:
    doc = new_document("test.flow", "Licença", "LIC")
    after = "start"
    for node_id, kind in steps:
        doc = add_node(doc, node_id, kind, after=after).document
        after = node_id
    return doc


def _service(doc: dict[str, Any], *ids: str) -> dict[str, Any]:
    for node_id in ids:
        doc = set_properties(doc, node_id, {"handler": "work.do"}).document
    return doc


def _fork_and_join() -> dict[str, Any]:
    """start → split ⟨area > 100 → urban, noise → environment, default → archive⟩ → join → end,
    every edge drawn with ``connect``; the start's data as a copied version would have it."""
    doc = _added(
        ("split", "inclusive"),
        ("urban", "service_task"),
        ("environment", "service_task"),
        ("archive", "service_task"),
        ("join", "inclusive"),
    )
    doc = _service(doc, "urban", "environment", "archive")
    doc = connect(doc, "start", "split").document
    doc = connect(doc, "split", "urban", condition="area > 100").document
    doc = connect(doc, "split", "environment", condition="noise").document
    doc = connect(doc, "split", "archive", default=True).document
    for branch in ("urban", "environment", "archive"):
        doc = connect(doc, branch, "join").document
    doc = connect(doc, "join", "end").document
    find(doc, "start")["produces"] = ["area", "noise"]
    return doc


def test_the_inclusive_gateway_is_offered_and_added_by_its_type_code() -> None:
    assert "inclusive" in NODE_TYPES
    doc = _added(("split", "inclusive"))
    assert find(doc, "split") == {"id": "split", "type": "inclusive"}


def test_a_fork_gets_a_branch_per_condition_and_one_default() -> None:
    doc = _fork_and_join()
    split = find(doc, "split")
    assert split["branches"] == [
        {"when": "area > 100", "next": "urban"},
        {"when": "noise", "next": "environment"},
    ]
    assert split["default"] == "archive"
    assert "next" not in split
    assert find(doc, "join")["next"] == "end"
    assert [link.key for link in links(split)] == ["branch.0", "branch.1", "default"]


def test_a_draft_built_with_the_operations_validates() -> None:
    assert errors_of(_fork_and_join()) == []


def test_a_second_default_replaces_the_first_and_says_so() -> None:
    applied = connect(_fork_and_join(), "split", "urban", default=True)
    assert find(applied.document, "split")["default"] == "urban"
    assert [str(r) for r in applied.removed] == ["split caso contrário para archive"]


def test_a_default_with_a_condition_or_outside_a_gateway_is_refused() -> None:
    doc = _fork_and_join()
    with pytest.raises(OpError) as both:
        connect(doc, "split", "urban", condition="area > 1", default=True)
    with pytest.raises(OpError) as not_gateway:
        connect(doc, "urban", "join", default=True)
    assert list(both.value.errors) == ["default"]
    assert "deixe a condição vazia" in both.value.errors["default"]
    assert list(not_gateway.value.errors) == ["default"]


def test_a_fork_and_a_join_never_mix() -> None:
    doc = _fork_and_join()
    with pytest.raises(OpError) as join_on_fork:
        connect(doc, "split", "end")
    with pytest.raises(OpError) as condition_on_join:
        connect(doc, "join", "archive", condition="noise")
    with pytest.raises(OpError) as default_on_join:
        connect(doc, "join", "archive", default=True)
    assert "bifurca por condições" in join_on_fork.value.errors["condition"]
    assert "junção que vai para end" in condition_on_join.value.errors["condition"]
    assert list(default_on_join.value.errors) == ["condition"]
    assert (find(doc, "split"), find(doc, "join")) == (
        find(_fork_and_join(), "split"),
        find(_fork_and_join(), "join"),
    )


def test_a_join_gets_its_one_way_out_replaced() -> None:
    applied = connect(_fork_and_join(), "join", "archive")
    assert find(applied.document, "join")["next"] == "archive"
    assert [str(r) for r in applied.removed] == ["join segue para end"]


def test_without_its_branches_and_default_a_fork_may_become_a_join() -> None:
    doc = _fork_and_join()
    for key in ("default", "branch.1", "branch.0"):
        doc = disconnect(doc, "split", key).document
    doc = connect(doc, "split", "join").document
    assert find(doc, "split")["next"] == "join"


def test_the_condition_of_an_inclusive_branch_is_rewritten_in_place() -> None:
    doc = set_condition(_fork_and_join(), "split", "1", "noise && area > 0").document
    assert find(doc, "split")["branches"][1] == {"when": "noise && area > 0", "next": "environment"}


def test_renaming_and_removing_follow_the_branches_and_the_default() -> None:
    doc = rename_node(_fork_and_join(), "archive", "arquivo").document
    assert find(doc, "split")["default"] == "arquivo"
    applied = remove_node(doc, "urban")
    assert find(applied.document, "split")["branches"] == [{"when": "noise", "next": "environment"}]
    assert [str(r) for r in applied.removed] == ["split condição 1 para urban"]


def test_a_bad_condition_and_a_missing_join_are_reported_by_validation() -> None:
    doc = set_condition(_fork_and_join(), "split", "0", "zoning > 1").document
    codes = {e.code for e in errors_of(doc)}
    assert "expression_invalid" in codes
    for branch in ("urban", "environment", "archive"):
        doc = connect(doc, branch, "end").document
    codes = {e.code for e in errors_of(doc)}
    assert "parallel_unbalanced" in codes
    assert "inclusive_shape" in codes  # the join left with no incoming flow
