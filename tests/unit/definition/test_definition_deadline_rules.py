"""``deadline: {rule}`` on timers: publishing refuses a rule key nobody registered."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from wfdocs import end, flow, start, task
from wfkit import COMPILER, KNOWN, TABLES

from contracts.errors import FieldError
from services.workflow.definition import parse_definition, validate

LEGAL = msgspec.structs.replace(
    KNOWN,
    deadline_rules=frozenset({"lai.request", "lai.appeal_window"}),
    extendable_rules=frozenset({"lai.request"}),
)


def errors(doc: dict[str, Any]) -> list[FieldError]:
    return validate(parse_definition(doc), LEGAL, COMPILER, TABLES)


def boundary(deadline: dict[str, Any], **more: Any) -> dict[str, Any]:
    timers = [{"id": "prazo", "deadline": deadline, "next": "finish", **more}]
    return flow(start(), task("work", {"ok": "finish", "no": "finish"}, timers=timers), end())


def test_a_boundary_timer_naming_a_registered_rule_is_valid() -> None:
    assert errors(boundary({"rule": "lai.request"})) == []
    assert errors(boundary({"rule": "lai.request", "extension": True})) == []


def test_a_rule_key_nobody_registered_is_refused_at_publish() -> None:
    (error,) = errors(boundary({"rule": "lai.pedido"}))
    assert error.code == "unknown_deadline_rule"
    assert error.path == "nodes[1] (work).timers[0].deadline.rule"
    assert "`lai.pedido`" in error.message


def test_an_extension_of_a_rule_without_extensions_is_refused() -> None:
    (error,) = errors(boundary({"rule": "lai.appeal_window", "extension": True}))
    assert error.code == "rule_not_extendable"


def test_a_timer_cannot_name_a_rule_and_a_duration_at_once() -> None:
    (error,) = errors(boundary({"rule": "lai.request"}, duration="P20D"))
    assert error.code == "timer_spec"


@pytest.mark.parametrize(
    ("fields", "code"),
    [
        ({"deadline": {"rule": "nope.rule"}}, "unknown_deadline_rule"),
        ({"deadline": {"rule": "lai.request"}, "duration": "PT1H"}, "timer_spec"),
    ],
)
def test_an_intermediate_timer_node_names_rules_the_same_way(
    fields: dict[str, Any], code: str
) -> None:
    node = {"id": "work", "type": "timer", "next": "finish", **fields}
    assert [e.code for e in errors(flow(start(), node, end()))] == [code]
    ok = {"id": "work", "type": "timer", "next": "finish", "deadline": {"rule": "lai.request"}}
    assert errors(flow(start(), ok, end())) == []
