"""A service task's error boundary events (``errors``): checked when the definition is
published, each problem with its path; the stored key is available on the error path only."""

from __future__ import annotations

from typing import Any

import pytest
from wfdocs import end, errors_of, flow, one, start, work

from contracts.errors import DefinitionInvalid
from services.workflow.definition import canonical_json, parse_definition


def refused(consumes: tuple[str, ...] = ()) -> dict[str, Any]:
    return {
        "id": "refused",
        "type": "service_task",
        "handler": "work.do",
        "consumes": list(consumes),
        "next": "finish",
    }


def test_a_valid_error_route_passes() -> None:
    routes = [
        {"code": "payment_refused", "next": "refused", "store": "refusal"},
        {"code": "*", "next": "finish"},
    ]
    doc = flow(start(), work(errors=routes), refused(("refusal",)), end())
    assert errors_of(doc) == []


def test_an_error_route_to_an_unknown_node_is_refused_with_its_path() -> None:
    doc = flow(start(), work(errors=[{"code": "payment_refused", "next": "nowhere"}]), end())
    error = one(doc, "unknown_target", "work")
    assert error.path == "nodes[1] (work).errors[0].next"


def test_a_code_routed_twice_is_refused() -> None:
    routes = [{"code": "payment_refused", "next": "finish"}] * 2
    error = one(flow(start(), work(errors=routes), end()), "duplicate_error_code", "work")
    assert error.path == "nodes[1] (work).errors"
    assert "`payment_refused`" in error.message


def test_the_stored_key_is_not_available_on_the_success_path() -> None:
    routes = [{"code": "payment_refused", "next": "finish"}]
    doc = flow(start(), work(nxt="refused", errors=routes), refused(("refusal",)), end())
    one(doc, "consumes_not_produced", "refused")


def test_the_stored_key_must_not_be_a_success_output() -> None:
    routes = [{"code": "payment_refused", "next": "finish", "store": "x2"}]
    node = work(errors=routes, produces=["x2"])
    error = one(flow(start(), node, end()), "error_store_produced", "work")
    assert error.path == "nodes[1] (work).errors[0].store"


@pytest.mark.parametrize("code", ["Payment", "has space", ""])
def test_a_code_that_is_not_an_identifier_is_refused(code: str) -> None:
    doc = flow(start(), work(errors=[{"code": code, "next": "finish"}]), end())
    with pytest.raises(DefinitionInvalid) as refused:
        parse_definition(doc)
    (error,) = refused.value.errors
    assert error.path == "nodes[1] (work).errors[0].code"
    assert "`payment_refused`" in error.message


def test_a_node_without_errors_keeps_its_stored_bytes() -> None:
    assert b'"errors"' not in canonical_json(parse_definition(flow(start(), work(), end())))
