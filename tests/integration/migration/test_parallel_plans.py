"""Planning a migration of an instance with open parallel branches (pure: no database)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import msgspec
import pytest

from services.workflow.definition import CompiledModel, KnownNames, compile_definition
from services.workflow.definition.model import parse_definition
from services.workflow.definition.ports import BUILTIN_QUEUES
from services.workflow.rules import RuleEngine
from services.workflow.runtime.kernel.events import Migrated, Started, TokenMove
from services.workflow.runtime.kernel.migration_plan import plan_instance
from services.workflow.runtime.kernel.state import InstanceState, initial_state
from services.workflow.runtime.kernel.transitions import decide, replay_versions
from tests.fakes.purchase import EXAMPLES

T0 = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)
RULES = RuleEngine()
KNOWN = KnownNames(
    handlers=frozenset({"contract.remind", "contract.sign", "contract.void"}),
    forms=frozenset(),
    queues=BUILTIN_QUEUES
    | {f"contracts.{q}" for q in ("legal", "finance", "directors", "board", "operators")},
    providers=frozenset(),
)


def review(**changes: Any) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((EXAMPLES / "parallel_review.json").read_text())
    text = json.dumps(doc)
    for old, new in changes.items():
        text = text.replace(f'"{old}"', f'"{new}"')
    out: dict[str, Any] = json.loads(text)
    return out


def compiled(doc: dict[str, Any]) -> CompiledModel:
    return compile_definition(parse_definition(doc), KNOWN, RULES, RULES)


def with_notes(state: InstanceState) -> InstanceState:
    """As if every note were already written, so only the parallel rules can block."""
    notes = {"legal_note": "n", "finance_note": "n", "signature_id": "x"}
    return msgspec.structs.replace(state, context=state.context | notes)


def started(model: CompiledModel) -> tuple[Started, InstanceState]:
    event = Started(at=T0, input={"supplier_id": "s-1", "amount": 10}, actor="author")
    return event, decide(model, initial_state(), event, T0).new_state


@pytest.fixture(scope="module")
def v1() -> CompiledModel:
    return compiled(review())


def test_branch_tokens_renamed_in_the_target_reenter_their_branch(v1: CompiledModel) -> None:
    v2 = compiled(review(legal_review="legal_check"))
    _, state = started(v1)
    plans, blockers = plan_instance(v1, v2, state, {"legal_review": "legal_check"})
    assert blockers == ()
    assert {(p.token_id, p.to_node, p.action) for p in plans} == {
        ("t.0", "legal_check", "reenter"),
        ("t.1", "finance_review", "keep"),
    }


def test_an_open_parallel_token_with_no_target_blocks(v1: CompiledModel) -> None:
    v2 = compiled(review(legal_review="legal_check"))
    _, state = started(v1)
    _, blockers = plan_instance(v1, v2, state, {})
    assert [(b.code, b.token_id) for b in blockers] == [("parallel_token_unmapped", "t.0")]


def test_a_branch_token_mapped_outside_its_fork_blocks(v1: CompiledModel) -> None:
    _, state = started(v1)
    _, blockers = plan_instance(v1, v1, with_notes(state), {"legal_review": "sign"})
    assert [b.code for b in blockers] == ["parallel_scope_mismatch"]


def test_two_branches_mapped_into_one_blocks(v1: CompiledModel) -> None:
    _, state = started(v1)
    _, blockers = plan_instance(v1, v1, with_notes(state), {"legal_review": "board"})
    assert "parallel_branches_merged" in [b.code for b in blockers]


def test_replay_switches_models_at_the_migration(v1: CompiledModel) -> None:
    v2 = compiled(review(legal_review="legal_check"))
    start, state = started(v1)
    plans, _ = plan_instance(v1, v2, state, {"legal_review": "legal_check"})
    moves = tuple(
        TokenMove(
            token_id=p.token_id, from_node=p.from_node, to_node=p.to_node or "", action=p.action
        )  # type: ignore[arg-type]
        for p in plans
    )
    migrated = Migrated(
        at=T0, from_version_id="v1", to_version_id="v2", from_version=1, to_version=2,
        mapping={"legal_review": "legal_check"}, moves=moves, actor="operator",
    )  # fmt: skip
    after = decide(v2, state, migrated, T0).new_state
    assert sorted(t.node_id for t in after.tokens) == ["finance_review", "legal_check"]
    assert replay_versions({"v1": v1, "v2": v2}, "v1", [start, migrated]) == after
